internal import CDispatchCore
internal import CDispatchCoreBinding
import Synchronization

// Weak target-action: handlers that call a method of a target, or a closure
// on behalf of an owner, for as long as that object lives, as Cocoa's
// `-[UIControl addTarget:action:forControlEvents:]` does.

// MARK: - The box

/// A handler bound to an object held weakly: its call runs while the object
/// lives; once it has died the handler is skipped, never called, and removes
/// itself from the table from inside that execute.
final class WeakTargetHandlerBox: FailableHandlerBox, @unchecked Sendable {
    // @unchecked: `target` is never written after init (reading a weak
    // reference is thread-safe), `handlerID` is atomic, the rest is constant.

    weak let target: AnyObject?
    let call: @Sendable (AnyObject, UnsafePointer<dc_value>?, Int, UnsafeMutablePointer<dc_value>?) throws -> Void
    /// Where the table's registry of target handlers keeps this handler.
    let registryKey: TargetHandlers.Key
    /// The handler's id once registered; 0 until then.
    let handlerID = Atomic<UInt64>(0)
    /// Calls running that loaded the target alive, until they have released
    /// it: a call whose release is the target's last runs its deinit.
    private let callsHoldingTarget = Atomic<Int>(0)

    init(
        cTable: OpaquePointer, target: AnyObject, registryKey: TargetHandlers.Key,
        call: @escaping @Sendable (AnyObject, UnsafePointer<dc_value>?, Int, UnsafeMutablePointer<dc_value>?) throws
            -> Void
    ) {
        self.target = target
        self.call = call
        self.registryKey = registryKey
        super.init(cTable: cTable)
    }

    deinit {
        // The table released the box: the handler is gone.
        TargetHandlers.remove(handlerID.load(ordering: .acquiring), for: registryKey)
    }

    /// Calls the handler with its target held strongly for the call; `false`
    /// when the target has died.
    func callIfAlive(_ arguments: UnsafePointer<dc_value>?, _ count: Int, _ result: UnsafeMutablePointer<dc_value>?)
        -> Bool
    {
        let called = callHoldingTarget(arguments, count, result)
        // The target is released by now, and its deinit over if it was the
        // last reference.
        if called { callsHoldingTarget.subtract(1, ordering: .sequentiallyConsistent) }
        return called
    }

    /// `callIfAlive`'s call, counted in `callsHoldingTarget` from the load of
    /// the target on; never inlined, so that the target is released before
    /// it returns.
    @inline(never)
    private func callHoldingTarget(
        _ arguments: UnsafePointer<dc_value>?, _ count: Int, _ result: UnsafeMutablePointer<dc_value>?
    ) -> Bool {
        guard let target else { return false }
        callsHoldingTarget.add(1, ordering: .sequentiallyConsistent)
        do {
            try call(target, arguments, count, result)
        } catch {
            fail(with: error)
        }
        return true
    }

    /// Removes the handler of a dead target, from inside the execute that
    /// found it dead. A handler registered a moment ago on another thread may
    /// not know its id yet, and a call on another thread that held the
    /// target may still be running the target's deinit (user code, which may
    /// wait for a lock this execute's caller holds, and the removal would
    /// wait for that call): then the next execute that finds it dead prunes
    /// it. The other calls the removal waits for found the target dead and
    /// run no user code.
    func prune() {
        let id = handlerID.load(ordering: .acquiring)
        guard id != 0, callsHoldingTarget.load(ordering: .sequentiallyConsistent) == 0 else { return }
        _ = dc_table_remove(cTable, id)
    }

