import CCookieSupport
import CDispatchCore
import Dispatch
import EventKitSwift
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A C handler bound to a `Log`, its target: logs the `timespec` it received.
private let logTime: @convention(c) (UnsafeMutableRawPointer?, timespec) -> Void = { target, time in
    Unmanaged<Log>.fromOpaque(target!).takeUnretainedValue().append("time \(time.tv_sec) \(time.tv_nsec)")
}

private let logDivision: @convention(c) (UnsafeMutableRawPointer?, div_t) -> Void = { target, quotient in
    Unmanaged<Log>.fromOpaque(target!).takeUnretainedValue().append("divided \(quotient.quot) \(quotient.rem)")
}

/// `outer` with its counts scaled by `factor`: a struct taken and returned in
/// memory.
private let scaleCounts: @convention(c) (test_outer, Int32) -> test_outer = { outer, factor in
    var scaled = outer
    scaled.counts = (outer.counts.0 * factor, outer.counts.1 * factor, outer.counts.2 * factor)
    return scaled
}

/// A struct too big for the room an execute gives a returned struct.
private let makeBig: @convention(c) (Int64) -> test_big = { seed in
    var big = test_big()
    big.values.0 = seed
    return big
}

/// What a `[Value]` handler received in place of a struct.
private enum StructArrival: Equatable, Sendable {
    /// A struct value, its copy.
    case structure(StructValue)
    /// An address, with the 16 bytes it pointed to during the call.
    case pointer([UInt8])
    /// Anything else, described.
    case other(String)

    init(_ value: Value) {
        switch value {
        case .structure(let structure): self = .structure(structure)
        case .pointer(let address?): self = .pointer(Array(UnsafeRawBufferPointer(start: address, count: 16)))
        default: self = .other(value.description)
        }
    }
}

@Suite("Struct handlers")
struct StructHandlerTests {
    // MARK: Arguments of C handlers

    @Test("A struct of another size than a C handler's parameter throws typeMismatch and runs no handler")
    func wrongSizeForCHandlerThrows() throws {
        let table = CommandTable()
        let log = Log()
        let before = table.on("time") { (_: [Value]) -> Value in
            log.append("swift")
            return .void
        }
        let registration = try table.register(
            "time", function: logTime, signature: Signature("v^v{timespec=qq}"),
            target: Unmanaged.passUnretained(log).toOpaque())
        let short = Value(struct: div_t(quot: 1, rem: 2))
        let message = expectDispatchError(DispatchError.typeMismatch) {
            try table.execute("time", short)
        }
        #expect(message.contains("{timespec=qq}"), "\(message)")
        expectDispatchError(DispatchError.typeMismatch) {
            try table.execute("time", arguments: [short])
        }
        expectDispatchError(DispatchError.typeMismatch) {
            try table.execute("time", .structure(StructValue(bytes: [UInt8](repeating: 0, count: 24))))
        }
        #expect(log.all.isEmpty)

        let result = try table.execute("time", Value(struct: timespec(tv_sec: 3, tv_nsec: 4)))
        #expect(result.handled == 2)
        #expect(log.all == ["swift", "time 3 4"])
        withExtendedLifetime((before, registration)) {}
    }

    @Test("A struct that came from C reaches a C handler only of its fields, whatever the names, not one of its size")
    func structFromCFitsOnlyItsLayout() throws {
        let divide: @convention(c) (Int32, Int32) -> div_t = div
        let quotient = try Invocation.call(divide, signature: Signature("{div_t=ii}ii"), arguments: [.int32(7), .int32(2)])
        let table = CommandTable()
        let log = Log()
        // Eight bytes too, other fields.
        let mixed = try table.register(
            "divided", function: logDivision, signature: Signature("v^v{mixed=if}"),
            target: Unmanaged.passUnretained(log).toOpaque())
        let message = expectDispatchError(DispatchError.typeMismatch) {
            try table.execute("divided", quotient)
        }
        #expect(message.contains("{ii}") && message.contains("{mixed=if}"), "\(message)")
        #expect(log.all.isEmpty)

        mixed.cancel()
        let renamed = try table.register(
            "divided", function: logDivision, signature: Signature("v^v{quotient=ii}"),
            target: Unmanaged.passUnretained(log).toOpaque())
        #expect(try table.execute("divided", quotient).handled == 1)
        #expect(log.all == ["divided 3 1"])
        withExtendedLifetime(renamed) {}
    }

