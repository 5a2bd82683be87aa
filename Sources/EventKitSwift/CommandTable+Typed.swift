internal import CDispatchCore
internal import CDispatchCoreBinding
import Synchronization

// Typed keys: handlers and executes whose argument types the compiler checks.
// A typed handler is registered with the signature of its key's arguments, so
// the C core also checks executes made by name or from C before any handler
// runs.

// MARK: - Registering

extension CommandTable {
    /// Registers `handler` as a marshal handler of the interned event
    /// `event`; the table releases its data when the handler goes away.
    func addHandler(
        _ handler: MarshalHandler, signature: Signature?, event: dc_event_id, options: HandlerOptions = []
    ) throws(DispatchError) -> dc_handler_id {
        try addHandler(handler, options: options, queue: nil) { cOptions, id in
            dc_table_add_marshal_id(cTable, event, signature?.cSignature, handler.function, handler.data, cOptions, id)
        }
    }

    /// Registers `handler` for `key`'s event; a closure lives as long as the
    /// subscription.
    func handlerSubscription<Arguments>(
        _ key: EventKey<Arguments>, signature: Signature, handler: MarshalHandler, options: HandlerOptions
    ) throws(DispatchError) -> Subscription {
        let found = key.storage.event(inTable: serial)
        guard found.found else {
            // A key new to this table: by name, which interns the event only
            // when the add succeeds; then the key remembers the event (a
            // string literal's key is kept, so its next registration finds it).
            let id = try addHandler(key.name, signature: signature, handler: handler, options: options)
            _ = try? event(of: key.storage)
            return subscription(for: id)
        }
        let event = InternedEvent(record: found.record.unsafelyUnwrapped).id
        return subscription(for: try addHandler(handler, signature: signature, event: event, options: options))
    }

    /// Registers `box`, a typed closure, for `key`'s event with the signature
    /// of `parameters`.
    func typedSubscription<Arguments>(
        _ key: EventKey<Arguments>, returning answer: ValueType = .void, parameters: [ValueType],
        box: ArgumentsHandlerBox, options: HandlerOptions
    ) throws(DispatchError) -> Subscription {
        // Signatures of EventArgument types are always valid.
        let signature = try! Signature(returning: answer, parameters: parameters)
        return try handlerSubscription(
            key, signature: signature, handler: MarshalHandler(arguments: box),
            options: options)
    }

    /// Runs `handler` each time `key`'s event, which has no arguments, is
    /// executed, for as long as the returned subscription lives.
    ///
    /// ```swift
    /// table.on(.reset) { print("reset") }.store(in: &subscriptions)
    /// table.on("reset", on: .queue(eventQueue)) { model.reset() }.store(in: &subscriptions)
    /// ```
    ///
    /// The closure is the handler the C core calls, with nothing between:
    /// an execute of a key whose handlers are all such closures runs them
    /// without a call into the library. A closure that throws takes the
    /// general form, ``on(_:on:options:phase:_:)-(EventKey<(A)>,Delivery<Nonisolated>.Choice<HandlerFailure>,_,_,_)``,
    /// with no arguments; delivery, options and phase are as there.
    ///
    /// - Parameters:
    ///   - key: The event, typed; a string literal names one.
    ///   - delivery: Where the handler runs: the executing thread unless
    ///     given (``Delivery/Choice``).
    ///   - options: How the handler is registered.
    ///   - phase: Where among the event's handlers it runs
    ///     (``HandlerPhase``); a default phase makes the call throw.
    ///   - handler: Runs each time the event is executed.
    /// - Returns: The subscription that keeps the handler registered.
    /// - Throws: For a default phase only: see ``HandlerPhase/Choice``.
    public func on<Failure>(
        _ key: EventKey<Void>, on delivery: Delivery<Nonisolated>.Choice<Never> = .executingThread,
        options: HandlerOptions = [], phase: HandlerPhase.Choice<Failure> = .normal,
        _ handler: @escaping @Sendable () -> Void
    ) throws(Failure) -> Subscription {
        try phase.register(key.name, options: options) { (options) throws(DispatchError) in
            if let target = delivery.target { return try deliveredSubscription(key, to: target, options: options, handler) }
            return try handlerSubscription(key, signature: Signatures.void, handler: MarshalHandler(handler), options: options)
        }
    }