    static let trampoline: dc_marshal = { data, arguments, count, result in
        let box = calledBox(data, as: WeakTargetHandlerBox.self)
        let called = box._withUnsafeGuaranteedRef { $0.callIfAlive(arguments, count, result) }
        if !called {
            // Say that nothing ran, so the execute does not count the
            // handler, and that nothing was returned: a marshal whose result
            // is typed void this time returns no value to the execute.
            _ = dc__table_decline_call(box._withUnsafeGuaranteedRef { $0.cTable })
            result?.pointee.type = DC_TYPE_VOID
            // Removing the handler releases the table's reference to the box
            // (the core allows removal from inside a handler); hold our own.
            let held = box.retain()
            held._withUnsafeGuaranteedRef { $0.prune() }
            held.release()
        }
    }
}

/// The target handlers of every table, by table and target, so that
/// ``CommandTable/removeTarget(_:)`` finds them: the C core removes marshal
/// handlers by their box, not by the Swift object they call.
///
/// An entry is added once its handler is registered and removed when the
/// table releases the handler's box, which it does for every handler when the
/// ``CommandTable`` goes: the registry holds nothing for dead tables.
enum TargetHandlers {
    struct Key: Hashable {
        let table: UInt64
        let target: ObjectIdentifier
    }

    /// Which action of a target a handler is, for adding it again to keep
    /// one: a name the caller gives (Swift methods have no identity to
    /// compare), or the C function's address.
    enum Action: Hashable {
        case named(String)
        case function(UnsafeRawPointer)
    }

    /// A handler of a target.
    // @unchecked: what it holds (an id, a name or an address, a weak
    // reference, a registration) is safe to send.
    struct Entry: @unchecked Sendable {
        let event: dc_event_id
        /// `nil` for a closure bound to an owner, which is never the same.
        let action: Action?
        /// To tell the target apart from a later object at the same address.
        weak var box: WeakTargetHandlerBox?
        /// What adding the action again returns.
        let registration: Registration
    }

    /// The handlers of each table and target, by id.
    ///
    /// No reference is loaded or released under the lock that can be the
    /// last one of something whose deinit does more than free memory: loading
    /// an entry's weak `box` makes a strong reference, which is the box's last
    /// when an execute on another thread has pruned the handler meanwhile
    /// (and the box's deinit takes this lock); an entry's registration may
    /// hold the last reference to the table's handle (whose deinit destroys
    /// the C table). So entries leave the lock as copies and are looked into,
    /// or dropped, after it. Nothing is taken, called or released under the
    /// lock, so a box's deinit may take it wherever the box goes.
    // @unchecked: the entries are only read and written under the lock.
    private struct Registry: @unchecked Sendable {
        var handlers: [Key: [dc_handler_id: Entry]] = [:]
    }

    private static let registry = Mutex(Registry())

    static func insert(_ handler: dc_handler_id, _ entry: Entry, for key: Key) {
        registry.withLock { $0.handlers[key, default: [:]][handler] = entry }
    }

    static func remove(_ handler: dc_handler_id, for key: Key) {
        guard handler != 0 else { return }
        // The entry is handed out of the lock and dropped there (see
        // `Registry`).
        _ = registry.withLock { registry -> Entry? in
            let removed = registry.handlers[key]?.removeValue(forKey: handler)
            if registry.handlers[key]?.isEmpty == true { registry.handlers[key] = nil }
            return removed
        }
    }

    /// The handlers of `key`, of one event or (`event` nil) of all, of one
    /// action or (`action` nil) of all.
    ///
    /// An object identifier can be reused once its object has died, so the
    /// result may include handlers of a dead target at the same address:
    /// removing those is what pruning would do anyway.
    static func handlers(for key: Key, event: dc_event_id? = nil, action: Action? = nil) -> [dc_handler_id] {
        registry.withLock { registry in
            guard let entries = registry.handlers[key] else { return [] }
            return entries.compactMap { handler, entry in
                (event == nil || entry.event == event) && (action == nil || entry.action == action) ? handler : nil
            }
        }
    }