    // MARK: Arguments of callbacks

    @Test("A callback taking structs receives copies of them, with their parameters' encodings, from a C caller")
    func callbackReceivesStructs() throws {
        let received = Mutex<[StructValue]>([])
        let callback = try CCallback(signature: Signature("q{timespec=qq}{test_outer=c{test_inner=sd}[3i]}q")) {
            arguments in
            received.withLock { structs in
                for case .structure(let structure) in arguments { structs.append(structure) }
            }
            guard case .int64(let add) = arguments[2] else { return .int64(-1) }
            let time = try arguments[0].structure(as: timespec.self)
            let outer = try arguments[1].structure(as: test_outer.self)
            return .int64(Int64(time.tv_sec) * 1000 + Int64(outer.counts.2) * 10 + Int64(outer.nested.small) + add)
        }
        let function = try callback.function(as: (@convention(c) (timespec, test_outer, Int64) -> Int64).self)
        let outer = test_outer(tag: 65, nested: test_inner(small: 4, value: 1.25), counts: (1, 2, 3))
        #expect(function(timespec(tv_sec: 5, tv_nsec: 6), outer, 100) == 5134)

        let structs = received.withLock { $0 }
        #expect(structs.map(\.encoding) == ["{timespec=qq}", "{test_outer=c{test_inner=sd}[3i]}"])
        #expect(structs.map(\.size) == [MemoryLayout<timespec>.size, MemoryLayout<test_outer>.size])
        // Copies: read after the call returned.
        let time = try #require(structs.first).load(as: timespec.self)
        #expect(time.tv_sec == 5 && time.tv_nsec == 6)
        let copied = try #require(structs.last).load(as: test_outer.self)
        #expect(copied.tag == 65 && copied.nested.small == 4 && copied.nested.value == 1.25)
        #expect(copied.counts == (1, 2, 3))
    }

    // MARK: Arguments of [Value] handlers

    @Test("A [Value] handler receives a struct from Swift as a copy of its bytes, of its size")
    func valuesHandlerReceivesAStructCopy() throws {
        let table = CommandTable()
        let received = Mutex<[StructArrival]>([])
        let subscription = table.on("bytes") { (values: [Value]) -> Value in
            received.withLock { $0 += values.map(StructArrival.init) }
            return .void
        }
        try table.execute("bytes", Value(struct: div_t(quot: 3, rem: 1)), .int32(5))
        guard case .structure(let structure)? = received.withLock({ $0 }).first else {
            Issue.record("expected a struct, got \(received.withLock { $0 })")
            return
        }
        #expect(structure == StructValue(div_t(quot: 3, rem: 1)))
        #expect(structure.size == MemoryLayout<div_t>.size)
        #expect(structure.encoding == nil)
        #expect(received.withLock { $0 }.last == .other("int32(5)"))
        withExtendedLifetime(subscription) {}
    }

    @Test("A [Value] handler receives a C caller's struct of known size as a copy, one of unknown size as its address")
    func valuesHandlerReceivesCStructs() throws {
        let table = CommandTable()
        let received = Mutex<[StructArrival]>([])
        let subscription = table.on("time") { (values: [Value]) -> Value in
            received.withLock { $0 += values.map(StructArrival.init) }
            return .void
        }
        var time = timespec(tv_sec: 1, tv_nsec: 2)
        let bytes = withUnsafeBytes(of: time) { Array($0) }
        withUnsafeMutableBytes(of: &time) { buffer in
            var sized = dc_struct_of(buffer.baseAddress, buffer.count)
            #expect(dc_table_execute(table.unsafeCTable, "time", &sized, 1, nil) == DC_OK)
            var unsized = dc_struct(buffer.baseAddress)
            #expect(dc_table_execute(table.unsafeCTable, "time", &unsized, 1, nil) == DC_OK)
        }
        #expect(received.withLock { $0 } == [.structure(StructValue(bytes: bytes)), .pointer(bytes)])
        withExtendedLifetime(subscription) {}
    }