    /// Runs `handler` with the event's argument each time `key`'s event is
    /// executed, for as long as the returned subscription lives.
    ///
    /// ```swift
    /// table.on(.toggle) { on in print("toggle", on) }.store(in: &subscriptions)
    /// table.on(.approve) { (amount: Int) throws in try ledger.book(amount) }.store(in: &subscriptions)
    /// table.on(.progress, on: .dispatchQueue(workQueue)) { percent in log(percent) }
    ///     .store(in: &subscriptions)
    /// ```
    ///
    /// The handler is registered with `A`'s ``EventArgument/valueType``, so an
    /// execute by name with an argument of another type throws
    /// ``DispatchError/typeMismatch(_:)`` before any handler runs. An
    /// argument the C type admits but `A` does not (a null string for a
    /// `String`, an object of another class) stops the emission there and the
    /// execute throws ``DispatchError/typeMismatch(_:)``.
    ///
    /// On the executing thread (the default delivery) the handler may throw:
    /// the error stops the emission, the handlers after it do not run, and
    /// the execute that ran it throws the error (an execute made from C,
    /// which cannot receive it, stops and drops it). Delivered elsewhere
    /// (``Delivery/Choice``) it may not, and its arguments are checked and
    /// converted on the executing thread, then travel to it as Swift values:
    /// strings copied, objects retained until the handler has run.
    /// Delivering an object to another thread is your statement that it may
    /// be used there. The execute counts a delivered handler as run
    /// (``ExecuteResult/handled``) when it hands the call to a
    /// `DispatchQueue`, and as queued (``ExecuteResult/queued``) when it
    /// posts it to an ``EventQueue``.
    ///
    /// A key with a detail (``EventKey/detail(_:)``) runs the handler for
    /// executes of that detail only; a key without one, for every detail. A
    /// malformed key registers nothing: the subscription returned is
    /// cancelled already, and an execute of the key throws
    /// ``DispatchError/invalidArgument(_:)``.
    ///
    /// One argument has its own method because Swift does not take a key of
    /// one type, `EventKey<Bool>`, as a key of a one-element pack; for any
    /// other number of arguments, none included, see
    /// ``on(_:on:options:phase:_:)-(EventKey<(A)>,Delivery<Nonisolated>.Choice<HandlerFailure>,_,_,_)``.
    ///
    /// - Parameters:
    ///   - key: The event, typed; a string literal names one.
    ///   - delivery: Where the handler runs: the executing thread unless
    ///     given (``Delivery/Choice``).
    ///   - options: How the handler is registered.
    ///   - phase: Where among the event's handlers it runs
    ///     (``HandlerPhase``); a default phase, `.runFirst` or `.runLast`,
    ///     makes the call throw.
    ///   - handler: Runs with the event's argument.
    /// - Returns: The subscription that keeps the handler registered.
    /// - Throws: For a default phase only: see ``HandlerPhase/Choice``.
    ///
    /// The corresponding C function is `dc_table_add_marshal_id`, with
    /// `dc_handler_options.queue` for an ``EventQueue``. Replaces
    /// `-[NSNotificationCenter addObserverForName:object:queue:usingBlock:]`
    /// and `g_signal_connect`.
    // Inlinable, so that where `A` is a built-in scalar the closure the table
    // calls reads the argument as an `A` in the caller's code, where `A` is
    // known; unspecialized, every call would look `A` up.
    @inlinable
    public func on<A: EventArgument, HandlerFailure, Failure>(
        _ key: EventKey<A>, on delivery: Delivery<Nonisolated>.Choice<HandlerFailure> = .executingThread,
        options: HandlerOptions = [], phase: HandlerPhase.Choice<Failure> = .normal,
        _ handler: @escaping @Sendable (A) throws(HandlerFailure) -> Void
    ) throws(Failure) -> Subscription {
        try phase.register(key.name, options: options) { (options) throws(DispatchError) in
            if let target = delivery.target {
                return try deliveredSubscription(key, to: target, options: options, Self.unfailing(handler))
            }
            if HandlerFailure.self == Never.self, ScalarArguments.areScalars(A.self) {
                return try onScalars(key, types: ScalarArguments.valueTypes(of: A.self), options: options) { arguments in
                    do { try handler(ScalarArguments.arguments(arguments, as: A.self)) } catch {}
                }
            }
            return try onConverting(key, options: options, handler)
        }
    }

