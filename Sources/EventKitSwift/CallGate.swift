import Dispatch
import Synchronization

/// Lets a handler be removed from where its removal must not wait for its
/// calls: a stream's `onTermination`, which runs while the consuming task's
/// cancellation holds the task's status lock, a lock a stream's `yield`
/// takes.
///
/// The C core's remove waits for every call of the handler running on
/// another thread. A handler that may block (in user code, or in a stream's
/// `yield`) does so only inside the gate, and the remover closes the gate
/// first: with no call inside, the calls the remove waits for can only be
/// passing the gate, which blocks on nothing, so it removes at once; with a
/// call inside, which may be waiting for what the remover holds, it hands the
/// removal to a Dispatch worker, which holds nothing. A call that comes to
/// the gate once it is closed does nothing.
final class CallGate: Sendable {
    private let isClosed = Atomic(false)
    private let callsInside = Atomic(0)

    /// Runs `body` inside the gate, unless the gate is closed; returns
    /// whether it ran.
    func pass(_ body: () -> Void) -> Bool {
        // With `close`, Dekker's pattern: each side writes its own flag, then
        // reads the other's, all sequentially consistent, so at least one of
        // them sees the other.
        callsInside.add(1, ordering: .sequentiallyConsistent)
        defer { callsInside.subtract(1, ordering: .sequentiallyConsistent) }
        guard !isClosed.load(ordering: .sequentiallyConsistent) else { return false }
        body()
        return true
    }

    /// Closes the gate and cancels `registration`, the handler's: before
    /// returning when no call is inside the gate, on a Dispatch worker soon
    /// after otherwise.
    func close(cancelling registration: Registration) {
        isClosed.store(true, ordering: .sequentiallyConsistent)
        if callsInside.load(ordering: .sequentiallyConsistent) == 0 {
            registration.cancel()
        } else {
            DispatchQueue.global().async { registration.cancel() }
        }
    }
}
