import EventKitSwift
import Foundation
import Synchronization
import Testing

/// A counter handlers bump from any thread.
private final class Tally: Sendable {
    private let count = Atomic<Int>(0)
    func increment() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

/// A flag one task raises and others read, ordered with what came before it.
private final class Flag: Sendable {
    private let raised = Atomic<Bool>(false)
    func raise() { raised.store(true, ordering: .releasing) }
    var isRaised: Bool { raised.load(ordering: .acquiring) }
}

/// A subscription a closure cancels, held once `on` has returned it.
private final class SubscriptionSlot: Sendable {
    private let subscription = Mutex<Subscription?>(nil)
    func hold(_ held: Subscription) { subscription.withLock { $0 = held } }
    func cancel() { subscription.withLock { $0 }?.cancel() }
    var isCancelled: Bool { subscription.withLock { $0 }?.isCancelled == true }
}

/// What each of several threads reported, by index.
private final class Reports: Sendable {
    private let values: Mutex<[Int]>
    init(count: Int) { values = Mutex(Array(repeating: -1, count: count)) }
    func set(_ index: Int, _ value: Int) { values.withLock { $0[index] = value } }
    var all: [Int] { values.withLock { $0 } }
}

@Suite("CommandTable concurrency")
struct CommandTableConcurrencyTests {
    @Test("Registers from many tasks all land, and executes from many tasks run every handler exactly once each")
    func concurrentRegisterThenExecute() async throws {
        let table = CommandTable(name: "concurrent")
        let calls = Tally()
        let registrars = 16, handlersEach = 8, executors = 16, executesEach = 200

        let subscriptions = await withTaskGroup(of: [Subscription].self) { group in
            for _ in 0..<registrars {
                group.addTask {
                    (0..<handlersEach).map { _ in table.on("tick") { calls.increment() } }
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        let handlers = registrars * handlersEach
        #expect(table.handlerCount(for: "tick") == handlers)

        let handledCounts = try await withThrowingTaskGroup(of: [Int].self) { group in
            for _ in 0..<executors {
                group.addTask { try (0..<executesEach).map { _ in try table.execute("tick").handled } }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(handledCounts.count == executors * executesEach)
        #expect(handledCounts.allSatisfy { $0 == handlers })
        #expect(calls.value == executors * executesEach * handlers)
        withExtendedLifetime(subscriptions) {}
    }

    @Test("Executes racing with registers: every call is counted in exactly one result, and no task sees a handler vanish")
    func executeRacingWithRegister() async throws {
        let table = CommandTable(name: "racing")
        let calls = Tally()
        let registrars = 4, handlersEach = 50, executors = 4, executesEach = 300

        let (subscriptions, handledPerTask) = try await withThrowingTaskGroup(
            of: (subscriptions: [Subscription], handled: [Int]).self
        ) { group in
            for _ in 0..<registrars {
                group.addTask {
                    var made: [Subscription] = []
                    for _ in 0..<handlersEach {
                        made.append(table.on("tick") { calls.increment() })
                        await Task.yield()
                    }
                    return (made, [])
                }
            }
            for _ in 0..<executors {
                group.addTask {
                    var handled: [Int] = []
                    for _ in 0..<executesEach {
                        handled.append(try table.execute("tick").handled)
                        await Task.yield()
                    }
                    return ([], handled)
                }
            }
            var subscriptions: [Subscription] = []
            var handledPerTask: [[Int]] = []
            for try await part in group {
                subscriptions += part.subscriptions
                if !part.handled.isEmpty { handledPerTask.append(part.handled) }
            }
            return (subscriptions, handledPerTask)
        }
        #expect(table.handlerCount(for: "tick") == registrars * handlersEach)
        #expect(handledPerTask.count == executors)
        // Handlers are only added, so one task's executes never see fewer.
        for handled in handledPerTask {
            #expect(zip(handled, handled.dropFirst()).allSatisfy { $0 <= $1 })
        }
        #expect(calls.value == handledPerTask.joined().reduce(0, +))
        withExtendedLifetime(subscriptions) {}
    }

    @Test("Cancel racing with executes: once cancel returns, the handler is never called again", arguments: 0..<8)
    func cancelRacingWithExecute(round: Int) async throws {
        let table = CommandTable(name: "cancel-\(round)")
        let calls = Tally()
        let callsAfterCancel = Tally()
        let cancelReturned = Flag()
        let subscription = table.on("tick") {
            if cancelReturned.isRaised { callsAfterCancel.increment() }
            calls.increment()
        }
        let keeper = table.on("tick") {}
        let executors = 4, executesAfterCancel = 200

        // Each executor runs until it has made `executesAfterCancel` executes
        // that started after cancel returned, and counts those that still ran
        // the cancelled handler.
        let lateExecutes = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<executors {
                group.addTask {
                    var startedAfter = 0, late = 0, iteration = 0
                    while startedAfter < executesAfterCancel {
                        let startedAfterCancel = cancelReturned.isRaised
                        let handled = try table.execute("tick").handled
                        if startedAfterCancel {
                            startedAfter += 1
                            if handled != 1 { late += 1 }
                        }
                        iteration += 1
                        if iteration % 32 == 0 { await Task.yield() }
                    }
                    return late
                }
            }
            group.addTask {
                // Cancel while the executors are running, after some calls.
                while calls.value < 100 * (round + 1) { await Task.yield() }
                subscription.cancel()
                cancelReturned.raise()
                return 0
            }
            return try await group.reduce(0, +)
        }
        #expect(subscription.isCancelled)
        #expect(callsAfterCancel.value == 0)
        #expect(lateExecutes == 0)
        #expect(table.handlerCount(for: "tick") == 1)
        let callsAtEnd = calls.value
        #expect(try table.execute("tick").handled == 1)
        #expect(calls.value == callsAtEnd)
        withExtendedLifetime(keeper) {}
    }

    @Test("Two closures cancelling each other's subscription while both run, on two threads, both return and never run again")
    func closuresCancellingEachOtherOnTwoThreads() async {
        // Deadlocked threads would stay inside the C table for good, and every
        // table destroyed afterwards in the process waits for the threads inside
        // any table: the scenario runs in a process of its own, which records
        // the deadlock and exits rather than hang the suite.
        await #expect(processExitsWith: .success) {
            let table = CommandTable(name: "mutual")
            let events = ["left", "right"]
            let partners = [SubscriptionSlot(), SubscriptionSlot()]
            let calls = [Tally(), Tally()]
            let cancelReturned = [Flag(), Flag()]
            let arrivals = Tally()
            for side in 0..<2 {
                partners[side].hold(table.on(EventKey<Void>(events[side])) {
                    calls[side].increment()
                    // Both closures are running before either cancels the other.
                    arrivals.increment()
                    let deadline = ContinuousClock.now + .seconds(10)
                    while arrivals.value < 2 && ContinuousClock.now < deadline { sched_yield() }
                    partners[1 - side].cancel()
                    cancelReturned[side].raise()
                })
            }

            let handled = Reports(count: 2) // -2: the execute threw
            let returned = DispatchSemaphore(value: 0)
            for side in 0..<2 {
                Thread {
                    handled.set(side, (try? table.execute(events[side]).handled) ?? -2)
                    returned.signal()
                }.start()
            }
            for _ in 0..<2 {
                guard returned.wait(timeout: .now() + .seconds(10)) == .success else {
                    Issue.record("the executes have not returned after 10 s: the closures' cancels deadlock")
                    exit(1)
                }
            }

            #expect(arrivals.value == 2)
            #expect(cancelReturned.map(\.isRaised) == [true, true])
            #expect(handled.all == [1, 1])
            #expect(partners.map(\.isCancelled) == [true, true])
            // Cancelled: executing their events again calls neither.
            for event in events {
                #expect((try? table.execute(event).handled) == 0)
                #expect(table.handlerCount(for: event) == 0)
            }
            #expect(calls.map(\.value) == [1, 1])
        }
    }

    @Test("A handler may execute its own table re-entrantly, from many tasks at once")
    func reentrantExecute() async throws {
        let table = CommandTable(name: "reentrant")
        let inner = Tally()
        let outer = Tally()
        let innerHandled = Tally()
        let subscriptions = [
            table.on("inner") { inner.increment() },
            table.on("outer") { (_: [Value]) throws -> Value in
                outer.increment()
                let result = try table.execute("inner")
                if result.handled == 1 { innerHandled.increment() }
                return .int64(Int64(result.handled))
            },
        ]
        let tasks = 8, executesEach = 250
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    for _ in 0..<executesEach {
                        let result = try table.execute("outer")
                        #expect(result.handled == 1)
                        #expect(result.returnValue == .int64(1))
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(outer.value == tasks * executesEach)
        #expect(inner.value == tasks * executesEach)
        #expect(innerHandled.value == tasks * executesEach)
        withExtendedLifetime(subscriptions) {}
    }

    @Test("A handler added during an execute runs from the next execute on")
    func registerDuringExecute() throws {
        let table = CommandTable(name: "growing")
        let added = Mutex<[Subscription]>([])
        let lateCalls = Tally()
        let subscription = table.on("grow") {
            let late = table.on("grow") { lateCalls.increment() }
            added.withLock { $0.append(late) }
        }
        #expect(try table.execute("grow").handled == 1)
        #expect(lateCalls.value == 0)
        // The first addition runs now; the one this execute adds does not yet.
        #expect(try table.execute("grow").handled == 2)
        #expect(lateCalls.value == 1)
        #expect(table.handlerCount(for: "grow") == 3)
        withExtendedLifetime(subscription) {}
    }

    @Test("A recursive handler ends in nestedTooDeeply after 64 levels, not a stack overflow, and the table recovers")
    func recursionIsBounded() async throws {
        let table = CommandTable(name: "recursive")
        let depth = Tally()
        let subscription = table.on("descend") { (_: [Value]) throws -> Value in
            depth.increment()
            try table.execute("descend")
            return .void
        }
        let error = #expect(throws: DispatchError.self) { try table.execute("descend") }
        #expect(error?.statusName == "DC_ERR_DEPTH")
        #expect(error?.message.contains("nested more than 64 deep") == true)
        #expect(depth.value == 64)

        // Depth is counted per thread, so recursions on several tasks each get
        // their full 64 levels.
        let tasks = 4
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    do {
                        try table.execute("descend")
                        return false
                    } catch DispatchError.nestedTooDeeply {
                        return true
                    } catch {
                        return false
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes == Array(repeating: true, count: tasks))
        #expect(depth.value == 64 * (tasks + 1))

        // The unwound executes leave nothing behind: a bounded recursion works.
        subscription.cancel()
        let levels = Tally()
        let bounded = table.on("descend") { (_: [Value]) throws -> Value in
            levels.increment()
            if levels.value < 10 { try table.execute("descend") }
            return .void
        }
        #expect(try table.execute("descend").handled == 1)
        #expect(levels.value == 10)
        withExtendedLifetime(bounded) {}
    }

    @Test("A handler that catches nestedTooDeeply lets every outer execute succeed")
    func depthErrorCanBeCaught() throws {
        let table = CommandTable(name: "recovering")
        let caught = Tally()
        let subscription = table.on("descend") { (_: [Value]) -> Value in
            do {
                try table.execute("descend")
            } catch DispatchError.nestedTooDeeply {
                caught.increment()
            } catch {}
            return .void
        }
        #expect(try table.execute("descend").handled == 1)
        #expect(caught.value == 1)
        withExtendedLifetime(subscription) {}
    }
}
