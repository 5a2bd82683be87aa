internal import CDispatchCore

/// A call to a C function whose type is known only at run time: the function,
/// its ``Signature`` and the arguments, ready to invoke any number of times.
///
/// ```swift
/// let add: @convention(c) (Int64, Double) -> Int64 = { a, b in a + Int64(b) }
/// let invocation = try Invocation(function: add, signature: Signature("qqd"))
/// try invocation.setArgument(2, at: 0)
/// try invocation.setArgument(3.5, at: 1)
/// let sum = try invocation.invoke()            // .int64(5)
/// ```
///
/// Arguments are numbered from 0, the function's first parameter; there are no
/// hidden `self` and `_cmd` slots. Every argument is zero (`0`, `false`,
/// `NULL`, a struct of zero bytes) until set, and stays set across invokes. A
/// value is checked against its parameter's type when it is set, so a call
/// never sees a value of the wrong type.
///
/// Structs travel by value: a ``Value/structure(_:)`` argument is copied into
/// the invocation when it is set, and a struct return value is copied out
/// into a ``StructValue`` of its own, which later invokes leave alone.
///
/// ```swift
/// let divide: @convention(c) (Int32, Int32) -> div_t = div
/// let invocation = try Invocation(function: divide, signature: Signature("{div_t=ii}ii"))
/// try invocation.setArgument(.int32(7), at: 0)
/// try invocation.setArgument(.int32(2), at: 1)
/// let quotient = try invocation.invoke().structure(as: div_t.self)   // div_t(quot: 3, rem: 1)
/// ```
///
/// An invocation keeps what its arguments point to alive, as `NSInvocation`
/// does after `retainArguments`: it holds a strong reference to every object
/// argument and its own C copy of every string argument for as long as they
/// are set, and lets go when an argument is replaced or the invocation is
/// deinitialized. A C function may therefore keep an argument's address only
/// for that long. Raw pointers are passed as given; their owner keeps them
/// valid.
///
/// Like `NSInvocation`, an invocation is used by one thread at a time and is
/// not `Sendable`; its ``signature`` may be shared.
///
/// The corresponding C type is `dc_invocation`. Replaces `NSInvocation`.
public final class Invocation {
    /// The type of the function this invocation calls.
    ///
    /// The corresponding C function is `dc_invocation_signature`. Replaces
    /// `-[NSInvocation methodSignature]`.
    public let signature: Signature

    /// The address of the function this invocation calls.
    ///
    /// Replaces the target and selector of an `NSInvocation`: there is no
    /// message send, only a C function.
    public let function: UnsafeRawPointer

    /// The `dc_invocation`, which the inlinable ``invoke()`` passes to C.
    @usableFromInline let cInvocation: OpaquePointer

    /// Whether the function returns `void`, so that an invoke has no value
    /// to read back.
    @usableFromInline let returnsVoid: Bool

    /// The object argument at each index, held so its address stays valid.
    private var heldObjects: [AnyObject?]

    /// This invocation's own copy of the string argument at each index.
    private var heldStrings: [UnsafeMutablePointer<CChar>?]

    /// Creates an invocation of the C function at `function`, such as an
    /// address `dlsym` returned, whose real type `signature` describes. Every
    /// argument starts as zero.
    ///
    /// The function must really have the type `signature` describes: the
    /// core cannot check that, and calling a function through the wrong type
    /// is undefined behaviour. A variadic function, such as `snprintf`, needs
    /// a signature made by ``Signature/init(variadic:fixedCount:)``.
    ///
    /// - Parameters:
    ///   - function: The address of the C function to call.
    ///   - signature: The function's real C type.
    /// - Throws: ``DispatchError/nullArgument(_:)`` when `function` is `nil`;
    ///   ``DispatchError/outOfMemory(_:)``.
    ///
    /// The corresponding C function is `dc_invocation_create`. Replaces
    /// `+[NSInvocation invocationWithMethodSignature:]` followed by
    /// `setTarget:` and `setSelector:`.
    public init(function: UnsafeRawPointer?, signature: Signature) throws {
        var created: OpaquePointer?
        let cFunction = unsafeBitCast(function, to: dc_function?.self)
        try DispatchError.check(dc_invocation_create(signature.cSignature, cFunction, &created))
        self.cInvocation = created!
        self.function = function!
        self.signature = signature
        returnsVoid = signature.returnType == .void
        heldObjects = Array(repeating: nil, count: signature.parameterTypes.count)
        heldStrings = Array(repeating: nil, count: signature.parameterTypes.count)
    }

