internal import CDispatchCore
internal import CDispatchCoreBinding

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
    ) -> Subscription {
        do {
            let id = try addHandler(handler, signature: signature, event: eventID(for: key), options: options)
            return subscription(for: id, cancelsOnRelease: true)
        } catch {
            // A closure with a fixed, valid signature can only fail to register
            // when memory runs out, which Swift treats as fatal.
            fatalError("CommandTable \(name): registering a handler for \"\(key.name)\" failed: \(error)")
        }
    }

    /// Registers `box`, a typed closure, for `key`'s event with the signature
    /// of `parameters`.
    func typedSubscription<Arguments>(
        _ key: EventKey<Arguments>, parameters: [ValueType], box: ArgumentsHandlerBox, options: HandlerOptions
    ) -> Subscription {
        // Signatures of EventArgument types are always valid.
        let signature = try! Signature(returning: .void, parameters: parameters)
        return handlerSubscription(
            key, signature: signature, handler: MarshalHandler(box: box, trampoline: ArgumentsHandlerBox.trampoline),
            options: options)
    }

    /// Runs `handler` each time `key`'s event is executed, for as long as the
    /// returned subscription lives.
    ///
    /// ```swift
    /// table.on(.reset) { print("reset") }.store(in: &subscriptions)
    /// ```
    ///
    /// The corresponding C function is `dc_table_add_marshal_id`.
    public func on(
        _ key: EventKey<Void>, options: HandlerOptions = [], _ handler: @escaping @Sendable () -> Void
    ) -> Subscription {
        handlerSubscription(key, signature: Signatures.void, handler: MarshalHandler(handler), options: options)
    }

    /// Runs `handler` with the event's argument each time `key`'s event is
    /// executed, for as long as the returned subscription lives.
    ///
    /// ```swift
    /// table.on(.toggle) { (on: Bool) in print("toggle", on) }.store(in: &subscriptions)
    /// ```
    ///
    /// The handler is registered with `A`'s ``EventArgument/valueType``, so an
    /// execute by name with an argument of another type throws
    /// ``DispatchError/typeMismatch(_:)`` before any handler runs. An
    /// argument the C type admits but `A` does not (a null string for a
    /// `String`, an object of another class) stops the emission there and the
    /// execute throws ``DispatchError/typeMismatch(_:)``.
    // Inlinable, so that where `A` is a built-in scalar the closure the table
    // calls reads the argument as an `A` in the caller's code, where `A` is
    // known; unspecialized, every call would look `A` up.
    @inlinable
    public func on<A: EventArgument>(
        _ key: EventKey<A>, options: HandlerOptions = [], _ handler: @escaping @Sendable (A) -> Void
    ) -> Subscription {
        if let type = ScalarArgument.valueType(of: A.self) {
            return onScalars(key, types: [type], options: options) { arguments in
                handler(ScalarArgument.argument(arguments, 0, as: A.self))
            }
        }
        return onConverting(key, options: options, handler)
    }

    /// A typed handler whose arguments, of C `types`, are all built-in
    /// scalars; `body` reads them from the C arguments.
    @usableFromInline
    func onScalars<Arguments>(
        _ key: EventKey<Arguments>, types: [ValueType], options: HandlerOptions,
        _ body: @escaping @Sendable (UnsafeRawPointer) -> Void
    ) -> Subscription {
        // Signatures of EventArgument types are always valid.
        let signature = try! Signature(returning: .void, parameters: types)
        return handlerSubscription(
            key, signature: signature, handler: MarshalHandler(reading: body), options: options)
    }

    /// `on(_:options:_:)` for an argument that is not a built-in scalar: the
    /// box converts it on each call.
    @usableFromInline
    func onConverting<A: EventArgument>(
        _ key: EventKey<A>, options: HandlerOptions, _ handler: @escaping @Sendable (A) -> Void
    ) -> Subscription {
        typedSubscription(
            key, parameters: [A.valueType],
            box: OneArgumentHandlerBox(cTable: cTable, event: key.name, body: handler), options: options)
    }

    /// Runs `handler` with the event's object argument each time `key`'s event
    /// is executed, for as long as the returned subscription lives.
    ///
    /// The C core checks that the argument is an object; that it is an `A`
    /// is checked when the handler is reached: a null or an object of another
    /// class stops the emission there and the execute throws
    /// ``DispatchError/typeMismatch(_:)``.
    public func on<A: AnyObject>(
        _ key: EventKey<A>, options: HandlerOptions = [], _ handler: @escaping @Sendable (A) -> Void
    ) -> Subscription {
        typedSubscription(
            key, parameters: [.object], box: ObjectArgumentHandlerBox(cTable: cTable, event: key.name, body: handler),
            options: options)
    }

    /// Runs `handler` with the event's object argument; chosen for a class
    /// that is also an ``EventArgument``.
    public func on<A: AnyObject & EventArgument>(
        _ key: EventKey<A>, options: HandlerOptions = [], _ handler: @escaping @Sendable (A) -> Void
    ) -> Subscription {
        typedSubscription(
            key, parameters: [.object], box: ObjectArgumentHandlerBox(cTable: cTable, event: key.name, body: handler),
            options: options)
    }

    /// Runs `handler` with the event's two arguments each time `key`'s event
    /// is executed, for as long as the returned subscription lives.
    @inlinable
    public func on<A: EventArgument, B: EventArgument>(
        _ key: EventKey<(A, B)>, options: HandlerOptions = [], _ handler: @escaping @Sendable (A, B) -> Void
    ) -> Subscription {
        if let first = ScalarArgument.valueType(of: A.self), let second = ScalarArgument.valueType(of: B.self) {
            return onScalars(key, types: [first, second], options: options) { arguments in
                handler(ScalarArgument.argument(arguments, 0, as: A.self), ScalarArgument.argument(arguments, 1, as: B.self))
            }
        }
        return onConverting(key, options: options, handler)
    }

    /// `on(_:options:_:)` for two arguments not all built-in scalars.
    @usableFromInline
    func onConverting<A: EventArgument, B: EventArgument>(
        _ key: EventKey<(A, B)>, options: HandlerOptions, _ handler: @escaping @Sendable (A, B) -> Void
    ) -> Subscription {
        typedSubscription(
            key, parameters: [A.valueType, B.valueType],
            box: TwoArgumentsHandlerBox(cTable: cTable, event: key.name, body: handler), options: options)
    }

    /// Runs `handler` with the event's three arguments each time `key`'s
    /// event is executed, for as long as the returned subscription lives.
    @inlinable
    public func on<A: EventArgument, B: EventArgument, C: EventArgument>(
        _ key: EventKey<(A, B, C)>, options: HandlerOptions = [],
        _ handler: @escaping @Sendable (A, B, C) -> Void
    ) -> Subscription {
        if let first = ScalarArgument.valueType(of: A.self), let second = ScalarArgument.valueType(of: B.self),
            let third = ScalarArgument.valueType(of: C.self)
        {
            return onScalars(key, types: [first, second, third], options: options) { arguments in
                handler(
                    ScalarArgument.argument(arguments, 0, as: A.self), ScalarArgument.argument(arguments, 1, as: B.self),
                    ScalarArgument.argument(arguments, 2, as: C.self))
            }
        }
        return onConverting(key, options: options, handler)
    }

    /// `on(_:options:_:)` for three arguments not all built-in scalars.
    @usableFromInline
    func onConverting<A: EventArgument, B: EventArgument, C: EventArgument>(
        _ key: EventKey<(A, B, C)>, options: HandlerOptions, _ handler: @escaping @Sendable (A, B, C) -> Void
    ) -> Subscription {
        typedSubscription(
            key, parameters: [A.valueType, B.valueType, C.valueType],
            box: ThreeArgumentsHandlerBox(cTable: cTable, event: key.name, body: handler), options: options)
    }

    /// How many handlers `key`'s event has (blocked ones included).
    ///
    /// The corresponding C function is `dc_table_handler_count`.
    public func handlerCount<Arguments>(for key: EventKey<Arguments>) -> Int {
        handlerCount(for: key.name)
    }

    /// Removes every handler of `key`'s event and returns how many.
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
        return try briefOutcome(event: key.name) { context, result in
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
        return try briefOutcome(event: key.name) { context, result in
            dc__execute_record(cTable, event.record, cArguments, count, context, result)
        }
    }

    /// Executes `key`'s event: runs its handlers in order.
    ///
    /// ```swift
    /// try table.execute(.reset)
    /// ```
    ///
    /// The key remembers the event's interned id in this table, so this skips
    /// hashing the name. It throws what an execute by name throws, before
    /// any handler runs, or the error a handler threw.
    ///
    /// The corresponding C function is `dc_table_execute_id`.
    // Inlinable: from another module this is one direct call into the module,
    // and the caller sees that a result with no return value, dropped,
    // needs no destroying.
    @inlinable
    @discardableResult
    public func execute(_ key: EventKey<Void>) throws -> ExecuteResult {
        ExecuteResult(try executeOutcome(key.storage))
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
        if let scalar = ScalarArgument(argument) {
            return ExecuteResult(try executeOutcome(key.storage, scalar: scalar))
        }
        return try executeConverting(key, argument)
    }

    /// Executes `key`'s event with one scalar argument: the inlinable
    /// `execute(_:_:)`'s way in.
    @usableFromInline
    func executeOutcome(_ key: EventKeyStorage, scalar: ScalarArgument) throws -> ExecuteOutcome {
        var value = scalar.cValue
        return try _withUnprotectedUnsafeMutablePointer(to: &value) { try executeOutcome(key, cArguments: $0, count: 1) }
    }

    /// Executes `key`'s event with two or three scalar arguments (`third`
    /// nil for two): the inlinable executes' way in.
    @usableFromInline
    func executeOutcome(
        _ key: EventKeyStorage, scalars first: ScalarArgument, _ second: ScalarArgument, _ third: ScalarArgument?
    ) throws -> ExecuteOutcome {
        var values = (first.cValue, second.cValue, third?.cValue ?? dc_value())
        return try _withUnprotectedUnsafeMutablePointer(to: &values) { tuple in
            try executeOutcome(
                key, cArguments: UnsafeRawPointer(tuple).assumingMemoryBound(to: dc_value.self),
                count: third == nil ? 2 : 3)
        }
    }

    /// `execute(_:_:)` for an argument that is not a built-in scalar.
    @usableFromInline
    func executeConverting<A: EventArgument>(_ key: EventKey<A>, _ argument: A) throws -> ExecuteResult {
        try argument.withCValue { value in
            try withUnsafePointer(to: value) { try execute(key, cArguments: $0, count: 1) }
        }
    }

    /// Executes `key`'s event with the object `argument`, passed unretained
    /// for the call.
    @discardableResult
    public func execute<A: AnyObject>(_ key: EventKey<A>, _ argument: A) throws -> ExecuteResult {
        try executeObject(key, argument)
    }

    /// Executes `key`'s event with the object `argument`; chosen for a class
    /// that is also an ``EventArgument``.
    @discardableResult
    public func execute<A: AnyObject & EventArgument>(_ key: EventKey<A>, _ argument: A) throws -> ExecuteResult {
        try executeObject(key, argument)
    }

    private func executeObject<A: AnyObject>(_ key: EventKey<A>, _ argument: A) throws -> ExecuteResult {
        try withExtendedLifetime(argument) {
            let value = dc_object(Unmanaged.passUnretained(argument).toOpaque())
            return try withUnsafePointer(to: value) { try execute(key, cArguments: $0, count: 1) }
        }
    }

    /// Executes `key`'s event with two arguments, whose types the compiler
    /// checks against the key's.
    // Inlinable, so that built-in scalar arguments become their bits at
    // compile time, as for one argument.
    @inlinable
    @discardableResult
    public func execute<A: EventArgument, B: EventArgument>(
        _ key: EventKey<(A, B)>, _ first: A, _ second: B
    ) throws -> ExecuteResult {
        if let firstScalar = ScalarArgument(first), let secondScalar = ScalarArgument(second) {
            return ExecuteResult(try executeOutcome(key.storage, scalars: firstScalar, secondScalar, nil))
        }
        return try executeConverting(key, first, second)
    }

    /// `execute(_:_:_:)` for two arguments not all built-in scalars.
    @usableFromInline
    func executeConverting<A: EventArgument, B: EventArgument>(
        _ key: EventKey<(A, B)>, _ first: A, _ second: B
    ) throws -> ExecuteResult {
        try first.withCValue { firstValue in
            try second.withCValue { secondValue in
                try withUnsafeTemporaryAllocation(of: dc_value.self, capacity: 2) { values in
                    values.initializeElement(at: 0, to: firstValue)
                    values.initializeElement(at: 1, to: secondValue)
                    return try execute(key, cArguments: values.baseAddress, count: 2)
                }
            }
        }
    }

    /// Executes `key`'s event with three arguments, whose types the compiler
    /// checks against the key's.
    @inlinable
    @discardableResult
    public func execute<A: EventArgument, B: EventArgument, C: EventArgument>(
        _ key: EventKey<(A, B, C)>, _ first: A, _ second: B, _ third: C
    ) throws -> ExecuteResult {
        if let firstScalar = ScalarArgument(first), let secondScalar = ScalarArgument(second),
            let thirdScalar = ScalarArgument(third)
        {
            return ExecuteResult(try executeOutcome(key.storage, scalars: firstScalar, secondScalar, thirdScalar))
        }
        return try executeConverting(key, first, second, third)
    }

    /// `execute(_:_:_:_:)` for three arguments not all built-in scalars.
    @usableFromInline
    func executeConverting<A: EventArgument, B: EventArgument, C: EventArgument>(
        _ key: EventKey<(A, B, C)>, _ first: A, _ second: B, _ third: C
    ) throws -> ExecuteResult {
        try first.withCValue { firstValue in
            try second.withCValue { secondValue in
                try third.withCValue { thirdValue in
                    try withUnsafeTemporaryAllocation(of: dc_value.self, capacity: 3) { values in
                        values.initializeElement(at: 0, to: firstValue)
                        values.initializeElement(at: 1, to: secondValue)
                        values.initializeElement(at: 2, to: thirdValue)
                        return try execute(key, cArguments: values.baseAddress, count: 3)
                    }
                }
            }
        }
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

    /// Calls the closure with the checked, converted C arguments.
    func run(_ arguments: UnsafePointer<dc_value>?) throws(DispatchError) {
        preconditionFailure("ArgumentsHandlerBox.run is overridden by every subclass")
    }

    static let trampoline: dc_marshal = { data, arguments, _, _ in
        calledBox(data, as: ArgumentsHandlerBox.self)._withUnsafeGuaranteedRef { box in
            do {
                try box.run(arguments)
            } catch {
                box.fail(with: error)
            }
        }
    }
}

