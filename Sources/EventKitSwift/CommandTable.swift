internal import CDispatchCore
internal import CDispatchCoreBinding
import Logging
import Synchronization

/// A table of named events, each with an ordered list of handlers: Swift
/// closures, weak target-actions and C functions, executed by name or by typed
/// key, from Swift and from C.
///
/// ```swift
/// let table = CommandTable(name: "player")
/// var subscriptions = Set<Subscription>()
/// table.on("reset") { print("reset") }.store(in: &subscriptions)
/// table.on("toggle") { (on: Bool) in print("toggle", on) }.store(in: &subscriptions)
/// try table.execute("toggle", true)
/// ```
///
/// Handlers run in registration order on the thread that executes (or on
/// their delivery queue). An execute checks its arguments against every
/// handler before any runs: it runs whole or throws ``DispatchError`` and runs
/// nothing. Every method is safe from any thread, and executes from several
/// threads run in parallel: the table holds no lock while handlers run.
///
/// A closure handler lives as long as its ``Subscription``; see
/// ``Subscription`` for target-action and owner lifetimes.
///
/// The corresponding C type is `dc_table`: ``unsafeCTable`` gives C code the
/// same table, to register C functions and execute events on it. Replaces
/// `NSNotificationCenter`, hand-written `[String: [() -> Void]]` dictionaries,
/// and Combine subjects used as event buses.
// @unchecked: the only state besides constants is the dc_table, whose every
// function is documented safe from any thread.
public final class CommandTable: @unchecked Sendable {
    /// The table's name, in log messages and descriptions.
    public let name: String

    /// Where each execute logs, at trace level, before its handlers run:
    /// the table's name, the key executed and how many handlers the execute
    /// considers, through an emission hook on every event
    /// (``addEmissionHook(for:_:)-(String?,_)``), installed by ``init(name:logger:)``.
    public let logger: Logger?

    /// The C table, also kept in `handle`; a copy here saves a load on every
    /// execute.
    let cTable: OpaquePointer

    /// What owns the C table: this table and the subscriptions of its
    /// handlers.
    let handle: TableHandle

    /// A number no other table in this process has, for the events
    /// ``EventKey``s remember; 64 bits, so none is ever reused, and never 0.
    let serial: UInt64

    /// Held while adding a named target-action, so that two racing adds of
    /// one add it once (`addTarget(_:action:named:for:phase:)`).
    let targetActionAdds = Mutex<Void>(())

    /// The table's handler observers, made with the first
    /// (``observeHandlers(_:)``).
    let handlerObservers = Mutex<HandlerObservers?>(nil)

    /// The payload types the table's Swift handlers take, which executes
    /// check their payloads against; the handle's, which the C table asks
    /// about an execute from C.
    let payloadTypes: PayloadTypes

    /// Set once a handler returning a struct has been registered here
    /// (`register(_:function:signature:target:options:phase:)`): from then
    /// on, every execute, by name or by key, gives the C core room to keep a
    /// returned struct, so that all of them return it alike.
    @usableFromInline let structReturns = Atomic<Bool>(false)

    /// The logger's emission hook; none without a logger.
    private let loggingHook: Subscription?

    private static let serials = Atomic<UInt64>(1)

    /// Creates an empty table.
    ///
    /// - Parameters:
    ///   - name: A name for log messages and errors.
    ///   - logger: Where executes log at trace level, through an emission
    ///     hook on every event, which takes them the general way; `nil` logs
    ///     nothing and installs nothing.
    ///
    /// The corresponding C function is `dc_table_create`.
    public init(name: String = "", logger: Logger? = nil) {
        self.name = name
        self.logger = logger
        self.serial = Self.serials.add(1, ordering: .relaxed).newValue
        var callbacks = dc_object_callbacks(retain: retainObject, release: releaseObject)
        var created: OpaquePointer?
        let status = dc_table_create(name, &callbacks, &created)
        // Only running out of memory fails here, which Swift treats as fatal.
        precondition(status == DC_OK, "dc_table_create failed: \(String(cString: dc_last_error_message()))")
        self.cTable = created!
        let handle = TableHandle(cTable: created!)
        self.handle = handle
        self.payloadTypes = handle.payloadTypes
        // Before any handler: the C table asks it about the objects of an
        // execute from C (DC__HANDLER_CHECK_OBJECTS).
        dc__table_set_object_check(created!, checkPayloadObject, Unmanaged.passUnretained(handle.payloadTypes).toOpaque())
        self.loggingHook = logger.map { Self.loggingHook($0, table: name, handle: handle) }
    }

