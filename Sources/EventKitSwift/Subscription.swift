import Synchronization

/// A registration on a ``CommandTable`` (or another event source), and the way
/// to end it.
///
/// How long the handler lives depends on how it was registered:
///
/// - a closure registered with `on(_:_:)` lives as long as its subscription:
///   releasing the last reference cancels it, as Combine's `AnyCancellable`
///   does, so keep the subscription (``store(in:)-(Set<Subscription>)``) for as long as the
///   handler should run;
/// - a target-action handler lives as long as its target, and an
///   `on(_:owner:_:)` handler as long as its owner; releasing their
///   subscriptions changes nothing, and ``cancel()`` still removes them early.
///
/// Cancelling is idempotent and thread-safe. Once ``cancel()`` returns, the
/// handler is not called again, not even later in an execute already running
/// on another thread.
///
/// The corresponding C function is `dc_table_remove`. Replaces
/// `-[NSNotificationCenter removeObserver:]` and Combine's `AnyCancellable`.
public final class Subscription: Hashable, Sendable {
    /// What cancelling calls: a table's handle, which removes handler `id`,
    /// or a closure. Not a weak reference to the table: a weak reference
    /// moves the table's reference count to a side table, which makes every
    /// retain and release of the table (one per execute by name) several
    /// times slower.
    private let canceller: Canceller

    /// The handler id until cancelled, then 0, with `cancelsOnReleaseBit`
    /// set when releasing cancels. One word, so that a subscription is the
    /// object header and two words (32 bytes): most Swift handlers cost one.
    /// Handler ids count up from 1 and never reach the top bit.
    private let state: Atomic<UInt64>

    private static let cancelsOnReleaseBit: UInt64 = 1 << 63

    /// The id of a closure canceller, which has no handler id.
    private static let closureID: UInt64 = 1

    /// A subscription whose cancellation runs `cancel` once.
    /// `cancelsOnRelease` makes releasing it cancel too.
    package convenience init(cancelsOnRelease: Bool, cancel: @escaping @Sendable () -> Void) {
        self.init(cancelsOnRelease: cancelsOnRelease, canceller: CancelAction(cancel), handler: Self.closureID)
    }

    /// A subscription whose cancellation removes `handler` from the table
    /// `table` is the handle of, if the table still exists.
    convenience init(cancelsOnRelease: Bool, table: TableHandle, handler: UInt64) {
        self.init(cancelsOnRelease: cancelsOnRelease, canceller: table, handler: handler)
    }

    private init(cancelsOnRelease: Bool, canceller: Canceller, handler: UInt64) {
        precondition(handler != 0 && handler & Self.cancelsOnReleaseBit == 0, "handler id \(handler) out of range")
        self.canceller = canceller
        self.state = Atomic(handler | (cancelsOnRelease ? Self.cancelsOnReleaseBit : 0))
    }

    deinit {
        if state.load(ordering: .relaxed) & Self.cancelsOnReleaseBit != 0 { cancel() }
    }

    /// Removes the handler. Calling it again does nothing.
    public func cancel() {
        // Clearing the id lets exactly one caller through.
        let (previous, _) = state.bitwiseAnd(Self.cancelsOnReleaseBit, ordering: .acquiringAndReleasing)
        let handler = previous & ~Self.cancelsOnReleaseBit
        guard handler != 0 else { return }
        canceller.cancel(handler: handler)
    }

    /// Whether ``cancel()`` has run (releasing a target or owner does not
    /// count: the table prunes those handlers on its own).
    public var isCancelled: Bool {
        state.load(ordering: .acquiring) & ~Self.cancelsOnReleaseBit == 0
    }

    /// Keeps this subscription in `set`, so it lives as long as the set does.
    public func store(in set: inout Set<Subscription>) {
        set.insert(self)
    }

    /// Keeps this subscription in `collection`, so it lives as long as the
    /// collection does.
    public func store<C: RangeReplaceableCollection>(in collection: inout C) where C.Element == Subscription {
        collection.append(self)
    }

    public static func == (lhs: Subscription, rhs: Subscription) -> Bool {
        lhs === rhs
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}

/// What a ``Subscription`` calls, once, when it is cancelled.
// @unchecked: subclasses state their own thread-safety.
class Canceller: @unchecked Sendable {
    /// Ends the registration of `handler` (the subscription's id).
    func cancel(handler: UInt64) {
        preconditionFailure("Canceller.cancel(handler:) is overridden by every subclass")
    }
}

/// The closure a ``Subscription`` runs when cancelled, dropped once it has run
/// so that whatever it captures is released with the cancellation rather than
/// with the subscription.
// @unchecked: `action` is read and cleared only by the one caller that wins
// the subscription's cancellation.
private final class CancelAction: Canceller, @unchecked Sendable {
    private var action: (@Sendable () -> Void)?

    init(_ action: @escaping @Sendable () -> Void) {
        self.action = action
    }

    override func cancel(handler: UInt64) {
        let action = self.action
        self.action = nil
        action?()
    }
}
