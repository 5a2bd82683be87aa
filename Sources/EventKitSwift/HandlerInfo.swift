internal import CDispatchCore

/// A handler's identity in its table: never reused while the table lives.
///
/// A ``Registration`` names its handler's (``Registration/handlerID``),
/// ``CommandTable/handlers(for:)-(String)`` lists them, and a
/// ``HandlerChange`` says which handler came or went.
///
/// The corresponding C type is `dc_handler_id`.
public struct HandlerID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The C core's id, never 0.
    public let rawValue: UInt64

    /// The id `rawValue`, as the C core issued it.
    ///
    /// - Parameter rawValue: A handler id a C function of this table gave.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    public var description: String { "#\(rawValue)" }
}

/// What a table says of one of its handlers: a snapshot, taken under the
/// table's lock, of a handler that may be removed right after.
///
/// ```swift
/// for handler in table.handlers(for: "notify::size") {
///     print(handler.id, handler.event, handler.phase, handler.isBlocked)
/// }
/// ```
///
/// The corresponding C type is `dc_handler_info`. Replaces Node's
/// `emitter.listeners()` entries and what `g_signal_handler_find` and
/// `g_signal_handler_is_connected` tell.
public struct HandlerInfo: CustomStringConvertible {
    /// The handler's id.
    public let id: HandlerID
    /// The key it was added with: its event's name, or a detailed key
    /// (`"notify::size"`).
    public let event: String
    /// How it was added: ``HandlerOptions/once`` and ``HandlerOptions/strict``
    /// (``HandlerOptions/first`` is a place, not kept).
    public let options: HandlerOptions
    /// Where among the event's handlers it runs.
    public let phase: HandlerPhase
    /// How many blocks hold it; it runs only at 0.
    public let blockedCount: Int
    /// Whether it was added as a marshal, a handler called with the C
    /// arguments rather than a C function of a fixed signature: every Swift
    /// closure and target-action is one.
    public let isMarshal: Bool
    /// Whether it runs on an ``EventQueue``'s thread, posted there.
    public let isQueued: Bool
    /// The object a target-action or an owner's closure is bound to, while
    /// it lives; `nil` for other handlers.
    public private(set) weak var target: AnyObject?
    /// The address a C function is registered with as its target (parameter
    /// 0; ``CommandTable/register(_:function:signature:target:options:phase:)``);
    /// `nil` for marshals and functions without one.
    public let unsafeTarget: UnsafeMutableRawPointer?

    /// Whether a block holds it (``blockedCount`` above 0).
    public var isBlocked: Bool { blockedCount > 0 }

    public var description: String {
        var parts = ["\(id)", "\"\(event)\""]
        if phase != .normal { parts.append("\(phase)") }
        if options.contains(.once) { parts.append("once") }
        if options.contains(.strict) { parts.append("strict") }
        if isBlocked { parts.append("blocked \(blockedCount)") }
        if isQueued { parts.append("queued") }
        if let target { parts.append("target \(ObjectIdentifier(target))") }
        return "HandlerInfo(" + parts.joined(separator: ", ") + ")"
    }

    init(_ info: dc_handler_info, event: String, target: AnyObject?) {
        id = HandlerID(rawValue: info.id)
        self.event = event
        options = HandlerOptions(cFlags: info.flags)
        phase = HandlerPhase(cFlags: info.flags)
        blockedCount = Int(info.blocked)
        isMarshal = info.marshal
        isQueued = info.queue != nil
        self.target = target
        unsafeTarget = info.marshal ? nil : info.target
    }
}

// MARK: - Asking the table