    deinit {
        // Releases every box, so closures and their captures go with the
        // table, as destroying the C table would; the empty C table itself
        // goes with the last subscription still holding its handle. The
        // observers are told nothing of the table's end.
        _ = dc_table_set_observer(cTable, nil, nil, nil)
        _ = dc_table_remove_all(cTable, nil)
        removeDefaultHandlers()
    }

    /// Removes the default handlers, which `dc_table_remove_all` leaves:
    /// after it, the events that have handlers left have only those.
    private func removeDefaultHandlers() {
        for event in events {
            var info = dc_handler_info()
            var count = 0
            guard dc_table_handlers(cTable, event, &info, 1, &count) == DC_OK, count == 1 else { continue }
            _ = dc_table_remove(cTable, info.id)
        }
    }

    /// The `dc_table *` underneath, for C code that registers handlers on,
    /// or executes events of, this same table. Valid while the table lives.
    public var unsafeCTable: OpaquePointer { cTable }
}

/// Owns a `dc_table`, which it destroys when it goes: shared by a
/// ``CommandTable`` and the ``Subscription``s of its handlers, so that a
/// subscription can remove its handler, or find it gone, without a weak
/// reference to the table (see ``Subscription``) and without racing the
/// table's deinit. Once the table is gone its C table has no handlers left,
/// so a late remove finds nothing.
final class TableHandle: Canceller, @unchecked Sendable {
    // @unchecked: the dc_table is documented safe from any thread.
    let cTable: OpaquePointer

    /// The payload types of the table's Swift handlers, here so that they
    /// live as long as the C table, whose object check reads them.
    let payloadTypes = PayloadTypes()

    init(cTable: OpaquePointer) {
        self.cTable = cTable
    }

    deinit {
        dc_table_destroy(cTable)
    }

    /// Removes handler `id`; an id already gone is not an error here (a
    /// once-handler or a pruned target removes itself, and the table's
    /// deinit removes them all).
    func removeHandler(_ id: UInt64) {
        _ = dc_table_remove(cTable, id)
    }

    override func cancel(handler: UInt64) {
        removeHandler(handler)
    }

    override var removesTableHandler: Bool { true }
}

// MARK: - Objects held by queued deliveries

/// The table's `retain` callback: queued deliveries keep Swift objects alive.
private let retainObject: @convention(c) (UnsafeMutableRawPointer?) -> Void = { object in
    _ = Unmanaged<AnyObject>.fromOpaque(object!).retain()
}

private let releaseObject: @convention(c) (UnsafeMutableRawPointer?) -> Void = { object in
    Unmanaged<AnyObject>.fromOpaque(object!).release()
}

/// The table's object check: whether an object argument of an execute from C
/// is of the payload type the event's Swift handlers take at its index, with
/// the message naming both types when it is not.
private let checkPayloadObject: dc__object_check = { context, event, index, object, message, size in
    let payloadTypes = Unmanaged<PayloadTypes>.fromOpaque(context!).takeUnretainedValue()
    let refusal = payloadTypes.refusal(
        of: Unmanaged<AnyObject>.fromOpaque(object!).takeUnretainedValue(), at: index, event: String(cString: event!))
    guard let refusal, let message, size > 0 else { return refusal == nil }
    // Cut to the room there is, its NUL included.
    let buffer = UnsafeMutableRawBufferPointer(start: message, count: size)
    let length = min(refusal.utf8.count, size - 1)
    buffer.copyBytes(from: refusal.utf8.prefix(length))
    buffer[length] = 0
    return false
}

// MARK: - Options

