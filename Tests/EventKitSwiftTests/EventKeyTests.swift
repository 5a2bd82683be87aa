import CDispatchCore
import EventKitSwift
import Synchronization
import Testing

extension EventKey where Arguments == Void {
    static let reset: EventKey<Void> = "reset"
}

extension EventKey where Arguments == Bool {
    static let toggle: EventKey<Bool> = "toggle"
}

extension EventKey where Arguments == (String, Int) {
    static let rename: EventKey<(String, Int)> = "rename"
}

extension EventKey where Arguments == (Int8, Double, String?) {
    static let configure: EventKey<(Int8, Double, String?)> = "configure"
}

extension EventKey where Arguments == (Int, Int, Int, Int) {
    static let four: EventKey<(Int, Int, Int, Int)> = "four"
}

extension EventKey where Arguments == (Bool, Int8, UInt16, Int32, UInt64, Float, Double, Int) {
    static let eight: EventKey<(Bool, Int8, UInt16, Int32, UInt64, Float, Double, Int)> = "eight"
}

extension EventKey where Arguments == (String, Track, Int8, String?) {
    static let mixed: EventKey<(String, Track, Int8, String?)> = "mixed"
}

/// A class that travels as an object argument of typed keys.
final class Track: NullableEventArgument {
    let title: String
    init(title: String) { self.title = title }
}

final class Album: EventArgument {}

enum PlayMode: Int32, EventArgument {
    case once = 1, loop = 2
}

extension EventKey where Arguments == Track {
    static let select: EventKey<Track> = "select"
}

extension EventKey where Arguments == Album {
    static let open: EventKey<Album> = "open"
}

/// The values one handler received, in order.
final class Received<A: Sendable>: Sendable {
    private let values = Mutex<[A]>([])
    func append(_ value: A) { values.withLock { $0.append(value) } }
    var all: [A] { values.withLock { $0 } }
}

/// Executes a fresh key with `value` and returns what its typed handler got.
func roundTrip<A: EventArgument & Sendable>(_ value: A) throws -> [A] {
    let table = CommandTable()
    let key = EventKey<A>("value")
    let received = Received<A>()
    let subscription = table.on(key) { received.append($0) }
    let result = try table.execute(key, value)
    #expect(result.handled == 1)
    withExtendedLifetime(subscription) {}
    return received.all
}

@Suite("EventKey")
struct EventKeyTests {
    @Test("Every EventArgument type round-trips through a typed key")
    func everyArgumentTypeRoundTrips() throws {
        #expect(try roundTrip(true) == [true])
        #expect(try roundTrip(false) == [false])
        #expect(try roundTrip(Int.min) == [Int.min])
        #expect(try roundTrip(Int8.min) == [Int8.min])
        #expect(try roundTrip(Int16.min) == [Int16.min])
        #expect(try roundTrip(Int32.min) == [Int32.min])
        #expect(try roundTrip(Int64.min) == [Int64.min])
        #expect(try roundTrip(UInt.max) == [UInt.max])
        #expect(try roundTrip(UInt8.max) == [UInt8.max])
        #expect(try roundTrip(UInt16.max) == [UInt16.max])
        #expect(try roundTrip(UInt32.max) == [UInt32.max])
        #expect(try roundTrip(UInt64.max) == [UInt64.max])
        #expect(try roundTrip(Float(1.5)) == [1.5])
        #expect(try roundTrip(Double.pi) == [Double.pi])
        #expect(try roundTrip("grüße") == ["grüße"])
        #expect(try roundTrip(String?.some("maybe")) == [String?.some("maybe")])
        #expect(try roundTrip(String?.none) == [String?.none])
        #expect(try roundTrip(PlayMode.loop) == [.loop])
    }