    /// The boxes of every target handler of the table `serial`, by handler
    /// id, loaded after the lock is let go (see `Registry`). The caller
    /// releases them, holding no lock: a box's deinit takes this one.
    static func targets(inTable serial: UInt64) -> [dc_handler_id: WeakTargetHandlerBox] {
        let tables = registry.withLock { registry in
            registry.handlers.compactMap { key, entries in key.table == serial ? entries : nil }
        }
        var boxes: [dc_handler_id: WeakTargetHandlerBox] = [:]
        for entries in tables {
            for (handler, entry) in entries {
                if let box = entry.box { boxes[handler] = box }
            }
        }
        return boxes
    }

    /// The registration of `target`'s `action` for `event` in the table
    /// `key` names, if it is registered for this very object, and the boxes
    /// loaded to find out, which the caller releases once it holds no lock
    /// (see `Registry`).
    static func registration(
        for key: Key, event: dc_event_id, action: Action, of target: AnyObject, in cTable: OpaquePointer
    ) -> (registration: Registration?, loaded: [WeakTargetHandlerBox]) {
        let candidates = registry.withLock { registry in
            (registry.handlers[key] ?? [:]).filter { _, entry in entry.event == event && entry.action == action }
        }
        // A live target loaded here is `target` itself (the key holds its
        // address), which the caller holds. An entry outlives its handler
        // until the table releases the box, which a removal may leave to the
        // last call running it.
        let loaded = candidates.compactMap { handler, entry in entry.box.map { (handler, $0, entry.registration) } }
        let registration = loaded.first { handler, box, _ in
            box.target === target && dc_table_contains(cTable, handler)
        }?.2
        return (registration, loaded.map(\.1))
    }
}

// MARK: - Registering

/// The arguments of a sender/args handler: the first argument is the sender
/// when it is an object, and the arguments after it follow; otherwise there
/// is no sender and every argument follows.
func senderAndArguments(_ arguments: UnsafePointer<dc_value>?, _ count: Int) -> (AnyObject?, [Value]) {
    let values = (0..<count).map { Value(arguments![$0]) }
    guard case .object(let sender)? = values.first else { return (nil, values) }
    return (sender, Array(values.dropFirst()))
}

extension CommandTable {
    /// Registers `call` for `event`, bound to `target` held weakly, and
    /// records it in the registry under `target`; when `action` says which
    /// action of the target this is and it is registered for the event
    /// already, returns that handler's registration instead.
    func addTargetHandler<Target: AnyObject>(
        _ target: Target, event: dc_event_id, signature: Signature?, action: TargetHandlers.Action?,
        options: HandlerOptions = [],
        _ call: @escaping @Sendable (Target, UnsafePointer<dc_value>?, Int, UnsafeMutablePointer<dc_value>?) throws
            -> Void
    ) throws(DispatchError) -> Registration {
        let key = TargetHandlers.Key(table: serial, target: ObjectIdentifier(target))
        guard let action else {
            return try addTargetHandler(
                target, key: key, event: event, signature: signature, action: nil, options: options, call)
        }
        // One add of an action at a time, so two racing adds of the same one
        // register it once. Adding calls no handler and waits for none; the
        // boxes loaded to look for the action leave the lock with the result,
        // and are released after it.
        let (registration, _) = try targetActionAdds.withLock {
            _ throws(DispatchError) -> (Registration, [WeakTargetHandlerBox]) in
            let (existing, loaded) = TargetHandlers.registration(
                for: key, event: event, action: action, of: target, in: cTable)
            if let existing { return (existing, loaded) }
            let added = try addTargetHandler(
                target, key: key, event: event, signature: signature, action: action, options: options, call)
            return (added, loaded)
        }
        return registration
    }

