internal import CDispatchCore
import Dispatch
import Synchronization

// Handlers delivered on a chosen thread. An EventQueue delivery is the C
// core's own (dc_handler_options.queue): the table copies the arguments and
// posts them. A DispatchQueue or main-actor delivery is a handler that runs
// on the executing thread, turns the C arguments into Swift values there,
// while they are valid, and hands a closure holding them to the queue.

extension CommandTable {
    /// Runs `handler` on `delivery` each time `event` is executed, for as
    /// long as the returned subscription lives.
    ///
    /// ```swift
    /// let subscription = table.on("reset", on: .dispatchQueue(workQueue)) { model.reset() }
    /// ```
    ///
    /// The execute counts the handler as run (``ExecuteResult/handled``) when
    /// it hands the call to a `DispatchQueue`, and as queued
    /// (``ExecuteResult/queued``) when it posts it to an ``EventQueue``.
    /// See ``Delivery`` for the order and lifetime of deliveries.
    ///
    /// The corresponding C function is `dc_table_add_marshal` with
    /// `dc_handler_options.queue` for an ``EventQueue``. Replaces
    /// `-[NSNotificationCenter addObserverForName:object:queue:usingBlock:]`.
    public func on(
        _ event: String, on delivery: Delivery<Nonisolated>, options: HandlerOptions = [],
        _ handler: @escaping @Sendable () -> Void
    ) -> Subscription {
        deliveredSubscription(
            event, to: delivery.target, options: options, signature: Signatures.void
        ) { hop in
            MarshalHandler(hop?.wrapping(handler) ?? handler)
        }
    }

    /// Runs `handler` on `delivery` with the event's first argument, which
    /// must fit a `Bool`, each time `event` is executed.
    public func on(
        _ event: String, on delivery: Delivery<Nonisolated>, options: HandlerOptions = [],
        _ handler: @escaping @Sendable (Bool) -> Void
    ) -> Subscription {
        deliveredSubscription(
            event, to: delivery.target, options: options, signature: Signatures.bool
        ) { hop in
            MarshalHandler(hop?.wrapping(handler) ?? handler)
        }
    }

    /// Runs `handler` on `delivery` with the event's first argument, an
    /// object or `nil`, each time `event` is executed.
    ///
    /// The object is retained until the handler has run. Delivering it to
    /// another thread is your statement that it may be used there.
    public func on(
        _ event: String, on delivery: Delivery<Nonisolated>, options: HandlerOptions = [],
        _ handler: @escaping @Sendable (AnyObject?) -> Void
    ) -> Subscription {
        deliveredSubscription(
            event, to: delivery.target, options: options, signature: Signatures.object
        ) { hop in
            MarshalHandler(hop?.wrapping(handler) ?? handler)
        }
    }

    /// Runs `handler` on `delivery` with every argument of each execute of
    /// `event`, as given.
    ///
    /// Strings arrive copied and objects retained until the handler has run;
    /// a `.pointer` arrives as the address it was, so what it points to must
    /// outlive the delivery. Delivering objects and pointers to another
    /// thread is your statement that they may be used there.
    public func on(
        _ event: String, on delivery: Delivery<Nonisolated>, options: HandlerOptions = [],
        _ handler: @escaping @Sendable ([Value]) -> Void
    ) -> Subscription {
        deliveredSubscription(
            event, to: delivery.target, options: options, signature: nil
        ) { hop in
            valuesHandler(hop?.wrapping(handler) ?? handler)
        }
    }

    /// Runs `handler` on the main actor each time `event` is executed, in the
    /// order of the executes, for as long as the returned subscription lives.
    ///
    /// ```swift
    /// let subscription = table.on("reset", on: .mainActor) { viewModel.items = [] }
    /// ```
    ///
    /// The handler always runs later, also when the execute happens on the
    /// main actor, so that it never overtakes deliveries posted before it;
    /// the execute counts it as run (``ExecuteResult/handled``) when it posts
    /// it.
    ///
    /// Replaces `-performSelectorOnMainThread:withObject:waitUntilDone:` and
    /// an observer registered with `queue: .main`.
    public func on(
        _ event: String, on delivery: Delivery<MainActor>, options: HandlerOptions = [],
        _ handler: @escaping @MainActor @Sendable () -> Void
    ) -> Subscription {
        deliveredSubscription(
            event, to: delivery.target, options: options, signature: Signatures.void
        ) { hop in
            MarshalHandler(hop!.wrapping { MainActor.assumeIsolated(handler) })
        }
    }

    /// Runs `handler` on the main actor with the event's first argument,
    /// which must fit a `Bool`, each time `event` is executed.
    public func on(
        _ event: String, on delivery: Delivery<MainActor>, options: HandlerOptions = [],
        _ handler: @escaping @MainActor @Sendable (Bool) -> Void
    ) -> Subscription {
        deliveredSubscription(
            event, to: delivery.target, options: options, signature: Signatures.bool
        ) { hop in
            MarshalHandler(hop!.wrapping { (value: Bool) in MainActor.assumeIsolated { handler(value) } })
        }
    }

