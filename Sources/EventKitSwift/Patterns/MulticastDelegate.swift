internal import CDispatchCoreBinding
import Synchronization

/// One delegate slot, many delegates: calls each of its delegates in order,
/// holding them weakly, as Objective-C's `AIMultiDelegate` and
/// `ILABMultiDelegate` do.
///
/// `P` is the delegate protocol, usually a class-bound existential such as
/// `any ScrollViewDelegate`. A call goes to every live delegate, in order:
///
/// ```swift
/// let listeners = MulticastDelegate<any ScrollViewDelegate>()
/// listeners.add(analytics)
/// listeners.add(header)
/// listeners.invoke { $0.scrollViewDidScroll(scrollView) }
/// let shouldScroll = listeners.invoke { $0.scrollViewShouldScrollToTop(scrollView) } ?? true
/// ```
///
/// ### One delegate slot
///
/// A component that takes one delegate reaches several when its delegate is
/// a multicast delegate. Make `MulticastDelegate` conform to the protocol,
/// each method a call of ``invoke(_:)``, and hand it over as the delegate;
/// the component holds it weakly, as it would any delegate, so keep it:
///
/// ```swift
/// protocol ScrollViewDelegate: AnyObject {
///     func scrollViewDidScroll(_ scrollView: ScrollView)
///     func scrollViewShouldScrollToTop(_ scrollView: ScrollView) -> Bool
/// }
///
/// final class ScrollView {
///     weak var delegate: (any ScrollViewDelegate)?
///     func scroll() { delegate?.scrollViewDidScroll(self) }
/// }
///
/// extension MulticastDelegate: ScrollViewDelegate where P == any ScrollViewDelegate {
///     func scrollViewDidScroll(_ scrollView: ScrollView) {
///         invoke { $0.scrollViewDidScroll(scrollView) }
///     }
///     func scrollViewShouldScrollToTop(_ scrollView: ScrollView) -> Bool {
///         invoke { $0.scrollViewShouldScrollToTop(scrollView) } ?? true
///     }
/// }
///
/// let listeners = MulticastDelegate<any ScrollViewDelegate>()
/// scrollView.delegate = listeners
/// listeners.add(analytics)
/// listeners.add(header)
/// scrollView.scroll()          // analytics, then header
/// ```
///
/// ### Return values
///
/// ``invoke(_:)`` calls every delegate and returns the first value that is
/// not `nil` (the first delegate's, for a method whose result is not
/// optional); ``lastResult(_:)`` returns the last such value and
/// ``allResults(_:)`` all of them, in order. With no delegate nothing is
/// called and the result is `nil`: an empty multicast delegate is silent.
/// The Objective-C `@optional` method becomes a protocol of its own, as
/// Swift prefers: ``responds(to:)`` says whether any delegate adopts it, and
/// ``invoke(as:_:)`` calls those that do.
///
/// ### Lifetime and order
///
/// Delegates are held weakly and compared by identity. A delegate that has
/// died is skipped, never called, and pruned. Adding a delegate already
/// present keeps its place; inserting it moves it. A delegate removed while
/// a call is going through the list is not called after ``remove(_:)``
/// returns, even by that call; one added during a call is called from the
/// next call on.
///
/// Removing waits as a table's removal does (<doc:Semantics>): ``remove(_:)``
/// and ``removeAll()`` return once the calls of the removed delegates
/// already running on other threads have returned, except that a remove
/// made from inside a delegate's call or a table's handler does not wait for
/// a call running on a thread that is itself waiting in such a remove (of a
/// delegate or of a handler). So delegates and handlers that remove each
/// other on two threads, or themselves, never wait for each other forever.
/// Do not remove a delegate while holding a lock that its methods take.
///
/// A delegate call counts as a handler call in the table's nesting limit
/// (`DC_MAX_EXECUTE_DEPTH`, 64 executes and delegate calls nested on one
/// thread): a call nested deeper calls no delegate.
///
/// ### Strict and non-strict
///
/// ``add(_:)`` takes a `P`, which the compiler checks. ``add(dynamic:)``
/// takes any object and checks it at run time, for objects that arrive as
/// `AnyObject`: a strict multicast delegate, made with ``init(name:)``,
/// accepts only a `P`; a non-strict one, made with
/// ``init(name:acceptingAnyOf:_:)`` over several protocols, accepts an
/// object that adopts any of them. Either way an object that does not fit
/// is rejected with ``DispatchError/typeMismatch(_:)`` rather than added.
///
/// Every method is safe from any thread; delegates run on the calling
/// thread, with no lock held. The multicast delegate is `Sendable` when `P`
/// is. Replaces `AIMultiDelegate`, `ILABMultiDelegate` and the
/// `forwardInvocation:` trick they are built on.
public final class MulticastDelegate<P> {
    /// A name for descriptions.
    public let name: String