    private func addTargetHandler<Target: AnyObject>(
        _ target: Target, key: TargetHandlers.Key, event: dc_event_id, signature: Signature?,
        action: TargetHandlers.Action?, options: HandlerOptions,
        _ call: @escaping @Sendable (Target, UnsafePointer<dc_value>?, Int, UnsafeMutablePointer<dc_value>?) throws
            -> Void
    ) throws(DispatchError) -> Registration {
        let box = WeakTargetHandlerBox(cTable: cTable, target: target, registryKey: key) {
            object, arguments, count, result in
            try call(unsafeDowncast(object, to: Target.self), arguments, count, result)
        }
        let id = try addHandler(
            MarshalHandler(box: box, trampoline: WeakTargetHandlerBox.trampoline), signature: signature, event: event,
            options: options)
        box.handlerID.store(id, ordering: .releasing)
        // `box` is held here, so its deinit (which removes the entry) cannot
        // run before the entry is inserted, even if another thread has removed
        // the handler already.
        let registration = registration(for: id)
        TargetHandlers.insert(
            id, TargetHandlers.Entry(event: event, action: action, box: box, registration: registration), for: key)
        return registration
    }

    /// `addTargetHandler` for handlers whose signature is known to be valid,
    /// registered in `phase`: what fails is the key, the phase or memory.
    func targetRegistration<Target: AnyObject, Failure>(
        _ target: Target, event: String, signature: Signature?, action: TargetHandlers.Action?,
        options: HandlerOptions = [], phase: HandlerPhase.Choice<Failure>,
        _ call: @escaping @Sendable (Target, UnsafePointer<dc_value>?, Int) throws -> Void
    ) throws(Failure) -> Registration {
        try phase.register(event, options: options) { (options) throws(DispatchError) in
            try addTargetHandler(
                target, event: eventID(named: event), signature: signature, action: action, options: options
            ) { target, arguments, count, _ in
                try call(target, arguments, count)
            }
        }
    }

    /// `targetRegistration` for a typed key, with the signature of
    /// `parameters`.
    func targetRegistration<Target: AnyObject, Arguments, Failure>(
        _ target: Target, key: EventKey<Arguments>, parameters: [ValueType], action: TargetHandlers.Action?,
        options: HandlerOptions = [], phase: HandlerPhase.Choice<Failure>,
        _ call: @escaping @Sendable (Target, UnsafePointer<dc_value>?) throws -> Void
    ) throws(Failure) -> Registration {
        // Signatures of EventArgument types are always valid.
        let signature = try! Signature(returning: .void, parameters: parameters)
        return try phase.register(key.name, options: options) { (options) throws(DispatchError) in
            try addTargetHandler(
                target, event: eventID(for: key), signature: signature, action: action, options: options
            ) { target, arguments, _, _ in
                try call(target, arguments)
            }
        }
    }
}

// MARK: - Target-action

extension CommandTable {
    /// Calls `action` on `target` with the event's first argument, an object
    /// or `nil`, for as long as `target` lives.
    ///
    /// - Parameters:
    ///   - target: The object whose method runs, held weakly.
    ///   - action: The method, unbound.
    ///   - actionName: The action's identity.
    ///   - event: The event's name, or a detailed key.
    ///   - phase: Where among the event's handlers it runs
    ///     (``HandlerPhase``); a default phase makes the call throw.
    /// - Returns: The registration, which removes the handler when cancelled.
    /// - Throws: For a default phase only: see ``HandlerPhase/Choice``.
    @discardableResult
    public func addTarget<Target: AnyObject, Failure>(
        _ target: Target, action: @escaping @Sendable (Target) -> (AnyObject?) -> Void,
        named actionName: String, for event: String, phase: HandlerPhase.Choice<Failure> = .normal
    ) throws(Failure) -> Registration {
        try targetRegistration(
            target, event: event, signature: Signatures.object, action: .named(actionName), phase: phase
        ) { target, arguments, _ in
            let object = arguments![0].object.map { Unmanaged<AnyObject>.fromOpaque($0).takeUnretainedValue() }
            action(target)(object)
        }
    }