/// How a handler is registered.
///
/// The corresponding C flags are `DC_HANDLER_ONCE`, `DC_HANDLER_FIRST` and
/// `DC_HANDLER_STRICT`.
public struct HandlerOptions: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Run at most once, then remove itself.
    public static let once = HandlerOptions(rawValue: UInt32(DC_HANDLER_ONCE))
    /// Insert before the event's other handlers of its phase
    /// (``HandlerPhase``): before the normal handlers, or before the
    /// after-handlers. A default handler's place is fixed: with it, this is
    /// ``DispatchError/invalidArgument(_:)``.
    public static let first = HandlerOptions(rawValue: UInt32(DC_HANDLER_FIRST))
    /// Fail an execute whose argument count differs from the handler's
    /// parameter count, instead of adapting.
    public static let strict = HandlerOptions(rawValue: UInt32(DC_HANDLER_STRICT))

    /// The phases (``HandlerPhase``), which registering methods take as a
    /// parameter of their own and add here.
    static let phaseAfter = HandlerOptions(rawValue: UInt32(DC_HANDLER_AFTER))
    static let phaseRunFirst = HandlerOptions(rawValue: UInt32(DC_HANDLER_RUN_FIRST))
    static let phaseRunLast = HandlerOptions(rawValue: UInt32(DC_HANDLER_RUN_LAST))

    /// Every option and phase: each is its C flag.
    private static let all: HandlerOptions = [.once, .first, .strict, .phaseAfter, .phaseRunFirst, .phaseRunLast]

    /// The C flags: the options' own bits, any other raw bit left out.
    var cFlags: UInt32 { rawValue & Self.all.rawValue }

    /// These options with `phase`'s, and no other: a phase comes from the
    /// `phase:` parameter alone, whatever raw value the options were made
    /// with.
    func placed(in phase: HandlerPhase) -> HandlerOptions {
        subtracting([.phaseAfter, .phaseRunFirst, .phaseRunLast]).union(phase.options)
    }

    /// The options a C handler's flags give, its phase left out.
    init(cFlags: UInt32) {
        self.init(rawValue: cFlags & HandlerOptions([.once, .first, .strict]).rawValue)
    }
}

/// Which handlers' return values an execute keeps.
///
/// The corresponding C type is `dc_accumulator`.
public enum Accumulator: Sendable {
    /// The first handler that returns a value gives the result.
    case first
    /// The last handler that returns a value gives it.
    case last
    /// Stop at the first handler that returns `true` (GLib's true-handled).
    case trueHandled

    var cAccumulator: dc_accumulator {
        switch self {
        case .first: DC_ACCUMULATE_FIRST
        case .last: DC_ACCUMULATE_LAST
        case .trueHandled: DC_ACCUMULATE_TRUE_HANDLED
        }
    }
}

// MARK: - Registering

extension CommandTable {
    /// Registers `handler` as a marshal handler; the table releases its data
    /// when the handler goes away. `signature` nil registers a variadic
    /// marshal.
    func addHandler(
        _ event: String, signature: Signature?, handler: MarshalHandler, options: HandlerOptions = [],
        queue: OpaquePointer? = nil
    ) throws(DispatchError) -> dc_handler_id {
        try addHandler(handler, options: options, queue: queue) { cOptions, id in
            // withCString lends a native string's own bytes; passing the
            // String straight to C would copy it to the heap.
            event.withCString {
                dc_table_add_marshal(cTable, $0, signature?.cSignature, handler.function, handler.data, cOptions, id)
            }
        }
    }

    /// Registers `handler` with `add`, the C marshal add by name or by id,
    /// given the handler's C options and where the id goes.
    func addHandler(
        _ handler: MarshalHandler, options: HandlerOptions, queue: OpaquePointer?,
        by add: (UnsafePointer<dc_handler_options>, UnsafeMutablePointer<dc_handler_id>) -> dc_status
    ) throws(DispatchError) -> dc_handler_id {
        var cOptions = handlerOptions(options, of: handler, queue: queue)
        var id: dc_handler_id = 0
        let status = add(&cOptions, &id)
        if status != DC_OK {
            // Not registered, so the table took no reference: give it back here.
            handler.discard()
            try DispatchError.check(status)
        }
        return id
    }