    /// The delegates, live and dead, in call order.
    private let entries = Mutex<[DelegateEntry]>([])

    /// What ``add(dynamic:)`` accepts besides a `P`; `nil` when strict.
    private let acceptedTypes: [AcceptedType]?

    /// Creates an empty, strict multicast delegate: ``add(dynamic:)``
    /// accepts only objects that are a `P`.
    public init(name: String = "") {
        self.name = name
        self.acceptedTypes = nil
    }

    /// Creates an empty, non-strict multicast delegate over several
    /// protocols: ``add(dynamic:)`` accepts an object that adopts any one of
    /// them.
    ///
    /// ```swift
    /// let delegates = MulticastDelegate<AnyObject>(
    ///     acceptingAnyOf: (any ScrollViewDelegate).self, (any ZoomingDelegate).self)
    /// try delegates.add(dynamic: scrollListener)        // a ScrollViewDelegate only
    /// delegates.invoke(as: (any ScrollViewDelegate).self) { $0.scrollViewDidScroll(scrollView) }
    /// ```
    ///
    /// Replaces `+[ILABMultiDelegate delegateWithProtocols:strict:]` with
    /// `strict:NO`.
    public init<First, each Other>(
        name: String = "", acceptingAnyOf first: First.Type, _ others: repeat (each Other).Type
    ) {
        var accepted = [AcceptedType(first)]
        for other in repeat each others {
            accepted.append(AcceptedType(other))
        }
        self.name = name
        self.acceptedTypes = accepted
    }

    /// Whether ``add(dynamic:)`` accepts only objects that are a `P`.
    public var isStrict: Bool { acceptedTypes == nil }
}

// @unchecked: the stored state is a mutex, constants and Sendable closures;
// what must be Sendable is the delegates it calls, which `P: Sendable` says.
extension MulticastDelegate: @unchecked Sendable where P: Sendable {}

/// One delegate in the list. Its object is never written after init (so
/// reading the weak reference is thread-safe); the rest is atomic.
///
/// A call of the delegate is a call the C core knows (`dc__call_begin`), so
/// a removal waits for it as a table's remove waits for a handler's, with
/// the same exception, shared with every table: either the call sees
/// `isRemoved` and skips the delegate, or the removal sees the call and
/// waits for it. No call starts once the removal has returned.
final class DelegateEntry: @unchecked Sendable {
    weak let object: AnyObject?
    /// Set by `remove`, so that a call already going through a snapshot of
    /// the list skips the delegate from then on.
    let isRemoved = Atomic(false)

    init(_ object: AnyObject) {
        self.object = object
    }

    /// Runs `body` with the delegate, as a call the C core knows; does not
    /// when it has been removed or has died, or when calls on this thread
    /// are nested too deep to be known (`DC_MAX_EXECUTE_DEPTH`).
    func call(_ body: (AnyObject) throws -> Void) rethrows {
        let callee = Unmanaged.passUnretained(self).toOpaque()
        guard dc__call_begin(callee) else { return }
        defer { dc__call_end() }
        guard !isRemoved.load(ordering: .acquiring), let object else { return }
        try body(object)
    }

    /// Marks the delegate removed, then waits for its calls running on other
    /// threads (see "Lifetime and order" in ``MulticastDelegate``).
    func remove() {
        isRemoved.store(true, ordering: .releasing)
        dc__call_wait(Unmanaged.passUnretained(self).toOpaque())
    }
}

