internal import CDispatchCore

/// What one execute did.
///
/// The corresponding C type is `dc_result`.
public struct ExecuteResult: CustomStringConvertible {
    /// Handlers that ran during the execute.
    public let handled: Int
    /// Deliveries posted to queues, to run later on their threads.
    public let queued: Int
    /// Deliveries that could not be posted (their queue was destroyed).
    public let dropped: Int
    /// Whether a handler stopped the emission.
    public let stopped: Bool
    /// The return value of the first handler that returned one, or the one
    /// the accumulator chose; `nil` when no handler returned a value.
    ///
    /// Replaces the result of `-[NSInvocation getReturnValue:]` after a
    /// `performSelector:`.
    public let returnValue: Value?

    init(_ result: dc_result) {
        handled = result.handled
        queued = result.queued
        dropped = result.dropped
        stopped = result.stopped
        // Not `? … : nil`: Value is ExpressibleByNilLiteral, so that `nil`
        // would be `.pointer(nil)`, a return value nobody returned.
        returnValue = result.has_return_value ? Value(result.return_value) : Optional.none
    }

    public var description: String {
        var parts = ["handled: \(handled)"]
        if queued > 0 { parts.append("queued: \(queued)") }
        if dropped > 0 { parts.append("dropped: \(dropped)") }
        if stopped { parts.append("stopped") }
        if let returnValue { parts.append("returned: \(returnValue)") }
        return "ExecuteResult(" + parts.joined(separator: ", ") + ")"
    }
}

@available(*, unavailable, message: "an ExecuteResult may hold a Value, which is not Sendable")
extension ExecuteResult: Sendable {}
