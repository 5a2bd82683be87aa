import Synchronization

/// A registration on a ``CommandTable`` (or another event source), and the way
/// to end it.
///
/// How long the handler lives depends on how it was registered:
///
/// - a closure registered with `on(_:_:)` lives as long as its subscription:
///   releasing the last reference cancels it, as Combine's `AnyCancellable`
///   does, so keep the subscription (``store(in:)-4xp8f``) for as long as the
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
    private let cancellation: Mutex<(@Sendable () -> Void)?>
    private let cancelsOnRelease: Bool

    /// A subscription whose cancellation runs `cancel` once.
    /// `cancelsOnRelease` makes releasing it cancel too.
    package init(cancelsOnRelease: Bool, cancel: @escaping @Sendable () -> Void) {
        self.cancellation = Mutex(cancel)
        self.cancelsOnRelease = cancelsOnRelease
    }

    deinit {
        if cancelsOnRelease { cancel() }
    }

    /// Removes the handler. Calling it again does nothing.
    public func cancel() {
        let cancel = cancellation.withLock { cancel in
            defer { cancel = nil }
            return cancel
        }
        cancel?()
    }

    /// Whether ``cancel()`` has run (releasing a target or owner does not
    /// count: the table prunes those handlers on its own).
    public var isCancelled: Bool {
        cancellation.withLock { $0 == nil }
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
