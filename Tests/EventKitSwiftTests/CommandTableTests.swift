import CDispatchCore
import EventKitSwift
import Synchronization
import Testing

/// A thread-safe log of what handlers saw.
final class Log: Sendable {
    private let entries = Mutex<[String]>([])
    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

struct Boom: Error, Equatable {}

@Suite("CommandTable")
struct CommandTableTests {
    @Test("Closures of every shape run in registration order with their arguments")
    func closuresRunInOrder() throws {
        let table = CommandTable(name: "player")
        let log = Log()
        var subscriptions = Set<Subscription>()
        table.on("toggle") { log.append("void") }.store(in: &subscriptions)
        table.on("toggle") { (on: Bool) in log.append("bool \(on)") }.store(in: &subscriptions)
        table.on("toggle") { (values: [Value]) -> Value in
            log.append("values \(values)")
            return .void
        }.store(in: &subscriptions)
        let result = try table.execute("toggle", true)
        #expect(result.handled == 3)
        #expect(log.all == ["void", "bool true", "values [bool(true)]"])
    }

    @Test("An object argument reaches an object closure as the same instance")
    func objectArgument() throws {
        let table = CommandTable()
        let log = Log()
        final class Item {}
        let item = Item()
        let expected = ObjectIdentifier(item)
        let subscription = table.on("select") { (values: [Value]) -> Value in
            guard case .object(let object)? = values.first else { return .void }
            log.append(object.map { ObjectIdentifier($0) == expected ? "same" : "other" } ?? "nil")
            return .void
        }
        try table.execute("select", .object(item))
        try table.execute("select", .object(nil))
        #expect(log.all == ["same", "nil"])
        withExtendedLifetime(subscription) {}
    }

    @Test("The first handler that returns a value gives the result")
    func firstReturnValue() throws {
        let table = CommandTable()
        let subscriptions = [
            table.on("compute") { (values: [Value]) -> Value in .void },
            table.on("compute") { (values: [Value]) -> Value in
                guard case .int64(let a) = values[0], case .double(let b) = values[1] else { return .void }
                return .double(Double(a) * b)
            },
            table.on("compute") { (values: [Value]) -> Value in .string("later") },
        ]
        let result = try table.execute("compute", .int64(2), .double(3.5))
        #expect(result.returnValue == .double(7))
        #expect(result.handled == 3)
        let last = try table.execute("compute", arguments: [.int64(2), .double(3.5)], accumulator: .last)
        #expect(last.returnValue == .string("later"))
        withExtendedLifetime(subscriptions) {}
    }

    @Test("A wrong argument type throws before any handler runs, naming event and types")
    func typeMismatchRunsNothing() throws {
        let table = CommandTable(name: "player")
        let log = Log()
        let subscriptions = [
            table.on("toggle") { log.append("void") },
            table.on("toggle") { (on: Bool) in log.append("bool") },
        ]
        let error = #expect(throws: DispatchError.self) { try table.execute("toggle", "yes") }
        #expect(error?.statusName == "DC_ERR_TYPE")
        #expect(error?.message.contains("toggle") == true)
        #expect(error?.message.contains("expected bool, got string") == true)
        #expect(log.all.isEmpty)
        withExtendedLifetime(subscriptions) {}
    }

    @Test("A handler that throws stops the emission and the execute rethrows its error")
    func throwingHandler() throws {
        let table = CommandTable()
        let log = Log()
        let subscriptions = [
            table.on("save") { log.append("first") },
            table.on("save") { (values: [Value]) throws -> Value in throw Boom() },
            table.on("save") { log.append("never") },
        ]
        #expect(throws: Boom.self) { try table.execute("save") }
        #expect(log.all == ["first"])
        // The error belonged to that execute only.
        subscriptions[1].cancel()
        #expect(try table.execute("save").handled == 2)
        withExtendedLifetime(subscriptions) {}
    }