    /// Runs `handler` with the event's arguments, none or two or more, each
    /// time `key`'s event is executed, for as long as the returned
    /// subscription lives.
    ///
    /// ```swift
    /// extension EventKey where Arguments == (String, Int) {
    ///     static let rename: EventKey<(String, Int)> = "rename"
    /// }
    /// table.on(.rename) { title, index in print(title, index) }.store(in: &subscriptions)
    /// table.on(.reset, on: .queue(eventQueue)) { model.reset() }.store(in: &subscriptions)
    /// table.on("resize") { (width: Int, height: Int) in layout(width, height) }
    ///     .store(in: &subscriptions)
    /// ```
    ///
    /// A string literal is a key whose argument types the closure's
    /// parameters give; a closure whose parameters are not annotated does
    /// not compile there (a name in a variable becomes a key with
    /// `EventKey(name)`). The handler is registered with the signature of the
    /// arguments' ``EventArgument/valueType``s, checks them, may throw and
    /// is delivered as the one-argument method's is.
    ///
    /// - Parameters:
    ///   - key: The event, typed; a string literal names one.
    ///   - delivery: Where the handler runs: the executing thread unless
    ///     given (``Delivery/Choice``).
    ///   - options: How the handler is registered.
    ///   - phase: Where among the event's handlers it runs
    ///     (``HandlerPhase``); a default phase makes the call throw.
    ///   - handler: Runs with the event's arguments.
    /// - Returns: The subscription that keeps the handler registered.
    /// - Throws: For a default phase only: see ``HandlerPhase/Choice``.
    @inlinable
    public func on<each A: EventArgument, HandlerFailure, Failure>(
        _ key: EventKey<(repeat each A)>,
        on delivery: Delivery<Nonisolated>.Choice<HandlerFailure> = .executingThread,
        options: HandlerOptions = [], phase: HandlerPhase.Choice<Failure> = .normal,
        _ handler: @escaping @Sendable (repeat each A) throws(HandlerFailure) -> Void
    ) throws(Failure) -> Subscription {
        try phase.register(key.name, options: options) { (options) throws(DispatchError) in
            if let target = delivery.target {
                return try deliveredSubscription(key, to: target, options: options, Self.unfailing(handler))
            }
            if HandlerFailure.self == Never.self, ScalarArguments.areScalars(repeat (each A).self) {
                // The C arguments, all built-in scalars, read as a tuple of
                // them where the types are known.
                return try onScalars(
                    key, types: ScalarArguments.valueTypes(of: repeat (each A).self), options: options
                ) { arguments in
                    let values = ScalarArguments.arguments(arguments, as: repeat (each A).self)
                    do { try handler(repeat each values) } catch {}
                }
            }
            return try onConverting(key, options: options, handler)
        }
    }

    /// `handler`, whose failure is `Never` (a ``Delivery/Choice`` with a
    /// target is made for no other), as a closure that cannot throw.
    @usableFromInline
    static func unfailing<each A, HandlerFailure>(
        _ handler: @escaping @Sendable (repeat each A) throws(HandlerFailure) -> Void
    ) -> @Sendable (repeat each A) -> Void {
        { (argument: repeat each A) in
            do { try handler(repeat each argument) } catch {}
        }
    }