    /// Calls `action` on `target` with the event's sender (its first
    /// argument, when that is an object) and the arguments after it, for as
    /// long as `target` lives: the .NET `EventHandler` shape.
    ///
    /// - Parameters:
    ///   - target: The object whose method runs, held weakly.
    ///   - action: The method, unbound.
    ///   - actionName: The action's identity.
    ///   - event: The event's name, or a detailed key.
    ///   - phase: Where among the event's handlers it runs
    ///     (``HandlerPhase``); a default phase makes the call throw.
    /// - Returns: The registration, which removes the handler when cancelled.
    /// - Throws: For a default phase only: see ``HandlerPhase/Choice``.
    @discardableResult
    public func addTarget<Target: AnyObject, Failure>(
        _ target: Target, action: @escaping @Sendable (Target) -> (_ sender: AnyObject?, _ arguments: [Value]) -> Void,
        named actionName: String, for event: String, phase: HandlerPhase.Choice<Failure> = .normal
    ) throws(Failure) -> Registration {
        try targetRegistration(
            target, event: event, signature: nil, action: .named(actionName), phase: phase
        ) { target, arguments, count in
            let (sender, values) = senderAndArguments(arguments, count)
            action(target)(sender, values)
        }
    }

    /// Calls `action` on `target` with the event's argument, whose type the
    /// compiler checks against the key's, for as long as `target` lives.
    ///
    /// ```swift
    /// table.addTarget(controller, action: Controller.toggle, named: "toggle", for: .toggle)
    /// ```
    ///
    /// - Parameters:
    ///   - target: The object whose method runs, held weakly.
    ///   - action: The method, unbound.
    ///   - actionName: The action's identity.
    ///   - key: The event, typed.
    ///   - phase: Where among the event's handlers it runs
    ///     (``HandlerPhase``); a default phase makes the call throw.
    /// - Returns: The registration, which removes the handler when cancelled.
    /// - Throws: For a default phase only: see ``HandlerPhase/Choice``.
    @discardableResult
    public func addTarget<Target: AnyObject, A: EventArgument, Failure>(
        _ target: Target, action: @escaping @Sendable (Target) -> (A) -> Void,
        named actionName: String, for key: EventKey<A>, phase: HandlerPhase.Choice<Failure> = .normal
    ) throws(Failure) -> Registration {
        let event = key.name
        return try targetRegistration(
            target, key: key, parameters: [A.valueType], action: .named(actionName), phase: phase
        ) { target, arguments in
            var index = 0
            action(target)(try A.argument(arguments, at: &index, event: event))
        }
    }

    /// Calls `action` on `target` with the event's arguments, none or two or
    /// more, whose types the compiler checks against the key's, each time
    /// `key`'s event is executed, for as long as `target` lives.
    ///
    /// ```swift
    /// table.addTarget(controller, action: Controller.reset, named: "reset", for: "reset")
    /// table.addTarget(controller, action: Controller.rename, named: "rename", for: .rename)
    /// ```
    ///
    /// `actionName` is the action's identity, as a selector is in
    /// Objective-C (Swift method references have none to compare): adding the
    /// same target with the same name for the same event again keeps the one
    /// handler and returns its registration, as `UIControl` does. For a
    /// second handler, give it another name.
    ///
    /// The table holds `target` weakly: once it has died its handlers are
    /// skipped, never called (nor counted in ``ExecuteResult/handled``), and
    /// removed at the next execute of their event. Releasing the
    /// returned registration changes nothing; ``Registration/cancel()``,
    /// `removeTarget(_:named:for:)`, `removeTarget(_:for:)` and
    /// ``removeTarget(_:)`` remove the handler early.
    ///
    /// The action runs on the thread that executes, like every handler, in
    /// `phase` among the event's handlers. Adding an action registered
    /// already keeps its phase.
    ///
    /// - Parameters:
    ///   - target: The object whose method runs, held weakly.
    ///   - action: The method, unbound: `Controller.reset`.
    ///   - actionName: The action's identity, for adding it again and
    ///     removing it.
    ///   - key: The event, typed; a string literal names one, whose argument
    ///     types the method gives.
    ///   - phase: Where among the event's handlers it runs
    ///     (``HandlerPhase``); a default phase, `.runFirst` or `.runLast`,
    ///     makes the call throw.
    /// - Returns: The registration, which removes the handler when cancelled.
    /// - Throws: For a default phase only: see ``HandlerPhase/Choice``.
    ///
    /// The corresponding C function is `dc_table_add_marshal`. Replaces
    /// `-[UIControl addTarget:action:forControlEvents:]` and
    /// `-[NSNotificationCenter addObserver:selector:name:object:]`.
    // Disfavoured: a string literal with a method of one argument fits the
    // one-argument form too, which is the one meant.
    @_disfavoredOverload
    @discardableResult
    public func addTarget<Target: AnyObject, each A: EventArgument, Failure>(
        _ target: Target, action: @escaping @Sendable (Target) -> (repeat each A) -> Void,
        named actionName: String, for key: EventKey<(repeat each A)>, phase: HandlerPhase.Choice<Failure> = .normal
    ) throws(Failure) -> Registration {
        let event = key.name
        return try targetRegistration(
            target, key: key, parameters: valueTypes(of: repeat (each A).self), action: .named(actionName),
            phase: phase
        ) { target, arguments in
            var index = 0
            try action(target)(repeat (each A).argument(arguments, at: &index, event: event))
        }
    }

