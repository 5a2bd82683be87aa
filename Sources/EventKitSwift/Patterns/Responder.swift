/// An object in a responder chain: it may handle a selector routed to it,
/// add to the route's information and pass it on, or stop it; by default it
/// passes it to its ``nextResponder``.
///
/// ```swift
/// final class Cell: Responder {
///     weak var list: ListView?
///     var nextResponder: (any Responder)? { list }
///     let row: Int
///
///     func respond(to selector: String, sender: Any?, info: inout [String: Any]) -> RouteDecision {
///         guard selector == "select" else { return .forward }
///         info["row"] = row            // add what this responder knows, and pass it on
///         return .forward
///     }
/// }
///
/// final class Controller: Responder {
///     var nextResponder: (any Responder)? { nil }
///
///     func respond(to selector: String, sender: Any?, info: inout [String: Any]) -> RouteDecision {
///         guard selector == "select" else { return .forward }
///         open(row: info["row"] as! Int)
///         return .handled
///     }
/// }
///
/// let result = cell.route("select", sender: cell)     // the cell, the list, the controller
/// ```
///
/// A route walks up the chain from the responder it starts at, asking each
/// one with ``respond(to:sender:info:)`` until one returns
/// ``RouteDecision/handled`` or ``RouteDecision/stop``; its
/// ``RouteResult`` says which responder it ended at and why. A route that
/// reaches the end of the chain unhandled is not an error: it ends
/// ``RouteResult/unhandled(endedAt:info:)``, naming the last responder it
/// reached, so a chain broken off early (a view no longer in its window)
/// shows where. A chain that comes back to a responder it has already passed
/// ends there the same way instead of looping.
///
/// Implement ``respond(to:sender:info:)`` in the class that adopts
/// `Responder`, and override it in subclasses: a subclass's own method is
/// not seen through the protocol when its superclass relies on the default.
///
/// Routes are synchronous and run on the calling thread. Replaces
/// `UIResponder`'s `nextResponder`, the `-routerEventWithName:userInfo:`
/// category that forwards an event and its information up the chain, and
/// `-[UIApplication sendAction:to:from:forEvent:]` with a nil target.
public protocol Responder: AnyObject {
    /// The responder a route goes to when this one passes it on; `nil` ends
    /// the chain.
    var nextResponder: (any Responder)? { get }

    /// Decides what a route of `selector` does here: handle it, add to
    /// `info` and pass it on, or stop it.
    ///
    /// - Parameters:
    ///   - selector: What is routed, such as `"select"` or `"copy:"`.
    ///   - sender: The object the route started for, if any.
    ///   - info: The route's information, with what the responders before
    ///     this one added; what this one adds reaches those after it and the
    ///     ``RouteResult``.
    /// - Returns: ``RouteDecision/forward`` to pass the route to
    ///   ``nextResponder``; the default does that for every selector.
    func respond(to selector: String, sender: Any?, info: inout [String: Any]) -> RouteDecision
}

/// What a responder does with a route that reaches it.
public enum RouteDecision: Sendable, Hashable {
    /// Pass the route to the next responder (with whatever this one added to
    /// its information).
    case forward
    /// This responder handled the selector: the route ends here.
    case handled
    /// End the route here without handling it, as a disabled or modal
    /// responder swallows what it will not let through.
    case stop
}

/// How a route ended: handled, stopped, or unhandled at the end of the
/// chain, with the responder it ended at and its information by then.
public enum RouteResult {
    /// `responder` returned ``RouteDecision/handled``.
    case handled(by: any Responder, info: [String: Any])
    /// `responder` returned ``RouteDecision/stop``.
    case stopped(by: any Responder, info: [String: Any])
    /// Every responder passed the route on and `responder`, the last one,
    /// has no ``Responder/nextResponder`` (or its next one was already on
    /// the route): nothing handles the selector on this chain.
    case unhandled(endedAt: any Responder, info: [String: Any])

    /// Whether a responder handled the route.
    public var isHandled: Bool {
        if case .handled = self { return true }
        return false
    }