    /// Runs `handler` with the event's argument each time `key`'s event is
    /// executed, and takes its answer as the execute's return value.
    ///
    /// ```swift
    /// extension EventKey where Arguments == Int {
    ///     static let approve: EventKey<Int> = "approve"
    /// }
    /// table.on(.approve) { amount in amount < 100 }.store(in: &subscriptions)
    /// let approved = try table.execute(.approve, 42).returnValue(as: Bool.self)   // Optional(true)
    /// ```
    ///
    /// The first handler that answers gives the execute's
    /// ``ExecuteResult/returnValue`` (an accumulator chooses otherwise, as for
    /// C handlers); ``ExecuteResult/returnValue(as:)`` reads it typed. The
    /// handler is registered with a signature returning `Answer`'s
    /// ``EventArgument/valueType``, so C callers of the event get the answer
    /// too. It runs on the executing thread, where its answer is wanted, and
    /// takes its argument and may throw as
    /// ``on(_:on:options:phase:_:)-(EventKey<A>,Delivery<Nonisolated>.Choice<HandlerFailure>,_,_,_)`` does.
    ///
    /// - Parameters:
    ///   - key: The event, typed; a string literal names one.
    ///   - options: How the handler is registered.
    ///   - phase: Where among the event's handlers it runs
    ///     (``HandlerPhase``); a default phase makes the call throw.
    ///   - handler: Runs with the event's argument; returns the answer.
    /// - Returns: The subscription that keeps the handler registered.
    /// - Throws: For a default phase only: see ``HandlerPhase/Choice``.
    @inlinable
    public func on<A: EventArgument, Answer: EventArgument, HandlerFailure, Failure>(
        _ key: EventKey<A>, options: HandlerOptions = [], phase: HandlerPhase.Choice<Failure> = .normal,
        _ handler: @escaping @Sendable (A) throws(HandlerFailure) -> Answer
    ) throws(Failure) -> Subscription {
        try phase.register(key.name, options: options) { (options) throws(DispatchError) in
            try onAnswering(key, options: options, handler)
        }
    }

    /// Runs `handler` with the event's arguments, none or two or more, each
    /// time `key`'s event is executed, and takes its answer as the execute's
    /// return value.
    ///
    /// ```swift
    /// table.on(.canClose) { document.isSaved }.store(in: &subscriptions)
    /// table.on("visit") { (name: String, depth: Int32) -> Int32 in depth + 1 }
    ///     .store(in: &subscriptions)
    /// ```
    ///
    /// Answers and throws as the one-argument answering form does.
    @inlinable
    public func on<each A: EventArgument, Answer: EventArgument, HandlerFailure, Failure>(
        _ key: EventKey<(repeat each A)>, options: HandlerOptions = [], phase: HandlerPhase.Choice<Failure> = .normal,
        _ handler: @escaping @Sendable (repeat each A) throws(HandlerFailure) -> Answer
    ) throws(Failure) -> Subscription {
        try phase.register(key.name, options: options) { (options) throws(DispatchError) in
            try onAnswering(key, options: options, handler)
        }
    }

    /// A typed handler whose arguments, of C `types`, are all built-in
    /// scalars; `body` reads them from the C arguments.
    @usableFromInline
    func onScalars<Arguments>(
        _ key: EventKey<Arguments>, types: [ValueType], options: HandlerOptions,
        _ body: @escaping @Sendable (UnsafeRawPointer) -> Void
    ) throws(DispatchError) -> Subscription {
        // Signatures of EventArgument types are always valid.
        let signature = try! Signature(returning: .void, parameters: types)
        return try handlerSubscription(
            key, signature: signature, handler: MarshalHandler(reading: body), options: options)
    }

