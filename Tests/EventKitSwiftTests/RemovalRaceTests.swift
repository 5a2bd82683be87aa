import CDispatchCore
import EventKitSwift
import Foundation
import Synchronization
import Testing

// Each pattern held to the table's promise on removal: once a remove has
// returned, the receiver removed is not called again, not even by a call
// already going through on another thread. Two threads call through the
// pattern while a third adds a receiver and removes it, round after round;
// every call a receiver sees after its removal returned is counted, and must
// be none.

/// What a race's receivers call: its counts.
protocol RaceReceiving: AnyObject, Sendable {
    func ping() -> Bool
}

/// A receiver for one round of a race.
final class RaceReceiver: RaceReceiving, Sendable {
    let round: Int
    let race: RemovalRace

    init(round: Int, race: RemovalRace) {
        self.round = round
        self.race = race
    }

    /// Counts the call, and whether it started after this round's removal
    /// returned.
    func ping() -> Bool {
        if race.removedRound.load(ordering: .acquiring) >= round { race.late.add(1, ordering: .relaxed) }
        race.calls.add(1, ordering: .relaxed)
        return true
    }

    func tap() { _ = ping() }
}

/// The receiver that stays for the whole race: every call through the
/// pattern reaches it once.
final class LastingReceiver: RaceReceiving, Sendable {
    let calls = Atomic<Int>(0)
    func ping() -> Bool {
        calls.add(1, ordering: .relaxed)
        return true
    }
}

/// One race and what it saw.
final class RemovalRace: Sendable {
    /// The last round whose removal has returned.
    let removedRound = Atomic<Int>(-1)
    /// Calls of round receivers, and those among them that came too late.
    let calls = Atomic<Int>(0)
    let late = Atomic<Int>(0)
    let lasting = LastingReceiver()
    /// Calls made through the pattern, and the receivers they said they
    /// reached, where the pattern says.
    let made = Atomic<Int>(0)
    let reported = Atomic<Int>(0)
    private let finished = Atomic<Bool>(false)

    /// Runs `rounds` rounds of `add` then remove (what `add` returns) on one
    /// thread while two threads `call` (which returns how many receivers it
    /// reached, when the pattern says). False when the threads have not all
    /// finished after 30 s: a hang, which the test reports.
    func run(
        rounds: Int = 2000,
        add: @escaping @Sendable (RaceReceiver) -> @Sendable () -> Void,
        call: @escaping @Sendable () -> Int?
    ) -> Bool {
        let threadsDone = DispatchSemaphore(value: 0)
        for _ in 0..<2 {
            Thread {
                // At least a few calls, even if the remover is done first.
                var calls = 0
                while !self.finished.load(ordering: .acquiring) || calls < 16 {
                    let reached = call()
                    self.made.add(1, ordering: .relaxed)
                    if let reached { self.reported.add(reached, ordering: .relaxed) }
                    calls += 1
                }
                threadsDone.signal()
            }.start()
        }
        Thread {
            for round in 0..<rounds {
                let remove = add(RaceReceiver(round: round, race: self))
                remove()
                self.removedRound.store(round, ordering: .releasing)
            }
            self.finished.store(true, ordering: .releasing)
            threadsDone.signal()
        }.start()
        let deadline = DispatchTime.now() + .seconds(30)
        for _ in 0..<3 where threadsDone.wait(timeout: deadline) != .success {
            return false
        }
        return true
    }

    /// Checks what the race saw: no late call, the lasting receiver reached
    /// by every call, and each call's report exact.
    func expectExact(reports: Bool, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(late.load(ordering: .relaxed) == 0, "calls after remove returned", sourceLocation: sourceLocation)
        #expect(
            lasting.calls.load(ordering: .relaxed) == made.load(ordering: .relaxed), sourceLocation: sourceLocation)
        if reports {
            #expect(
                reported.load(ordering: .relaxed)
                    == calls.load(ordering: .relaxed) + lasting.calls.load(ordering: .relaxed),
                sourceLocation: sourceLocation)
        }
    }
}

/// A control whose handler is its command's receiver.
final class RaceControlHandler: Sendable {
    let receiver: LastingReceiver
    init(_ receiver: LastingReceiver) { self.receiver = receiver }
    func tap() { _ = receiver.ping() }
}

