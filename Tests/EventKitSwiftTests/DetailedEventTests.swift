import CDispatchCore
import EventKitSwift
import Testing

extension EventKey where Arguments == Int {
    /// GLib's "notify" signal, with the changed property as its detail.
    fileprivate static let notify: EventKey<Int> = "notify"
    fileprivate static let notifySize = EventKey.notify.detail("size")
}

@Suite("Detailed events")
struct DetailedEventTests {
    // GLib's detailed emission (gobject/tests/signals.c): "notify::size"
    // runs the handlers connected to "notify" and to "notify::size", not
    // those of "notify::title".
    @Test("Executing notify::size runs the plain and the size handlers in registration order, not the title ones")
    func detailedEmissionRunsPlainAndDetailHandlers() throws {
        let table = CommandTable(name: "widget")
        let log = Log()
        let subscriptions = [
            table.on("notify") { log.append("plain 1") },
            table.on("notify::size") { log.append("size") },
            table.on("notify::title") { log.append("title") },
            table.on("notify") { log.append("plain 2") },
        ]
        #expect(try table.execute("notify::size").handled == 3)
        #expect(log.all == ["plain 1", "size", "plain 2"])
        #expect(try table.execute("notify::title").handled == 3)
        #expect(try table.execute("notify").handled == 2)
        #expect(
            log.all == ["plain 1", "size", "plain 2", "plain 1", "title", "plain 2", "plain 1", "plain 2"])
        // A detail nobody added runs the plain handlers.
        #expect(try table.execute("notify::visible").handled == 2)
        withExtendedLifetime(subscriptions) {}
    }

    @Test("A typed key's detail has the key's argument types and is the string key notify::size")
    func typedDetailIsTheStringKey() throws {
        let table = CommandTable(name: "widget")
        let log = Log()
        #expect(EventKey<Int>.notifySize.name == "notify::size")
        #expect(EventKey<Int>.notifySize == EventKey<Int>("notify::size"))
        let subscriptions = [
            table.on(.notify) { value in log.append("any \(value)") },
            table.on(.notifySize) { value in log.append("size \(value)") },
            table.on("notify::size") { (value: Int) in log.append("by name \(value)") },
        ]
        try table.execute(.notifySize, 12)
        try table.execute("notify::size", 13)
        try table.execute(.notify, 14)
        var value = dc_int64(15)
        #expect(dc_table_execute(table.unsafeCTable, "notify::size", &value, 1, nil) == DC_OK)
        #expect(
            log.all == [
                "any 12", "size 12", "by name 12", "any 13", "size 13", "by name 13", "any 14", "any 15", "size 15",
                "by name 15",
            ])
        withExtendedLifetime(subscriptions) {}
    }

    @Test("A detailed execute checks its arguments against every handler it considers before any runs")
    func oneValidationBeforeAnyHandler() throws {
        let table = CommandTable(name: "widget")
        let log = Log()
        let subscriptions = [
            table.on("notify") { (value: Int) in log.append("plain \(value)") },
            table.on("notify::flag") { (on: Bool) in log.append("flag \(on)") },
        ]
        expectDispatchError(DispatchError.typeMismatch) { try table.execute("notify::flag", 1) }
        #expect(log.all.isEmpty)
        // The event without the detail does not consider the flag handler.
        try table.execute("notify", 2)
        #expect(log.all == ["plain 2"])
        withExtendedLifetime(subscriptions) {}
    }

    @Test("Malformed keys throw invalidArgument at execute, register nothing, and never trap")
    func malformedKeysThrowAndRegisterNothing() throws {
        let table = CommandTable(name: "widget")
        let log = Log()
        let malformedNames = ["::size", "notify::", "a::b::c", "a:::b"]
        let malformedKeys = [
            EventKey<Void>("notify").detail(""), EventKey<Void>("notify").detail("a::b"),
            EventKey<Void>("notify").detail(":x"), EventKey<Void>("notify::size").detail("width"),
        ]
        #expect(malformedKeys.map(\.name) == ["notify::", "notify::a::b", "notify:::x", "notify::size::width"])
        for name in malformedNames {
            let subscription = table.on(EventKey<Void>(name)) { log.append(name) }
            #expect(subscription.isCancelled)
            #expect(subscription.handlerID == nil)
            let message = expectDispatchError(DispatchError.invalidArgument) { try table.execute(name) }
            #expect(message.contains(name))
            #expect(table.handlers(for: name).isEmpty)
            #expect(table.handlerCount(for: name) == 0)
            expectDispatchError(DispatchError.invalidArgument) {
                _ = try table.addEmissionHook(for: name) { _ in true }
            }
        }
        for key in malformedKeys {
            let subscription = table.on(key) { log.append(key.name) }
            #expect(subscription.isCancelled)
            expectDispatchError(DispatchError.invalidArgument) { try table.execute(key) }
            expectDispatchError(DispatchError.invalidArgument) {
                _ = try table.on(key, phase: .runLast) { log.append("default") }
            }
        }
        #expect(log.all.isEmpty)
        #expect(table.events.isEmpty)
    }

    @Test("A detail cannot have a default handler of its own: registering one throws invalidArgument")
    func detailedKeyTakesNoDefaultHandler() throws {
        let table = CommandTable(name: "widget")
        expectDispatchError(DispatchError.invalidArgument) {
            _ = try table.on("notify::size", phase: .runFirst) {}
        }
        expectDispatchError(DispatchError.invalidArgument) {
            _ = try table.on(.notifySize, phase: .runLast) { _ in }
        }
        #expect(table.handlerCount(for: "notify") == 0)
    }

    @Test("Counting and removing by a detailed key take what an execute of that key considers")
    func countingAndRemovingByDetail() throws {
        let table = CommandTable(name: "widget")
        let log = Log()
        let subscriptions = [
            table.on("notify") { log.append("plain") },
            table.on("notify::size") { log.append("size") },
            table.on("notify::size") { log.append("size 2") },
            table.on("notify::title") { log.append("title") },
        ]
        #expect(table.handlerCount(for: "notify") == 1)
        #expect(table.handlerCount(for: "notify::size") == 3)
        #expect(table.handlerCount(for: EventKey<Void>("notify::title")) == 2)
        #expect(table.removeAll(for: "notify::size") == 2)
        #expect(table.handlerCount(for: "notify::size") == 1)
        #expect(table.handlerCount(for: "notify::title") == 2)
        // The event's removal takes its detailed handlers with it.
        #expect(table.removeAll(for: "notify") == 2)
        #expect(try table.execute("notify::title").handled == 0)
        #expect(log.all.isEmpty)
        withExtendedLifetime(subscriptions) {}
    }

    @Test("One detailed key works with two tables, each interning it for itself")
    func detailedKeyOnTwoTables() throws {
        let first = CommandTable(name: "first"), second = CommandTable(name: "second")
        let log = Log()
        let key = EventKey<Int>.notifySize
        let subscriptions = [
            first.on("unrelated") {},
            first.on(key) { value in log.append("first \(value)") },
            second.on(.notify) { value in log.append("second \(value)") },
        ]
        for round in 0..<2 {
            try first.execute(key, round)
            try second.execute(key, round)
        }
        #expect(log.all == ["first 0", "second 0", "first 1", "second 1"])
        withExtendedLifetime(subscriptions) {}
    }
}