    @Test("Pointers, optional pointers and optional objects travel through a typed key")
    func pointersAndOptionalObjectsRoundTrip() throws {
        let table = CommandTable()
        let key = EventKey<(UnsafeRawPointer, UnsafeMutablePointer<Int32>?, OpaquePointer?, Track?)>("pointers")
        let received = Received<String>()
        let subscription = table.on(key) { raw, typed, opaque, track in
            received.append("\(Int(bitPattern: raw)) \(typed?.pointee ?? -1) \(opaque == nil) \(track?.title ?? "none")")
        }
        var value: Int32 = 42
        let result = try withUnsafeMutablePointer(to: &value) { typed in
            try table.execute(key, UnsafeRawPointer(bitPattern: 0x40)!, typed, nil, Track(title: "intro"))
        }
        #expect(result.handled == 1)
        #expect(try table.execute(key, UnsafeRawPointer(bitPattern: 0x80)!, nil, OpaquePointer(bitPattern: 8), nil).handled == 1)
        #expect(received.all == ["64 42 true intro", "128 -1 false none"])
        // A null where the key's type is not optional is refused; the handler does not run.
        expectDispatchError(DispatchError.typeMismatch) {
            _ = try table.execute("pointers", .pointer(nil), .pointer(nil), .pointer(nil), .object(nil))
        }
        #expect(received.all.count == 2)
        withExtendedLifetime(subscription) {}
    }

    @Test("A typed execute hands C each built-in scalar as its own type and value")
    func scalarArgumentsReachCAsTheirType() throws {
        let table = CommandTable()
        let received = Received<String>()
        let subscription = table.on("value") { (values: [Value]) -> Value in
            values.forEach { received.append("\($0)") }
            return .void
        }
        // Concrete types at each call, so the inlined execute is specialized
        // for each, as in a client's code.
        try table.execute(EventKey<Bool>("value"), true)
        try table.execute(EventKey<Int8>("value"), Int8.min)
        try table.execute(EventKey<UInt8>("value"), UInt8.max)
        try table.execute(EventKey<Int16>("value"), Int16.min)
        try table.execute(EventKey<UInt16>("value"), UInt16.max)
        try table.execute(EventKey<Int32>("value"), Int32.min)
        try table.execute(EventKey<UInt32>("value"), UInt32.max)
        try table.execute(EventKey<Int64>("value"), Int64.min)
        try table.execute(EventKey<Int>("value"), -2)
        try table.execute(EventKey<UInt64>("value"), UInt64.max)
        try table.execute(EventKey<UInt>("value"), 7)
        try table.execute(EventKey<Float>("value"), -1.5)
        try table.execute(EventKey<Double>("value"), Double.pi)
        try table.execute(EventKey<PlayMode>("value"), .loop)
        let expected: [Value] = [
            .bool(true), .int8(.min), .uint8(.max), .int16(.min), .uint16(.max), .int32(.min), .uint32(.max),
            .int64(.min), .int64(-2), .uint64(.max), .uint64(7), .float(-1.5), .double(.pi), PlayMode.loop.eventValue,
        ]
        #expect(received.all == expected.map { "\($0)" })
        withExtendedLifetime(subscription) {}
    }