@Suite("Removal racing calls on three threads")
struct RemovalRaceTests {
    @Test("MulticastDelegate: a delegate removed is never called once remove returns")
    func multicastDelegate() {
        let race = RemovalRace()
        let delegates = MulticastDelegate<any RaceReceiving>(name: "race")
        delegates.add(race.lasting)
        let finished = race.run(
            add: { receiver in
                delegates.add(receiver)
                return { delegates.remove(receiver) }
            },
            call: { delegates.allResults { $0.ping() }.count })
        #expect(finished, "the race did not finish in 30 s")
        race.expectExact(reports: true)
        #expect(delegates.count == 1)
    }

    @Test("CommandTable: a cancelled subscription's closure is never called once cancel returns")
    func commandTable() {
        let race = RemovalRace()
        let table = CommandTable(name: "race")
        let lasting = table.on("tick") { _ = race.lasting.ping() }
        let finished = race.run(
            add: { receiver in
                let subscription = table.on("tick") { receiver.tap() }
                return { subscription.cancel() }
            },
            call: { (try? table.execute("tick"))?.handled })
        #expect(finished, "the race did not finish in 30 s")
        race.expectExact(reports: true)
        withExtendedLifetime(lasting) {}
    }

    @Test("Event: a handler removed is never called once its cancel returns")
    func event() {
        let race = RemovalRace()
        let source = EventSource<Void, Void>("race")
        let lasting = source.event.add { _ = race.lasting.ping() }
        let finished = race.run(
            add: { receiver in
                let subscription = source.event.add { receiver.tap() }
                return { subscription.cancel() }
            },
            call: {
                source.raise()
                return nil
            })
        #expect(finished, "the race did not finish in 30 s")
        race.expectExact(reports: false)
        withExtendedLifetime(lasting) {}
    }

    @Test("Target-action and perform: a target removed is never called once removeTarget returns")
    func performOnTargets() {
        let race = RemovalRace()
        let table = CommandTable(name: "race")
        let lasting = table.on("tap") { _ = race.lasting.ping() }
        let finished = race.run(
            add: { receiver in
                table.addTarget(receiver, action: RaceReceiver.tap, named: "tap", for: "tap")
                return { table.removeTarget(receiver) }
            },
            call: {
                _ = try? table.perform("tap")
                return nil
            })
        #expect(finished, "the race did not finish in 30 s")
        race.expectExact(reports: false)
        withExtendedLifetime(lasting) {}
    }

    @Test("CommandControl: a command removed is never run once removeCommand returns")
    func commandControl() throws {
        let race = RemovalRace()
        let handler = RaceControlHandler(race.lasting)
        let control = CommandControl(name: "race", handler: handler)
        try control.setCommand(RaceControlHandler.tap, for: "tap")
        // The lasting command is "tap"; each round sets and removes "tap2",
        // whose command is the round receiver's, through a control of its
        // own handler.
        let roundControl = CommandControl<RaceReceiver>(name: "round")
        let finished = race.run(
            add: { receiver in
                roundControl.handler = receiver
                try? roundControl.setCommand(RaceReceiver.tap, for: "tap")
                return {
                    _ = roundControl.removeCommand(for: "tap")
                    withExtendedLifetime(receiver) {}
                }
            },
            call: {
                let lasting = (try? control.execute("tap"))?.handled ?? 0
                let round = (try? roundControl.execute("tap"))?.handled ?? 0
                return lasting + round
            })
        #expect(finished, "the race did not finish in 30 s")
        race.expectExact(reports: true)
        withExtendedLifetime(handler) {}
    }

    @Test("Responder: a responder unlinked from the chain is never asked by a route that starts after the unlink")
    func responderChain() {
        let race = RemovalRace()
        let last = RaceResponder(next: nil, round: nil, race: race, handles: true)
        let first = RaceResponder(next: last, round: nil, race: race)
        let finished = race.run(
            add: { receiver in
                let middle = RaceResponder(next: last, round: receiver.round, race: race)
                first.link(middle)
                return { first.link(last) }
            },
            call: {
                let unlinked = race.removedRound.load(ordering: .acquiring)
                let result = first.route("ping", info: ["unlinked": unlinked])
                #expect(result.isHandled && result.responder === last)
                // The responders that reached the receivers: the middle one
                // (when linked) and the last; the first only passes it on.
                return (result.info["visited"] as? Int ?? 0) - 1
            })
        #expect(finished, "the race did not finish in 30 s")
        race.expectExact(reports: true)
    }
}