    /// Runs `handler` on the main actor with the event's first argument, an
    /// object or `nil`, retained until the handler has run.
    public func on(
        _ event: String, on delivery: Delivery<MainActor>, options: HandlerOptions = [],
        _ handler: @escaping @MainActor @Sendable (AnyObject?) -> Void
    ) -> Subscription {
        deliveredSubscription(
            event, to: delivery.target, options: options, signature: Signatures.object
        ) { hop in
            MarshalHandler(
                hop!.wrapping { (object: AnyObject?) in
                    let handoff = Handoff(object)
                    MainActor.assumeIsolated { handler(handoff.value) }
                })
        }
    }

    /// Runs `handler` on the main actor with every argument of each execute
    /// of `event`, copied as described for the nonisolated form.
    public func on(
        _ event: String, on delivery: Delivery<MainActor>, options: HandlerOptions = [],
        _ handler: @escaping @MainActor @Sendable ([Value]) -> Void
    ) -> Subscription {
        deliveredSubscription(
            event, to: delivery.target, options: options, signature: nil
        ) { hop in
            let body = hop!.wrapping { (values: [Value]) in
                let handoff = Handoff(values)
                MainActor.assumeIsolated { handler(handoff.value) }
            }
            return valuesHandler(body)
        }
    }

    /// A handler that gives `body` every argument as given: a variadic
    /// marshal, which Swift's convention cannot be.
    private func valuesHandler(_ body: @escaping @Sendable ([Value]) -> Void) -> MarshalHandler {
        let box = ValuesHandlerBox(cTable: cTable) { values in
            body(values)
            return .void
        }
        return MarshalHandler(box: box, trampoline: ValuesHandlerBox.trampoline)
    }

    /// Registers the handler `makeHandler` builds for `target`: given a hop
    /// for a `DispatchQueue` or the main actor, `nil` for an ``EventQueue``,
    /// whose queue the C table is given instead.
    private func deliveredSubscription(
        _ event: String, to target: DeliveryTarget, options: HandlerOptions, signature: Signature?,
        makeHandler: (Hop?) -> MarshalHandler
    ) -> Subscription {
        let hop: Hop?
        let eventQueue: EventQueue?
        switch target {
        case .dispatchQueue(let queue): (hop, eventQueue) = (Hop(to: queue), nil)
        case .mainActor: (hop, eventQueue) = (Hop(to: .main), nil)
        case .queue(let queue): (hop, eventQueue) = (nil, queue)
        }
        let id: dc_handler_id
        do {
            id = try addHandler(
                event, signature: signature, handler: makeHandler(hop), options: options, queue: eventQueue?.cQueue)
        } catch {
            // A closure with a fixed, valid signature can only fail to
            // register when memory runs out, which Swift treats as fatal.
            fatalError("CommandTable \(name): registering a handler for \"\(event)\" failed: \(error)")
        }
        // The C handler holds its own reference to the dc_queue from here on.
        withExtendedLifetime(eventQueue) {}
        // The handle, not a weak reference to the table: see Subscription.
        return Subscription { [handle] in
            // Closed first, so deliveries already waiting on the queue skip
            // the handler once cancel() returns.
            hop?.close()
            handle.removeHandler(id)
        }
    }
}

// MARK: - Hopping to a DispatchQueue

/// Hands calls to a `DispatchQueue` until its subscription is cancelled.
final class Hop: Sendable {
    private let queue: DispatchQueue
    private let isOpen = Atomic(true)

    init(to queue: DispatchQueue) {
        self.queue = queue
    }

    /// Runs `work` on the queue, later, unless closed by then.
    func async(_ work: @escaping @Sendable () -> Void) {
        queue.async { [self] in
            if isOpen.load(ordering: .acquiring) { work() }
        }
    }

    func close() {
        isOpen.store(false, ordering: .releasing)
    }

    // One `wrapping` per closure shape: a closure of the same shape that hops.

    func wrapping(_ handler: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        { self.async(handler) }
    }

    func wrapping(_ handler: @escaping @Sendable (Bool) -> Void) -> @Sendable (Bool) -> Void {
        { value in self.async { handler(value) } }
    }

    func wrapping(_ handler: @escaping @Sendable (AnyObject?) -> Void) -> @Sendable (AnyObject?) -> Void {
        { object in
            let handoff = Handoff(object)
            self.async { handler(handoff.value) }
        }
    }

    func wrapping(_ handler: @escaping @Sendable ([Value]) -> Void) -> @Sendable ([Value]) -> Void {
        { values in
            let handoff = Handoff(values)
            self.async { handler(handoff.value) }
        }
    }
}

/// Arguments on their way to the thread a delivery runs on.
// @unchecked: made for one delivery and used by it alone. The objects and
// pointers inside cross threads as the executing caller passed them; the
// delivery API documents that as the caller's statement that they may.
struct Handoff<Wrapped>: @unchecked Sendable {
    let value: Wrapped

    init(_ value: Wrapped) {
        self.value = value
    }
}