    @Test("A table callback called from C gives a [Value] handler its struct argument as a copy")
    func tableCallbackGivesAStructCopy() throws {
        let table = CommandTable()
        let received = Mutex<[StructArrival]>([])
        let subscription = table.on("time") { (values: [Value]) -> Value in
            received.withLock { $0 += values.map(StructArrival.init) }
            return .void
        }
        let callback = try table.callback(for: "time", signature: Signature("v{timespec=qq}"))
        let function = try callback.function(as: (@convention(c) (timespec) -> Void).self)
        function(timespec(tv_sec: 7, tv_nsec: 8))
        #expect(received.withLock { $0 } == [.structure(StructValue(timespec(tv_sec: 7, tv_nsec: 8)))])
        withExtendedLifetime(subscription) {}
    }

    @Test("A sender/arguments action receives a struct as a copy")
    func targetActionReceivesAStruct() throws {
        let table = CommandTable()
        let log = Log()
        let controller = PlayerController(log: log)
        table.addTarget(controller, action: PlayerController.send, named: "send", for: "send")
        try table.execute("send", Value(struct: div_t(quot: 3, rem: 1)))
        #expect(log.all == ["send nil [structure(8 bytes 03000000 01000000)]"])
        withExtendedLifetime(controller) {}
    }

    @Test("A struct delivered to a DispatchQueue arrives as a copy that outlives the execute")
    func deliveredStructIsACopy() throws {
        let table = CommandTable()
        let queue = DispatchQueue(label: "struct.delivery")
        let received = Mutex<[StructArrival]>([])
        let subscription = table.on("time", on: .dispatchQueue(queue)) { (values: [Value]) in
            received.withLock { $0 += values.map(StructArrival.init) }
        }
        for second in 0..<3 {
            try table.execute("time", Value(struct: timespec(tv_sec: second, tv_nsec: 9)))
        }
        queue.sync {}
        #expect(
            received.withLock { $0 } == (0..<3).map { .structure(StructValue(timespec(tv_sec: $0, tv_nsec: 9))) })
        withExtendedLifetime(subscription) {}
    }

    @Test("A struct for a [Value] handler on an EventQueue another thread owns arrives as a copy made when posted")
    func queuedStructIsCopied() throws {
        let table = CommandTable()
        let queue = try EventQueue()
        runOnSeparateThread { queue.bindToCurrentThread() }
        let received = Mutex<[StructArrival]>([])
        let subscription = table.on("time", on: .queue(queue)) { (values: [Value]) in
            received.withLock { $0 += values.map(StructArrival.init) }
        }
        let result = try table.execute("time", Value(struct: timespec(tv_sec: 1, tv_nsec: 2)))
        #expect(result.queued == 1 && result.dropped == 0)
        queue.bindToCurrentThread()
        #expect(queue.drain() == 1)
        #expect(received.withLock { $0 } == [.structure(StructValue(timespec(tv_sec: 1, tv_nsec: 2)))])
        withExtendedLifetime(subscription) {}
    }

    // MARK: Structs C handlers return

    @Test("An execute with arguments returns a copy of the struct a C handler returned, in registers or in memory")
    func executeReturnsACHandlersStruct() throws {
        let table = CommandTable()
        let divide: @convention(c) (Int32, Int32) -> div_t = div
        let outerType = "{test_outer=c{test_inner=sd}[3i]}"
        let registrations = [
            try table.register("divide", function: divide, signature: Signature("{div_t=ii}ii")),
            try table.register("scale", function: scaleCounts, signature: Signature(outerType + outerType + "i")),
        ]
        let first = try table.execute("divide", arguments: [.int32(7), .int32(2)])
        #expect(first.handled == 1)
        #expect(first.returnValue == Value(struct: div_t(quot: 3, rem: 1)))
        // A copy: another execute leaves it as it was.
        let second = try table.execute("divide", arguments: [.int32(100), .int32(7)])
        #expect(try second.returnValue?.structure(as: div_t.self).quot == 14)
        #expect(try first.returnValue?.structure(as: div_t.self).quot == 3)

        let outer = test_outer(tag: 1, nested: test_inner(small: 2, value: 0.5), counts: (1, 2, 3))
        let scaled = try table.execute("scale", arguments: [Value(struct: outer), .int32(10)])
        let returned = try #require(try scaled.returnValue?.structure(as: test_outer.self))
        #expect(returned.counts == (10, 20, 30))
        #expect(returned.tag == 1 && returned.nested.small == 2 && returned.nested.value == 0.5)
        withExtendedLifetime(registrations) {}
    }

    @Test("The accumulator chooses which handler's struct an execute returns")
    func accumulatorChoosesTheStruct() throws {
        let table = CommandTable()
        let divide: @convention(c) (Int32, Int32) -> div_t = div
        let sum: @convention(c) (Int32, Int32) -> div_t = { a, b in div_t(quot: a + b, rem: -1) }
        let registrations = [
            try table.register("pair", function: divide, signature: Signature("{div_t=ii}ii")),
            try table.register("pair", function: sum, signature: Signature("{div_t=ii}ii")),
        ]
        let first = try table.execute("pair", arguments: [.int32(9), .int32(4)])
        let last = try table.execute("pair", arguments: [.int32(9), .int32(4)], accumulator: .last)
        #expect(first.handled == 2 && last.handled == 2)
        #expect(first.returnValue == Value(struct: div_t(quot: 2, rem: 1)))
        #expect(last.returnValue == Value(struct: div_t(quot: 13, rem: -1)))
        withExtendedLifetime(registrations) {}
    }

    @Test("Every execute returns the struct a C handler returned: by name or by key, values, typed values, none, or an array")
    func everyExecuteByNameKeepsTheStruct() throws {
        let table = CommandTable()
        let divide: @convention(c) (Int32, Int32) -> div_t = div
        let seven: @convention(c) () -> div_t = { div_t(quot: 7, rem: 0) }
        let registrations = [
            try table.register("divide", function: divide, signature: Signature("{div_t=ii}ii")),
            try table.register("seven", function: seven, signature: Signature("{div_t=ii}")),
        ]
        let expected = Value(struct: div_t(quot: 3, rem: 1))
        let dividend: Int32 = 7, divisor: Int32 = 2
        #expect(try table.execute("divide", .int32(7), .int32(2)).returnValue == expected)
        #expect(try table.execute("divide", dividend, divisor).returnValue == expected)
        #expect(try table.execute("divide", arguments: [.int32(7), .int32(2)]).returnValue == expected)
        #expect(try table.execute("seven").returnValue == Value(struct: div_t(quot: 7, rem: 0)))
        let divideKey = EventKey<(Int32, Int32)>("divide"), sevenKey = EventKey<Void>("seven")
        #expect(try table.execute(divideKey, dividend, divisor).returnValue == expected)
        #expect(try table.execute(sevenKey).returnValue == Value(struct: div_t(quot: 7, rem: 0)))
        withExtendedLifetime(registrations) {}
    }

    @Test("A struct too big for the room an execute gives is no return value")
    func unkeptStructsAreNoReturnValue() throws {
        #expect(MemoryLayout<test_big>.size > CommandTable.maximumReturnedStructSize)
        let table = CommandTable()
        let divide: @convention(c) (Int32, Int32) -> div_t = div
        let registrations = [
            try table.register("big", function: makeBig, signature: Signature("{test_big=[40q]}q")),
            try table.register("divide", function: divide, signature: Signature("{div_t=ii}ii")),
        ]
        let big = try table.execute("big", arguments: [.int64(5)])
        #expect(big.handled == 1)
        #expect(big.returnValue == nil)
        #expect(try table.execute("big", .int64(5)).returnValue == nil)
        withExtendedLifetime(registrations) {}
    }
}