/// A responder of the raced chain. The chain is the user's, not the
/// library's: `route` reads each `nextResponder` once, as it passes the
/// route on, so what it promises on removal is that a route starting after
/// a responder was unlinked never asks it. A route carries the last round
/// unlinked when it started (`info["unlinked"]`); a round responder asked
/// by a route that started after its round was unlinked counts as late.
final class RaceResponder: Responder, @unchecked Sendable {
    // @unchecked: `next` is read and written under `lock` only. An NSLock
    // (a pthread mutex) rather than a Mutex, whose futex the thread
    // sanitizer does not see order the responders it publishes.
    private let lock = NSLock()
    private var next: RaceResponder?
    /// The round this responder was linked for; `nil` for the lasting ones.
    let round: Int?
    let race: RemovalRace
    /// Whether this responder handles the route (the chain's last one).
    let handles: Bool

    init(next: RaceResponder?, round: Int?, race: RemovalRace, handles: Bool = false) {
        self.next = next
        self.round = round
        self.race = race
        self.handles = handles
    }

    /// Makes `responder` the one a route goes to next.
    func link(_ responder: RaceResponder?) {
        lock.withLock { next = responder }
    }

    var nextResponder: (any Responder)? { lock.withLock { next } }

    func respond(to selector: String, sender: Any?, info: inout [String: Any]) -> RouteDecision {
        info["visited", default: 0] = (info["visited"] as? Int ?? 0) + 1
        if let round {
            if let unlinked = info["unlinked"] as? Int, unlinked >= round { race.late.add(1, ordering: .relaxed) }
            race.calls.add(1, ordering: .relaxed)
            return .forward
        }
        if handles {
            _ = race.lasting.ping()
            return .handled
        }
        return .forward
    }
}

/// A count shared by threads.
final class SharedCount: Sendable {
    private let count = Atomic<Int>(0)
    @discardableResult
    func add(_ amount: Int = 1) -> Int { count.add(amount, ordering: .sequentiallyConsistent).newValue }
    var value: Int { count.load(ordering: .sequentiallyConsistent) }
}

/// A delegate that runs `body` inside its call.
final class CallbackReceiver: RaceReceiving, @unchecked Sendable {
    // @unchecked: `body` is set before any call and never again.
    var body: @Sendable () -> Void = {}
    let calls = Atomic<Int>(0)
    func ping() -> Bool {
        calls.add(1, ordering: .relaxed)
        body()
        return true
    }
}