    /// The C options of a Swift handler: the table owns the reference its
    /// data holds and releases it through its `release` callback (no destroy
    /// notify, which would cost an allocation per handler). A Swift handler
    /// is new, so it cannot be a duplicate: the table skips the check and the
    /// index entry for it.
    func handlerOptions(
        _ options: HandlerOptions, of handler: MarshalHandler, queue: OpaquePointer?
    ) -> dc_handler_options {
        let flags = options.cFlags | handler.flags | UInt32(DC__HANDLER_OWNS_TARGET | DC__HANDLER_ALLOW_DUPLICATE)
        return dc_handler_options(flags: flags, queue: queue, destroy: nil, destroy_data: nil)
    }

    /// A subscription that removes handler `id` from this table when
    /// cancelled or released.
    func subscription(for id: dc_handler_id) -> Subscription {
        Subscription(table: handle, handler: id)
    }

    /// A registration that removes handler `id` from this table when
    /// cancelled.
    func registration(for id: dc_handler_id) -> Registration {
        Registration(table: handle, handler: id)
    }

    /// Registers a closure's handler; a closure lives as long as its
    /// subscription.
    func closureSubscription(
        _ event: String, signature: Signature?, handler: MarshalHandler, options: HandlerOptions
    ) throws(DispatchError) -> Subscription {
        subscription(for: try addHandler(event, signature: signature, handler: handler, options: options))
    }

    /// A closure whose parameter types are not given, or are not
    /// ``EventArgument``s, names no handler the table can check: this
    /// overload only turns that into a message saying so.
    @available(
        *, unavailable,
        message: "give the handler's parameters types that conform to EventArgument, as in { (on: Bool) in ... }, or use a typed EventKey; a Sendable struct or enum conforms with 'extension T: EventPayload {}'; a name in a variable becomes a key with EventKey(name)"
    )
    public func on<each Unknown, Failure>(
        _ event: String, options: HandlerOptions = [], phase: HandlerPhase.Choice<Failure> = .normal,
        _ handler: @escaping @Sendable (repeat each Unknown) -> Void
    ) throws(Failure) -> Subscription {
        fatalError("unavailable")
    }

    /// Runs `handler` with every argument of each execute of `event`, as
    /// given; its return value is the handler's result (`.void` for none).
    ///
    /// A struct argument arrives as a ``Value/structure(_:)`` copy of the
    /// size it was executed with (no signature gives the handler a layout,
    /// so its ``StructValue/encoding`` is `nil`); one a C caller made
    /// without a size (`dc_struct`) arrives as ``Value/pointer(_:)`` to its
    /// bytes, valid only for the call. A struct returned from here is not
    /// the execute's return value: without a signature the C core cannot
    /// tell its size.
    ///
    /// An error it throws stops the emission (the handlers after it do not
    /// run) and is rethrown by the `execute` that ran it.
    ///
    /// - Parameters:
    ///   - event: The event's name, or a detailed key `"event::detail"`.
    ///   - options: How the handler is registered.
    ///   - phase: Where among the event's handlers it runs
    ///     (``HandlerPhase``); a default phase makes the call throw.
    ///   - handler: Runs with every argument of each execute, on the
    ///     executing thread; what it returns is the handler's result.
    /// - Returns: The subscription that keeps the handler registered.
    /// - Throws: For a default phase only: see ``HandlerPhase/Choice``.
    public func on<Failure>(
        _ event: String, options: HandlerOptions = [], phase: HandlerPhase.Choice<Failure> = .normal,
        _ handler: @escaping @Sendable ([Value]) throws -> Value
    ) throws(Failure) -> Subscription {
        try phase.register(event, options: options) { (options) throws(DispatchError) in
            try closureSubscription(
                event, signature: nil,
                handler: MarshalHandler(
                    box: ValuesHandlerBox(cTable: cTable, body: handler), trampoline: ValuesHandlerBox.trampoline),
                options: options)
        }
    }