    @Test("Releasing a closure's subscription removes the handler")
    func releasedSubscriptionRemovesHandler() throws {
        let table = CommandTable()
        let log = Log()
        var subscription: Subscription? = table.on("tick") { log.append("tick") }
        try table.execute("tick")
        #expect(table.handlerCount(for: "tick") == 1)
        subscription = nil
        #expect(table.handlerCount(for: "tick") == 0)
        try table.execute("tick")
        #expect(log.all == ["tick"])
        _ = subscription
    }

    @Test("Releasing the table releases its closures while their subscriptions live; cancelling later does nothing")
    func releasedTableReleasesClosures() {
        final class Captured: Sendable {}
        weak var weakCaptured: Captured?
        var subscription: Subscription?
        do {
            let table = CommandTable()
            let captured = Captured()
            weakCaptured = captured
            subscription = table.on("tick") { withExtendedLifetime(captured) {} }
        }
        #expect(weakCaptured == nil)
        #expect(subscription?.isCancelled == false)
        subscription?.cancel()
        #expect(subscription?.isCancelled == true)
    }

    @Test("A handler's error reaches an execute by typed key, which rethrows it once")
    func throwingHandlerTypedKey() throws {
        let table = CommandTable()
        let save: EventKey<Void> = "save"
        let log = Log()
        let subscriptions = [
            table.on(save) { log.append("first") },
            table.on("save") { (values: [Value]) throws -> Value in throw Boom() },
        ]
        #expect(throws: Boom.self) { try table.execute(save) }
        subscriptions[1].cancel()
        #expect(try table.execute(save).handled == 1)
        #expect(log.all == ["first", "first"])
        withExtendedLifetime(subscriptions) {}
    }

    @Test("An execute without arguments returns a handler's value, by name and by typed key")
    func returnValueWithoutArguments() throws {
        let table = CommandTable()
        let subscriptions = [
            table.on("name") { (_: [Value]) -> Value in .string("player") },
            table.on("ratio") { (_: [Value]) -> Value in .float(0.5) },
            table.on("reset") { (_: [Value]) -> Value in .void },
        ]
        #expect(try table.execute("name").returnValue == .string("player"))
        #expect(try table.execute(EventKey<Void>("name")).returnValue == .string("player"))
        #expect(try table.execute("ratio").returnValue == .float(0.5))
        #expect(try table.execute(EventKey<Void>("ratio")).returnValue == .float(0.5))
        #expect(try table.execute("reset").returnValue == nil)
        withExtendedLifetime(subscriptions) {}
    }

    @Test("Arguments by name reach a handler intact, strings and more than four of them included")
    func namedArgumentsReachHandler() throws {
        let table = CommandTable()
        let log = Log()
        let subscription = table.on("many") { (values: [Value]) -> Value in
            log.append("\(values)")
            return .void
        }
        try table.execute("many", "a", 1, "b", 2.5, true, "c")
        try table.execute("many", "only")
        try table.execute("many", 1, 2)
        let expected: [[Value]] = [
            [.string("a"), .int64(1), .string("b"), .double(2.5), .bool(true), .string("c")], [.string("only")],
            [.int64(1), .int64(2)],
        ]
        #expect(log.all == expected.map { "\($0)" })
        withExtendedLifetime(subscription) {}
    }

    @Test("Cancelling inside a handler during an execute stops later calls at once")
    func cancelInsideHandler() throws {
        let table = CommandTable()
        let log = Log()
        let box = Mutex<Subscription?>(nil)
        let first = table.on("tick") {
            log.append("first")
            box.withLock { $0?.cancel() }
        }
        let second = table.on("tick") { log.append("second") }
        box.withLock { $0 = second }
        try table.execute("tick")
        try table.execute("tick")
        #expect(log.all == ["first", "first"])
        #expect(second.isCancelled)
        withExtendedLifetime(first) {}
    }

    @Test("An unknown event is handled by nobody, unless a handler is required")
    func unknownEvent() throws {
        let table = CommandTable()
        #expect(try table.execute("nothing").handled == 0)
        #expect(throws: DispatchError.self) { try table.execute("nothing", arguments: [], requireHandler: true) }
    }

