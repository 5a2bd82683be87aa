internal import CDispatchCore
import Dispatch
import Synchronization

// Handlers delivered on a chosen thread. An EventQueue delivery is the C
// core's own (dc_handler_options.queue): the table copies the arguments and
// posts them. A DispatchQueue or main-actor delivery is a handler that runs
// on the executing thread, turns the C arguments into Swift values there,
// while they are valid, and hands a closure holding them to the queue.

extension CommandTable {
    /// Runs `handler` on the main actor with the argument of each execute of
    /// `key`'s event, in the order of the executes, for as long as the
    /// returned subscription lives.
    ///
    /// ```swift
    /// table.on(.toggle, on: .mainActor) { on in viewModel.isOn = on }
    ///     .store(in: &subscriptions)
    /// ```
    ///
    /// The handler always runs later, also when the execute happens on the
    /// main actor, so that it never overtakes deliveries posted before it;
    /// the execute counts it as run (``ExecuteResult/handled``) when it posts
    /// it. The arguments are checked and travel as for a `DispatchQueue`
    /// delivery (``on(_:on:options:phase:_:)-(EventKey<A>,Delivery<Nonisolated>.Choice<HandlerFailure>,_,_,_)``).
    ///
    /// - Parameters:
    ///   - key: The event, typed; a string literal names one.
    ///   - delivery: `.mainActor`.
    ///   - options: How the handler is registered.
    ///   - phase: Where among the event's handlers it runs
    ///     (``HandlerPhase``); a default phase makes the call throw.
    ///   - handler: Runs on the main actor with the event's argument.
    /// - Returns: The subscription that keeps the handler registered.
    /// - Throws: For a default phase only: see ``HandlerPhase/Choice``.
    ///
    /// Replaces `-performSelectorOnMainThread:withObject:waitUntilDone:`.
    public func on<A: EventArgument, Failure>(
        _ key: EventKey<A>, on delivery: Delivery<MainActor>, options: HandlerOptions = [],
        phase: HandlerPhase.Choice<Failure> = .normal, _ handler: @escaping @MainActor @Sendable (A) -> Void
    ) throws(Failure) -> Subscription {
        try phase.register(key.name, options: options) { (options) throws(DispatchError) in
            try deliveredSubscription(key, to: delivery.target, options: options, onMainActor(handler))
        }
    }

    /// Runs `handler` on the main actor with the arguments, none or two or
    /// more, of each execute of `key`'s event, in the order of the executes;
    /// see the one-argument form.
    ///
    /// ```swift
    /// table.on("resize", on: .mainActor) { (width: Int, height: Int) in view.resize(width, height) }
    ///     .store(in: &subscriptions)
    /// ```
    public func on<each A: EventArgument, Failure>(
        _ key: EventKey<(repeat each A)>, on delivery: Delivery<MainActor>, options: HandlerOptions = [],
        phase: HandlerPhase.Choice<Failure> = .normal,
        _ handler: @escaping @MainActor @Sendable (repeat each A) -> Void
    ) throws(Failure) -> Subscription {
        try phase.register(key.name, options: options) { (options) throws(DispatchError) in
            try deliveredSubscription(key, to: delivery.target, options: options, onMainActor(handler))
        }
    }

    /// Runs `handler` on `delivery` with every argument of each execute of
    /// `event`, as given.
    ///
    /// ```swift
    /// table.on("progress", on: .dispatchQueue(workQueue)) { values in log(values) }
    ///     .store(in: &subscriptions)
    /// ```
    ///
    /// Strings arrive copied and objects retained until the handler has run;
    /// a `.pointer` arrives as the address it was, so what it points to must
    /// outlive the delivery. Delivering objects and pointers to another
    /// thread is your statement that they may be used there.
    ///
    /// A struct arrives as a ``Value/structure(_:)`` copy, on an
    /// ``EventQueue`` as on a `DispatchQueue`: the queue copies its bytes
    /// when the execute posts the delivery. (For the main actor, deliver to
    /// `.dispatchQueue(.main)` and enter it with `MainActor.assumeIsolated`,
    /// or give the event a key and its handler types.)
    ///
    /// - Parameters:
    ///   - event: The event's name, or a detailed key `"event::detail"`.
    ///   - delivery: Where the handler runs.
    ///   - options: How the handler is registered.
    ///   - phase: Where among the event's handlers it runs
    ///     (``HandlerPhase``); a default phase makes the call throw.
    ///   - handler: Runs on `delivery` with every argument of each execute.
    /// - Returns: The subscription that keeps the handler registered.
    /// - Throws: For a default phase only: see ``HandlerPhase/Choice``.
    public func on<Failure>(
        _ event: String, on delivery: Delivery<Nonisolated>, options: HandlerOptions = [],
        phase: HandlerPhase.Choice<Failure> = .normal, _ handler: @escaping @Sendable ([Value]) -> Void
    ) throws(Failure) -> Subscription {
        try phase.register(event, options: options) { (options) throws(DispatchError) in
            try deliveredSubscription(event, to: delivery.target, options: options, signature: nil) { hop in
                valuesHandler(hop?.wrapping(handler) ?? handler)
            }
        }
    }

