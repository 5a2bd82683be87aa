import CDispatchCore
@testable import EventKitSwift
import Synchronization
import Testing

/// How many times a handler ran.
private final class Calls: Sendable {
    let value = Atomic(0)
}

/// The typed execute without arguments runs an event whose handlers are all
/// closures taking nothing inside the Swift caller (the C core's inline
/// execute); everything out of the ordinary goes to the library. Each test
/// here makes one of those turns and checks that the result is the one the
/// library gives.
@Suite("Typed execute of closures taking nothing")
struct InlineExecuteTests {
    @Test("Closures run in registration order, each once per execute, and the count says how many")
    func closuresRunInOrder() throws {
        let table = CommandTable(name: "inline")
        let key = EventKey<Void>("tick")
        let log = Log()
        let subscriptions = ["a", "b", "c"].map { name in table.on(key) { log.append(name) } }
        for _ in 0..<2 {
            let result = try table.execute(key)
            #expect(result.handled == 3)
            #expect(!result.stopped && result.queued == 0 && result.returnValue == nil)
        }
        #expect(log.all == ["a", "b", "c", "a", "b", "c"])
        withExtendedLifetime(subscriptions) {}
    }

    @Test("A closure cancelled by an earlier one in the same execute is passed over and not counted")
    func cancelledDuringTheExecuteIsPassedOver() throws {
        let table = CommandTable(name: "inline")
        let key = EventKey<Void>("tick")
        let log = Log()
        let victim = Mutex<Subscription?>(nil)
        let first = table.on(key) {
            log.append("first")
            victim.withLock { $0?.cancel() }
        }
        victim.withLock { $0 = table.on(key) { log.append("victim") } }
        let last = table.on(key) { log.append("last") }
        #expect(try table.execute(key).handled == 2)
        #expect(try table.execute(key).handled == 2)
        #expect(log.all == ["first", "last", "first", "last"])
        withExtendedLifetime((first, last)) {}
    }

    @Test("A blocked closure is passed over until it is unblocked")
    func blockedIsPassedOver() throws {
        let table = CommandTable(name: "inline")
        let key = EventKey<Void>("tick")
        let log = Log()
        let event = try table.eventID(for: key)
        let ids = try ["a", "b", "c"].map { name in
            try table.addHandler(MarshalHandler { log.append(name) }, signature: Signatures.void, event: event)
        }
        #expect(dc_table_block(table.unsafeCTable, ids[1]) == DC_OK)
        #expect(try table.execute(key).handled == 2)
        #expect(dc_table_unblock(table.unsafeCTable, ids[1]) == DC_OK)
        #expect(try table.execute(key).handled == 3)
        #expect(log.all == ["a", "c", "a", "b", "c"])
        for id in ids { table.handle.removeHandler(id) }
        #expect(try table.execute(key).handled == 0)
    }

    @Test("A once-closure among others runs once, and the execute goes on past it")
    func onceAmongOthers() throws {
        let table = CommandTable(name: "inline")
        let key = EventKey<Void>("tick")
        let log = Log()
        let subscriptions = [
            table.on(key) { log.append("a") },
            table.on(key, options: .once) { log.append("once") },
            table.on(key) { log.append("c") },
        ]
        #expect(try table.execute(key).handled == 3)
        #expect(try table.execute(key).handled == 2)
        #expect(log.all == ["a", "once", "c", "a", "c"])
        withExtendedLifetime(subscriptions) {}
    }

    @Test("A closure that stops the emission is the last to run, and the result says it stopped")
    func stopEndsTheExecute() throws {
        let table = CommandTable(name: "inline")
        let key = EventKey<Void>("tick")
        let log = Log()
        let subscriptions = [
            table.on(key) { log.append("a") },
            table.on(key) {
                log.append("stopper")
                dc_table_stop_emission(table.unsafeCTable)
            },
            table.on(key) { log.append("never") },
        ]
        let result = try table.execute(key)
        #expect(result.handled == 2)
        #expect(result.stopped)
        // The next execute starts afresh.
        #expect(try table.execute(key).handled == 2)
        #expect(log.all == ["a", "stopper", "a", "stopper"])
        withExtendedLifetime(subscriptions) {}
    }