    /// Registers a C function, whose type `signature` describes, for `event`.
    /// When `target` is given it is passed as parameter 0, which must be an
    /// object, pointer or string, and the event's arguments follow it.
    ///
    /// The handler stays registered until it is removed: the returned
    /// registration cancelled (releasing it changes nothing), every handler
    /// of `target` removed with ``removeAll(target:)``, or the event's or the
    /// table's removed. The table does not retain `target`.
    ///
    /// - Parameters:
    ///   - event: The event's name, or a detailed key `"event::detail"`.
    ///   - function: The C function, a `@convention(c)` function or a raw
    ///     function pointer.
    ///   - signature: The function's type.
    ///   - target: An address passed as parameter 0, or `nil` for none.
    ///   - options: How the handler is registered.
    ///   - phase: Where among the event's handlers it runs
    ///     (``HandlerPhase``).
    /// - Returns: The registration, which removes the handler when cancelled.
    /// - Throws: ``DispatchError/typeMismatch(_:)`` when a target is given but
    ///   parameter 0 cannot take it; ``DispatchError/invalidArgument(_:)`` when
    ///   `function` is not a C function or `event` is malformed; for a default
    ///   phase, what ``HandlerPhase/Choice`` says.
    ///
    /// The corresponding C function is `dc_table_add`.
    @discardableResult
    public func register<Function, Failure>(
        _ event: String, function: Function, signature: Signature, target: UnsafeMutableRawPointer? = nil,
        options: HandlerOptions = [], phase: HandlerPhase.Choice<Failure> = .normal
    ) throws -> Registration {
        let cFunction = try cFunctionPointer(function)
        if signature.returnType == .structure { structReturns.store(true, ordering: .relaxed) }
        var cOptions = dc_handler_options(
            flags: options.placed(in: phase.phase).cFlags, queue: nil, destroy: nil, destroy_data: nil)
        var id: dc_handler_id = 0
        try DispatchError.check(dc_table_add(cTable, event, signature.cSignature, cFunction, target, &cOptions, &id))
        return registration(for: id)
    }

    /// Removes every handler bound to `target` (C functions registered with
    /// it as their target) and returns how many; a default handler stays
    /// (``HandlerPhase``).
    ///
    /// The corresponding C function is `dc_table_remove_target`.
    @discardableResult
    public func removeAll(target: UnsafeMutableRawPointer) -> Int {
        var removed = 0
        _ = dc_table_remove_target(cTable, target, &removed)
        return removed
    }

    /// Removes every handler of `event` and returns how many: for an event,
    /// its handlers with any detail too; for a detailed key
    /// (`"notify::size"`), those added with that key. The event's default
    /// handler stays (``HandlerPhase``); cancelling its registration
    /// removes it.
    ///
    /// The corresponding C function is `dc_table_remove_event`.
    @discardableResult
    public func removeAll(for event: String) -> Int {
        var removed = 0
        _ = dc_table_remove_event(cTable, event, &removed)
        return removed
    }

    /// Removes every handler but the events' default handlers
    /// (``HandlerPhase``) and returns how many.
    ///
    /// The corresponding C function is `dc_table_remove_all`.
    @discardableResult
    public func removeAll() -> Int {
        var removed = 0
        _ = dc_table_remove_all(cTable, &removed)
        return removed
    }

    /// How many handlers an execute of `event` considers, blocked ones
    /// included: for an event, those added without a detail; for a detailed
    /// key (`"notify::size"`), those and the ones added with that key.
    ///
    /// The corresponding C function is `dc_table_handler_count`.
    public func handlerCount(for event: String) -> Int {
        var count = 0
        _ = dc_table_handler_count(cTable, event, &count)
        return count
    }

    /// The events that have at least one handler, in the order they were
    /// first used.
    ///
    /// The corresponding C function is `dc_table_events`.
    public var events: [String] {
        var count = 0
        _ = dc_table_events(cTable, nil, 0, &count)
        var names = [UnsafePointer<CChar>?](repeating: nil, count: count)
        _ = dc_table_events(cTable, &names, count, &count)
        return names.prefix(count).compactMap { $0.map { String(cString: $0) } }
    }
}

/// Signatures of the closure shapes, created once.
enum Signatures {
    static let void = try! Signature("v")
    static let object = try! Signature("v@")
}

// MARK: - Executing

