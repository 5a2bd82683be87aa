import Dispatch

/// Where a handler runs: on a `DispatchQueue`, on the main actor, or on an
/// ``EventQueue`` that a thread of your own drains.
///
/// ```swift
/// table.on("progress", on: .dispatchQueue(workQueue)) { (values: [Value]) in … }
/// table.on("toggle", on: .mainActor) { (on: Bool) in model.isOn = on }   // a @MainActor closure
/// table.on("reset", on: .queue(eventQueue)) { … }
/// ```
///
/// Every delivery keeps the order of the executes that caused it (for a
/// serial `DispatchQueue`, the main actor and an ``EventQueue``), and copies
/// the arguments before it leaves the executing thread: a string argument is
/// copied, an object argument retained until the handler has run. An execute
/// that hands a call over returns without waiting for the handler.
///
/// `Isolation` is what the handler's closure is isolated to, and is chosen
/// by the delivery at compile time: ``mainActor`` is a `Delivery<MainActor>`,
/// so its handler is a `@MainActor` closure that may touch main-actor state
/// without `await`; the others are `Delivery<Nonisolated>`, whose handlers
/// are `@Sendable` closures. (Swift cannot overload on a closure's global
/// actor alone, so the delivery's type carries it.)
///
/// Replaces the `queue:` parameter of
/// `-[NSNotificationCenter addObserverForName:object:queue:usingBlock:]`,
/// Combine's `receive(on:)` and `-performSelectorOnMainThread:withObject:waitUntilDone:`.
public struct Delivery<Isolation>: Sendable {
    let target: DeliveryTarget

    private init(_ target: DeliveryTarget) {
        self.target = target
    }
}

/// Where a ``Delivery`` runs its handler, whatever its isolation.
@usableFromInline
enum DeliveryTarget: Sendable {
    case dispatchQueue(DispatchQueue)
    case mainActor
    case queue(EventQueue)
}

/// The `Isolation` of a ``Delivery`` whose handler is a nonisolated
/// `@Sendable` closure: one on a `DispatchQueue` or an ``EventQueue``.
public enum Nonisolated {}

extension Delivery where Isolation == Nonisolated {
    /// Runs the handler on `queue` with `queue.async`, once per execute.
    ///
    /// On a serial queue the handler runs in the order of the executes that
    /// caused it (executes from one thread, or otherwise ordered); on a
    /// concurrent queue in no particular order. Deliveries still waiting on
    /// the queue when the subscription is cancelled do not run the handler.
    public static func dispatchQueue(_ queue: DispatchQueue) -> Delivery {
        Delivery(.dispatchQueue(queue))
    }

    /// Runs the handler on `queue`'s owner thread: at once when the event is
    /// executed there, and otherwise at the owner's next
    /// ``EventQueue/drain()``, in the order the executes posted them.
    ///
    /// Deliveries still pending when the subscription is cancelled, or when
    /// the queue is released, are dropped. The handler does not keep the
    /// queue alive: once it is released, executes on other threads drop
    /// their deliveries (counted in ``ExecuteResult/dropped``).
    ///
    /// The corresponding C field is `dc_handler_options.queue`.
    public static func queue(_ queue: EventQueue) -> Delivery {
        Delivery(.queue(queue))
    }
}

extension Delivery where Isolation == MainActor {
    /// Runs the handler on the main actor, always later, in the order of the
    /// executes that caused it.
    ///
    /// An execute on the main actor does not run the handler at once either:
    /// its delivery waits behind those already posted, so the order holds
    /// whatever thread executes. The main actor must be free to run (the main
    /// thread in `dispatchMain()`, a run loop, or Swift concurrency's async
    /// `main`). Deliveries still waiting when the subscription is cancelled
    /// do not run the handler.
    public static var mainActor: Delivery {
        Delivery(.mainActor)
    }
}

extension Delivery {
    /// The delivery of a handler that may run on the executing thread or
    /// elsewhere, typed by what the handler throws: the `on` methods take one
    /// as their `on:` argument, `.executingThread` when none is given.
    ///
    /// Only a handler run on the executing thread may throw, as only there
    /// is a caller to receive the error: ``dispatchQueue(_:)`` and
    /// ``queue(_:)`` exist only for handlers that cannot throw
    /// (`Failure == Never`), so a throwing handler delivered elsewhere does
    /// not compile.
    public struct Choice<Failure: Error>: Sendable {
        /// Where the handler runs; `nil` for the executing thread.
        @usableFromInline let target: DeliveryTarget?

        init(_ target: DeliveryTarget?) {
            self.target = target
        }
    }
}

extension Delivery.Choice where Isolation == Nonisolated {
    /// Runs the handler on the thread that executes the event, before the
    /// execute returns: what an `on` without `on:` does.
    public static var executingThread: Self { Self(nil) }
}

extension Delivery.Choice where Isolation == Nonisolated, Failure == Never {
    /// Runs the handler on `queue`; see ``Delivery/dispatchQueue(_:)``.
    public static func dispatchQueue(_ queue: DispatchQueue) -> Self { Self(delivery: .dispatchQueue(queue)) }

    /// Runs the handler on `queue`'s owner thread; see ``Delivery/queue(_:)``.
    public static func queue(_ queue: EventQueue) -> Self { Self(delivery: .queue(queue)) }

    /// Runs the handler where `delivery` says.
    public init(delivery: Delivery<Nonisolated>) {
        self.init(delivery.target)
    }
}

extension Delivery: CustomStringConvertible {
    public var description: String {
        switch target {
        case .dispatchQueue(let queue): "dispatchQueue(\(queue.label))"
        case .mainActor: "mainActor"
        case .queue(let queue): "queue(\(queue))"
        }
    }
}