    /// The responder that handled the route; `nil` when none did.
    public var handler: (any Responder)? {
        if case .handled(let responder, _) = self { return responder }
        return nil
    }

    /// The responder the route ended at: the one that handled or stopped
    /// it, or the last one of the chain.
    public var responder: any Responder {
        switch self {
        case .handled(let responder, _), .stopped(let responder, _), .unhandled(let responder, _):
            responder
        }
    }

    /// The route's information as the responder it ended at left it.
    public var info: [String: Any] {
        switch self {
        case .handled(_, let info), .stopped(_, let info), .unhandled(_, let info):
            info
        }
    }
}

extension RouteResult: CustomStringConvertible {
    /// How the route ended and at which responder's type, such as
    /// `handled by Controller`.
    public var description: String {
        switch self {
        case .handled(let responder, _): "handled by \(type(of: responder))"
        case .stopped(let responder, _): "stopped by \(type(of: responder))"
        case .unhandled(let responder, _): "unhandled, chain ended at \(type(of: responder))"
        }
    }
}

extension Responder {
    /// Passes every route on to ``nextResponder``.
    public func respond(to selector: String, sender: Any?, info: inout [String: Any]) -> RouteDecision {
        .forward
    }

    /// Routes `selector` up the chain from this responder: each responder in
    /// turn, starting with this one, may handle it, add to `info` and pass it
    /// on, or stop it.
    ///
    /// ```swift
    /// let result = cell.route("select", sender: cell, info: ["source": "tap"])
    /// if !result.isHandled { log.warning("nobody handled select: \(result)") }
    /// ```
    ///
    /// - Parameters:
    ///   - selector: What is routed.
    ///   - sender: The object the route is for, given to every responder.
    ///   - info: The information the route starts with.
    /// - Returns: How the route ended; ``RouteResult/unhandled(endedAt:info:)``
    ///   when it reached the end of the chain, at the last responder there.
    ///
    /// Replaces `-[UIResponder routerEventWithName:userInfo:]` (the category
    /// whose default calls the next responder's) and `-[NSResponder
    /// tryToPerform:with:]`.
    @discardableResult
    public func route(_ selector: String, sender: Any? = nil, info: [String: Any] = [:]) -> RouteResult {
        var info = info
        var responder: any Responder = self
        var visited: Set<ObjectIdentifier> = [ObjectIdentifier(self)]
        while true {
            switch responder.respond(to: selector, sender: sender, info: &info) {
            case .handled: return .handled(by: responder, info: info)
            case .stop: return .stopped(by: responder, info: info)
            case .forward:
                guard let next = responder.nextResponder, visited.insert(ObjectIdentifier(next)).inserted else {
                    return .unhandled(endedAt: responder, info: info)
                }
                responder = next
            }
        }
    }

    /// Sends the action `selector` from `sender`: to `target` alone when one
    /// is given, otherwise up the chain from this responder, the first
    /// responder, to the first that handles it.
    ///
    /// ```swift
    /// focusedField.sendAction("copy:", to: nil, from: menuItem)   // the first responder that copies
    /// ```
    ///
    /// - Returns: How the send ended. With a `target` that passes the action
    ///   on, the send ends ``RouteResult/unhandled(endedAt:info:)`` at the
    ///   target: an explicit target is not searched past.
    ///
    /// Replaces `-[UIApplication sendAction:to:from:forEvent:]` and
    /// `-[NSApplication sendAction:to:from:]`, where a nil target means the
    /// first responder that implements the action.
    @discardableResult
    public func sendAction(_ selector: String, to target: (any Responder)?, from sender: Any? = nil) -> RouteResult {
        guard let target else {
            return route(selector, sender: sender)
        }
        var info: [String: Any] = [:]
        switch target.respond(to: selector, sender: sender, info: &info) {
        case .handled: return .handled(by: target, info: info)
        case .stop: return .stopped(by: target, info: info)
        case .forward: return .unhandled(endedAt: target, info: info)
        }
    }
}