extension CommandTable {
    /// Executes `event` with `arguments`: checks them against every handler,
    /// then runs the handlers in order.
    ///
    /// ```swift
    /// try table.execute("toggle", true)
    /// let result = try table.execute("compute", .int64(2), .double(3.5))
    /// result.handled; result.returnValue
    /// ```
    ///
    /// An event without handlers is not an error: the result says 0 handled.
    ///
    /// A struct a C handler returns is the result's
    /// ``ExecuteResult/returnValue``, as for
    /// ``execute(_:arguments:accumulator:requireHandler:strict:)``: once a
    /// handler returning a struct is registered with this table, every
    /// execute by name gives the C core room to keep it.
    ///
    /// - Parameters:
    ///   - event: The event's name.
    ///   - arguments: The values to pass, checked against every handler; a
    ///     ``Value/structure(_:)`` must have the size of the struct a C
    ///     handler's parameter takes.
    /// - Returns: What the execute did, and the return value the first
    ///   handler returning one returned.
    /// - Throws: ``DispatchError/typeMismatch(_:)`` or
    ///   ``DispatchError/arity(_:)`` naming event, handler, argument and
    ///   types, before any handler runs; or the error a handler threw (the
    ///   handlers after it did not run).
    ///
    /// The corresponding C function is `dc_table_execute`. Replaces
    /// `-[NSNotificationCenter postNotificationName:object:userInfo:]`.
    // Inlinable, so that an execute without arguments, the common event,
    // compiles in the caller to one call into this module with nothing
    // built for the empty argument list and nothing to destroy after it.
    @inlinable
    @discardableResult
    public func execute(_ event: String, _ arguments: Value...) throws -> ExecuteResult {
        if _slowPath(structReturns.load(ordering: .relaxed)) { return try execute(event, arguments: arguments) }
        if arguments.isEmpty { return ExecuteResult(try executeOutcome(event)) }
        return ExecuteResult(try executeOutcome(event, arguments: arguments))
    }

    /// Executes `event` with `arguments`; see ``execute(_:_:)-(String,_)``.
    ///
    /// A struct a C handler returns (a handler registered with a signature
    /// returning `{name=fields}`) is the result's
    /// ``ExecuteResult/returnValue`` as a ``Value/structure(_:)`` of its own,
    /// when the accumulator keeps it:
    ///
    /// ```swift
    /// let divide: @convention(c) (Int32, Int32) -> div_t = div
    /// try table.register("divide", function: divide, signature: Signature("{div_t=ii}ii"))
    /// let result = try table.execute("divide", arguments: [.int32(7), .int32(2)])
    /// let quotient = try result.returnValue?.structure(as: div_t.self)   // div_t(quot: 3, rem: 1)
    /// ```
    ///
    /// A struct of more than ``maximumReturnedStructSize`` bytes is not
    /// kept: the C core neither keeps nor counts it.
    ///
    /// - Parameters:
    ///   - event: The event's name.
    ///   - arguments: The values to pass, checked against every handler; a
    ///     ``Value/structure(_:)`` must have the size of the struct a C
    ///     handler's parameter takes.
    ///   - accumulator: Which return value the result keeps.
    ///   - requireHandler: Throw ``DispatchError/noHandler(_:)`` when no
    ///     handler runs.
    ///   - strict: Every handler must take exactly `arguments.count`
    ///     arguments.
    /// - Returns: What the execute did, and the return value `accumulator`
    ///   chose.
    /// - Throws: As ``execute(_:_:)-(String,_)`` does, and
    ///   ``DispatchError/noHandler(_:)`` when `requireHandler` is set and no
    ///   handler ran.
    ///
    /// The corresponding C function is `dc_table_execute_with`, its
    /// `return_storage` room for a struct of ``maximumReturnedStructSize``
    /// bytes.
    @discardableResult
    public func execute(
        _ event: String, arguments: [Value], accumulator: Accumulator = .first, requireHandler: Bool = false,
        strict: Bool = false
    ) throws -> ExecuteResult {
        let flags =
            (requireHandler ? UInt32(DC_EXECUTE_REQUIRE_HANDLER) : 0) | (strict ? UInt32(DC_EXECUTE_STRICT) : 0)
        try payloadTypes.check(event, arguments)
        return try withCValues(arguments) { values, count in
            try executeKeepingStructs(
                event, cArguments: values, count: count, accumulator: accumulator.cAccumulator, flags: flags)
        }
    }