final class OneArgumentHandlerBox<A: EventArgument>: ArgumentsHandlerBox, @unchecked Sendable {
    let body: @Sendable (A) -> Void
    init(cTable: OpaquePointer, event: String, body: @escaping @Sendable (A) -> Void) {
        self.body = body
        super.init(cTable: cTable, event: event)
    }

    // Never a built-in scalar: those are read by closures (MarshalHandler(reading:)).
    override func run(_ arguments: UnsafePointer<dc_value>?) throws(DispatchError) {
        body(try A.argument(arguments, at: 0, event: event, bitwise: false))
    }
}

final class ObjectArgumentHandlerBox<A: AnyObject>: ArgumentsHandlerBox, @unchecked Sendable {
    let body: @Sendable (A) -> Void
    init(cTable: OpaquePointer, event: String, body: @escaping @Sendable (A) -> Void) {
        self.body = body
        super.init(cTable: cTable, event: event)
    }

    override func run(_ arguments: UnsafePointer<dc_value>?) throws(DispatchError) {
        body(try objectArgument(arguments, at: 0, event: event))
    }
}

final class TwoArgumentsHandlerBox<A: EventArgument, B: EventArgument>: ArgumentsHandlerBox, @unchecked Sendable {
    let body: @Sendable (A, B) -> Void
    let bitwise = (A.bitwiseCType != nil, B.bitwiseCType != nil)
    init(cTable: OpaquePointer, event: String, body: @escaping @Sendable (A, B) -> Void) {
        self.body = body
        super.init(cTable: cTable, event: event)
    }

    override func run(_ arguments: UnsafePointer<dc_value>?) throws(DispatchError) {
        body(
            try A.argument(arguments, at: 0, event: event, bitwise: bitwise.0),
            try B.argument(arguments, at: 1, event: event, bitwise: bitwise.1))
    }
}

final class ThreeArgumentsHandlerBox<A: EventArgument, B: EventArgument, C: EventArgument>:
    ArgumentsHandlerBox, @unchecked Sendable
{
    let body: @Sendable (A, B, C) -> Void
    let bitwise = (A.bitwiseCType != nil, B.bitwiseCType != nil, C.bitwiseCType != nil)
    init(cTable: OpaquePointer, event: String, body: @escaping @Sendable (A, B, C) -> Void) {
        self.body = body
        super.init(cTable: cTable, event: event)
    }

    override func run(_ arguments: UnsafePointer<dc_value>?) throws(DispatchError) {
        body(
            try A.argument(arguments, at: 0, event: event, bitwise: bitwise.0),
            try B.argument(arguments, at: 1, event: event, bitwise: bitwise.1),
            try C.argument(arguments, at: 2, event: event, bitwise: bitwise.2))
    }
}