    /// `on` for arguments not all built-in scalars: the box converts them on
    /// each call.
    @usableFromInline
    func onConverting<Arguments, each A: EventArgument>(
        _ key: EventKey<Arguments>, options: HandlerOptions,
        _ handler: @escaping @Sendable (repeat each A) throws -> Void
    ) throws(DispatchError) -> Subscription {
        try typedSubscription(
            key, parameters: valueTypes(of: repeat (each A).self),
            box: PackHandlerBox<repeat each A>(
                cTable: cTable, event: key.name, payloadTypes: payloadTypes, body: handler),
            options: options)
    }

    /// `on` for a handler that answers: registered with a signature
    /// returning the answer's C type.
    @usableFromInline
    func onAnswering<Arguments, each A: EventArgument, Answer: EventArgument>(
        _ key: EventKey<Arguments>, options: HandlerOptions,
        _ handler: @escaping @Sendable (repeat each A) throws -> Answer
    ) throws(DispatchError) -> Subscription {
        try typedSubscription(
            key, returning: Answer.valueType, parameters: valueTypes(of: repeat (each A).self),
            box: PackHandlerBox<repeat each A>(cTable: cTable, event: key.name, payloadTypes: payloadTypes) {
                (arguments: repeat each A) throws -> Value in try handler(repeat each arguments).eventValue
            },
            options: options)
    }

    /// How many handlers an execute of `key` considers (blocked ones
    /// included); see ``handlerCount(for:)-(String)``.
    ///
    /// The corresponding C function is `dc_table_handler_count`.
    public func handlerCount<Arguments>(for key: EventKey<Arguments>) -> Int {
        handlerCount(for: key.name)
    }

    /// Removes every handler of `key`'s event, its default handler aside,
    /// and returns how many; see ``removeAll(for:)-(String)``.
    ///
    /// The corresponding C function is `dc_table_remove_event`.
    @discardableResult
    public func removeAll<Arguments>(for key: EventKey<Arguments>) -> Int {
        removeAll(for: key.name)
    }
}

// MARK: - Executing

extension CommandTable {
    /// Executes `key`'s event with `count` C arguments.
    func execute<Arguments>(
        _ key: EventKey<Arguments>, cArguments: UnsafePointer<dc_value>?, count: Int
    ) throws -> ExecuteResult {
        ExecuteResult(try executeOutcome(key.storage, cArguments: cArguments, count: count))
    }

    /// Executes `key`'s event without arguments: the inlinable
    /// `execute(_:)`'s way in. The C core's inline execute is compiled in
    /// here, so an event whose handlers are all closures taking nothing runs
    /// without a call into the library.
    @usableFromInline
    func executeOutcome(_ key: EventKeyStorage) throws -> ExecuteOutcome {
        let event = try event(of: key)
        return try briefOutcome { context, result in
            dc__execute_record_inline(cTable, event.record, context, result)
        }
    }

    /// The one place a typed execute with arguments calls C. Not generic, so
    /// that it is compiled for the one case it is: the typed executes run
    /// unspecialized inside this module. Inlined into each way in, so an
    /// execute is one call into this module.
    @inline(__always)
    private func executeOutcome(
        _ key: EventKeyStorage, cArguments: UnsafePointer<dc_value>?, count: Int
    ) throws -> ExecuteOutcome {
        let event = try event(of: key)
        return try briefOutcome { context, result in
            dc__execute_record(cTable, event.record, cArguments, count, context, result)
        }
    }

