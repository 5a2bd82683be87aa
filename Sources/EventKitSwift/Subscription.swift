import Synchronization

/// A handler's registration on a ``CommandTable`` (or another event source),
/// and the way to end it early.
///
/// A registration returned as such lives as long as something else says:
/// a target-action (`addTarget`) and an `on(_:owner:_:)` closure as long as
/// their target or owner, a C function added with `register` until it is
/// removed. Releasing the registration changes nothing. Closures that live
/// as long as their registration are ``Subscription``s.
///
/// Cancelling is idempotent and thread-safe. Once ``cancel()`` returns, the
/// handler is not called again, not even later in an execute already running
/// on another thread.
///
/// The corresponding C function is `dc_table_remove`. Replaces
/// `-[UIControl removeTarget:action:forControlEvents:]` for one action.
// @unchecked: the state is atomic and the canceller states its own
// thread-safety; a class that subclasses may not be checked `Sendable`.
public class Registration: Hashable, @unchecked Sendable {
    /// What cancelling calls: a table's handle, which removes handler `id`,
    /// or a closure. Not a weak reference to the table: a weak reference
    /// moves the table's reference count to a side table, which makes every
    /// retain and release of the table (one per execute by name) several
    /// times slower.
    private let canceller: Canceller

    /// The handler id until cancelled, then 0. One word, so that a
    /// subscription is the object header and two words (32 bytes): most
    /// Swift handlers cost one.
    private let state: Atomic<UInt64>

    /// The id of a closure canceller, which has no handler id.
    private static let closureID: UInt64 = 1

    /// A registration whose cancellation runs `cancel` once.
    package convenience init(cancel: @escaping @Sendable () -> Void) {
        self.init(canceller: CancelAction(cancel), handler: Self.closureID)
    }

    /// A registration whose cancellation removes `handler` from the table
    /// `table` is the handle of, if the table still exists.
    convenience init(table: TableHandle, handler: UInt64) {
        self.init(canceller: table, handler: handler)
    }

    required init(canceller: Canceller, handler: UInt64) {
        precondition(handler != 0, "handler id 0 is no handler")
        self.canceller = canceller
        self.state = Atomic(handler)
    }

    /// A registration of nothing, cancelled already: what registering on a
    /// malformed key returns.
    static func nothing() -> Self {
        let registration = Self(canceller: CancelAction({}), handler: closureID)
        registration.cancel()
        return registration
    }

    /// Removes the handler. Calling it again does nothing.
    public final func cancel() {
        // Clearing the id lets exactly one caller through.
        let handler = state.exchange(0, ordering: .acquiringAndReleasing)
        guard handler != 0 else { return }
        canceller.cancel(handler: handler)
    }

    /// The handler id this registration removes from a table, until
    /// cancelled; `nil` when its canceller removes something else.
    final var registeredHandler: UInt64? {
        guard canceller.removesTableHandler else { return nil }
        let handler = state.load(ordering: .acquiring)
        return handler != 0 ? handler : nil
    }

    /// Whether ``cancel()`` has run (releasing a target or owner does not
    /// count: the table prunes those handlers on its own).
    public final var isCancelled: Bool {
        state.load(ordering: .acquiring) == 0
    }

    public static func == (lhs: Registration, rhs: Registration) -> Bool {
        lhs === rhs
    }

    public final func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}

/// A closure's registration on a ``CommandTable`` (or another event source),
/// which lives as long as the subscription: releasing the last reference
/// cancels it, as Combine's `AnyCancellable` does. Keep the subscription
/// (``store(in:)-(Set<Subscription>)``) for as long as the handler should
/// run.
///
/// Every method that returns a `Subscription` registers a closure that
/// nothing else keeps; registrations that live as long as a target, an owner
/// or until removed are plain ``Registration``s.
///
/// The corresponding C function is `dc_table_remove`. Replaces
/// `-[NSNotificationCenter removeObserver:]` and Combine's `AnyCancellable`.
public final class Subscription: Registration, @unchecked Sendable {
    deinit {
        cancel()
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
}

/// What a ``Registration`` calls, once, when it is cancelled.
// @unchecked: subclasses state their own thread-safety.
class Canceller: @unchecked Sendable {
    /// Ends the registration of `handler` (the subscription's id).
    func cancel(handler: UInt64) {
        preconditionFailure("Canceller.cancel(handler:) is overridden by every subclass")
    }

    /// Whether the id it is given is a table's handler id.
    var removesTableHandler: Bool { false }
}

/// The closure a ``Registration`` runs when cancelled, dropped once it has run
/// so that whatever it captures is released with the cancellation rather than
/// with the registration.
// @unchecked: `action` is read and cleared only by the one caller that wins
// the registration's cancellation.
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
