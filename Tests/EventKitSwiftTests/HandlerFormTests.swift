import EventKitSwift
import Foundation
import Testing

// The one family of `on`: every option on every form it makes sense for
// (delivery with phase, owners that throw, string literals as keys), and the
// forms that stay apart only where Swift's types must (the main actor, a key
// of one argument, a key without arguments).

private struct Refused: Error, Equatable {}

private final class Tally {
    var count = 0
}

@Suite("Handler forms")
struct HandlerFormTests {
    @Test("A string literal is a key whose types the closure gives: an execute by name of another type runs nothing")
    func literalKeyTypesTheEvent() throws {
        let table = CommandTable()
        let log = Log()
        let subscription = table.on("resize") { (width: Int, height: Int) in log.append("\(width)x\(height)") }
        try table.execute("resize", 640, 480)
        let message = expectDispatchError(DispatchError.typeMismatch) { try table.execute("resize", "wide", 480) }
        #expect(message.contains("resize"))
        #expect(log.all == ["640x480"])
        withExtendedLifetime(subscription) {}
    }

    @Test("A name in a variable, or interpolated, makes the same key as its literal")
    func variableAndInterpolatedNames() throws {
        let table = CommandTable()
        let log = Log()
        let name = "volume"
        let index = 2
        let subscriptions = [
            table.on(EventKey(name)) { (level: Double) in log.append("variable \(level)") },
            table.on("channel.\(index)") { (level: Double) in log.append("interpolated \(level)") },
        ]
        try table.execute("volume", 0.5)
        try table.execute("channel.2", 0.25)
        #expect(log.all == ["variable 0.5", "interpolated 0.25"])
        withExtendedLifetime(subscriptions) {}
    }

    @Test("A delivered handler takes a phase: it runs after the event's normal handlers, and a second default throws")
    func deliveredHandlerTakesAPhase() throws {
        let table = CommandTable()
        let queue = try EventQueue()
        let log = Log()
        let subscriptions = [
            table.on("save", on: .queue(queue), phase: .after) { log.append("after, queued") },
            table.on("save", on: .queue(queue)) { log.append("normal, queued") },
            table.on(EventKey<Int>("count"), on: .init(delivery: .queue(queue)), phase: .after) { log.append("count \($0)") },
        ]
        let defaultHandler = try table.on("save", on: .queue(queue), phase: .runLast) { log.append("default") }
        #expect(throws: DispatchError.self) {
            try table.on("save", on: .queue(queue), phase: .runFirst) { log.append("second default") }
        }
        // On the queue's owner thread the deliveries run at once, in order.
        try table.execute("save")
        try table.execute(EventKey<Int>("count"), 3)
        #expect(queue.drain() == 0)
        #expect(log.all == ["normal, queued", "default", "after, queued", "count 3"])
        withExtendedLifetime((subscriptions, defaultHandler)) {}
    }

    @Test("An owner's handler may throw: the emission stops and the caller gets the error")
    func ownerHandlerThrows() throws {
        let table = CommandTable()
        let tally = Tally()
        table.on(EventKey<Int>("deposit"), owner: tally) { (tally, amount: Int) throws(Refused) in
            guard amount > 0 else { throw Refused() }
            tally.count += amount
        }
        let later = Log()
        let subscription = table.on(EventKey<Int>("deposit"), phase: .after) { later.append("after \($0)") }
        try table.execute(EventKey<Int>("deposit"), 5)
        #expect(throws: Refused()) { try table.execute(EventKey<Int>("deposit"), -1) }
        #expect(tally.count == 5)
        #expect(later.all == ["after 5"], "the error stopped the emission before the after-handler")
        withExtendedLifetime(subscription) {}
    }

    @Test("A closure without arguments that throws takes the general form, and its error reaches the caller")
    func throwingClosureWithoutArguments() throws {
        let table = CommandTable()
        let subscription = table.on(EventKey<Void>("flush")) { () throws(Refused) in throw Refused() }
        #expect(throws: Refused()) { try table.execute(EventKey<Void>("flush")) }
        #expect(throws: Refused()) { try table.execute("flush") }
        withExtendedLifetime(subscription) {}
    }

    @Test("A malformed key delivered elsewhere registers nothing, as on the executing thread, and crashes nothing")
    func malformedKeyDelivered() throws {
        let table = CommandTable()
        let queue = try EventQueue()
        let subscriptions = [
            table.on("::size", on: .queue(queue)) {},
            table.on("notify::", on: .dispatchQueue(.global())) { (value: Int) in _ = value },
            table.on("a::b::c", on: .dispatchQueue(.global())) { (values: [Value]) in _ = values },
        ]
        #expect(subscriptions.allSatisfy { $0.isCancelled })
        withExtendedLifetime(subscriptions) {}
    }
}
