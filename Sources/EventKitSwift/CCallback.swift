internal import CDispatchCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A C function pointer made at run time whose calls run a Swift closure:
/// what a C API that takes a callback needs, with the state a Swift closure
/// captures, which a `@convention(c)` function cannot have.
///
/// ```swift
/// let descending = try CCallback { (a: UnsafeRawPointer?, b: UnsafeRawPointer?) -> Int32 in
///     let x = a!.load(as: Int32.self), y = b!.load(as: Int32.self)
///     return x < y ? 1 : x > y ? -1 : 0
/// }
/// qsort(&numbers, numbers.count, 4, try descending.function(as: Comparator.self))
/// ```
///
/// The closure's parameter and result types give the C signature (the one
/// above is `"i^v^v"`, `int (*)(const void *, const void *)`): any
/// ``EventArgument`` — the numbers, `Bool`, pointers, `String` for `char *`,
/// objects — and `Void`. ``init(signature:onError:_:)`` takes a signature
/// known only at run time instead, and the arguments as ``Value``s.
///
/// The function pointer is valid for as long as the callback lives: keep the
/// callback until the C side has stopped calling it. It may be called from any
/// thread, so the closure is `@Sendable`. The name says what it is from C's
/// side: a callback, made in Swift; a Swift closure is the thing it wraps.
///
/// ### Failures
///
/// A C function cannot receive a Swift error, so an error the closure throws,
/// and a result that does not fit the return type, make the call return the
/// zero of the return type (`0`, `false`, `NULL`) and go to `onError`, on the
/// calling thread.
///
/// ### Strings
///
/// A `char *` argument arrives as a `String` copy. A `String` result is
/// handed over as a copy made with `malloc`, which the C caller owns and
/// frees with `free`, as readline does with its completion callbacks' strings;
/// a C API that does not free what its callback returns wants a pointer that
/// outlives the call instead (`UnsafePointer<CChar>`).
///
/// The corresponding C functions are `dc_closure_create`,
/// `dc_closure_function` and `dc_closure_destroy`. Replaces
/// `ffi_closure_alloc` + `ffi_prep_closure_loc`, and `-forwardInvocation:`
/// for C function pointers.
public final class CCallback: @unchecked Sendable {
    // @unchecked: every stored property is a `let`; the C closure may be
    // called from any thread, and what it calls is the @Sendable closure.

    /// The C type of the function: its return type and parameter types.
    public let signature: Signature

    /// The function's address, to pass where C takes a callback.
    ///
    /// The corresponding C function is `dc_closure_function`.
    public let address: UnsafeRawPointer

    private let cClosure: OpaquePointer

    /// What a table callback executes on, kept alive with the callback: the
    /// C closure executes on its table.
    private let table: CommandTable?

    /// Creates a callback of `signature` whose calls run `body` with the
    /// call's arguments, each typed as its parameter, and return what `body`
    /// returns, converted to the return type as an invocation's argument is
    /// (``Value/void`` for a `void` function). A struct argument arrives as
    /// a ``Value/structure(_:)`` copy of its bytes, with the parameter's
    /// encoding, which stays valid after the call. Re-sending the call to another
    /// C function is one ``Invocation/call(_:signature:arguments:)-(_,_,[Value])`` away, as
    /// `forwardInvocation:` re-sends with `invokeWithTarget:`.
    ///
    /// ```swift
    /// let logged = try CCallback(signature: Signature("ii")) { arguments in
    ///     print("abs", arguments[0])
    ///     return try Invocation.call(abs, signature: Signature("ii"), arguments: arguments)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - signature: the C type of the function.
    ///   - onError: told about an error `body` throws, or a result that does
    ///     not fit, after which the call returns the zero value; on the
    ///     calling thread. With none, such a failure only returns zero.
    ///   - body: runs for each call, with its arguments, on the calling thread.
    /// - Throws: ``DispatchError/outOfMemory(_:)`` or ``DispatchError/ffi(_:)``
    ///   when no executable memory can be made.
    ///
    /// The corresponding C function is `dc_closure_create`.
    public convenience init(
        signature: Signature, onError: (@Sendable (any Error) -> Void)? = nil,
        _ body: @escaping @Sendable ([Value]) throws -> Value
    ) throws {
        let count = signature.parameterTypes.count
        try self.init(signature: signature, onError: onError) { call in
            var arguments: [Value] = []
            arguments.reserveCapacity(count)
            for index in 0..<count {
                arguments.append(try Value(argument: index, of: call.invocation))
            }
            try call.setResult(try body(arguments))
        }
    }