extension RemovalRaceTests {
    @Test("MulticastDelegate: two delegates removing each other while both run, on two threads, both return")
    func multicastDelegatesRemovingEachOther() async {
        // Deadlocked threads would spin for the rest of the run: the scenario
        // runs in a process of its own, which fails rather than hangs.
        await #expect(processExitsWith: .success) {
            let lists = [MulticastDelegate<any RaceReceiving>(), MulticastDelegate<any RaceReceiving>()]
            let receivers = [CallbackReceiver(), CallbackReceiver()]
            let arrivals = SharedCount()
            let removed = [SharedCount(), SharedCount()]
            for side in 0..<2 {
                lists[side].add(receivers[side])
                receivers[side].body = {
                    // Both are running before either removes the other.
                    arrivals.add()
                    let deadline = ContinuousClock.now + .seconds(10)
                    while arrivals.value < 2 && ContinuousClock.now < deadline {
                        sched_yield()
                    }
                    removed[side].add(lists[1 - side].remove(receivers[1 - side]) ? 1 : 0)
                }
            }
            let returned = DispatchSemaphore(value: 0)
            for side in 0..<2 {
                Thread {
                    lists[side].invoke { $0.ping() }
                    returned.signal()
                }.start()
            }
            for _ in 0..<2 where returned.wait(timeout: .now() + .seconds(10)) != .success {
                Issue.record("the calls have not returned after 10 s: the removals wait for each other")
                exit(1)
            }
            #expect(removed.map(\.value) == [1, 1])
            #expect(lists.map(\.isEmpty) == [true, true])
            #expect(receivers.map { $0.calls.load(ordering: .relaxed) } == [1, 1])
            // The bodies capture their receivers: break the cycles, or
            // LeakSanitizer fails the process at its exit.
            for receiver in receivers { receiver.body = {} }
        }
    }

    @Test("MulticastDelegate: a delegate removing itself while it also runs on another thread waits for that call")
    func multicastDelegateRemovingItself() async {
        await #expect(processExitsWith: .success) {
            let list = MulticastDelegate<any RaceReceiving>()
            let receiver = CallbackReceiver()
            let arrivals = SharedCount()
            let otherReturned = SharedCount()
            let sawOtherReturned = SharedCount()
            list.add(receiver)
            receiver.body = {
                let arrival = arrivals.add()
                let deadline = ContinuousClock.now + .seconds(10)
                while arrivals.value < 2 && ContinuousClock.now < deadline {
                    sched_yield()
                }
                if arrival == 1 {
                    // The first removes itself: the other's call must be over
                    // when the remove returns.
                    list.remove(receiver)
                    if otherReturned.value == 1 { sawOtherReturned.add() }
                } else {
                    usleep(20_000)
                    otherReturned.add()
                }
            }
            let returned = DispatchSemaphore(value: 0)
            for _ in 0..<2 {
                Thread {
                    list.invoke { $0.ping() }
                    returned.signal()
                }.start()
            }
            for _ in 0..<2 where returned.wait(timeout: .now() + .seconds(10)) != .success {
                Issue.record("the calls have not returned after 10 s")
                exit(1)
            }
            #expect(sawOtherReturned.value == 1)
            #expect(list.isEmpty)
            receiver.body = {}
        }
    }
}

extension RemovalRaceTests {
    @Test("A delegate's call and a table's handler removing each other while both run, on two threads, both return")
    func delegateAndHandlerRemovingEachOther() async {
        await #expect(processExitsWith: .success) {
            let list = MulticastDelegate<any RaceReceiving>()
            let receiver = CallbackReceiver()
            let table = CommandTable()
            let arrivals = SharedCount()
            let handlerCalls = SharedCount()
            let cancelled = SharedCount()
            let delegateRemoved = SharedCount()
            let bothRunning: @Sendable () -> Void = {
                arrivals.add()
                let deadline = ContinuousClock.now + .seconds(10)
                while arrivals.value < 2 && ContinuousClock.now < deadline {
                    sched_yield()
                }
            }
            let subscription = table.on("tick") {
                handlerCalls.add()
                bothRunning()
                delegateRemoved.add(list.remove(receiver) ? 1 : 0)
            }
            list.add(receiver)
            receiver.body = {
                bothRunning()
                subscription.cancel()
                cancelled.add()
            }
            let returned = DispatchSemaphore(value: 0)
            Thread {
                list.invoke { $0.ping() }
                returned.signal()
            }.start()
            Thread {
                _ = try? table.execute("tick")
                returned.signal()
            }.start()
            for _ in 0..<2 where returned.wait(timeout: .now() + .seconds(10)) != .success {
                Issue.record("the calls have not returned after 10 s: the removals wait for each other")
                exit(1)
            }
            #expect(handlerCalls.value == 1)
            #expect(receiver.calls.load(ordering: .relaxed) == 1)
            #expect(cancelled.value == 1 && delegateRemoved.value == 1)
            #expect(list.isEmpty && table.handlerCount(for: "tick") == 0)
            receiver.body = {}
        }
    }

    @Test("Delegate calls nest as deep as executes, and a call nested deeper calls no delegate")
    func delegateCallsNestToTheTablesLimit() {
        let list = MulticastDelegate<any RaceReceiving>()
        let receiver = CallbackReceiver()
        let depth = SharedCount()
        let deepest = SharedCount()
        receiver.body = {
            let reached = depth.add()
            if reached > deepest.value { deepest.add(reached - deepest.value) }
            if reached < 100 { list.invoke { $0.ping() } }
            depth.add(-1)
        }
        list.add(receiver)

        list.invoke { $0.ping() }

        #expect(deepest.value == Int(DC_MAX_EXECUTE_DEPTH))
        #expect(depth.value == 0)
        // The thread is out of every call: a call from here reaches the delegate.
        receiver.body = {}
        #expect(list.invoke { $0.ping() } == true)
    }
}
