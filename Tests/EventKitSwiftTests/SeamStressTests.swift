import Dispatch
import EventKitSwift
import Foundation
import Synchronization
import Testing

// Features meeting under threads: weak targets, streams, multicast
// delegates, responders and controls added, removed, cancelled and
// released on one thread while two others execute. Each scenario runs for a
// bounded time in a process of its own, watched: a crash or a deadlock fails
// its test (the process exits non-zero) instead of taking down or hanging
// the run.

/// Runs `round` (given its number) again and again on a thread of its own
/// for `seconds`, while `executors` threads call `execute` in a loop until
/// the rounds are over. Fails the exit test it runs in when a thread has not
/// finished `grace` seconds after that (a hang, whose threads are left where
/// they are stuck), saying that what `watched` names did not return.
func raceRounds(
    seconds: Double, executors: Int = 2, grace: Double = 10, watched: String,
    execute: @escaping @Sendable () -> Void, round: @escaping @Sendable (Int) -> Void
) {
    let over = Atomic<Bool>(false)
    let finished = DispatchSemaphore(value: 0)
    for _ in 0..<executors {
        Thread {
            while !over.load(ordering: .acquiring) { execute() }
            finished.signal()
        }.start()
    }
    Thread {
        let end = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        var number = 0
        while ContinuousClock.now < end {
            round(number)
            number += 1
        }
        over.store(true, ordering: .releasing)
        finished.signal()
    }.start()
    let deadline = DispatchTime.now() + seconds + grace
    for _ in 0...executors where finished.wait(timeout: deadline) != .success {
        failHung("\(watched) did not return within \(Int(grace)) s of the race's end")
    }
}

/// Fails the exit test it runs in, at once, with `message`: what a watchdog
/// that saw a hang does, since the stuck threads cannot be freed.
func failHung(_ message: String) -> Never {
    Issue.record(Comment(rawValue: message))
    FileHandle.standardError.write(Data("hang: \(message)\n".utf8))
    exit(1)
}

/// A target of the "tap" event whose instances come and go, round after
/// round, at the addresses of the last round's.
final class StressTarget: Sendable {
    let fired = Atomic<Int>(0)
    func fire() { fired.add(1, ordering: .relaxed) }
}

extension EventKey where Arguments == Int64 {
    fileprivate static let tick: EventKey<Int64> = "tick"
}

