// The @Multicast macro, in a product of its own: its implementation is a
// compiler plugin built on swift-syntax, which users of EventKitSwift alone
// never build. Importing this module imports EventKitSwift too, whose
// MulticastDelegate the written type wraps.
@_exported import EventKitSwift

/// Writes a multicast delegate for a class-bound protocol: a final class
/// named for the protocol with `Multicast` in front, which conforms to it and
/// passes every call on to its delegates.
///
/// ```swift
/// import EventKitMulticast
///
/// @Multicast
/// protocol ScrollViewDelegate: AnyObject {
///     func scrollViewDidScroll(_ scrollView: ScrollView)
///     @MulticastFallback(true)
///     func scrollViewShouldScrollToTop(_ scrollView: ScrollView) -> Bool
///     func viewForZooming(in scrollView: ScrollView) -> View?
/// }
///
/// let listeners = MulticastScrollViewDelegate()   // keep it: the scroll view holds it weakly
/// scrollView.delegate = listeners
/// listeners.add(analytics)                         // held weakly, called in order
/// listeners.add(header)
/// ```
///
/// The class, `MulticastScrollViewDelegate` here, keeps its delegates in
/// `delegates`, a `MulticastDelegate<any ScrollViewDelegate>`: held weakly,
/// called in the order they were added, and never called again once
/// `remove(_:)` has returned. `add(_:)` and `remove(_:)` are at hand on the
/// class; the rest of `MulticastDelegate` (inserting, `allResults(_:)`,
/// `count`) is on `delegates`. Each requirement becomes one member that calls
/// `delegates.invoke`:
///
/// * A method that returns nothing calls every delegate, in order.
/// * A method, read-only property or read-only subscript with an optional
///   result calls every delegate and returns the first value that is not
///   `nil`; `nil` when there is none.
/// * One with a non-optional result returns the first delegate's value.
///   With no delegate it needs a value all the same: give it with
///   ``MulticastFallback(_:)`` on the requirement, which a non-optional
///   result requires.
/// * A `throws` requirement forwards with `try`: the first error thrown stops
///   the call, later delegates are not called, and the error reaches the
///   caller (typed throws keep their type).
/// * Arguments are passed on as they came: labels, `inout` (each delegate sees
///   the value the one before left), escaping closures, autoclosures (each
///   delegate's evaluates the caller's when it asks). Generic methods forward
///   too.
///
/// Every delegate is called as a `ScrollViewDelegate`, so a requirement with
/// a default implementation in a protocol extension runs each delegate's own
/// implementation, or the default for a delegate without one. The class
/// implements every requirement itself, so it never answers with the
/// default on its own behalf.
///
/// The class has the protocol's access level and availability, is isolated
/// to the protocol's global actor through its conformance (a `@MainActor`
/// protocol gives a `@MainActor` class), and is `Sendable` when the protocol
/// is.
///
/// What cannot be forwarded faithfully is refused with an error on the
/// requirement, and then no class is written: a protocol that is not
/// class-bound, or inherits protocols other than `AnyObject` and `Sendable`
/// (their requirements are out of the macro's sight); associated types and
/// primary associated types; `static` and `class` requirements;
/// initializers; properties and subscripts with setters; `async`
/// requirements (delegates are called synchronously, which is what lets a
/// removal promise that the removed delegate is not called any more);
/// requirements that mention `Self`; variadic and `sending` parameters; a
/// non-optional result without ``MulticastFallback(_:)``; a `nonisolated`
/// requirement of a protocol isolated to a global actor that is not
/// `Sendable` (the class keeps its delegates on that actor); and
/// requirements named `delegates`, `add(_:)` or `remove(_:)`, which the class
/// uses.
@attached(peer, names: prefixed(Multicast))
public macro Multicast() = #externalMacro(module: "EventKitMacros", type: "MulticastMacro")

/// The value a `@Multicast` protocol's requirement returns when the
/// multicast delegate has no delegate.
///
/// ```swift
/// @Multicast
/// protocol ScrollViewDelegate: AnyObject {
///     @MulticastFallback(true)
///     func scrollViewShouldScrollToTop(_ scrollView: ScrollView) -> Bool
///     @MulticastFallback(0)
///     var pageCount: Int { get }
/// }
/// ```
///
/// The written member returns `delegates.invoke { … } ?? value`. A
/// requirement with a non-optional result needs it; on an optional one it
/// replaces `nil`. The value is written into the multicast class as it
/// stands, so it cannot name the requirement's parameters, and its type
/// must be written out (`Point.zero`, not `.zero`). It writes nothing
/// itself, and warns when it is where it has no effect.
@attached(peer)
public macro MulticastFallback<Value>(_ value: Value) =
    #externalMacro(module: "EventKitMacros", type: "MulticastFallbackMacro")
