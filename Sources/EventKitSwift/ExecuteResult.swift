internal import CDispatchCore

/// What one execute did.
///
/// The corresponding C type is `dc_result`.
public struct ExecuteResult: CustomStringConvertible {
    /// Handlers the execute ran, or handed to a `DispatchQueue` or the main
    /// actor to run later; a delivery posted to an ``EventQueue`` from
    /// another thread counts in ``queued`` instead.
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
    /// A struct a C handler returned is a ``Value/structure(_:)`` of its
    /// own after any execute by name (see
    /// ``CommandTable/execute(_:_:)-(String,_)``), of at most
    /// ``CommandTable/maximumReturnedStructSize`` bytes.
    ///
    /// Replaces the result of `-[NSInvocation getReturnValue:]` after a
    /// `performSelector:`.
    public let returnValue: Value?

    /// The return value as a `T`: `nil` when no handler returned one, or
    /// when it does not stand for a `T` (see
    /// ``EventArgument/init(eventValue:)``; an integer converts to any
    /// integer type that holds it).
    ///
    /// ```swift
    /// table.on(.approve) { amount in amount < 100 }.store(in: &subscriptions)
    /// let approved = try table.execute(.approve, 42).returnValue(as: Bool.self)   // Optional(true)
    /// let order = try table.execute(.latest).returnValue(as: Order.self)          // a payload
    /// ```
    public func returnValue<T: EventArgument>(as type: T.Type = T.self) -> T? {
        returnValue.flatMap(T.init(eventValue:))
    }

    /// The result of an execute as its outcome describes it. Inlinable, so
    /// that in a caller that drops the result the compiler sees that an
    /// execute whose handlers returned nothing leaves nothing to destroy.
    @inlinable
    init(_ outcome: ExecuteOutcome) {
        handled = outcome.handled
        queued = outcome.queued
        dropped = outcome.dropped
        stopped = outcome.stopped
        // Not `? … : nil`: Value is ExpressibleByNilLiteral, so that `nil`
        // would be `.pointer(nil)`, a return value nobody returned.
        returnValue = outcome.hasReturnValue ? outcome.returnValue() : Optional.none
    }

    /// The result of an execute as its outcome describes it, with
    /// `returnValue` read from C already (a struct copied out of the
    /// execute's return storage) in the place of the outcome's.
    init(_ outcome: ExecuteOutcome, returnValue: Value?) {
        handled = outcome.handled
        queued = outcome.queued
        dropped = outcome.dropped
        stopped = outcome.stopped
        self.returnValue = returnValue
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

/// What a C execute reported (`dc_result`), without C types and without
/// references: a trivial value, which the inlinable executes return from the
/// module and turn into an ``ExecuteResult`` in the caller. Four words, so it
/// comes back in registers.
@usableFromInline
struct ExecuteOutcome {
    @usableFromInline let handled: Int
    /// queued in the high half, dropped in the low: each counts handlers of
    /// one execute, which a C handler array counts in 32 bits.
    @usableFromInline let deliveries: UInt64
    /// The returned `dc_value`'s type in the low half, then bit 32 for
    /// `stopped` and bit 33 for `hasReturnValue`.
    @usableFromInline let flags: UInt64
    /// The returned `dc_value`'s bits, meaningful when `hasReturnValue`;
    /// what it points to stays valid after the execute (see
    /// `ReturnedValues`), as for a `dc_result`.
    private let returnBits: UInt64

    @inlinable var queued: Int { Int(deliveries >> 32) }
    @inlinable var dropped: Int { Int(deliveries & 0xFFFF_FFFF) }
    @inlinable var stopped: Bool { flags & (1 << 32) != 0 }
    @inlinable var hasReturnValue: Bool { flags & (1 << 33) != 0 }
    private var returnType: UInt32 { UInt32(truncatingIfNeeded: flags) }

    init(_ result: dc_result) {
        handled = result.handled
        deliveries =
            UInt64(truncatingIfNeeded: result.queued) << 32 | UInt64(UInt32(truncatingIfNeeded: result.dropped))
        flags =
            UInt64(result.return_value.type.rawValue) | (result.stopped ? 1 << 32 : 0)
            | (result.has_return_value ? 1 << 33 : 0)
        returnBits = result.return_value.u64
    }

    /// An execute that ran `handled` handlers and did nothing more.
    init(handled: Int) {
        self.handled = handled
        deliveries = 0
        flags = 0
        returnBits = 0
    }

    /// The return value as a Swift value; only when `hasReturnValue`.
    @usableFromInline
    func returnValue() -> Value {
        var cValue = dc_value()
        cValue.type = dc_type(rawValue: returnType)
        cValue.u64 = returnBits
        return Value(cValue)
    }
}
