import CDispatchCore
import EventKitSwift
import Foundation
import Synchronization
import Testing

/// Counts its own deinit, to prove a hook's closure is released once.
private final class ReleaseWitness: Sendable {
    let released: SharedCount
    init(_ released: SharedCount) { self.released = released }
    deinit { released.add() }
}

@Suite("Emission hooks")
struct EmissionHookTests {
    @Test("A hook runs once per execute, before the handlers, with the key, event, detail and arguments")
    func hookSeesEachExecuteBeforeHandlers() throws {
        let table = CommandTable(name: "widget")
        let log = Log()
        let seen = Mutex<[String]>([])
        let hook = try table.addEmissionHook(for: "notify") { emission in
            log.append("hook")
            let arguments = emission.arguments.map(\.description).joined(separator: " ")
            seen.withLock { $0.append("\(emission.key)|\(emission.event)|\(emission.detail ?? "-")|\(arguments)") }
            return true
        }
        let handler = table.on("notify") { (value: Int, name: String) in log.append("handler \(value) \(name)") }
        try table.execute("notify::size", 3, "size")
        try table.execute(EventKey<(Int, String)>("notify"), 4, "any")
        #expect(log.all == ["hook", "handler 3 size", "hook", "handler 4 any"])
        #expect(
            seen.withLock { $0 } == [
                "notify::size|notify|size|int64(3) string(\"size\")",
                "notify|notify|-|int64(4) string(\"any\")",
            ])
        withExtendedLifetime((hook, handler)) {}
    }

    @Test("A hook on an event sees every detail; one on a detailed key only that key; one on nil every event")
    func hookScopes() throws {
        let table = CommandTable(name: "widget")
        let log = Log()
        let hooks = [
            try table.addEmissionHook(for: "notify") { emission in
                log.append("event:\(emission.key)")
                return true
            },
            try table.addEmissionHook(for: EventKey<Void>("notify").detail("size")) { emission in
                log.append("size:\(emission.key)")
                return true
            },
            try table.addEmissionHook { emission in
                log.append("all:\(emission.key)")
                return true
            },
        ]
        for key in ["notify", "notify::size", "notify::title", "unknown"] { try table.execute(key) }
        #expect(
            log.all == [
                "event:notify", "all:notify",
                "event:notify::size", "size:notify::size", "all:notify::size",
                "event:notify::title", "all:notify::title",
                "all:unknown",
            ])
        withExtendedLifetime(hooks) {}
    }

    // GLib's emission hooks that remove themselves (gobject/tests/signals.c):
    // a hook returning FALSE is not called again.
    @Test("A hook returning false is removed: not called again, its closure released once")
    func hookRemovingItself() throws {
        let table = CommandTable(name: "widget")
        let calls = Atomic<Int>(0)
        let released = SharedCount()
        var witness: ReleaseWitness? = ReleaseWitness(released)
        let hook = try table.addEmissionHook(for: "tick") { [witness] _ in
            withExtendedLifetime(witness) {}
            return calls.add(1, ordering: .relaxed).newValue < 2
        }
        witness = nil
        let handler = table.on("tick") {}
        for _ in 0..<5 { #expect(try table.execute("tick").handled == 1) }
        #expect(calls.load(ordering: .relaxed) == 2)
        #expect(released.value == 1)
        hook.cancel()  // gone already: nothing to do, nothing to crash
        #expect(released.value == 1)
        withExtendedLifetime(handler) {}
    }

    @Test("A hook that throws is removed, and the execute that called it throws that error having run no handler")
    func throwingHook() throws {
        let table = CommandTable(name: "widget")
        let log = Log()
        let calls = Atomic<Int>(0)
        let hook = try table.addEmissionHook(for: "save") { _ in
            calls.add(1, ordering: .relaxed)
            throw Boom()
        }
        let handler = table.on("save") { log.append("saved") }
        #expect(throws: Boom.self) { try table.execute("save") }
        #expect(log.all.isEmpty)
        #expect(try table.execute("save").handled == 1)
        #expect(throws: Never.self) { try table.execute(EventKey<Void>("save")) }
        #expect(calls.load(ordering: .relaxed) == 1)
        #expect(log.all == ["saved", "saved"])

        // From C, which cannot receive the error, the emission stops all the same.
        let failing = try table.addEmissionHook(for: "save") { _ in throw Boom() }
        var result = dc_result()
        #expect(dc_table_execute(table.unsafeCTable, "save", nil, 0, &result) == DC_OK)
        #expect(result.stopped && result.handled == 0)
        #expect(log.all.count == 2)
        withExtendedLifetime((hook, handler, failing)) {}
    }

    @Test("Cancelling or releasing a hook's subscription removes it; an execute whose arguments fail calls none")
    func cancellingAndFailingExecutes() throws {
        let table = CommandTable(name: "widget")
        let calls = Atomic<Int>(0)
        var hook: Subscription? = try table.addEmissionHook(for: "toggle") { _ in
            calls.add(1, ordering: .relaxed)
            return true
        }
        let cancelled = try table.addEmissionHook(for: "toggle") { _ in
            calls.add(100, ordering: .relaxed)
            return true
        }
        cancelled.cancel()
        let handler = table.on("toggle") { (_: Bool) in }
        try table.execute("toggle", true)
        expectDispatchError(DispatchError.typeMismatch) { try table.execute("toggle", 1) }
        #expect(calls.load(ordering: .relaxed) == 1)
        hook = nil
        try table.execute("toggle", false)
        #expect(calls.load(ordering: .relaxed) == 1)
        withExtendedLifetime((hook, handler)) {}
    }

    @Test("Hooks run in the order added; one added inside a hook runs from the next execute; hooks may execute")
    func orderAndReentrancy() throws {
        let table = CommandTable(name: "widget")
        let log = Log()
        let added = Mutex<Subscription?>(nil)
        let hooks = [
            try table.addEmissionHook(for: "a") { _ in
                log.append("first")
                added.withLock { slot in
                    if slot == nil {
                        slot = try? table.addEmissionHook(for: "a") { _ in
                            log.append("added")
                            return true
                        }
                    }
                }
                return true
            },
            try table.addEmissionHook(for: "a") { _ in
                log.append("second")
                _ = try table.execute("b")
                return true
            },
        ]
        let handlers = [table.on("a") { log.append("handler a") }, table.on("b") { log.append("handler b") }]
        try table.execute("a")
        try table.execute("a")
        #expect(
            log.all == [
                "first", "second", "handler b", "handler a",
                "first", "second", "handler b", "added", "handler a",
            ])
        withExtendedLifetime((hooks, handlers)) {}
        added.withLock { $0 = nil }
    }

    @Test("A hook may stop the emission: no handler runs and the execute says stopped")
    func hookStopsEmission() throws {
        let table = CommandTable(name: "widget")
        let log = Log()
        let hook = try table.addEmissionHook(for: "close") { _ in
            try table.stopEmission()
            return true
        }
        let handlers = [try table.on("close", phase: .runLast) { log.append("default") }, table.on("close") {}]
        let result = try table.execute("close")
        #expect(result.stopped && result.handled == 0)
        #expect(log.all.isEmpty)
        withExtendedLifetime((hook, handlers)) {}
    }

    @Test("A hook sees executes made from C with their arguments converted")
    func hookSeesExecutesFromC() throws {
        let table = CommandTable(name: "widget")
        let seen = Mutex<[String]>([])
        let hook = try table.addEmissionHook { emission in
            let arguments = emission.arguments
            seen.withLock { $0 = [emission.key] + arguments.map(\.description) }
            #expect(arguments == [.int32(7), .bool(true), .string("seven")])
            return true
        }
        "seven".withCString { seven in
            var arguments = [dc_int32(7), dc_bool(true), dc_string(UnsafeMutablePointer(mutating: seven))]
            #expect(dc_table_execute(table.unsafeCTable, "c::call", &arguments, 3, nil) == DC_OK)
        }
        #expect(seen.withLock { $0 } == ["c::call", "int32(7)", "bool(true)", "string(\"seven\")"])
        withExtendedLifetime(hook) {}
    }

    @Test("A hook removed is never called once cancel returns, while two threads execute")
    func removalIsNeverLate() {
        let race = RemovalRace()
        let table = CommandTable(name: "race")
        let lasting = table.on("tick") { _ = race.lasting.ping() }
        let finished = race.run(
            add: { receiver in
                let hook = try! table.addEmissionHook(for: "tick") { _ in receiver.ping() }
                return { hook.cancel() }
            },
            call: { (try? table.execute("tick"))?.handled })
        #expect(finished, "the race did not finish in 30 s")
        // Handled counts handlers, not hooks: the lasting handler in each.
        race.expectExact(reports: false)
        #expect(race.reported.load(ordering: .relaxed) == race.made.load(ordering: .relaxed))
        withExtendedLifetime(lasting) {}
    }

    @Test("A hook returning false on three threads at once is removed once and released once")
    func removingItselfOnThreeThreads() throws {
        for _ in 0..<50 {
            let table = CommandTable(name: "race")
            let calls = Atomic<Int>(0)
            let released = SharedCount()
            var witness: ReleaseWitness? = ReleaseWitness(released)
            let start = DispatchSemaphore(value: 0)
            let hook = try table.addEmissionHook(for: "tick") { [witness] _ in
                withExtendedLifetime(witness) {}
                calls.add(1, ordering: .relaxed)
                return false
            }
            witness = nil
            let done = DispatchGroup()
            for _ in 0..<3 {
                done.enter()
                Thread {
                    start.wait()
                    for _ in 0..<20 { _ = try? table.execute("tick") }
                    done.leave()
                }.start()
            }
            for _ in 0..<3 { start.signal() }
            #expect(done.wait(timeout: .now() + 30) == .success, "the threads did not finish in 30 s")
            let called = calls.load(ordering: .relaxed)
            #expect(called >= 1 && called <= 3)
            #expect(released.value == 1)
            #expect(try table.execute("tick").handled == 0)
            #expect(calls.load(ordering: .relaxed) == called)
            withExtendedLifetime(hook) {}
        }
    }
}