    @Test("A typed handler of each built-in scalar gets the exact value, typed, by name, or converted")
    func scalarHandlersGetExactValues() throws {
        let table = CommandTable()
        let received = Received<String>()
        // Concrete types at each registration, so each closure is specialized
        // as in a client's code.
        let subscriptions = [
            table.on(EventKey<Bool>("bool")) { received.append("bool \($0)") },
            table.on(EventKey<Int8>("int8")) { received.append("int8 \($0)") },
            table.on(EventKey<UInt8>("uint8")) { received.append("uint8 \($0)") },
            table.on(EventKey<Int16>("int16")) { received.append("int16 \($0)") },
            table.on(EventKey<UInt16>("uint16")) { received.append("uint16 \($0)") },
            table.on(EventKey<Int32>("int32")) { received.append("int32 \($0)") },
            table.on(EventKey<UInt32>("uint32")) { received.append("uint32 \($0)") },
            table.on(EventKey<Int64>("int64")) { received.append("int64 \($0)") },
            table.on(EventKey<Int>("int")) { received.append("int \($0)") },
            table.on(EventKey<UInt64>("uint64")) { received.append("uint64 \($0)") },
            table.on(EventKey<UInt>("uint")) { received.append("uint \($0)") },
            table.on(EventKey<Float>("float")) { received.append("float \($0)") },
            table.on(EventKey<Double>("double")) { received.append("double \($0)") },
        ]
        try table.execute(EventKey<Bool>("bool"), true)
        try table.execute("bool", .bool(false))
        try table.execute(EventKey<Int8>("int8"), .min)
        try table.execute("int8", .int64(-5))
        try table.execute(EventKey<UInt8>("uint8"), .max)
        try table.execute("uint8", .int32(7))
        try table.execute(EventKey<Int16>("int16"), .min)
        try table.execute("int16", .int8(-1))
        try table.execute(EventKey<UInt16>("uint16"), .max)
        try table.execute(EventKey<Int32>("int32"), .min)
        try table.execute("int32", .int64(-70_000))
        try table.execute(EventKey<UInt32>("uint32"), .max)
        try table.execute(EventKey<Int64>("int64"), .min)
        try table.execute(EventKey<Int>("int"), -2)
        try table.execute("int", .int8(-3))
        try table.execute(EventKey<UInt64>("uint64"), .max)
        try table.execute(EventKey<UInt>("uint"), .max)
        try table.execute(EventKey<Float>("float"), -1.5)
        try table.execute("float", .float(.infinity))
        try table.execute(EventKey<Double>("double"), .pi)
        try table.execute("double", .float(0.25))
        #expect(
            received.all == [
                "bool true", "bool false", "int8 -128", "int8 -5", "uint8 255", "uint8 7", "int16 -32768",
                "int16 -1", "uint16 65535", "int32 -2147483648", "int32 -70000", "uint32 4294967295",
                "int64 -9223372036854775808", "int -2", "int -3", "uint64 18446744073709551615",
                "uint 18446744073709551615", "float -1.5", "float inf", "double 3.141592653589793", "double 0.25",
            ])
        withExtendedLifetime(subscriptions) {}
    }

    @Test("Typed handlers of two and three built-in scalars get each value, typed, by name, or converted")
    func scalarTuplesArriveExactly() throws {
        let table = CommandTable()
        let received = Received<String>()
        let pair = EventKey<(Int8, Double)>("pair")
        let triple = EventKey<(Bool, UInt16, Float)>("triple")
        let subscriptions = [
            table.on(pair) { received.append("pair \($0) \($1)") },
            table.on(triple) { received.append("triple \($0) \($1) \($2)") },
        ]
        try table.execute(pair, .min, -0.5)
        try table.execute("pair", .int64(7), .float(1.5))
        try table.execute(triple, true, .max, .infinity)
        try table.execute("triple", .bool(false), .int32(300), .double(0.25))
        expectDispatchError(DispatchError.typeMismatch) { try table.execute("pair", .int64(200), .double(1)) }
        #expect(
            received.all == [
                "pair -128 -0.5", "pair 7 1.5", "triple true 65535 inf", "triple false 300 0.25",
            ])
        withExtendedLifetime(subscriptions) {}
    }

    @Test("Bool handlers and values take any nonzero C bool byte as true")
    func anyNonzeroBoolIsTrue() throws {
        let table = CommandTable()
        let received = Received<Bool>()
        let subscription = table.on(EventKey<Bool>("flag")) { received.append($0) }
        // A C caller that fills the payload by hand.
        var values = [dc_bool(false), dc_bool(false)]
        values[0].u8 = 2
        values[1].u8 = 0
        for index in values.indices {
            #expect(dc_table_execute(table.unsafeCTable, "flag", &values[index], 1, nil) == DC_OK)
        }
        #expect(received.all == [true, false])

        // The same for a typed handler of several arguments, its bool not
        // the first.
        let levels = Received<Int8>()
        let pair = table.on(EventKey<(Int8, Bool)>("pair")) { level, on in
            levels.append(level)
            received.append(on)
        }
        var pairValues = [dc_int8(-3), values[0]]
        #expect(dc_table_execute(table.unsafeCTable, "pair", &pairValues, 2, nil) == DC_OK)
        #expect(levels.all == [-3] && received.all == [true, false, true])

        // The same for a closure of a string key and for a Value.
        let named = Received<String>()
        let more = [
            table.on("named") { (on: Bool) in named.append("closure \(on)") },
            table.on("values") { (values: [Value]) -> Value in
                named.append("value \(values[0])")
                return .void
            },
        ]
        #expect(dc_table_execute(table.unsafeCTable, "named", &values[0], 1, nil) == DC_OK)
        #expect(dc_table_execute(table.unsafeCTable, "values", &values[0], 1, nil) == DC_OK)
        #expect(named.all == ["closure true", "value \(Value.bool(true))"])

        // And for target-action, by name and by typed key.
        final class Switch: Sendable {
            let flips = Received<Bool>()
            func flip(_ on: Bool) { flips.append(on) }
        }
        let target = Switch()
        let actions = [
            table.addTarget(target, action: Switch.flip, named: "flip", for: "switch"),
            table.addTarget(target, action: Switch.flip, named: "flip", for: EventKey<Bool>("typed-switch")),
        ]
        #expect(dc_table_execute(table.unsafeCTable, "switch", &values[0], 1, nil) == DC_OK)
        #expect(dc_table_execute(table.unsafeCTable, "typed-switch", &values[0], 1, nil) == DC_OK)
        #expect(target.flips.all == [true, true])
        withExtendedLifetime((subscription, pair, more, actions)) {}
    }

    @Test("Keys declared as static members run handlers with zero to three arguments")
    func staticKeysRunHandlers() throws {
        let table = CommandTable()
        let log = Log()
        var subscriptions = Set<Subscription>()
        table.on(.reset) { log.append("reset") }.store(in: &subscriptions)
        table.on(.toggle) { (on: Bool) in log.append("toggle \(on)") }.store(in: &subscriptions)
        table.on(.rename) { (title: String, index: Int) in log.append("rename \(title) \(index)") }
            .store(in: &subscriptions)
        table.on(.configure) { (level: Int8, gain: Double, label: String?) in
            log.append("configure \(level) \(gain) \(label ?? "nil")")
        }.store(in: &subscriptions)

        try table.execute(.reset)
        try table.execute(.toggle, true)
        try table.execute(.rename, "intro", 3)
        try table.execute(.configure, -2, 0.5, nil)
        #expect(log.all == ["reset", "toggle true", "rename intro 3", "configure -2 0.5 nil"])
    }

    @Test("Keys of four and eight arguments run closures, typed by the key alone, by key and by name")
    func keysOfFourAndEightArguments() throws {
        let table = CommandTable()
        let log = Log()
        var subscriptions = Set<Subscription>()
        table.on(.four) { a, b, c, d in log.append("four \(a + b + c + d)") }.store(in: &subscriptions)
        table.on(.eight) { flag, small, short, middle, wide, single, double, int in
            log.append("eight \(flag) \(small) \(short) \(middle) \(wide) \(single) \(double) \(int)")
        }.store(in: &subscriptions)
        table.on(.mixed) { title, track, level, label in
            log.append("mixed \(title) \(track.title) \(level) \(label ?? "nil")")
        }.store(in: &subscriptions)

        #expect(try table.execute(.four, 1, 20, 300, 4000).handled == 1)
        try table.execute(.eight, true, -8, 65535, -32, UInt64.max, 0.5, -0.25, 8)
        try table.execute(.mixed, "intro", Track(title: "a"), 3, nil)
        // The same events by name, from values the core converts.
        try table.execute("four", .int8(1), .int16(2), .int32(3), .uint8(4))
        try table.execute(
            "eight", .bool(false), .int64(1), .int64(2), .int64(3), .int64(4), .double(1.5), .float(2.5), .int64(5))
        try table.execute("mixed", .string("outro"), .object(Track(title: "b")), .int64(-1), .string("x"))
        #expect(
            log.all == [
                "four 4321", "eight true -8 65535 -32 18446744073709551615 0.5 -0.25 8", "mixed intro a 3 nil",
                "four 10", "eight false 1 2 3 4 1.5 2.5 5", "mixed outro b -1 x",
            ])
        // A value that does not fit one of the eight runs nothing.
        expectDispatchError(DispatchError.typeMismatch) {
            try table.execute(
                "eight", .bool(true), .int64(300), .int64(2), .int64(3), .int64(4), .double(1), .double(2), .int64(5))
        }
        #expect(log.all.count == 6)
    }

    @Test("Target-actions and owned closures of four and eight arguments get every argument")
    func targetActionsOfFourAndEightArguments() throws {
        final class Receiver: Sendable {
            let log = Log()
            func four(_ a: Int, _ b: Int, _ c: Int, _ d: Int) { log.append("four \(a) \(b) \(c) \(d)") }
            func eight(
                _ flag: Bool, _ small: Int8, _ short: UInt16, _ middle: Int32, _ wide: UInt64, _ single: Float,
                _ double: Double, _ int: Int
            ) { log.append("eight \(flag) \(small) \(int)") }
            func mixed(_ title: String, _ track: Track, _ level: Int8, _ label: String?) {
                log.append("mixed \(title) \(track.title) \(level) \(label ?? "nil")")
            }
        }
        let table = CommandTable()
        let receiver = Receiver()
        table.addTarget(receiver, action: Receiver.four, named: "four", for: .four)
        table.addTarget(receiver, action: Receiver.eight, named: "eight", for: .eight)
        table.addTarget(receiver, action: Receiver.mixed, named: "mixed", for: .mixed)
        table.on(.four, owner: receiver) { receiver, a, _, _, d in receiver.log.append("owned \(a) \(d)") }
        try table.execute(.four, 1, 2, 3, 4)
        try table.execute(.eight, true, 7, 1, 2, 3, 4, 5, 6)
        try table.execute(.mixed, "intro", Track(title: "a"), 3, "x")
        #expect(
            receiver.log.all == [
                "four 1 2 3 4", "owned 1 4", "eight true 7 6", "mixed intro a 3 x",
            ])
        #expect(table.removeTarget(receiver) == 4)
    }

    @Test("A run-time event name becomes a key that executes with typed Swift values, checked by the table")
    func runTimeNameWithTypedValues() throws {
        let table = CommandTable()
        let log = Log()
        var subscriptions = Set<Subscription>()
        table.on(.rename) { title, index in log.append("rename \(title) \(index)") }.store(in: &subscriptions)
        table.on(.eight) { flag, _, _, _, _, _, _, int in log.append("eight \(flag) \(int)") }
            .store(in: &subscriptions)
        let names = ["rename", "eight"]
        let title = "intro", index = 3, flag = true
        try table.execute(EventKey(names[0]), title, index)
        try table.execute(EventKey(names[1]), flag, Int8(1), UInt16(2), Int32(3), UInt64(4), Float(5), 6.0, 7)
        expectDispatchError(DispatchError.typeMismatch) { try table.execute(EventKey(names[0]), index, title) }
        #expect(log.all == ["rename intro 3", "eight true 7"])
    }

    @Test("The string API rejects a wrong argument type at run time and runs nothing")
    func stringAPIRejectsWrongTypeAtRunTime() throws {
        let table = CommandTable(name: "player")
        let log = Log()
        let subscriptions = [
            table.on("toggle") { log.append("untyped") },
            table.on(.toggle) { (on: Bool) in log.append("typed \(on)") },
        ]
        // With the typed key the same mistake does not compile:
        //     try table.execute(.toggle, "yes")
        //     error: cannot convert value of type 'String' to expected argument type 'Bool'
        let message = expectDispatchError(DispatchError.typeMismatch) {
            try table.execute("toggle", "yes")
        }
        #expect(message.contains("toggle"))
        #expect(message.contains("expected bool, got string"))
        #expect(log.all.isEmpty)
        // The same event by name, with the right type, reaches both handlers.
        #expect(try table.execute("toggle", true).handled == 2)
        #expect(log.all == ["untyped", "typed true"])
        withExtendedLifetime(subscriptions) {}
    }

    @Test("A key's cached id never carries one table's id into another table")
    func cachedIDIsPerTable() throws {
        let first = CommandTable(name: "first")
        let second = CommandTable(name: "second")
        let log = Log()
        var subscriptions = Set<Subscription>()
        // In `second`, "decoy" is interned before "toggle", so the two tables
        // give "toggle" different ids; handing `first`'s id to `second` would
        // run the decoy.
        second.on("decoy") { log.append("decoy") }.store(in: &subscriptions)
        first.on(.toggle) { (on: Bool) in log.append("first \(on)") }.store(in: &subscriptions)
        second.on(.toggle) { (on: Bool) in log.append("second \(on)") }.store(in: &subscriptions)

        try first.execute(.toggle, true)
        try second.execute(.toggle, false)
        try first.execute(.toggle, false)
        try second.execute(.toggle, true)
        #expect(log.all == ["first true", "second false", "first false", "second true"])
    }

    @Test("A string literal's one key, used with two tables in turn, always reaches the table it is used with")
    func literalKeyAcrossTables() throws {
        let first = CommandTable(name: "first")
        let second = CommandTable(name: "second")
        let log = Log()
        // "decoy" first in `second`, so the two tables give the literal's
        // event different ids.
        let decoy = second.on("decoy") { log.append("decoy") }
        for round in 0..<3 {
            for (name, table) in [("first", first), ("second", second)] {
                let subscription = table.on("literal.kept") { (value: Int) in log.append("\(name) \(value)") }
                try table.execute("literal.kept", round)
                subscription.cancel()
                try table.execute("literal.kept", -1)
                #expect(table.handlerCount(for: "literal.kept") == 0)
            }
        }
        #expect(log.all == ["first 0", "second 0", "first 1", "second 1", "first 2", "second 2"])
        // A key made from a name and an interpolated one name the same event.
        let subscription = first.on(EventKey<Int>("literal.kept")) { value in log.append("by name \(value)") }
        let number = 7
        try first.execute("literal.\("kept")", number)
        #expect(log.all.last == "by name 7")
        withExtendedLifetime((decoy, subscription)) {}
    }

    @Test("A string event's object closure takes an instance of its class or nil, and refuses another class")
    func objectClosureOfOneClass() throws {
        let table = CommandTable(name: "library")
        let log = Log()
        let subscription = table.on("select") { (track: Track?) in log.append(track?.title ?? "none") }
        try table.execute("select", .object(Track(title: "intro")))
        try table.execute("select", .object(nil))
        expectDispatchError(DispatchError.typeMismatch) { try table.execute("select", .object(Album())) }
        #expect(log.all == ["intro", "none"])
        withExtendedLifetime(subscription) {}
    }

    @Test("Typed and named executes reach the same handlers")
    func typedAndNamedExecutesMeet() throws {
        let table = CommandTable()
        let log = Log()
        let subscriptions = [
            table.on("rename") { (values: [Value]) in
                log.append("named \(values)")
                return .void
            },
            table.on(.rename) { (title: String, index: Int) in log.append("typed \(title) \(index)") },
        ]
        try table.execute(.rename, "a", 1)
        try table.execute("rename", "b", 2)
        #expect(
            log.all == [
                #"named [string("a"), int64(1)]"#, "typed a 1", #"named [string("b"), int64(2)]"#, "typed b 2",
            ])
        #expect(table.handlerCount(for: .rename) == 2)
        withExtendedLifetime(subscriptions) {}
    }

    @Test("A typed handler receives a named argument converted to its type, and rejects one that does not fit")
    func namedArgumentsAreConverted() throws {
        let table = CommandTable()
        let key = EventKey<UInt8>("level")
        let received = Received<UInt8>()
        let subscription = table.on(key) { received.append($0) }
        try table.execute("level", .int64(200))
        expectDispatchError(DispatchError.typeMismatch) { try table.execute("level", .int64(-1)) }
        #expect(received.all == [200])
        withExtendedLifetime(subscription) {}
    }

    @Test("A null string for a String argument stops the execute with a type mismatch")
    func nullStringIsNotAString() throws {
        let table = CommandTable()
        let strict = EventKey<String>("title")
        let lenient = EventKey<String?>("title")
        let log = Log()
        let subscriptions = [
            table.on(lenient) { log.append("lenient \($0 ?? "nil")") },
            table.on(strict) { log.append("strict \($0)") },
        ]
        let message = expectDispatchError(DispatchError.typeMismatch) {
            try table.execute("title", .string(nil))
        }
        #expect(message.contains("argument 0"))
        #expect(log.all == ["lenient nil"])
        withExtendedLifetime(subscriptions) {}
    }

    @Test("An object key passes the same instance, and an object of another class is rejected")
    func objectKeys() throws {
        let table = CommandTable()
        let track = Track(title: "intro")
        let album = Album()
        let titles = Received<String>()
        let albums = Received<ObjectIdentifier>()
        let subscriptions = [
            table.on(.select) { (selected: Track) in titles.append(selected.title) },
            table.on(.open) { (opened: Album) in albums.append(ObjectIdentifier(opened)) },
        ]
        try table.execute(.select, track)
        try table.execute(.open, album)
        expectDispatchError(DispatchError.typeMismatch) { try table.execute("select", .object(album)) }
        #expect(titles.all == ["intro"])
        #expect(albums.all == [ObjectIdentifier(album)])
        withExtendedLifetime(subscriptions) {}
    }

    @Test("A class conforming to EventArgument travels inside a tuple key")
    func objectInsideTuple() throws {
        let table = CommandTable()
        let key = EventKey<(Track, PlayMode)>("play")
        let log = Log()
        let subscription = table.on(key) { (track: Track, mode: PlayMode) in log.append("\(track.title) \(mode)") }
        try table.execute(key, Track(title: "outro"), .once)
        try table.execute("play", .object(Track(title: "bonus")), .int32(2))
        expectDispatchError(DispatchError.typeMismatch) {
            try table.execute("play", .object(Track(title: "bad")), .int32(7))
        }
        #expect(log.all == ["outro once", "bonus loop"])
        withExtendedLifetime(subscription) {}
    }

    @Test("Keys are equal and hash alike when their names are, and describe themselves by name")
    func keysCompareByName() {
        let made = EventKey<Bool>("toggle")
        #expect(made == .toggle)
        #expect(Set([made, .toggle]).count == 1)
        #expect(made != EventKey<Bool>("other"))
        #expect(EventKey<Bool>.toggle.description == "toggle")
        #expect(EventKey<(String, Int)>.rename.name == "rename")
    }

    @Test("Each EventArgument type declares the C type it travels as")
    func valueTypes() {
        #expect(Bool.valueType == .bool)
        #expect(Int.valueType == .int64)
        #expect(UInt.valueType == .uint64)
        #expect(Int16.valueType == .int16)
        #expect(Float.valueType == .float)
        #expect(String.valueType == .string)
        #expect(String?.valueType == .string)
        #expect(Track.valueType == .object)
        #expect(PlayMode.valueType == .int32)
        #expect(UInt8(eventValue: .int64(300)) == nil)
        #expect(Float(eventValue: .double(0.1)) == nil)
        #expect(PlayMode(eventValue: .int32(9)) == nil)
    }
}
