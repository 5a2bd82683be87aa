import CDispatchCore
@testable import EventKitSwift
import Synchronization
import Testing

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