    /// Calls the C function `function`, whose type `signature` describes,
    /// with `target` as parameter 0 and the event's arguments after it, each
    /// time `event` is executed, for as long as `target` lives.
    ///
    /// Unlike ``register(_:function:signature:target:options:phase:)``, which takes
    /// an unretained address, the table holds `target` weakly and never calls
    /// the function once it has died. The call takes the signature's own
    /// path: a cast function pointer when the stubs cover it, libffi
    /// otherwise, and the function's return value is the handler's.
    ///
    /// The execute that finds the target dead removes the handler and does
    /// not count it in ``ExecuteResult/handled``. Adding the same target and
    /// function for the same event again keeps the one handler and returns
    /// its registration.
    ///
    /// - Parameters:
    ///   - target: The object passed as parameter 0, held weakly.
    ///   - function: The C function, a `@convention(c)` function or a raw
    ///     function pointer.
    ///   - signature: The function's type, parameter 0 an object or pointer.
    ///   - event: The event's name, or a detailed key.
    ///   - phase: Where among the event's handlers it runs
    ///     (``HandlerPhase``).
    /// - Returns: The registration, which removes the handler when cancelled.
    /// - Throws: ``DispatchError/typeMismatch(_:)`` when parameter 0 is not an
    ///   object or a pointer; ``DispatchError/invalidArgument(_:)`` when
    ///   `function` is not a C function or `event` is malformed;
    ///   ``DispatchError/nullArgument(_:)`` when it is null; for a default
    ///   phase, what ``HandlerPhase/Choice`` says.
    ///
    /// The corresponding C functions are `dc_table_add_marshal` and
    /// `dc_call`. Replaces a target with an `IMP` called through
    /// `NSInvocation`.
    @discardableResult
    public func addTarget<Target: AnyObject, Function, Failure>(
        _ target: Target, function: Function, signature: Signature, for event: String,
        phase: HandlerPhase.Choice<Failure> = .normal
    ) throws -> Registration {
        let cFunction = try cFunctionPointer(function)
        guard let cFunction else {
            throw DispatchError(
                status: DC_ERR_NULL_ARGUMENT,
                message: "table \(name): the function for \"\(event)\" must not be NULL")!
        }
        guard let first = signature.parameterTypes.first, first == .object || first == .pointer else {
            throw DispatchError(
                status: DC_ERR_TYPE,
                message: "table \(name): event \"\(event)\": signature \"\(signature.encoding)\" cannot take "
                    + "the target: parameter 0 must be an object or a pointer")!
        }
        // The core checks and converts the event's arguments against the
        // parameters after the target; the call puts the target in front.
        let arguments = try Signature(
            returning: signature.returnType, parameters: Array(signature.parameterTypes.dropFirst()))
        return try addTargetHandler(
            target, event: eventID(named: event), signature: arguments,
            action: .function(unsafeBitCast(cFunction, to: UnsafeRawPointer.self)),
            options: HandlerOptions().placed(in: phase.phase)
        ) { target, values, count, result in
            try withUnsafeTemporaryAllocation(of: dc_value.self, capacity: count + 1) {
                (buffer) throws(DispatchError) in
                buffer.initializeElement(at: 0, to: dc_object(Unmanaged.passUnretained(target).toOpaque()))
                for index in 0..<count { buffer.initializeElement(at: index + 1, to: values![index]) }
                var returned = dc_void()
                try DispatchError.check(
                    dc_call(signature.cSignature, cFunction, buffer.baseAddress, count + 1, &returned))
                if let result, returned.type != DC_TYPE_VOID { result.pointee = returned }
            }
        }
    }
}