    /// The most bytes a struct that a handler returns may have for
    /// ``execute(_:arguments:accumulator:requireHandler:strict:)`` to keep
    /// it: 256, the room it gives the C core on the stack.
    public static let maximumReturnedStructSize = 256

    /// Executes `event` without arguments: the inlinable `execute`'s way in.
    @usableFromInline
    func executeOutcome(_ event: String) throws -> ExecuteOutcome {
        try executeOutcome(event, cArguments: nil, count: 0)
    }

    /// Executes `event` with `arguments`, converted on the stack: the
    /// inlinable `execute`'s other way in.
    @usableFromInline
    func executeOutcome(_ event: String, arguments: [Value]) throws -> ExecuteOutcome {
        try payloadTypes.check(event, arguments)
        return try withCValues(arguments) { values, count in
            try executeOutcome(event, cArguments: values, count: count)
        }
    }

    /// Executes `event` with `count` C arguments and the default options:
    /// the brief C execute, whose common report needs no `dc_result`. Inlined
    /// into each way in, so an execute is one call into this module.
    @inline(__always)
    func executeOutcome(_ event: String, cArguments: UnsafePointer<dc_value>?, count: Int) throws -> ExecuteOutcome {
        try briefOutcome { context, result in
            // withCString passes a native string's own bytes, or puts a small
            // string's on the stack; passing the String straight to C would
            // copy it to the heap.
            event.withCString { dc__table_execute_brief(cTable, $0, 0, cArguments, count, context, result) }
        }
    }

    /// Executes `event` with `count` C arguments and the options given,
    /// with return storage on the stack for a struct a handler returns,
    /// which the result gets a copy of: the C core's struct value points
    /// into that storage, so it is read before the storage goes.
    func executeKeepingStructs(
        _ event: String, cArguments: UnsafePointer<dc_value>?, count: Int, accumulator: dc_accumulator,
        flags: UInt32
    ) throws -> ExecuteResult {
        try withUnsafeTemporaryAllocation(
            byteCount: Self.maximumReturnedStructSize, alignment: StructStorage.alignment
        ) { returnStorage in
            var handlerError = HandlerError()
            var result = dc_result()
            let status = withUnsafeMutablePointer(to: &handlerError) { slot in
                var options = dc_execute_options(
                    accumulator: accumulator, flags: flags, results: nil, results_capacity: 0,
                    return_storage: returnStorage.baseAddress, return_storage_size: returnStorage.count)
                return event.withCString {
                    dc__table_execute(
                        cTable, $0, 0, cArguments, count, &options, UnsafeMutableRawPointer(slot), &result)
                }
            }
            if status != DC_OK || handlerError.failed {
                try finish(status, &handlerError)
            }
            // A kept struct carries its size, so the value copies its bytes.
            // Not `? … : nil`, which would be `.pointer(nil)` (see ExecuteResult).
            let returnValue = result.has_return_value ? Value(result.return_value) : Optional.none
            return ExecuteResult(ExecuteOutcome(result), returnValue: returnValue)
        }
    }

    /// A brief C execute, which `execute` makes with an error slot as its
    /// context and a result to fill when the report is detailed: its count
    /// alone in the common case, in which no handler failed; otherwise the
    /// uncommon end, `finish`. The one way both executes by name and by
    /// typed key call C with the default options.
    ///
    /// A handler that fails stops the emission of the execute whose error
    /// slot it writes (`FailableHandlerBox.fail(with:)`), so that execute's
    /// report is detailed: the common case needs no look at the slot.
    @inline(__always)
    func briefOutcome(
        _ execute: (UnsafeMutableRawPointer, UnsafeMutablePointer<dc_result>) -> dc__brief_result
    ) throws -> ExecuteOutcome {
        var handlerError = HandlerError()
        // The result is left uninitialized: it is read only when the report
        // is detailed. The result and the error slot are fixed-size values
        // only the C core writes, within their sizes, so they go without the
        // stack protector Swift gives a local whose address is taken (a
        // canary stored and checked on every execute).
        return try _withUnprotectedUnsafeTemporaryAllocation(of: dc_result.self, capacity: 1) { result in
            let brief = _withUnprotectedUnsafeMutablePointer(to: &handlerError) { slot in
                execute(UnsafeMutableRawPointer(slot), result.baseAddress!)
            }
            if brief.status == DC_OK && !brief.detailed {
                assert(!handlerError.failed, "a handler failed without stopping the emission")
                return ExecuteOutcome(handled: brief.handled)
            }
            return try finish(brief, result.baseAddress!, &handlerError)
        }
    }