/// A delegate of the list beside its entry, loaded under the list's lock
/// (see `withLiveEntries`).
// @unchecked: made, compared and released under the list's lock or by the
// caller that loaded it, never used across threads.
private struct LiveEntry: @unchecked Sendable {
    let entry: DelegateEntry
    let object: AnyObject
}

/// A protocol, or other type, that a non-strict multicast delegate accepts.
private struct AcceptedType: Sendable {
    let name: String
    let accepts: @Sendable (AnyObject) -> Bool

    init<Accepted>(_ type: Accepted.Type) {
        self.name = "\(Accepted.self)"
        self.accepts = { $0 is Accepted }
    }
}

// MARK: - Adding and removing

extension MulticastDelegate {
    /// Adds `delegate` at the end, unless it is already present, where it
    /// keeps its place.
    ///
    /// `delegate` must be a class instance (`P` should be a class-bound
    /// protocol); anything else stops the program, as a value cannot be held
    /// weakly.
    ///
    /// Replaces `-[ILABMultiDelegate addDelegate:]`.
    public func add(_ delegate: P) {
        append(Self.object(of: delegate))
    }

    /// Adds `object`, which the compiler cannot check, at the end if it fits
    /// (see ``isStrict``), unless it is already present.
    ///
    /// - Throws: ``DispatchError/typeMismatch(_:)``, naming the object's type
    ///   and what was expected, when a strict multicast delegate is given an
    ///   object that is not a `P`, or a non-strict one an object that adopts
    ///   none of its protocols; nothing is added.
    ///
    /// Replaces `-[ILABMultiDelegate addDelegate:]` in strict mode, which
    /// raises an exception for a delegate that does not conform.
    public func add(dynamic object: AnyObject) throws(DispatchError) {
        try check(object)
        append(object)
    }

    /// Appends `object` unless it is already present.
    private func append(_ object: AnyObject) {
        let entry = DelegateEntry(object)
        withLiveEntries { live in
            guard !live.contains(where: { $0.object === object }) else { return }
            live.append(LiveEntry(entry: entry, object: object))
        }
    }

    /// Inserts `delegate` at `index` among the live delegates, moving it
    /// there if it is already present.
    ///
    /// - Throws: ``DispatchError/indexOutOfRange(_:)`` when `index` is
    ///   negative or past the end (of the list without `delegate`); the list
    ///   is unchanged.
    ///
    /// Replaces `-[ILABMultiDelegate insertDelegate:atIndex:]`.
    public func insert(_ delegate: P, at index: Int) throws(DispatchError) {
        let object = Self.object(of: delegate)
        let outOfRange = withLiveEntries { live -> DispatchError? in
            let existing = live.firstIndex { $0.object === object }
            let count = live.count - (existing == nil ? 0 : 1)
            guard (0...count).contains(index) else {
                return DispatchError.indexOutOfRange(
                    "\(describedName): index \(index) is out of range for \(count) delegates")
            }
            let entry = existing.map { live.remove(at: $0) } ?? LiveEntry(entry: DelegateEntry(object), object: object)
            live.insert(entry, at: index)
            return nil
        }
        if let outOfRange { throw outOfRange }
    }

    /// Inserts `delegate` just before `anchor`, moving it there if it is
    /// already present; at the end when `anchor` is `nil` or not a delegate.
    ///
    /// The end for a missing anchor is where `AIMultiDelegate` and
    /// `ILABMultiDelegate` put it. Inserting a delegate before itself leaves
    /// it where it is.
    ///
    /// Replaces `-[ILABMultiDelegate insertDelegate:beforeDelegate:]`.
    public func insert(_ delegate: P, before anchor: AnyObject?) {
        insert(delegate, relativeTo: anchor, after: false)
    }

    /// Inserts `delegate` just after `anchor`, moving it there if it is
    /// already present; at the front when `anchor` is `nil` or not a delegate.
    ///
    /// The front for a missing anchor is where `AIMultiDelegate` and
    /// `ILABMultiDelegate` put it. Inserting a delegate after itself leaves
    /// it where it is.
    ///
    /// Replaces `-[ILABMultiDelegate insertDelegate:afterDelegate:]`.
    public func insert(_ delegate: P, after anchor: AnyObject?) {
        insert(delegate, relativeTo: anchor, after: true)
    }