// MARK: - Closures that live as long as an owner

extension CommandTable {
    /// Runs `handler` with `owner` and the event's argument each time `key`'s
    /// event is executed, for as long as `owner` lives.
    ///
    /// ```swift
    /// final class Session {            // not Sendable
    ///     var total = 0
    ///     init(table: CommandTable) {
    ///         table.on(.deposit, owner: self) { session, amount in session.total += amount }
    ///     }
    /// }
    /// ```
    ///
    /// The table holds `owner` weakly and passes it to each call of the
    /// handler, so the handler need not capture it: an owner that is not
    /// `Sendable` cannot be captured by a `@Sendable` closure, and one
    /// captured strongly would never die. Once `owner` has died the handler
    /// is skipped and pruned as a target-action's is. Releasing the returned
    /// registration changes nothing; ``Registration/cancel()`` and
    /// ``removeTarget(_:)`` with the owner remove it early.
    ///
    /// The handler runs on the executing thread, where its owner is alive
    /// for the call; it takes its argument and may throw as
    /// ``on(_:on:options:phase:_:)-(EventKey<A>,Delivery<Nonisolated>.Choice<HandlerFailure>,_,_,_)``'s does.
    ///
    /// - Parameters:
    ///   - key: The event, typed; a string literal names one.
    ///   - owner: The object the handler lives as long as, held weakly.
    ///   - options: How the handler is registered.
    ///   - phase: Where among the event's handlers it runs
    ///     (``HandlerPhase``); a default phase, `.runFirst` or `.runLast`,
    ///     makes the call throw.
    ///   - handler: Runs with the owner and the event's argument.
    /// - Returns: The registration, which removes the handler when cancelled.
    /// - Throws: For a default phase only: see ``HandlerPhase/Choice``.
    @discardableResult
    public func on<Owner: AnyObject, A: EventArgument, HandlerFailure, Failure>(
        _ key: EventKey<A>, owner: Owner, options: HandlerOptions = [],
        phase: HandlerPhase.Choice<Failure> = .normal,
        _ handler: @escaping @Sendable (Owner, A) throws(HandlerFailure) -> Void
    ) throws(Failure) -> Registration {
        let event = key.name
        return try targetRegistration(
            owner, key: key, parameters: [A.valueType], action: nil, options: options, phase: phase
        ) { owner, arguments in
            var index = 0
            try handler(owner, try A.argument(arguments, at: &index, event: event))
        }
    }

