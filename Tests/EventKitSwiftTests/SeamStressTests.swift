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
/// the rounds are over. Returns whether every thread has finished `grace`
/// seconds after that: `false` is a hang, whose threads are left where they
/// are stuck.
func raceRounds(
    seconds: Double, executors: Int = 2, grace: Double = 10,
    execute: @escaping @Sendable () -> Void, round: @escaping @Sendable (Int) -> Void
) -> Bool {
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
        return false
    }
    return true
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
            let hung = !raceRounds(
                seconds: 2.5,
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
            if hung { failHung("adding targets or executing did not return within 10 s of the race's end") }
            // Every target is dead: one execute prunes what is left.
            _ = try? table.execute("tap")
            #expect(table.handlerCount(for: "tap") == 0)
        }
    }

    @Test("Tasks iterating a stream are cancelled while two threads execute its event: every cancel returns")
    func streamsCancelledWhileExecuting() async {
        await #expect(processExitsWith: .success) {
            let table = CommandTable(name: "stress")
            let hung = !raceRounds(
                seconds: 2,
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
            if hung { failHung("task.cancel() or an execute did not return within 10 s of the race's end") }
            try await waitFor { table.handlerCount(for: .tick) == 0 }
        }
    }
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