    /// Creates an invocation of a C function given as a Swift value: a
    /// `@convention(c)` function (optional or not), or the function's address
    /// as an `UnsafeRawPointer`, `UnsafeMutableRawPointer` or `OpaquePointer`.
    ///
    /// ```swift
    /// let negate: @convention(c) (Double) -> Double = { -$0 }
    /// let invocation = try Invocation(function: negate, signature: Signature("dd"))
    /// ```
    ///
    /// - Parameters:
    ///   - function: The C function to call: a `@convention(c)` function or
    ///     a raw pointer to one.
    ///   - signature: The function's real C type.
    /// - Throws: ``DispatchError/invalidArgument(_:)`` when `function` is none
    ///   of those (a Swift closure, for instance, is not a C function);
    ///   ``DispatchError/nullArgument(_:)`` when it is `nil`.
    ///
    /// The corresponding C function is `dc_invocation_create`. Replaces
    /// `+[NSInvocation invocationWithMethodSignature:]` followed by
    /// `setTarget:` and `setSelector:`.
    public convenience init<Function>(function: Function, signature: Signature) throws {
        let cFunction = try cFunctionPointer(function)
        try self.init(function: unsafeBitCast(cFunction, to: UnsafeRawPointer?.self), signature: signature)
    }

    deinit {
        dc_invocation_destroy(cInvocation)
        heldStrings.forEach(freeCString)
    }

    /// Sets the argument at `index` (0 is the function's first parameter)
    /// after converting `value` to the parameter's type; see ``Value`` for
    /// what fits.
    ///
    /// The invocation holds an object argument strongly and keeps its own C
    /// copy of a string argument until the argument is replaced; a struct
    /// argument's bytes are copied in.
    ///
    /// - Parameters:
    ///   - value: The argument.
    ///   - index: The parameter it is for, 0 for the first.
    /// - Throws: ``DispatchError/indexOutOfRange(_:)`` when `index` is not a
    ///   parameter; ``DispatchError/typeMismatch(_:)`` when `value` does not
    ///   fit, naming both types, or is a struct whose size (or, when both are
    ///   known, whose fields) differ from the parameter's. On either, the
    ///   argument keeps its previous value.
    ///
    /// The corresponding C function is `dc_invocation_set_argument`. Replaces
    /// `-[NSInvocation setArgument:atIndex:]`.
    public func setArgument(_ value: Value, at index: Int) throws {
        let cIndex = try cArgumentIndex(index, of: signature)
        var (cValue, ownedString) = value.makeCValue()
        do {
            let status = withExtendedLifetime(value) { dc_invocation_set_argument(cInvocation, cIndex, &cValue) }
            try DispatchError.check(status)
        } catch {
            freeCString(ownedString)
            throw error
        }
        freeCString(heldStrings[index])
        heldStrings[index] = ownedString
        if case .object(let object) = value {
            heldObjects[index] = object
        } else {
            heldObjects[index] = nil
        }
    }

    /// Sets the argument at `index` to a Swift value: a number, a `String`,
    /// a pointer, a ``CCallback`` (as its function pointer), a payload.
    ///
    /// ```swift
    /// let count: Int32 = 3
    /// try invocation.setArgument(count, at: 1)
    /// ```
    ///
    /// Sets ``EventArgument/eventValue``, as ``setArgument(_:at:)-(Value,_)``
    /// sets a value, and throws as it does.
    public func setArgument(_ argument: some EventArgument, at index: Int) throws {
        try setArgument(argument.eventValue, at: index)
    }

    /// The argument at `index`, typed as its parameter: an integer set as
    /// `.int64(5)` for an `int32` parameter reads back as `.int32(5)`, and a
    /// struct as a copy of its bytes with the parameter's encoding.
    ///
    /// - Parameter index: The parameter, 0 for the first.
    /// - Returns: The argument's current value.
    /// - Throws: ``DispatchError/indexOutOfRange(_:)``.
    ///
    /// The corresponding C function is `dc_invocation_get_argument`. Replaces
    /// `-[NSInvocation getArgument:atIndex:]`.
    public func argument(at index: Int) throws -> Value {
        let cIndex = try cArgumentIndex(index, of: signature)
        return try Value(argument: cIndex, of: cInvocation)
    }

