internal import CDispatchCore

/// A first-in, first-out queue of deliveries that one thread, its owner, runs
/// when it calls ``drain()``: the way to have handlers run on a thread of your
/// own event loop.
///
/// ```swift
/// let queue = try EventQueue()                      // owned by this thread
/// let subscription = table.on("progress", on: .queue(queue)) { (values: [Value]) in
///     updateUI(values)
/// }
/// // in the owner's event loop, when queue.fileDescriptor is readable:
/// queue.drain()
/// ```
///
/// A handler registered with `on: .queue(queue)` runs at once when its event
/// is executed on the owner thread. Executed on any other thread, the execute
/// posts a delivery instead: the arguments are copied (strings duplicated,
/// objects retained) and the handler runs with them, in the order they were
/// posted, the next time the owner drains. A delivery is dropped, and what it
/// holds released, when its handler is cancelled or removed first, or when the
/// queue is released first.
///
/// ``fileDescriptor`` is readable exactly while deliveries are pending, so
/// any event loop can wait on it: `poll`, `epoll`, libuv, a GLib main loop,
/// or a `DispatchSource.makeReadSource`.
///
/// Every member is safe to call from any thread.
///
/// The corresponding C type is `dc_queue`. Replaces posting to a run loop
/// with `-[NSObject performSelector:onThread:withObject:waitUntilDone:]` and
/// `-[NSRunLoop performSelector:target:argument:order:modes:]`.
// @unchecked: the only state is the dc_queue, whose every function is
// documented thread-safe.
public final class EventQueue: @unchecked Sendable {
    let cQueue: OpaquePointer

    /// Creates an empty queue owned by the calling thread.
    ///
    /// - Throws: ``DispatchError/outOfMemory(_:)`` when there is no memory
    ///   or no file descriptor left for its ``fileDescriptor``;
    ///   ``DispatchError/unsupported(_:)`` when the system cannot make one.
    ///
    /// The corresponding C function is `dc_queue_create`.
    public init() throws(DispatchError) {
        var created: OpaquePointer?
        try DispatchError.check(dc_queue_create(&created))
        cQueue = created!
    }

    /// Drops every pending delivery, closes the file descriptor and lets go
    /// of the queue. Handlers registered with it stay registered but deliver
    /// nothing more from other threads.
    ///
    /// The corresponding C function is `dc_queue_destroy`.
    deinit {
        dc_queue_destroy(cQueue)
    }

    /// Makes the calling thread the owner: from now on executes on this
    /// thread run the queue's handlers at once, and executes on every other
    /// thread, including the previous owner, post deliveries.
    ///
    /// The corresponding C function is `dc_queue_bind_to_current_thread`.
    public func bindToCurrentThread() {
        // Fails only for a NULL queue, which cQueue never is.
        _ = dc_queue_bind_to_current_thread(cQueue)
    }

    /// Whether the calling thread is the owner.
    ///
    /// Swift concurrency may resume a task on a different thread after any
    /// `await`, so in `async` code own and drain a queue from a thread you
    /// control (a `Thread`, or a dedicated event loop), not from a task.
    ///
    /// The corresponding C function is `dc_queue_is_owner`.
    public var isOwner: Bool {
        dc_queue_is_owner(cQueue)
    }

    /// A file descriptor that `poll`, `epoll` and `kqueue` report readable
    /// while deliveries are pending, to wait on in an event loop (an
    /// `eventfd` on Linux, the read end of a pipe elsewhere). It belongs to
    /// the queue: do not read or close it. It stays valid for the queue's life.
    ///
    /// The corresponding C function is `dc_queue_fd`.
    public var fileDescriptor: Int32 {
        dc_queue_fd(cQueue)
    }

    /// How many deliveries are waiting for the next ``drain()``.
    ///
    /// The corresponding C function is `dc_queue_pending`.
    public var pending: Int {
        dc_queue_pending(cQueue)
    }

    /// Runs the deliveries pending when it is called, in the order they were
    /// posted, on the calling thread, and returns how many ran.
    ///
    /// Call it on the owner thread. Deliveries posted while it runs (by its
    /// own handlers, say) wait for the next drain, so a drain always ends.
    /// Dropped deliveries are not counted. Drains nested inside handlers
    /// more deeply than executes may nest stop early and leave the rest
    /// pending.
    ///
    /// The corresponding C function is `dc_queue_drain`.
    @discardableResult
    public func drain() -> Int {
        var delivered = 0
        // Its only failures (nesting too deep, or no memory for this thread's
        // bookkeeping) leave the rest pending; `delivered` still counts what ran.
        _ = dc_queue_drain(cQueue, &delivered)
        return delivered
    }
}

extension EventQueue: CustomStringConvertible {
    /// The file descriptor and the number of pending deliveries.
    public var description: String {
        "EventQueue(fd: \(fileDescriptor), pending: \(pending))"
    }
}
