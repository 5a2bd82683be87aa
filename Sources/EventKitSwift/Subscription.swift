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
    /// What cancelling removes. A table handler is kept as (weak table, id)
    /// rather than as a closure: no allocation per subscription beyond itself.
    private struct Registration {
        weak var table: CommandTable?
        var handler: UInt64 = 0
        var cancel: (@Sendable () -> Void)?
        var active = true
    }

    private let registration: Mutex<Registration>
    private let cancelsOnRelease: Bool

    /// A subscription whose cancellation runs `cancel` once.
    /// `cancelsOnRelease` makes releasing it cancel too.
    package init(cancelsOnRelease: Bool, cancel: @escaping @Sendable () -> Void) {
        self.registration = Mutex(Registration(table: nil, cancel: cancel))
        self.cancelsOnRelease = cancelsOnRelease
    }

    /// A subscription whose cancellation removes `handler` from `table`, if
    /// the table still exists.
    init(cancelsOnRelease: Bool, table: CommandTable, handler: UInt64) {
        self.registration = Mutex(Registration(table: table, handler: handler))
        self.cancelsOnRelease = cancelsOnRelease
    }

    deinit {
        if cancelsOnRelease { cancel() }
    }

    /// Removes the handler. Calling it again does nothing.
    public func cancel() {
        let (table, handler, cancel) = registration.withLock { registration in
            guard registration.active else { return (CommandTable?.none, UInt64(0), (@Sendable () -> Void)?.none) }
            registration.active = false
            defer { registration.cancel = nil }
            return (registration.table, registration.handler, registration.cancel)
        }
        table?.removeHandler(handler)
        cancel?()
    }

    /// Whether ``cancel()`` has run (releasing a target or owner does not
    /// count: the table prunes those handlers on its own).
    public var isCancelled: Bool {
        registration.withLock { !$0.active }
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