    private func insert(_ delegate: P, relativeTo anchor: AnyObject?, after: Bool) {
        let object = Self.object(of: delegate)
        let newEntry = DelegateEntry(object)
        withLiveEntries { live in
            let existing = live.firstIndex { $0.object === object }
            if existing != nil, anchor === object { return }
            let entry = existing.map { live.remove(at: $0) } ?? LiveEntry(entry: newEntry, object: object)
            let index: Int
            if let anchor, let anchorIndex = live.firstIndex(where: { $0.object === anchor }) {
                index = after ? anchorIndex + 1 : anchorIndex
            } else {
                index = after ? 0 : live.count
            }
            live.insert(entry, at: index)
        }
    }

    /// Removes `delegate` and returns whether it was present. Once this
    /// returns it is not called again, not even by a call already going
    /// through the list on another thread or further up this one; its calls
    /// already running on other threads have returned (but see "Lifetime and
    /// order" above for a remove made inside a delegate's call).
    ///
    /// Replaces `-[ILABMultiDelegate removeDelegate:]`.
    @discardableResult
    public func remove(_ delegate: AnyObject) -> Bool {
        let removed = withLiveEntries { live in
            live.firstIndex { $0.object === delegate }.map { live.remove(at: $0).entry }
        }
        removed?.remove()
        return removed != nil
    }

    /// Removes every delegate.
    ///
    /// Replaces `-[ILABMultiDelegate removeAllDelegates]`.
    public func removeAll() {
        let removed = entries.withLock { entries in
            defer { entries.removeAll() }
            return entries
        }
        for entry in removed {
            entry.remove()
        }
    }

    /// Whether `delegate` is one of the live delegates.
    public func contains(_ delegate: AnyObject) -> Bool {
        withLiveEntries { live in
            live.contains { $0.object === delegate }
        }
    }

    /// How many delegates are alive.
    public var count: Int {
        withLiveEntries { $0.count }
    }

    /// Whether no delegate is alive.
    public var isEmpty: Bool { count == 0 }

    /// The live delegates, in call order.
    public var delegates: [AnyObject] {
        liveEntries().compactMap(\.object)
    }

    /// Whether any live delegate is a `Requirement`: the
    /// `respondsToSelector:` of a multicast delegate, for a protocol that
    /// stands for Objective-C `@optional` methods.
    ///
    /// ```swift
    /// if listeners.responds(to: (any ZoomingDelegate).self) { enableZoom() }
    /// ```
    ///
    /// Replaces `-[AIMultiDelegate respondsToSelector:]`, which answers yes
    /// when any delegate does.
    public func responds<Requirement>(to requirement: Requirement.Type) -> Bool {
        liveEntries().contains { entry in entry.object.map { $0 is Requirement } ?? false }
    }
}

// MARK: - Calling

extension MulticastDelegate {
    /// Calls `call` with each live delegate, in order, and returns the first
    /// value that is not `nil`; `nil` when there is no delegate.
    ///
    /// ```swift
    /// listeners.invoke { $0.scrollViewDidScroll(scrollView) }
    /// let view = listeners.invoke { $0.viewForZooming(in: scrollView) }   // the first non-nil view
    /// ```
    ///
    /// Every delegate is called, also after the first value. An error
    /// thrown by `call` stops the call there and is rethrown.
    ///
    /// Replaces `-[ILABMultiDelegate forwardInvocation:]`.
    @discardableResult
    public func invoke<Result>(_ call: (P) throws -> Result?) rethrows -> Result? {
        try invoke(as: P.self, call)
    }

    /// Calls `call` with each live delegate that is a `Requirement`, in
    /// order, and returns the first value that is not `nil`: for a
    /// non-strict multicast delegate, or a protocol of `@optional` methods.
    @discardableResult
    public func invoke<Requirement, Result>(
        as requirement: Requirement.Type, _ call: (Requirement) throws -> Result?
    ) rethrows -> Result? {
        var first: Result?
        try forEachDelegate(as: requirement) { delegate in
            let result = try call(delegate)
            if first == nil { first = result }
        }
        return first
    }