    /// Calls the function with the current arguments, keeps its return value
    /// and returns it (``Value/void`` for a `void` function). May be called any
    /// number of times.
    ///
    /// An object the function returns must be a live Swift object; a string or
    /// a struct it returns is copied.
    ///
    /// - Returns: What the function returned.
    ///
    /// The corresponding C functions are `dc_invocation_invoke` and
    /// `dc_invocation_get_return_value`. Replaces `-[NSInvocation invoke]`.
    // Inlinable, so that a caller that drops the value of a void function
    // sees that it is `.void` and destroys nothing: with the call into this
    // module, that is most of what the invoke costs beyond C's.
    @inlinable
    @discardableResult
    public func invoke() throws -> Value {
        let status = Self.invokeInC(cInvocation)
        if status != 0 { try Self.fail(status) }
        // A void function has no return value to read back from C.
        if returnsVoid { return .void }
        return try returnValue()
    }

    /// `dc_invocation_invoke`, which the inlinable `invoke()` calls from the
    /// caller's code: the C module is this module's internal import, which
    /// inlinable code cannot name. Its status is `dc_status`'s raw value.
    @usableFromInline
    static let invokeInC = unsafeBitCast(
        dc_invocation_invoke as @convention(c) (OpaquePointer?) -> dc_status,
        to: (@convention(c) (OpaquePointer?) -> UInt32).self)

    /// Throws the error of a failed `dc_invocation_invoke`, whose status has
    /// raw value `status`; out of line, so that an invoke is the call into C
    /// and a test.
    @usableFromInline @inline(never)
    static func fail(_ status: UInt32) throws(DispatchError) {
        try DispatchError.check(dc_status(rawValue: status))
    }

    /// The value the last ``invoke()`` returned, typed as the signature's
    /// return type; a struct is copied out of the invocation, with the
    /// return's encoding.
    ///
    /// - Returns: The last return value.
    /// - Throws: ``DispatchError/notInvoked(_:)`` before the first invoke.
    ///
    /// The corresponding C function is `dc_invocation_get_return_value`.
    /// Replaces `-[NSInvocation getReturnValue:]`.
    public func returnValue() throws -> Value {
        try Value(returnValueOf: cInvocation)
    }

    /// The path the next ``invoke()`` takes: the signature's
    /// ``Signature/callPath`` unless ``setCallPath(_:)`` forced another.
    ///
    /// The corresponding C function is `dc_invocation_call_path`.
    public var callPath: Signature.CallPath {
        Signature.CallPath(dc_invocation_call_path(cInvocation))
    }

    /// Forces the path this invocation's calls take. Both paths give
    /// identical results; this exists to compare them in tests and
    /// benchmarks.
    ///
    /// - Parameter path: The path the next invokes take.
    /// - Throws: ``DispatchError/unsupported(_:)`` for ``Signature/CallPath/stub``
    ///   when no stub covers the signature; ``Signature/CallPath/libffi`` is
    ///   always allowed.
    ///
    /// The corresponding C function is `dc_invocation_set_call_path`.
    public func setCallPath(_ path: Signature.CallPath) throws {
        try DispatchError.check(dc_invocation_set_call_path(cInvocation, path.cPath))
    }

