internal import CDispatchCore

/// Where in an execute a handler runs, as GLib's signal phases order them:
/// the event's run-first default handler, the normal handlers, the run-last
/// default handler, then the after-handlers.
///
/// ```swift
/// try table.on("close", phase: .runLast) { window.close() }   // the event's default
/// table.on("close") { print("closing") }                      // before the default
/// table.on("close", phase: .after) { print("closed") }        // after it
/// ```
///
/// A default handler is what an event does unless a handler stops it
/// (``CommandTable/stopEmission()`` or a ``Accumulator/trueHandled``
/// accumulator stops everything after the handler that stops, the default
/// included). An event has at most one, and
/// ``CommandTable/removeAll()``, ``CommandTable/removeAll(for:)-(String)``
/// and ``CommandTable/removeTarget(_:)`` leave it; cancelling its
/// registration, or its target dying, removes it.
///
/// Within a phase, handlers run in the order they were added, or first
/// with ``HandlerOptions/first``.
///
/// The corresponding C flags are `DC_HANDLER_AFTER`, `DC_HANDLER_RUN_FIRST`
/// and `DC_HANDLER_RUN_LAST`. Replaces GLib's `G_SIGNAL_RUN_FIRST` and
/// `G_SIGNAL_RUN_LAST` class closures and `g_signal_connect_after`.
public enum HandlerPhase: Hashable, Sendable, CustomStringConvertible {
    /// Among the event's normal handlers: after the run-first default and
    /// before the run-last one.
    case normal
    /// After the event's run-last default handler
    /// (`g_signal_connect_after`).
    case after
    /// The event's default handler, run before every other handler
    /// (`G_SIGNAL_RUN_FIRST`).
    case runFirst
    /// The event's default handler, run after the normal handlers and
    /// before the after-handlers (`G_SIGNAL_RUN_LAST`).
    case runLast

    /// Whether this is a default handler's phase.
    public var isDefault: Bool {
        self == .runFirst || self == .runLast
    }

    public var description: String {
        switch self {
        case .normal: "normal"
        case .after: "after"
        case .runFirst: "runFirst"
        case .runLast: "runLast"
        }
    }

    /// The phase a C handler's flags give.
    init(cFlags: UInt32) {
        if cFlags & UInt32(DC_HANDLER_RUN_FIRST) != 0 {
            self = .runFirst
        } else if cFlags & UInt32(DC_HANDLER_RUN_LAST) != 0 {
            self = .runLast
        } else if cFlags & UInt32(DC_HANDLER_AFTER) != 0 {
            self = .after
        } else {
            self = .normal
        }
    }

    /// The handler options that say this phase to the C core (see
    /// ``HandlerOptions/placed(in:)``).
    var options: HandlerOptions {
        switch self {
        case .normal: []
        case .after: .phaseAfter
        case .runFirst: .phaseRunFirst
        case .runLast: .phaseRunLast
        }
    }
}

extension HandlerPhase {
    /// The phase a registering method is given, `phase: .after` say, and
    /// whether registering in it can fail: `Failure` is `Never` for
    /// ``normal`` and ``after``, so those registrations need no `try`, and
    /// ``DispatchError`` for the default phases ``runFirst`` and
    /// ``runLast``, because an event has at most one default handler.
    ///
    /// ```swift
    /// table.on(.resize, phase: .after) { size in layout(size) }
    /// try table.on(.resize, phase: .runFirst) { size in store(size) }
    /// ```
    ///
    /// Registering a default handler throws
    /// ``DispatchError/invalidState(_:)`` when the event has one already,
    /// and ``DispatchError/invalidArgument(_:)`` for a detailed key (a
    /// detail has no default of its own), a malformed key, or
    /// ``HandlerOptions/first`` (a default's place is fixed).
    public struct Choice<Failure: Error>: Sendable {
        /// The phase chosen.
        public let phase: HandlerPhase

        @usableFromInline
        init(_ phase: HandlerPhase) {
            self.phase = phase
        }
    }
}

extension HandlerPhase.Choice where Failure == Never {
    /// Among the event's normal handlers, in the order they were added.
    public static var normal: Self { Self(.normal) }

    /// After the event's run-last default handler, in the order they were
    /// added (`g_signal_connect_after`).
    public static var after: Self { Self(.after) }
}

extension HandlerPhase.Choice where Failure == DispatchError {
    /// As the event's default handler, run before every other handler
    /// (`G_SIGNAL_RUN_FIRST`).
    public static var runFirst: Self { Self(.runFirst) }

    /// As the event's default handler, run after the normal handlers and
    /// before the after-handlers (`G_SIGNAL_RUN_LAST`).
    public static var runLast: Self { Self(.runLast) }
}

extension HandlerPhase.Choice {
    /// Registers with `add`, given `options` with this phase's, and hands
    /// back what it returns; or what its failure means in this phase: the
    /// error itself for a default phase, which throws; for the others, an
    /// already cancelled registration when the key is malformed (nothing
    /// was registered, and executing the key throws that error), and a
    /// fatal error when memory ran out, as Swift treats it.
    @usableFromInline
    func register<R: Registration>(
        _ event: @autoclosure () -> String, options: HandlerOptions,
        _ add: (HandlerOptions) throws(DispatchError) -> R
    ) throws(Failure) -> R {
        do {
            return try add(options.placed(in: phase))
        } catch {
            // The name only for the message: reading a key's costs a retain.
            return try failed(event(), error)
        }
    }

    /// What `register` gives back when `add` failed with `error`. Out of
    /// line: the cast to `Failure` looks up `Optional<Failure>`'s metadata
    /// at the entry of the function that holds it, which would make every
    /// registration pay for it.
    @inline(never)
    private func failed<R: Registration>(_ event: String, _ error: DispatchError) throws(Failure) -> R {
        if let failure = error as? Failure { throw failure }
        if case .invalidArgument = error { return R.nothing() }
        fatalError("registering a handler for \"\(event)\" failed: \(error)")
    }
}