extension CommandTable {
    /// The handlers an execute of `event` would call, blocked ones included,
    /// in the order it would call them: for an event, those added without a
    /// detail; for a detailed key (`"notify::size"`), those and the ones
    /// added with that key; the default and after-handlers in their places
    /// (``HandlerPhase``).
    ///
    /// ```swift
    /// table.handlers(for: "notify::size").map(\.id)
    /// ```
    ///
    /// A snapshot: handlers may come and go meanwhile. An unknown event, or
    /// a malformed key, has none.
    ///
    /// - Parameter event: The event's name, or a detailed key.
    /// - Returns: The handlers, in call order.
    ///
    /// The corresponding C function is `dc_table_handlers`. Replaces Node's
    /// `emitter.listeners(eventName)`.
    public func handlers(for event: String) -> [HandlerInfo] {
        var infos: [dc_handler_info] = []
        var count = 0
        // Handlers may be added between counting and listing: list again
        // with room for what the last try counted.
        repeat {
            infos = Array(repeating: dc_handler_info(), count: count)
            let capacity = count
            guard dc_table_handlers(cTable, event, &infos, capacity, &count) == DC_OK else { return [] }
            if count <= capacity { break }
        } while true
        let targets = TargetHandlers.targets(inTable: serial)
        return infos.prefix(count).map { info in
            HandlerInfo(info, event: eventName(info.event), target: targets[info.id]?.target)
        }
    }

    /// The handlers an execute of `key` would call, in call order; see
    /// ``handlers(for:)-(String)``.
    ///
    /// - Parameter key: The event, typed, with or without a detail.
    /// - Returns: The handlers, in call order.
    public func handlers<Arguments>(for key: EventKey<Arguments>) -> [HandlerInfo] {
        handlers(for: key.name)
    }

    /// What the table says of handler `id`, or `nil` when it has no such
    /// handler (removed, or never this table's).
    ///
    /// ```swift
    /// let subscription = table.on("reset") { … }
    /// table.handlerInfo(subscription.handlerID!)?.event   // "reset"
    /// ```
    ///
    /// - Parameter id: The handler's id.
    /// - Returns: The handler's description, a snapshot.
    ///
    /// The corresponding C function is `dc_table_handler_info`. Replaces
    /// `g_signal_handler_is_connected`.
    public func handlerInfo(_ id: HandlerID) -> HandlerInfo? {
        var info = dc_handler_info()
        guard dc_table_handler_info(cTable, id.rawValue, &info) == DC_OK else { return nil }
        return HandlerInfo(
            info, event: eventName(info.event), target: TargetHandlers.targets(inTable: serial)[info.id]?.target)
    }

    /// The first handler, in call order, of `event` (`nil`: of any event,
    /// in the order events were first used) registered with the C function
    /// `function` and the target `target`, as `g_signal_handler_find` finds
    /// one by function and data. For an event key, only the handlers added
    /// with exactly that key are searched.
    ///
    /// ```swift
    /// try table.register("draw", function: draw, signature: Signature("v^v"), target: context)
    /// try table.findHandler(for: "draw", function: draw, target: context)?.id
    /// ```
    ///
    /// - Parameters:
    ///   - event: The event's name or detailed key, or `nil` for any.
    ///   - function: The C function, a `@convention(c)` function or a raw
    ///     function pointer.
    ///   - target: The target it was registered with; `nil` for none.
    /// - Returns: The handler found, or `nil`.
    /// - Throws: ``DispatchError/invalidArgument(_:)`` when `event` is
    ///   malformed or `function` is not a C function;
    ///   ``DispatchError/nullArgument(_:)`` when it is null.
    ///
    /// The corresponding C function is `dc_table_find_handler`.
    public func findHandler<Function>(
        for event: String? = nil, function: Function, target: UnsafeMutableRawPointer? = nil
    ) throws(DispatchError) -> HandlerInfo? {
        var id: dc_handler_id = 0
        let status = dc_table_find_handler(cTable, event, try cFunctionPointer(function), target, &id)
        if status == DC_ERR_NOT_FOUND { return nil }
        try DispatchError.check(status)
        return handlerInfo(HandlerID(rawValue: id))
    }

    /// The name of the interned event `id`, as the table keeps it.
    func eventName(_ id: dc_event_id) -> String {
        var name: UnsafePointer<CChar>?
        guard dc_table_event_name(cTable, id, &name) == DC_OK, let name else { return "" }
        return String(cString: name)
    }
}

extension Registration {
    /// The id of the handler this registers on a ``CommandTable``, until
    /// cancelled: for ``CommandTable/handlerInfo(_:)`` and to tell its
    /// ``HandlerChange``s apart. `nil` once cancelled, and for
    /// registrations of other sources, such as an emission hook's.
    public var handlerID: HandlerID? {
        guard let id = registeredHandler else { return nil }
        return HandlerID(rawValue: id)
    }
}