    /// Creates a callback whose calls run `body`; the C signature comes from
    /// `body`'s parameter and result types (`(Int32, Double) -> Bool` is
    /// `"Bid"`, `bool (*)(int32_t, double)`).
    ///
    /// - Parameters:
    ///   - onError: told about an error `body` throws, after which the call
    ///     returns zero; on the calling thread.
    ///   - body: runs for each call, with its arguments, on the calling thread.
    /// - Throws: ``DispatchError/badSignature(_:)`` for more parameters than
    ///   ``Signature/maximumParameterCount``; ``DispatchError/outOfMemory(_:)``
    ///   or ``DispatchError/ffi(_:)`` when no executable memory can be made.
    public convenience init<each A: EventArgument, R: EventArgument>(
        onError: (@Sendable (any Error) -> Void)? = nil, _ body: @escaping @Sendable (repeat each A) throws -> R
    ) throws {
        let signature = try Signature(returning: R.valueType, parameters: valueTypes(of: repeat (each A).self))
        try self.init(signature: signature, onError: onError) { call in
            try call.setResult(try call.withArguments { arguments in
                var index = 0
                return try body(repeat try (each A).argument(arguments, at: &index, event: call.name))
            }.eventValue)
        }
    }

    /// Creates a callback of a `void` function whose calls run `body`; the C
    /// signature comes from `body`'s parameter types (`(UnsafeRawPointer?) ->
    /// Void` is `"v^v"`).
    ///
    /// - Parameters:
    ///   - onError: told about an error `body` throws; on the calling thread.
    ///   - body: runs for each call, with its arguments, on the calling thread.
    /// - Throws: as the initializer of a closure with a result does.
    public convenience init<each A: EventArgument>(
        onError: (@Sendable (any Error) -> Void)? = nil, _ body: @escaping @Sendable (repeat each A) throws -> Void
    ) throws {
        let signature = try Signature(returning: .void, parameters: valueTypes(of: repeat (each A).self))
        try self.init(signature: signature, onError: onError) { call in
            try call.withArguments { arguments in
                var index = 0
                try body(repeat try (each A).argument(arguments, at: &index, event: call.name))
            }
        }
    }

    /// The designated initializer: a C closure whose calls reach `handle`.
    private init(
        signature: Signature, onError: (@Sendable (any Error) -> Void)?,
        handle: @escaping @Sendable (ForwardedCall) throws -> Void
    ) throws {
        let box = CallbackBox(
            name: "callback \(signature.encoding)", parameterCount: signature.parameterTypes.count, handle: handle,
            onError: onError)
        let userData = Unmanaged.passRetained(box).toOpaque()
        var created: OpaquePointer?
        let status = dc_closure_create(signature.cSignature, callbackTrampoline, userData, releaseCallbackBox, &created)
        guard status == DC_OK, let created else {
            // Nothing was allocated, and the destroy notify was not called.
            Unmanaged<CallbackBox>.fromOpaque(userData).release()
            try DispatchError.check(status)
            throw DispatchError(status: DC_ERR_NO_MEMORY, message: "dc_closure_create made no closure")!
        }
        self.signature = signature
        self.cClosure = created
        self.address = unsafeBitCast(dc_closure_function(created), to: UnsafeRawPointer.self)
        self.table = nil
        self.errorBox = nil
    }

    /// A callback that executes `event` on `table`: the C closure of
    /// `dc_table_closure_create`, its failures reported to `onError`.
    init(table: CommandTable, event: String, signature: Signature, onError: (@Sendable (any Error) -> Void)?)
        throws
    {
        var created: OpaquePointer?
        try DispatchError.check(dc_table_closure_create(table.cTable, event, signature.cSignature, &created))
        // The box lives as long as the closure: `errorBox` keeps it.
        errorBox = onError.map { CallbackBox(name: event, parameterCount: 0, handle: { _ in }, onError: $0) }
        if let errorBox {
            dc_closure_set_error_handler(created, tableCallbackFailed, Unmanaged.passUnretained(errorBox).toOpaque())
        }
        self.signature = signature
        self.cClosure = created!
        self.address = unsafeBitCast(dc_closure_function(created), to: UnsafeRawPointer.self)
        self.table = table
    }

    /// The box of a table callback's error handler.
    private let errorBox: CallbackBox?

    deinit {
        dc_closure_destroy(cClosure)
    }

    /// The function pointer as the C function type that C API declares,
    /// such as `(@convention(c) (UnsafeRawPointer?, UnsafeRawPointer?) -> Int32).self`,
    /// optional or not. The type must be the one ``signature`` describes: the
    /// core cannot check the parameter types of a Swift function type.
    ///
    /// - Throws: ``DispatchError/invalidArgument(_:)`` when `type` is not a
    ///   `@convention(c)` function type.
    public func function<Function>(as type: Function.Type) throws(DispatchError) -> Function {
        guard isCFunctionType(type) else {
            throw DispatchError(
                status: DC_ERR_INVALID_ARGUMENT,
                message: "\(String(reflecting: type)) is not a C function type: name a @convention(c) function type")!
        }
        return unsafeBitCast(address, to: Function.self)
    }
}