@Suite("Seams under threads: weak targets, streams, delegates, responders and controls raced", .serialized)
struct SeamStressTests {
    @Test("Weak targets added at the addresses of dead ones while two threads execute: adding never crashes")
    func weakTargetsAtReusedAddresses() async {
        await #expect(processExitsWith: .success) {
            let table = CommandTable(name: "stress")
            raceRounds(
                seconds: 2.5, watched: "adding targets or executing",
                execute: { _ = try? table.execute("tap") },
                round: { _ in
                    // Fresh targets, released at once: the next round's are
                    // allocated where these were, while the executes prune
                    // these handlers.
                    for _ in 0..<50 {
                        let target = StressTarget()
                        table.addTarget(target, action: StressTarget.fire, named: "fire", for: "tap")
                    }
                })
            // Every target is dead: one execute prunes what is left.
            _ = try? table.execute("tap")
            #expect(table.handlerCount(for: "tap") == 0)
        }
    }

    @Test("Tasks iterating a stream are cancelled while two threads execute its event: every cancel returns")
    func streamsCancelledWhileExecuting() async {
        await #expect(processExitsWith: .success) {
            let table = CommandTable(name: "stress")
            raceRounds(
                seconds: 2, watched: "task.cancel() or an execute",
                execute: { _ = try? table.execute(.tick, 1) },
                round: { _ in
                    let stream = table.events(for: .tick)
                    let ended = DispatchSemaphore(value: 0)
                    let task = Task.detached {
                        for await _ in stream {}
                        ended.signal()
                    }
                    usleep(500)
                    task.cancel()
                    if ended.wait(timeout: .now() + 5) != .success {
                        failHung("a cancelled task's iteration did not end within 5 s")
                    }
                })
            try await waitFor { table.handlerCount(for: .tick) == 0 }
        }
    }

    @Test("Streams ended every way (cancelled, left, released, their table released) while two threads execute")
    func streamsEndedEveryWay() async {
        await #expect(processExitsWith: .success) {
            let lasting = CommandTable(name: "stress")
            raceRounds(
                seconds: 2, watched: "ending a stream or an execute",
                execute: { _ = try? lasting.execute(.tick, 1) },
                round: { round in
                    // Each round's own table too, released at the round's end
                    // while its stream may still be iterated.
                    var own: CommandTable? = CommandTable(name: "round \(round)")
                    let snapshots = lasting.events(for: "tick", bufferingPolicy: .bufferingNewest(2)) { values in
                        values.count
                    }
                    let left = lasting.events(for: .tick)
                    let ownStream = own!.events(for: .tick)
                    let ended = DispatchSemaphore(value: 0)
                    let cancelled = Task.detached {
                        for await _ in snapshots {}
                        ended.signal()
                    }
                    Task.detached {
                        for await _ in left { break }
                        ended.signal()
                    }
                    Task.detached {
                        for await _ in ownStream {}
                        ended.signal()
                    }
                    _ = try? own!.execute(.tick, 2)
                    usleep(200)
                    cancelled.cancel()
                    own = nil
                    for _ in 0..<3 where ended.wait(timeout: .now() + 5) != .success {
                        failHung("a stream's iteration did not end within 5 s of its end")
                    }
                })
            try await waitFor { lasting.handlerCount(for: .tick) == 0 }
        }
    }

    @Test("Multicast delegates added, inserted, removed and released while two threads call them")
    func multicastDelegatesComeAndGo() async {
        await #expect(processExitsWith: .success) {
            let list = MulticastDelegate<any RaceReceiving>(name: "stress")
            let lasting = LastingReceiver()
            list.add(lasting)
            let made = Atomic<Int>(0)
            raceRounds(
                seconds: 1.5, watched: "a delegate call, add or remove",
                execute: {
                    made.add(1, ordering: .relaxed)
                    list.invoke { $0.ping() }
                },
                round: { round in
                    // Each delegate asks the list its count when it dies,
                    // wherever that is.
                    let delegates = (0..<20).map { _ in StressDelegate(list) }
                    for (index, delegate) in delegates.enumerated() {
                        switch index % 4 {
                        case 0: list.add(delegate)
                        case 1: try? list.insert(delegate, at: 0)
                        case 2: list.insert(delegate, after: delegates[index - 1])
                        default: list.insert(delegate, before: lasting)
                        }
                    }
                    for delegate in delegates where round % 2 == 0 { list.remove(delegate) }
                })
            #expect(list.count == 1)
            #expect(lasting.calls.load(ordering: .relaxed) == made.load(ordering: .relaxed))
        }
    }

    @Test("Command controls whose handlers are replaced and released while two threads run their commands")
    func commandControlsWhoseHandlersGo() async {
        await #expect(processExitsWith: .success) {
            let control = CommandControl<StressControlHandler>(name: "stress")
            raceRounds(
                seconds: 1.5, watched: "a command or setting one",
                execute: {
                    _ = try? control.execute("tap")
                    _ = control.hasCommand(for: "tap")
                    _ = control.commandKeys
                },
                round: { round in
                    // The handler asks the control its keys when it dies.
                    let handler = StressControlHandler(control)
                    control.handler = handler
                    try? control.setCommand(StressControlHandler.tap, for: "tap")
                    try? control.setCommand(StressControlHandler.tap, for: "tap \(round % 3)")
                    if round % 2 == 0 { control.removeCommand(for: "tap") }
                    if round % 5 == 0 { control.handler = nil }
                })
            #expect(control.commandKeys.isEmpty)
        }
    }

    @Test("Responders bound by owner to a table, routed from its handlers, while they are released and two threads execute")
    func respondersBoundByOwnerComeAndGo() async {
        await #expect(processExitsWith: .success) {
            let table = CommandTable(name: "stress")
            let root = StressResponder(parent: nil, handles: true)
            raceRounds(
                seconds: 1.5, watched: "a route, an add or a remove",
                execute: { _ = try? table.execute("tap") },
                round: { round in
                    // A chain leaf → middle → root whose links are weak, as a
                    // view's superview is: the leaf's handlers route from it
                    // while the round releases the chain.
                    let middle = StressResponder(parent: root)
                    let leaf = StressResponder(parent: middle)
                    table.on("tap", owner: leaf) { leaf in
                        // Handled by the root, or ended where a link was cut.
                        if case .handled(let responder, _) = leaf.route("tap") { #expect(responder === root) }
                    }
                    table.addTarget(leaf, action: StressResponder.tap, named: "tap", for: "tap")
                    if round % 2 == 0 { middle.parent = nil }
                    if round % 3 == 0 { table.removeTarget(leaf) }
                })
            _ = try? table.execute("tap")
            #expect(table.handlerCount(for: "tap") == 0)
            #expect(root.handled.load(ordering: .relaxed) > 0)
        }
    }

    @Test("Handlers of every form (delivered with a phase, a default, owners that throw) come and go while two threads execute")
    func handlerFormsComeAndGo() async {
        await #expect(processExitsWith: .success) {
            struct Refused: Error {}
            let table = CommandTable(name: "stress")
            let queue = DispatchQueue(label: "stress.delivery")
            let delivered = Atomic<Int>(0)
            raceRounds(
                seconds: 2, watched: "a register, a cancel or an execute",
                execute: {
                    _ = try? table.execute(.tick, 1)
                    _ = try? table.execute("tick", Int64(2))
                },
                round: { round in
                    let owner = StressTarget()
                    var subscriptions = [
                        table.on(.tick, on: .dispatchQueue(queue), phase: .after) { _ in
                            delivered.add(1, ordering: .relaxed)
                        },
                        table.on(.tick) { (value: Int64) -> Int64 in value + 1 },
                    ]
                    // A default handler: the second of a round, or one left
                    // by another, is refused with a cancelled subscription.
                    if let runLast = try? table.on(.tick, on: .dispatchQueue(queue), phase: .runLast, { _ in }) {
                        subscriptions.append(runLast)
                    }
                    table.on(.tick, owner: owner) { (owner, value: Int64) throws(Refused) in
                        if value == 2 && round % 2 == 0 { throw Refused() }
                        owner.fire()
                    }
                    if round % 3 == 0 { table.removeTarget(owner) }
                    subscriptions.forEach { $0.cancel() }
                })
            queue.sync {}
            _ = try? table.execute(.tick, 1)
            #expect(table.handlerCount(for: .tick) == 0)
            #expect(delivered.load(ordering: .relaxed) > 0)
        }
    }

    @Test("String literal keys register, execute and cancel on two tables while two threads execute with them")
    func literalKeysOnTwoTables() async {
        await #expect(processExitsWith: .success) {
            let tables = [CommandTable(name: "a"), CommandTable(name: "b")]
            let calls = Atomic<Int>(0)
            let decoy = tables[1].on("decoy") {}
            raceRounds(
                seconds: 2, watched: "a register, a cancel or an execute by literal key",
                execute: {
                    for table in tables {
                        _ = try? table.execute("literal.seam", Int64(1))
                        _ = try? table.execute("literal.seam.void")
                    }
                },
                round: { round in
                    let table = tables[round % 2]
                    let typed = table.on("literal.seam") { (_: Int64) in calls.add(1, ordering: .relaxed) }
                    let plain = table.on("literal.seam.void") { calls.add(1, ordering: .relaxed) }
                    _ = try? table.execute("literal.seam", Int64(round))
                    typed.cancel()
                    plain.cancel()
                })
            let left = tables.map { $0.handlerCount(for: "literal.seam") + $0.handlerCount(for: "literal.seam.void") }
            #expect(left == [0, 0])
            #expect(calls.load(ordering: .relaxed) > 0)
            decoy.cancel()
        }
    }

    @Test("An execute finding a target dead while its last call runs the target's deinit does not wait for that call")
    func pruneDoesNotWaitForTheTargetsDeinit() async {
        await #expect(processExitsWith: .success) {
            // B's call holds the target when the test lets it go, so B runs
            // the target's deinit, which takes a lock A holds while A
            // executes, finds the target dead and prunes its handler.
            let table = CommandTable(name: "prune")
            // A lock the test takes on this thread and the deinit on B.
            let lock = DispatchSemaphore(value: 1)
            let steps = (inside: DispatchSemaphore(value: 0), release: DispatchSemaphore(value: 0),
                dying: DispatchSemaphore(value: 0), done: DispatchSemaphore(value: 0))
            var target: DyingTarget? = DyingTarget(lock: lock, inside: steps.inside, release: steps.release,
                dying: steps.dying)
            table.addTarget(target!, action: DyingTarget.fire, named: "fire", for: "tap")
            Thread {
                _ = try? table.execute("tap")
                steps.done.signal()
            }.start()
            if steps.inside.wait(timeout: .now() + 10) != .success { failHung("the target's action did not run") }
            lock.wait()
            target = nil
            steps.release.signal()
            if steps.dying.wait(timeout: .now() + 10) != .success { failHung("the target did not die") }
            let executed = DispatchSemaphore(value: 0)
            Thread {
                _ = try? table.execute("tap")
                executed.signal()
            }.start()
            if executed.wait(timeout: .now() + 10) != .success {
                failHung("the execute that found the target dead waited for the call running its deinit")
            }
            lock.signal()
            if steps.done.wait(timeout: .now() + 10) != .success { failHung("the target's last call did not return") }
            _ = try? table.execute("tap")
            #expect(table.handlerCount(for: "tap") == 0)
        }
    }
}