    /// `finish` for a brief execute, whose `result` holds the whole report
    /// only when `brief.detailed`.
    @inline(never)
    func finish(
        _ brief: dc__brief_result, _ result: UnsafePointer<dc_result>, _ handlerError: inout HandlerError
    ) throws -> ExecuteOutcome {
        // Read only when detailed: otherwise the C execute may not have
        // written it.
        var full = dc_result()
        if brief.detailed {
            full = result.pointee
        } else {
            full.handled = brief.handled
        }
        try finish(brief.status, &handlerError)
        return ExecuteOutcome(full)
    }

    /// The uncommon end of an execute: throws the error a handler or hook
    /// threw or the status's. Kept out of line, so the common execute stays
    /// short.
    @inline(never)
    func finish(_ status: dc_status, _ handlerError: inout HandlerError) throws {
        if let error = handlerError.take() {
            throw error
        }
        try DispatchError.check(status)
    }

    /// Stops the emission of the innermost execute of this table running on
    /// this thread, from inside one of its handlers or emission hooks: no
    /// handler after the one calling runs, the event's default and
    /// after-handlers included (``HandlerPhase``). The execute returns
    /// normally, its ``ExecuteResult/stopped`` set.
    ///
    /// ```swift
    /// table.on("close") {
    ///     if hasUnsavedChanges { try? table.stopEmission() }   // the default does not close
    /// }
    /// ```
    ///
    /// - Throws: ``DispatchError/invalidState(_:)`` when no execute of this
    ///   table is running on this thread.
    ///
    /// The corresponding C function is `dc_table_stop_emission`. Replaces
    /// `g_signal_stop_emission_by_name`.
    public func stopEmission() throws(DispatchError) {
        try DispatchError.check(dc_table_stop_emission(cTable))
    }
}

/// Calls `body` with C values for `values`, keeping string copies alive for
/// the call. Objects cross unretained: the caller's `values` keep them alive.
/// The C values live on the stack: an execute allocates nothing for them.
/// Always inlined: as a call, its closure would capture (and retain) the
/// caller's table and event name on every execute.
@inline(__always)
func withCValues<R>(_ values: [Value], _ body: (UnsafePointer<dc_value>?, Int) throws -> R) rethrows -> R {
    if values.isEmpty { return try body(nil, 0) }
    if values.count <= 4 {
        // A fixed buffer for the usual few arguments: a temporary allocation
        // of any size has a heap fallback, whose second copy of `body` makes
        // the compiler retain what `body` captures on every execute.
        var small = (dc_value(), dc_value(), dc_value(), dc_value())
        return try withUnsafeMutableBytes(of: &small) { bytes in
            try withCValues(values, in: bytes.bindMemory(to: dc_value.self), body)
        }
    }
    return try withUnsafeTemporaryAllocation(of: dc_value.self, capacity: values.count) { buffer in
        try withCValues(values, in: buffer, body)
    }
}

/// `withCValues(_:_:)` with `buffer`, room for at least `values.count` C
/// values, to put them in.
@inline(__always)
private func withCValues<R>(
    _ values: [Value], in buffer: UnsafeMutableBufferPointer<dc_value>,
    _ body: (UnsafePointer<dc_value>?, Int) throws -> R
) rethrows -> R {
    // Optional, so that without string arguments there is no array at all,
    // not even the empty one, whose retain and release cost an execute more
    // than its arguments do.
    var strings: [UnsafeMutablePointer<CChar>]?
    defer { strings?.forEach(freeCString) }
    for index in values.indices {
        let (cValue, string) = values[index].makeCValue()
        if let string { strings = (strings ?? []) + CollectionOfOne(string) }
        buffer[index] = cValue
    }
    return try body(UnsafePointer(buffer.baseAddress), values.count)
}