    @Test("A C function registered from Swift runs with its bound target and the event's arguments")
    func cFunctionWithTarget() throws {
        let table = CommandTable()
        let scale: @convention(c) (UnsafeMutableRawPointer?, Int64) -> Int64 = { target, value in
            value * Int64(Int(bitPattern: target))
        }
        let subscription = try table.register(
            "scale", function: scale, signature: Signature("q^vq"), target: UnsafeMutableRawPointer(bitPattern: 3))
        #expect(try table.execute("scale", .int64(14)).returnValue == .int64(42))
        #expect(table.removeAll(target: UnsafeMutableRawPointer(bitPattern: 3)!) == 1)
        #expect(try table.execute("scale", .int64(14)).handled == 0)
        _ = subscription
    }

    @Test("An execute reports a stop and a queued delivery, by name and by typed key")
    func stopsAndDeliveriesAreReported() throws {
        let table = CommandTable()
        let log = Log()
        // A C handler that stops the emission: Swift handlers stop one only by throwing.
        let stop: @convention(c) (UnsafeMutableRawPointer?) -> Void = { cTable in
            dc_table_stop_emission(OpaquePointer(cTable))
        }
        let before = table.on("halt") { log.append("before") }
        let stopper = try table.register(
            "halt", function: stop, signature: Signature("v^v"), target: UnsafeMutableRawPointer(table.unsafeCTable))
        let after = table.on("halt") { log.append("after") }
        for result in [try table.execute("halt"), try table.execute(EventKey<Void>("halt"))] {
            #expect(result.handled == 2)
            #expect(result.stopped)
        }
        #expect(log.all == ["before", "before"])

        // A queue this thread does not own: its handler is posted, not run.
        let queue = try EventQueue()
        runOnSeparateThread { queue.bindToCurrentThread() }
        let posted = table.on("post", on: .queue(queue)) { log.append("posted") }
        let here = table.on("post") { log.append("here") }
        for result in [try table.execute("post"), try table.execute(EventKey<Void>("post"))] {
            #expect(result.handled == 1)
            #expect(result.queued == 1)
            #expect(!result.stopped)
        }
        #expect(queue.pending == 2)
        withExtendedLifetime((before, stopper, after, posted, here)) {}
    }

    @Test("Events lists the events that have handlers")
    func eventsList() throws {
        let table = CommandTable()
        let subscriptions = [table.on("b") {}, table.on("a") {}]
        #expect(table.events == ["b", "a"])
        #expect(table.removeAll(for: "b") == 1)
        #expect(table.events == ["a"])
        withExtendedLifetime(subscriptions) {}
    }

    @Test("Every subscription cancels when released, whichever method returned it")
    func everySubscriptionCancelsOnRelease() throws {
        let table = CommandTable()
        let source = EventSourceOwner()
        let makers: [(String, () -> Subscription)] = [
            ("on(String) ()", { table.on("e") {} }),
            ("on(String) (Bool)", { table.on("e") { (_: Bool) in } }),
            ("on(String) ([Value])", { table.on("e") { (_: [Value]) in .void } }),
            ("on(EventKey<Void>)", { table.on(EventKey<Void>("e")) {} }),
            ("on(EventKey<Bool>)", { table.on(EventKey<Bool>("e")) { _ in } }),
            ("on(EventKey<(Int, Int)>)", { table.on(EventKey<(Int, Int)>("e")) { _, _ in } }),
            ("on(String, on: .dispatchQueue)", { table.on("e", on: .dispatchQueue(.global())) {} }),
        ]
        for (name, make) in makers {
            do {
                let subscription = make()
                #expect(table.handlerCount(for: "e") == 1, "\(name)")
                withExtendedLifetime(subscription) {}
            }
            #expect(table.handlerCount(for: "e") == 0, "\(name): releasing its subscription removes it")
        }
        do {
            let subscription = source.ended.add {}
            #expect(source.ended.handlerCount == 1)
            withExtendedLifetime(subscription) {}
        }
        #expect(source.ended.handlerCount == 0, "Event.add: releasing its subscription removes it")
    }

}

/// An owner of an event, for the subscription test.
private final class EventSourceOwner {
    @EventSource("ended") var ended: Event<EventSourceOwner, Void>
}