extension CommandTable {
    /// A C callback that executes `event` on this table with the call's
    /// arguments and returns the execute's return value (the first handler's
    /// that returns one) converted to `signature`'s return type: one C
    /// callback slot, any number of handlers, from Swift and C alike.
    ///
    /// ```swift
    /// let progress = try table.callback(for: "progress", signature: Signature("vQQ"))
    /// download(url, try progress.function(as: ProgressFunction.self))
    /// ```
    ///
    /// The callback keeps the table alive. A failed execute (no handler, an
    /// argument of the wrong type), or a return value that does not fit,
    /// makes the call return the zero value and goes to `onError`.
    ///
    /// - Throws: ``DispatchError/outOfMemory(_:)`` or ``DispatchError/ffi(_:)``
    ///   when no executable memory can be made.
    ///
    /// The corresponding C function is `dc_table_closure_create`.
    public func callback(
        for event: String, signature: Signature, onError: (@Sendable (any Error) -> Void)? = nil
    ) throws -> CCallback {
        try CCallback(table: self, event: event, signature: signature, onError: onError)
    }

    /// ``callback(for:signature:onError:)-(String,_,_)`` for a typed key's event.
    public func callback<Arguments>(
        for key: EventKey<Arguments>, signature: Signature, onError: (@Sendable (any Error) -> Void)? = nil
    ) throws -> CCallback {
        try callback(for: key.name, signature: signature, onError: onError)
    }
}

// MARK: - Calls

/// One call of a callback: the C invocation the core lends for the call.
struct ForwardedCall {
    let invocation: OpaquePointer
    let count: Int
    /// How errors name the callback.
    let name: String

    /// The C value of argument `index`, typed as its parameter.
    func argument(at index: Int) throws(DispatchError) -> dc_value {
        var value = dc_value()
        try DispatchError.check(dc_invocation_get_argument(invocation, index, &value))
        return value
    }

    /// Runs `body` with the call's C arguments in order, typed as their
    /// parameters.
    func withArguments<Result>(_ body: (UnsafePointer<dc_value>?) throws -> Result) throws -> Result {
        try withUnsafeTemporaryAllocation(of: dc_value.self, capacity: count) { buffer in
            for index in 0..<count {
                buffer.initializeElement(at: index, to: try argument(at: index))
            }
            return try body(UnsafePointer(buffer.baseAddress))
        }
    }

    /// Sets what the C caller receives; a string is handed over as a
    /// `malloc` copy the caller frees.
    func setResult(_ result: Value) throws(DispatchError) {
        if case .void = result { return }
        var (cValue, ownedString) = result.makeCValue()
        if let ownedString {
            cValue = dc_string(strdup(ownedString))
            freeCString(ownedString)
        }
        let status = withExtendedLifetime(result) { dc_invocation_set_return_value(invocation, &cValue) }
        if status != DC_OK, cValue.type == DC_TYPE_STRING {
            free(UnsafeMutableRawPointer(mutating: cValue.string))
        }
        try DispatchError.check(status)
    }
}

/// What a callback's C closure carries: the call's handling and the error
/// handler.
private final class CallbackBox: Sendable {
    let name: String
    let parameterCount: Int
    let handle: @Sendable (ForwardedCall) throws -> Void
    let onError: (@Sendable (any Error) -> Void)?

    init(name: String, parameterCount: Int, handle: @escaping @Sendable (ForwardedCall) throws -> Void,
         onError: (@Sendable (any Error) -> Void)?) {
        self.name = name
        self.parameterCount = parameterCount
        self.handle = handle
        self.onError = onError
    }
}

/// The C handler of every callback: runs the box's handling of the call and
/// hands a failure to its error handler. Nothing is set on failure, so the C
/// caller receives zero.
private let callbackTrampoline: dc_forward_handler = { invocation, userData in
    let box = Unmanaged<CallbackBox>.fromOpaque(userData!).takeUnretainedValue()
    let call = ForwardedCall(invocation: invocation!, count: box.parameterCount, name: box.name)
    do {
        try box.handle(call)
    } catch {
        box.onError?(error)
    }
}

/// The destroy notify of a callback's closure: the box's retain goes.
private let releaseCallbackBox: @convention(c) (UnsafeMutableRawPointer?) -> Void = { userData in
    Unmanaged<CallbackBox>.fromOpaque(userData!).release()
}

/// The error handler of a table callback's closure.
private let tableCallbackFailed: dc_closure_error_handler = { _, status, message, userData in
    let box = Unmanaged<CallbackBox>.fromOpaque(userData!).takeUnretainedValue()
    // The core reports failures only, never DC_OK.
    if let error = DispatchError(status: status, message: message.map { String(cString: $0) } ?? "") {
        box.onError?(error)
    }
}

/// A callback is an argument as its function pointer: pass it where a C
/// function, an invocation or an execute takes a callback, with no
/// conversion of `address`. The pointer is valid while the callback lives:
/// keep the callback for as long as C may call it.
extension CCallback: EventArgument {
    /// A function pointer travels as a ``ValueType/pointer``.
    public static var valueType: ValueType { .pointer }
    /// ``address``, as a pointer value.
    public var eventValue: Value { .pointer(UnsafeMutableRawPointer(mutating: address)) }
    /// Always `nil`: a pointer that arrives is not a callback's (take it as
    /// an `UnsafeRawPointer`).
    public convenience init?(eventValue: Value) {
        return nil
    }
}