    /// Calls `function` once with `arguments` on the signature's default
    /// path and returns what it returned, without creating an invocation.
    /// Nothing is called unless every argument fits its parameter.
    ///
    /// `function` is a `@convention(c)` function or a raw pointer to one, as
    /// for ``init(function:signature:)-(Function,_)``. String arguments are
    /// copied for the duration of the call and object arguments stay alive
    /// until it returns. Safe to call from several threads at once.
    ///
    /// ```swift
    /// let sum = try Invocation.call(add, signature: Signature("qqd"), arguments: [2, 3.5])
    ///
    /// let snprintf = dlsym(dlopen(nil, RTLD_NOW), "snprintf")
    /// var buffer = [CChar](repeating: 0, count: 32)
    /// try buffer.withUnsafeMutableBufferPointer { text in
    ///     try Invocation.call(snprintf, signature: Signature(variadic: "i^vQ*id", fixedCount: 3),
    ///                         arguments: [.pointer(UnsafeMutableRawPointer(text.baseAddress)), .uint64(32),
    ///                                     "%d %.1f", .int32(7), 0.5])
    /// }
    /// ```
    ///
    /// A variadic function is called through a signature made by
    /// ``Signature/init(variadic:fixedCount:)``. A struct the function
    /// returns comes back as a ``StructValue`` of its own.
    ///
    /// - Parameters:
    ///   - function: The C function to call: a `@convention(c)` function or
    ///     a raw pointer to one.
    ///   - signature: The function's real C type.
    ///   - arguments: One value per parameter, in order.
    /// - Returns: What the function returned.
    /// - Throws: ``DispatchError/arity(_:)`` when the number of arguments
    ///   differs from the parameter count; ``DispatchError/typeMismatch(_:)``
    ///   naming the first argument that does not fit (a struct fits a struct
    ///   parameter of its size);
    ///   ``DispatchError/invalidArgument(_:)`` or
    ///   ``DispatchError/nullArgument(_:)`` for a bad `function`.
    ///
    /// The corresponding C function is `dc_call`. Replaces creating, filling
    /// and invoking a one-off `NSInvocation`.
    @discardableResult
    public static func call<Function>(
        _ function: Function, signature: Signature, arguments: [Value]
    ) throws -> Value {
        let cFunction = try cFunctionPointer(function)
        var cArguments: [dc_value] = []
        var stringCopies: [UnsafeMutablePointer<CChar>] = []
        cArguments.reserveCapacity(arguments.count)
        defer { stringCopies.forEach(freeCString) }
        for argument in arguments {
            let (cValue, ownedString) = argument.makeCValue()
            cArguments.append(cValue)
            if let ownedString { stringCopies.append(ownedString) }
        }
        // A struct return is written into storage of its own, which the
        // result then owns; so is a long double or complex one, read from it.
        var cResult = dc_value()
        var returnStorage: (storage: StructStorage, layout: dc_layout)?
        if Self.returnsByAddress.contains(signature.returnType) {
            let layout = signature.cReturnLayout
            let storage = StructStorage(size: layout.size)
            cResult = dc_value_at(signature.returnType.cType, storage.address)
            returnStorage = (storage, layout)
        }
        let status = withExtendedLifetime((arguments, returnStorage?.storage)) {
            cArguments.withUnsafeBufferPointer { buffer in
                dc_call(signature.cSignature, cFunction, buffer.baseAddress, buffer.count, &cResult)
            }
        }
        try DispatchError.check(status)
        if let (storage, layout) = returnStorage, signature.returnType == .structure {
            return .structure(StructValue(storage: storage, layout: layout, cStructID: cResult.struct_id))
        }
        return withExtendedLifetime(returnStorage?.storage) { Value(cResult) }
    }

    /// Calls `function` once with Swift values, from variables as well as
    /// literals; see ``call(_:signature:arguments:)-(_,_,[Value])``.
    ///
    /// ```swift
    /// let count: Int32 = 3
    /// try Invocation.call(repeatString, signature: Signature("*i*"), arguments: ["banana", count])
    /// ```
    ///
    /// Each argument passes as its ``EventArgument/eventValue``: a
    /// ``CCallback`` as its function pointer, a payload as its box. A struct
    /// goes in as `Value(struct:)`, in the `[Value]` form.
    // Disfavored: a list both forms take (`[]`, literals only) is the
    // `[Value]` form's.
    @_disfavoredOverload
    @discardableResult
    public static func call<Function>(
        _ function: Function, signature: Signature, arguments: [any EventArgument]
    ) throws -> Value {
        try call(function, signature: signature, arguments: arguments.map(\.eventValue))
    }

    /// The return types C writes into storage the caller gives (`dc_call`).
    private static let returnsByAddress: Set<ValueType> = [
        .structure, .longDouble, .complexFloat, .complexDouble, .complexLongDouble,
    ]
}

@available(*, unavailable, message: "an Invocation, like NSInvocation, is used by one thread at a time")
extension Invocation: Sendable {}

extension Invocation: CustomStringConvertible {
    /// The function's address, its signature and the call path, such as
    /// `Invocation(0x… q@qd (int64 (object, int64, double)), stub)`.
    public var description: String {
        "Invocation(\(function) \(signature), \(callPath))"
    }
}