    /// Runs `handler` with `owner` and the event's arguments, none or two or
    /// more, each time `key`'s event is executed, for as long as `owner`
    /// lives; see the one-argument form.
    ///
    /// ```swift
    /// table.on("reset", owner: self) { session in session.total = 0 }
    /// ```
    @discardableResult
    public func on<Owner: AnyObject, each A: EventArgument, HandlerFailure, Failure>(
        _ key: EventKey<(repeat each A)>, owner: Owner, options: HandlerOptions = [],
        phase: HandlerPhase.Choice<Failure> = .normal,
        _ handler: @escaping @Sendable (Owner, repeat each A) throws(HandlerFailure) -> Void
    ) throws(Failure) -> Registration {
        let event = key.name
        return try targetRegistration(
            owner, key: key, parameters: valueTypes(of: repeat (each A).self), action: nil, options: options,
            phase: phase
        ) { owner, arguments in
            var index = 0
            try handler(owner, repeat (each A).argument(arguments, at: &index, event: event))
        }
    }
}

// MARK: - Removing targets

extension CommandTable {
    /// Removes every handler bound to `target`: its target-actions and the
    /// closures it owns, on every event, but a default handler
    /// (``HandlerPhase``), which its registration's ``Registration/cancel()``
    /// or its target's death removes. Returns how many.
    ///
    /// Replaces `-[UIControl removeTarget:action:forControlEvents:]` with a
    /// nil action and `-[NSNotificationCenter removeObserver:]`.
    @discardableResult
    public func removeTarget(_ target: AnyObject) -> Int {
        remove(TargetHandlers.handlers(for: TargetHandlers.Key(table: serial, target: ObjectIdentifier(target))))
    }

    /// Removes the handlers bound to `target` for `event` and returns how
    /// many.
    @discardableResult
    public func removeTarget(_ target: AnyObject, for event: String) -> Int {
        guard let id = try? eventID(named: event) else { return 0 }
        return remove(
            TargetHandlers.handlers(
                for: TargetHandlers.Key(table: serial, target: ObjectIdentifier(target)), event: id))
    }

    /// Removes the handlers bound to `target` for `key`'s event and returns
    /// how many.
    @discardableResult
    public func removeTarget<Arguments>(_ target: AnyObject, for key: EventKey<Arguments>) -> Int {
        guard let id = try? eventID(for: key) else { return 0 }
        return remove(
            TargetHandlers.handlers(
                for: TargetHandlers.Key(table: serial, target: ObjectIdentifier(target)), event: id))
    }

    /// Removes `target`'s action `actionName` for `event` (added with
    /// `addTarget(_:action:named:for:phase:)`) and returns whether it was there.
    ///
    /// Replaces `-[UIControl removeTarget:action:forControlEvents:]`.
    @discardableResult
    public func removeTarget(_ target: AnyObject, named actionName: String, for event: String) -> Bool {
        guard let id = try? eventID(named: event) else { return false }
        return removeTarget(target, named: actionName, event: id)
    }

    /// Removes `target`'s action `actionName` for `key`'s event and returns
    /// whether it was there.
    @discardableResult
    public func removeTarget<Arguments>(
        _ target: AnyObject, named actionName: String, for key: EventKey<Arguments>
    ) -> Bool {
        guard let id = try? eventID(for: key) else { return false }
        return removeTarget(target, named: actionName, event: id)
    }

    private func removeTarget(_ target: AnyObject, named actionName: String, event: dc_event_id) -> Bool {
        let key = TargetHandlers.Key(table: serial, target: ObjectIdentifier(target))
        return remove(TargetHandlers.handlers(for: key, event: event, action: .named(actionName))) > 0
    }

    /// Removes the handlers `ids` but default handlers, as
    /// `dc_table_remove_target` leaves them, and returns how many were still
    /// there. Called without the registry's lock held: removal waits for
    /// calls running on other threads, and releasing a box takes that lock.
    private func remove(_ ids: [dc_handler_id]) -> Int {
        ids.reduce(0) { removed, id in
            var info = dc_handler_info()
            let isDefault =
                dc_table_handler_info(cTable, id, &info) == DC_OK
                && HandlerPhase(cFlags: info.flags).isDefault
            return !isDefault && dc_table_remove(cTable, id) == DC_OK ? removed + 1 : removed
        }
    }
}