    /// Executes `key`'s event with `argument`, whose type the compiler checks
    /// against the key's.
    ///
    /// ```swift
    /// try table.execute(.toggle, true)
    /// // try table.execute(.toggle, "yes")   does not compile: .toggle takes a Bool
    /// ```
    ///
    /// The corresponding C function is `dc_table_execute_id`.
    // Inlinable, so that in the caller, where `A` is known, a built-in scalar
    // argument becomes its bits at compile time and the execute is one call
    // into the module; unspecialized, every execute would look `A` up.
    @inlinable
    @discardableResult
    public func execute<A: EventArgument>(_ key: EventKey<A>, _ argument: A) throws -> ExecuteResult {
        if _slowPath(structReturns.load(ordering: .relaxed)) { return try executeKeepingStructs(key, argument) }
        if ScalarArguments.areScalars(A.self) {
            let outcome = try ScalarArguments.withValues(1) { value in
                ScalarArguments.pack(argument, into: value)
                return try executeOutcome(key.storage, scalars: value, count: 1)
            }
            return ExecuteResult(outcome)
        }
        return try executeConverting(key, argument)
    }

    /// Executes `key`'s event with its arguments, none or two or more, whose
    /// types the compiler checks against the key's: runs its handlers in
    /// order.
    ///
    /// ```swift
    /// try table.execute(.reset)
    /// try table.execute(.rename, "track", 3)
    /// ```
    ///
    /// The key remembers the event's interned id in this table, so this skips
    /// hashing the name. It throws what an execute by name throws, before
    /// any handler runs, or the error a handler threw.
    ///
    /// The corresponding C function is `dc_table_execute_id`.
    // Inlinable, so that built-in scalar arguments become their bits at
    // compile time, as for one argument, and no arguments is the inline
    // execute. Always inlined: left a call of its own, the caller destroys
    // the result it drops (RESULTS.md has the cost).
    @inlinable @inline(__always)
    @discardableResult
    public func execute<each A: EventArgument>(
        _ key: EventKey<(repeat each A)>, _ arguments: repeat each A
    ) throws -> ExecuteResult {
        if _slowPath(structReturns.load(ordering: .relaxed)) {
            return try executeKeepingStructs(key, repeat each arguments)
        }
        if ScalarArguments.count(of: repeat (each A).self) == 0 {
            // The C core's inline execute: an event whose handlers are all
            // closures taking nothing runs without a call into the library.
            return ExecuteResult(try executeOutcome(key.storage))
        }
        if ScalarArguments.areScalars(repeat (each A).self) {
            // The C values of the arguments, all built-in scalars, made on
            // the stack where the types are known.
            let count = ScalarArguments.count(of: repeat (each A).self)
            let outcome = try ScalarArguments.withValues(count) { values in
                ScalarArguments.pack(repeat each arguments, into: values)
                return try executeOutcome(key.storage, scalars: values, count: count)
            }
            return ExecuteResult(outcome)
        }
        return try executeConverting(key, repeat each arguments)
    }

    /// Executes `key`'s event with `count` built-in scalar arguments at
    /// `cArguments`, C values the caller made (`ScalarArguments.pack`): the
    /// inlinable executes' way in.
    @usableFromInline
    func executeOutcome(_ key: EventKeyStorage, scalars cArguments: UnsafeRawPointer, count: Int) throws -> ExecuteOutcome {
        try executeOutcome(key, cArguments: cArguments.assumingMemoryBound(to: dc_value.self), count: count)
    }

    /// A typed execute once a handler returning a struct is registered here:
    /// by name, with room for the struct, as every execute by name is then
    /// (see `structReturns`), so that a key's execute returns it alike.
    @usableFromInline @inline(never)
    func executeKeepingStructs<Arguments, each A: EventArgument>(
        _ key: EventKey<Arguments>, _ arguments: repeat each A
    ) throws -> ExecuteResult {
        var values: [Value] = []
        for argument in repeat each arguments { values.append(argument.eventValue) }
        return try execute(key.name, arguments: values)
    }

    /// `execute(_:_:)` for one argument that is not a built-in scalar (an
    /// object, as every `Event` raise passes): its C value on the stack, with
    /// no array.
    @usableFromInline
    func executeConverting<A: EventArgument>(_ key: EventKey<A>, _ argument: A) throws -> ExecuteResult {
        let value = argument.eventValue
        try checkPayload(key.storage, value, at: 0)
        let (cValue, ownedString) = value.makeCValue()
        defer { freeCString(ownedString) }
        return try withExtendedLifetime(value) {
            try withUnsafePointer(to: cValue) { try execute(key, cArguments: $0, count: 1) }
        }
    }