    /// Runs `handler`, which takes the event's first argument as an object,
    /// on the executing thread or `target`: the multicast ``Event``'s way to
    /// its raises.
    func onObject(
        _ event: String, on target: DeliveryTarget?, phase: HandlerPhase.Choice<Never> = .normal,
        _ handler: @escaping @Sendable (AnyObject?) -> Void
    ) -> Subscription {
        phase.register(event, options: []) { (options) throws(DispatchError) in
            guard let target else {
                return try closureSubscription(
                    event, signature: Signatures.object, handler: MarshalHandler(handler), options: options)
            }
            return try deliveredSubscription(event, to: target, options: options, signature: Signatures.object) { hop in
                MarshalHandler(hop?.wrapping(handler) ?? handler)
            }
        }
    }

    /// `handler` as a closure that runs it on the main actor, called there.
    func onMainActor<each A>(
        _ handler: @escaping @MainActor @Sendable (repeat each A) -> Void
    ) -> @Sendable (repeat each A) -> Void {
        { (argument: repeat each A) in
            let handoff = Handoff((repeat each argument))
            MainActor.assumeIsolated { handler(repeat each handoff.value) }
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

    /// Registers `handler`, typed by `key`, delivered to `target`: the
    /// arguments are converted on the executing thread and the converted
    /// values hop.
    @usableFromInline
    func deliveredSubscription<Arguments, each A: EventArgument>(
        _ key: EventKey<Arguments>, to target: DeliveryTarget, options: HandlerOptions,
        _ handler: @escaping @Sendable (repeat each A) -> Void
    ) throws(DispatchError) -> Subscription {
        // Signatures of EventArgument types are always valid.
        let signature = try! Signature(returning: .void, parameters: valueTypes(of: repeat (each A).self))
        return try deliveredSubscription(
            key.name, to: target, options: options, signature: signature
        ) { hop in
            let box =
                if let hop {
                    PackHandlerBox<repeat each A>(cTable: cTable, event: key.name, payloadTypes: payloadTypes, body: hop.wrapping(handler))
                } else {
                    PackHandlerBox<repeat each A>(cTable: cTable, event: key.name, payloadTypes: payloadTypes, body: handler)
                }
            return MarshalHandler(arguments: box)
        }
    }

    /// Registers the handler `makeHandler` builds for `target`: given a hop
    /// for a `DispatchQueue` or the main actor, `nil` for an ``EventQueue``,
    /// whose queue the C table is given instead.
    private func deliveredSubscription(
        _ event: String, to target: DeliveryTarget, options: HandlerOptions, signature: Signature?,
        makeHandler: (Hop?) -> MarshalHandler
    ) throws(DispatchError) -> Subscription {
        let hop: Hop?
        let eventQueue: EventQueue?
        switch target {
        case .dispatchQueue(let queue): (hop, eventQueue) = (Hop(to: queue), nil)
        case .mainActor: (hop, eventQueue) = (Hop(to: .main), nil)
        case .queue(let queue): (hop, eventQueue) = (nil, queue)
        }
        // Refused (a malformed key, a second default handler), the handler
        // is released and the phase's registration reports it.
        let id = try addHandler(
            event, signature: signature, handler: makeHandler(hop), options: options, queue: eventQueue?.cQueue)
        // The C handler holds its own reference to the dc_queue from here on.
        withExtendedLifetime(eventQueue) {}
        return Subscription(canceller: DeliveredHandlerCanceller(table: handle, hop: hop), handler: id)
    }
}

/// What cancels a delivered handler: its hop, closed first, so deliveries
/// already waiting on the queue skip the handler once `cancel()` returns,
/// then the handler. The table's handle, not a weak reference to the table:
/// see ``Registration``.
private final class DeliveredHandlerCanceller: Canceller, @unchecked Sendable {
    // @unchecked: both are constant and thread-safe.
    private let table: TableHandle
    private let hop: Hop?

    init(table: TableHandle, hop: Hop?) {
        self.table = table
        self.hop = hop
    }

    override func cancel(handler: UInt64) {
        hop?.close()
        table.removeHandler(handler)
    }

    override var removesTableHandler: Bool { true }
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

    /// `handler` as a closure that hands each call, with its arguments, to
    /// the queue.
    func wrapping<each A>(_ handler: @escaping @Sendable (repeat each A) -> Void) -> @Sendable (repeat each A) -> Void {
        { (argument: repeat each A) in
            let handoff = Handoff((repeat each argument))
            self.async { handler(repeat each handoff.value) }
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