    /// Calls `call` with each live delegate, in order, and returns the last
    /// value that is not `nil`.
    @discardableResult
    public func lastResult<Result>(_ call: (P) throws -> Result?) rethrows -> Result? {
        var last: Result?
        try forEachDelegate(as: P.self) { delegate in
            if let result = try call(delegate) { last = result }
        }
        return last
    }

    /// Calls `call` with each live delegate, in order, and returns every
    /// value that is not `nil`, in that order.
    public func allResults<Result>(_ call: (P) throws -> Result?) rethrows -> [Result] {
        var results: [Result] = []
        try forEachDelegate(as: P.self) { delegate in
            if let result = try call(delegate) { results.append(result) }
        }
        return results
    }

    /// Calls `body` with each delegate of a snapshot of the list that is
    /// still alive, not removed since, and a `Requirement`.
    private func forEachDelegate<Requirement>(
        as requirement: Requirement.Type, _ body: (Requirement) throws -> Void
    ) rethrows {
        for entry in liveEntries() {
            try entry.call { object in
                if let delegate = object as? Requirement { try body(delegate) }
            }
        }
    }
}

// MARK: - Helpers

extension MulticastDelegate {
    /// The entries whose delegates are alive, after pruning the dead ones.
    private func liveEntries() -> [DelegateEntry] {
        withLiveEntries { live in live.map(\.entry) }
    }

    /// Runs `body` under the lock with the live entries, each beside its
    /// delegate, once the dead ones are pruned; the list becomes what `body`
    /// leaves.
    ///
    /// The delegates are loaded under the lock and released after it is let
    /// go: loading a weak reference makes a strong one, which is the
    /// delegate's last when it dies meanwhile on another thread, and its
    /// deinit, user code, may use this multicast delegate.
    private func withLiveEntries<Result>(_ body: (inout [LiveEntry]) -> Result) -> Result {
        var loaded: [LiveEntry] = []
        defer { withExtendedLifetime(loaded) {} }
        return entries.withLock { entries in
            var live = entries.compactMap { entry in entry.object.map { LiveEntry(entry: entry, object: $0) } }
            loaded = live
            let result = body(&live)
            entries = live.map(\.entry)
            return result
        }
    }

    /// `delegate` as the object the list holds weakly.
    private static func object(of delegate: P) -> AnyObject {
        let value = delegate as Any
        precondition(
            Swift.type(of: value) is AnyClass,
            "MulticastDelegate<\(P.self)>: a delegate must be a class instance, not a \(Swift.type(of: value))")
        return value as AnyObject
    }

    /// Throws unless ``add(dynamic:)`` accepts `object`.
    private func check(_ object: AnyObject) throws(DispatchError) {
        guard let acceptedTypes else {
            guard object is P else {
                throw DispatchError.typeMismatch(
                    "\(describedName): \(Swift.type(of: object)) is not a \(P.self)")
            }
            return
        }
        guard acceptedTypes.contains(where: { $0.accepts(object) }) else {
            let names = acceptedTypes.map(\.name).joined(separator: ", ")
            throw DispatchError.typeMismatch(
                "\(describedName): \(Swift.type(of: object)) adopts none of \(names)")
        }
    }

    private var describedName: String {
        name.isEmpty ? "MulticastDelegate<\(P.self)>" : "multicast delegate \"\(name)\""
    }
}

extension MulticastDelegate: CustomStringConvertible {
    /// The protocol, the name and the number of live delegates, such as
    /// `MulticastDelegate<ScrollViewDelegate>("scroll", 2 delegates)`.
    public var description: String {
        let count = count
        let delegates = count == 1 ? "1 delegate" : "\(count) delegates"
        return name.isEmpty
            ? "MulticastDelegate<\(P.self)>(\(delegates))"
            : "MulticastDelegate<\(P.self)>(\"\(name)\", \(delegates))"
    }
}