    @Test("Executes nest inside a closure up to the library's depth, and the next one throws")
    func nestingHasTheLibrarysLimit() throws {
        let table = CommandTable(name: "nest")
        let key = EventKey<Void>("again")
        let deepest = Mutex(0)
        let depth = Mutex(0)
        let failure = Mutex<DispatchError?>(nil)
        let subscription = table.on(key) {
            let level = depth.withLock { $0 += 1; return $0 }
            deepest.withLock { $0 = max($0, level) }
            do {
                try table.execute(key)
            } catch let error as DispatchError {
                failure.withLock { $0 = $0 ?? error }
            } catch {}
            depth.withLock { $0 -= 1 }
        }
        #expect(try table.execute(key).handled == 1)
        #expect(deepest.withLock { $0 } == Int(DC_MAX_EXECUTE_DEPTH))
        let error = try #require(failure.withLock { $0 })
        guard case .nestedTooDeeply(let message) = error else {
            Issue.record("expected nestedTooDeeply, got \(error)")
            return
        }
        #expect(message == "table nest, event \"again\": executes nested more than 64 deep on this thread")
        withExtendedLifetime(subscription) {}
    }

    @Test("A key used with one table and then another runs each table's own handlers")
    func keyAlternatesBetweenTables() throws {
        let first = CommandTable(name: "first")
        let second = CommandTable(name: "second")
        let key = EventKey<Void>("tick")
        let log = Log()
        // In `second`, "decoy" is interned first, so the event's id and its
        // record differ between the tables.
        let subscriptions = [
            second.on("decoy") { log.append("decoy") },
            first.on(key) { log.append("first") },
            second.on(key) { log.append("second") },
        ]
        for table in [first, second, second, first, second] {
            #expect(try table.execute(key).handled == 1)
        }
        #expect(log.all == ["first", "second", "second", "first", "second"])
        withExtendedLifetime(subscriptions) {}
    }

    @Test("A key executed on several tables from many threads at once runs only the executing table's handlers")
    func keySharedAcrossThreads() async throws {
        let tables = (0..<4).map { CommandTable(name: "table \($0)") }
        let key = EventKey<Void>("tick")
        let counts = (0..<4).map { _ in Calls() }
        // Each table interns a different number of events first, so ids and
        // records differ from table to table.
        var subscriptions: [Subscription] = []
        for (index, table) in tables.enumerated() {
            for decoy in 0..<index { subscriptions.append(table.on("decoy \(decoy)") {}) }
            let count = counts[index]
            subscriptions.append(table.on(key) { count.value.add(1, ordering: .relaxed) })
        }
        let executes = 20_000
        let wrongCounts = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var wrong = 0
                    for round in 0..<executes {
                        // Every round switches tables, so the key is
                        // re-remembered all the time, by every task.
                        let table = tables[(task + round) % tables.count]
                        if try table.execute(key).handled != 1 { wrong += 1 }
                    }
                    return wrong
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(wrongCounts == 0)
        // Each table ran its handler once for each of its executes.
        for count in counts {
            #expect(count.value.load(ordering: .relaxed) == 8 * executes / tables.count)
        }
        withExtendedLifetime(subscriptions) {}
    }

    @Test("An event with handlers of other shapes, or none, runs through the library with the same results")
    func otherEventsRunThroughTheLibrary() throws {
        let table = CommandTable(name: "inline")
        let key = EventKey<Void>("mixed")
        let log = Log()
        #expect(try table.execute(key).handled == 0)
        let closure = table.on(key) { log.append("closure") }
        let general = table.on("mixed") { (_: [Value]) throws -> Value in
            log.append("general")
            return .void
        }
        let last = table.on(key) { log.append("last") }
        #expect(try table.execute(key).handled == 3)
        general.cancel()
        // Closures alone again.
        #expect(try table.execute(key).handled == 2)
        #expect(log.all == ["closure", "general", "last", "closure", "last"])
        withExtendedLifetime((closure, last)) {}
        closure.cancel()
        last.cancel()
        #expect(try table.execute(key).handled == 0)
    }
}