/// A target whose action waits to be let go, and whose deinit takes a lock
/// (a semaphore of one).
final class DyingTarget: Sendable {
    let lock: DispatchSemaphore
    let inside: DispatchSemaphore
    let release: DispatchSemaphore
    let dying: DispatchSemaphore

    init(lock: DispatchSemaphore, inside: DispatchSemaphore, release: DispatchSemaphore, dying: DispatchSemaphore) {
        (self.lock, self.inside, self.release, self.dying) = (lock, inside, release, dying)
    }

    func fire() {
        inside.signal()
        _ = release.wait(timeout: .now() + 10)
    }

    deinit {
        dying.signal()
        lock.wait()
        lock.signal()
    }
}

/// A delegate that uses its multicast delegate from its deinit.
final class StressDelegate: RaceReceiving, Sendable {
    let list: MulticastDelegate<any RaceReceiving>
    init(_ list: MulticastDelegate<any RaceReceiving>) { self.list = list }
    func ping() -> Bool { true }
    deinit { _ = list.count }
}

/// A control's handler that uses its control from its deinit.
final class StressControlHandler: Sendable {
    let control: CommandControl<StressControlHandler>
    init(_ control: CommandControl<StressControlHandler>) { self.control = control }
    func tap() {}
    deinit { _ = control.commandKeys }
}

/// A responder whose link to the next is weak, as a view's to its superview.
final class StressResponder: Responder, @unchecked Sendable {
    // @unchecked: `link` is read and written under `lock` only (an NSLock,
    // whose ordering the thread sanitizer sees; see RaceResponder).
    private let lock = NSLock()
    private weak var link: StressResponder?
    private let handles: Bool
    let handled = Atomic<Int>(0)

    init(parent: StressResponder?, handles: Bool = false) {
        self.link = parent
        self.handles = handles
    }

    var parent: StressResponder? {
        get { lock.withLock { link } }
        set { lock.withLock { link = newValue } }
    }

    var nextResponder: (any Responder)? { parent }

    func respond(to selector: String, sender: Any?, info: inout [String: Any]) -> RouteDecision {
        guard handles else { return .forward }
        handled.add(1, ordering: .relaxed)
        return .handled
    }

    func tap() { route("tap") }
}

/// Waits until `condition` holds, failing the test if it does not within
/// `timeout`.
func waitFor(
    timeout: Duration = .seconds(5), sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: @Sendable () -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("still false after \(timeout)", sourceLocation: sourceLocation)
            return
        }
        try await Task.sleep(for: .milliseconds(1))
    }
}