    /// `execute` for arguments not all built-in scalars.
    @usableFromInline
    func executeConverting<Arguments, each A: EventArgument>(
        _ key: EventKey<Arguments>, _ arguments: repeat each A
    ) throws -> ExecuteResult {
        var values: [Value] = []
        for argument in repeat each arguments { values.append(argument.eventValue) }
        try checkPayloads(key.storage, values)
        return try withCValues(values) { cArguments, count in try execute(key, cArguments: cArguments, count: count) }
    }
}

// MARK: - Boxes

/// A typed closure: one trampoline for every argument list, which calls the
/// subclass that knows the argument types. A call is one virtual call, with
/// no closure in between and no reference counting.
class ArgumentsHandlerBox: FailableHandlerBox, @unchecked Sendable {
    /// The event's name, for the message of an argument Swift rejects.
    let event: String

    init(cTable: OpaquePointer, event: String) {
        self.event = event
        super.init(cTable: cTable)
    }

    /// Whether the closure takes a payload: an object a C execute's check
    /// asks about.
    var takesPayloads: Bool { false }

    /// Calls the closure with the checked, converted C arguments and
    /// returns its answer, ``Value/void`` for none.
    func run(_ arguments: UnsafePointer<dc_value>?) throws -> Value {
        preconditionFailure("ArgumentsHandlerBox.run is overridden by every subclass")
    }

    static let trampoline: dc_marshal = { data, arguments, _, result in
        calledBox(data, as: ArgumentsHandlerBox.self)._withUnsafeGuaranteedRef { box in
            do {
                let answer = try box.run(arguments)
                // Of the signature's return type: the handler was
                // registered with its answer's C type.
                if case .void = answer { return }
                result!.pointee = ReturnedValues.cValue(for: answer)
            } catch {
                box.fail(with: error)
            }
        }
    }
}

/// A typed closure of any arguments, which converts each on every call,
/// and may answer (its closure returns the answer's value, ``Value/void``
/// for none) and throw.
final class PackHandlerBox<each A: EventArgument>: ArgumentsHandlerBox, @unchecked Sendable {
    let body: @Sendable (repeat each A) throws -> Value
    /// The payload arguments this handler takes, registered in `payloadTypes`
    /// for as long as the box lives (the table keeps it while it keeps the
    /// handler).
    private let payloadSlots: [(PayloadTypes.Slot, Any.Type)]
    private let payloadTypes: PayloadTypes

    init(
        cTable: OpaquePointer, event: String, payloadTypes: PayloadTypes,
        body: @escaping @Sendable (repeat each A) throws -> Value
    ) {
        self.body = body
        self.payloadTypes = payloadTypes
        var types: [any EventArgument.Type] = []
        for type in repeat (each A).self { types.append(type) }
        payloadSlots = PayloadTypes.slots(of: event, types)
        if !payloadSlots.isEmpty { payloadTypes.add(payloadSlots) }
        super.init(cTable: cTable, event: event)
    }

    /// A box for a closure that does not answer.
    convenience init(
        cTable: OpaquePointer, event: String, payloadTypes: PayloadTypes,
        body: @escaping @Sendable (repeat each A) throws -> Void
    ) {
        self.init(cTable: cTable, event: event, payloadTypes: payloadTypes) { (arguments: repeat each A) throws -> Value in
            try body(repeat each arguments)
            return .void
        }
    }

    deinit {
        if !payloadSlots.isEmpty { payloadTypes.remove(payloadSlots) }
    }

    override var takesPayloads: Bool { !payloadSlots.isEmpty }

    override func run(_ arguments: UnsafePointer<dc_value>?) throws -> Value {
        var index = 0
        return try body(repeat (each A).argument(arguments, at: &index, event: event))
    }
}
