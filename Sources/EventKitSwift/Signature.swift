internal import CDispatchCore

/// The C type of a function called at run time: its return type and the types
/// of its parameters.
///
/// A signature is written as an Objective-C type encoding, the return type
/// first, then one code per parameter, or built from ``ValueType`` values:
///
/// ```swift
/// let compute = try Signature("q@qd")          // int64_t (void *obj, int64_t, double)
/// let same = try Signature(returning: .int64, parameters: [.object, .int64, .double])
/// compute == same                              // true: one interned signature
/// ```
///
/// Real method encodings, as `@encode` and `method_getTypeEncoding` write them,
/// parse too: frame sizes and offsets and the qualifiers `r n N o O R V` are
/// skipped, so `"v24@0:8B16"` is `"v@:B"`. There is no hidden receiver or
/// selector slot: every code after the return type is a parameter of the C
/// function, and `:` is a selector passed as its name, a C string.
///
/// A struct passed or returned by value is written `{name=fields}`:
/// `"{div_t=ii}ii"` is `div_t div(int, int)`. Its size, alignment and fields
/// are in ``returnLayout`` and ``parameterLayouts``. A variadic function such
/// as `snprintf` is called through a signature made by
/// ``init(variadic:fixedCount:)``, one per shape of its calls.
///
/// Equal encodings give the same signature: the core interns them, prepares
/// each one's libffi call interface once and picks its ``callPath`` once.
/// Equality and hashing are by that shared identity.
///
/// Signatures are immutable and `Sendable`: share one across threads and
/// invocations freely.
///
/// Replaces `NSMethodSignature`.
public final class Signature: @unchecked Sendable {
    // @unchecked: the wrapped dc_signature is immutable once created, its
    // reference count is atomic, and the C core documents it as usable from
    // any thread. Every stored property here is a `let` copied out at init.

    /// How calls with a signature are made.
    ///
    /// The corresponding C type is `dc_call_path`.
    public enum CallPath: Hashable, Sendable, CustomStringConvertible {
        /// A call through the function pointer cast to a C type with the same
        /// register assignment: about the cost of a direct call. Taken by
        /// signatures of up to six integer-class and eight floating-point
        /// parameters on x86-64 and AArch64.
        case stub
        /// `ffi_call` with the signature's prepared call interface: any
        /// signature, at libffi's cost.
        case libffi

        /// `"stub"` or `"libffi"`.
        public var description: String {
            switch self {
            case .stub: "stub"
            case .libffi: "libffi"
            }
        }
    }

    /// The most parameters a signature may have.
    ///
    /// The corresponding C constant is `DC_MAX_PARAMETERS`.
    public static let maximumParameterCount = Int(DC_MAX_PARAMETERS)

    /// The interned C signature; this object owns one reference to it.
    let cSignature: OpaquePointer

    /// The type the function returns; ``ValueType/void`` when it returns nothing.
    ///
    /// The corresponding C function is `dc_signature_return_type`. Replaces
    /// `-[NSMethodSignature methodReturnType]`.
    public let returnType: ValueType

    /// The types of the function's parameters, in order.
    ///
    /// The corresponding C functions are `dc_signature_parameter_count` and
    /// `dc_signature_parameter_type`. Replaces
    /// `-[NSMethodSignature numberOfArguments]` and `getArgumentTypeAtIndex:`.
    public let parameterTypes: [ValueType]

    /// The canonical encoding: one character per type, `"^v"` for every
    /// pointer and `"*"` for a selector slot (`"v24@0:8B16"` gives `"v@*B"`);
    /// a struct keeps its name and its fields' canonical encodings
    /// (`"{point=dd}"`), and a variadic signature has `"..."` where its
    /// variadic arguments start (`"i^vQ*...d"`).
    ///
    /// The corresponding C function is `dc_signature_encoding`.
    public let encoding: String

    /// Whether this signature describes calls of a variadic function, made by
    /// ``init(variadic:fixedCount:)``.
    ///
    /// The corresponding C function is `dc_signature_is_variadic`.
    public let isVariadic: Bool

    /// How many of the ``parameterTypes`` are the variadic function's fixed
    /// parameters; the rest are the variadic arguments of this signature's
    /// calls. For a signature that is not variadic, every parameter.
    ///
    /// The corresponding C function is `dc_signature_fixed_count`.
    public let fixedCount: Int

    /// The path calls with this signature take unless an ``Invocation`` forces
    /// ``CallPath/libffi``: ``CallPath/stub`` when a typed stub covers it on
    /// this platform, otherwise ``CallPath/libffi``.
    ///
    /// The corresponding C function is `dc_signature_call_path`.
    public let callPath: CallPath

    /// Creates the signature an Objective-C type encoding describes, such as
    /// `"q@qd"` or the method encoding `"v24@0:8B16"`.
    ///
    /// Codes: `v B c C s S i I l L q Q f d @ # * ^ :`; `^` is followed by its
    /// pointee (`^v`, `^i`, `^^c`, `^{name=…}`, `^?`); `@?` (a block) and
    /// `@"Name"` are objects. `{name=fields}` (`{?=fields}` without a name)
    /// is a struct by value, whose fields are scalar codes, nested structs
    /// and fixed arrays such as `[4i]`, each optionally preceded by its
    /// quoted name (`{point="x"d"y"d}`); it is laid out as C lays it out on
    /// this platform. `D` is `long double`, `jf`, `jd` and `jD` the complex
    /// types (``ValueType/longDouble`` ...). Unions and bit-fields are refused.
    ///
    /// - Parameter encoding: The type encoding, return type first.
    /// - Throws: ``DispatchError/badSignature(_:)`` for an empty encoding, an
    ///   unknown code (a NUL byte included), a dangling `^`, `void` as a
    ///   parameter, a malformed struct (unterminated, without fields, nested
    ///   too deeply or too large), an array by value outside a struct or more
    ///   than ``maximumParameterCount`` parameters, with a message naming the
    ///   offending position; ``DispatchError/unsupported(_:)`` for a union, a
    ///   bit-field or a `long double`, naming its position;
    ///   ``DispatchError/ffi(_:)`` when libffi cannot prepare the call.
    ///
    /// The corresponding C function is `dc_signature_create`. Replaces
    /// `+[NSMethodSignature signatureWithObjCTypes:]`.
    public convenience init(_ encoding: String) throws {
        try Self.checkNoNUL(in: encoding)
        var created: OpaquePointer?
        try DispatchError.check(dc_signature_create(encoding, &created))
        self.init(owning: created!)
    }

    /// Creates the signature of calls of a variadic function in one shape:
    /// `encoding` gives the return type, the `fixedCount` fixed parameters,
    /// then the types of the variadic arguments of these calls.
    ///
    /// ```swift
    /// // snprintf(buffer, size, "%d %s", n, s)
    /// let signature = try Signature(variadic: "i^vQ*i*", fixedCount: 3)
    /// ```
    ///
    /// C passes a variadic argument after its default promotions, so the
    /// variadic part names promoted types: `d` for a `float` and `i` for a
    /// `bool`, `char` or `short`; their unpromoted codes (`f B c C s S`) are
    /// refused there. A ``Value/float(_:)`` or ``Value/int16(_:)`` argument
    /// is promoted on the way, as any argument is converted to its
    /// parameter's type.
    ///
    /// A signature from ``init(_:)`` must not be used to call a variadic
    /// function: some platforms pass variadic arguments differently, and the
    /// call would be wrong in a way nothing can detect. A variadic signature
    /// always takes the ``CallPath/libffi`` path; a ``CCallback`` cannot have
    /// one.
    ///
    /// - Parameters:
    ///   - encoding: The type encoding, as for ``init(_:)``: the return type,
    ///     the fixed parameters, then the variadic arguments.
    ///   - fixedCount: How many parameters after the return type are the
    ///     function's fixed parameters (3 for `snprintf`, 1 for `printf`).
    /// - Throws: What ``init(_:)`` throws, and
    ///   ``DispatchError/badSignature(_:)`` when `fixedCount` is negative or
    ///   above the parameter count, or when a variadic argument has an
    ///   unpromoted type, naming its position.
    ///
    /// The corresponding C function is `dc_signature_create_variadic`.
    /// `NSMethodSignature` has no counterpart: `NSInvocation` cannot call a
    /// variadic function.
    public convenience init(variadic encoding: String, fixedCount: Int) throws {
        try Self.checkNoNUL(in: encoding)
        guard fixedCount >= 0 else {
            throw DispatchError(
                status: DC_ERR_BAD_SIGNATURE,
                message: "bad variadic signature \"\(encoding)\": \(fixedCount) fixed parameters"
            )!
        }
        var created: OpaquePointer?
        try DispatchError.check(dc_signature_create_variadic(encoding, fixedCount, &created))
        self.init(owning: created!)
    }

    /// Throws for a NUL byte in `encoding`: C would read only up to it, so
    /// `"v\0q"` would silently be `"v"`.
    private static func checkNoNUL(in encoding: String) throws(DispatchError) {
        if let position = encoding.utf8.firstIndex(of: 0) {
            let offset = encoding.utf8.distance(from: encoding.utf8.startIndex, to: position)
            throw DispatchError(
                status: DC_ERR_BAD_SIGNATURE,
                message: "bad type encoding: NUL byte at position \(offset)"
            )!
        }
    }

    /// Creates the signature of a function returning `returnType` and taking
    /// `parameters`. Equal to, and interned with, the signature of the
    /// equivalent encoding.
    ///
    /// - Parameters:
    ///   - returnType: The type the function returns.
    ///   - parameters: The types of its parameters, in order.
    /// - Throws: ``DispatchError/badSignature(_:)`` when a parameter is
    ///   ``ValueType/void``, when the return type or a parameter is a
    ///   ``ValueType/structure`` (whose fields only an encoding can say), or
    ///   when there are more than ``maximumParameterCount``.
    ///
    /// The corresponding C function is `dc_signature_create_with_types`.
    /// Replaces building an `@encode` string for
    /// `+[NSMethodSignature signatureWithObjCTypes:]`.
    public convenience init(returning returnType: ValueType, parameters: [ValueType]) throws {
        var created: OpaquePointer?
        let cTypes = parameters.map(\.cType)
        try DispatchError.check(
            cTypes.withUnsafeBufferPointer { buffer in
                dc_signature_create_with_types(
                    returnType.cType, buffer.baseAddress, buffer.count, &created)
            }
        )
        self.init(owning: created!)
    }

    /// Wraps a C signature, taking over one reference the caller owned.
    init(owning cSignature: OpaquePointer) {
        self.cSignature = cSignature
        returnType = ValueType(dc_signature_return_type(cSignature))
        parameterTypes = (0..<dc_signature_parameter_count(cSignature)).map { index in
            var type = DC_TYPE_VOID
            // Cannot fail: the index is below the count just read.
            _ = dc_signature_parameter_type(cSignature, index, &type)
            return ValueType(type)
        }
        encoding = String(cString: dc_signature_encoding(cSignature))
        callPath = CallPath(dc_signature_call_path(cSignature))
        isVariadic = dc_signature_is_variadic(cSignature)
        fixedCount = dc_signature_fixed_count(cSignature)
    }

    deinit {
        dc_signature_release(cSignature)
    }
}

extension Signature: Hashable {
    /// Whether both are the same interned signature, which holds exactly
    /// when their canonical encodings are equal.
    public static func == (lhs: Signature, rhs: Signature) -> Bool {
        lhs.cSignature == rhs.cSignature
    }

    /// Hashes the interned identity, consistent with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(cSignature)
    }
}

extension Signature: CustomStringConvertible {
    /// The canonical encoding with the C prototype it stands for, such as
    /// `q@qd (int64 (object, int64, double))`; a variadic signature marks
    /// where its variadic arguments start, as in
    /// `i^vQ*...d (int32 (pointer, uint64, string, ..., double))`.
    public var description: String {
        var names = parameterTypes.map(\.name)
        if isVariadic { names.insert("...", at: fixedCount) }
        let parameters = names.joined(separator: ", ")
        return "\(encoding) (\(returnType.name) (\(parameters.isEmpty ? "void" : parameters)))"
    }
}

extension Signature.CallPath {
    init(_ cPath: dc_call_path) {
        self = cPath == DC_CALL_PATH_STUB ? .stub : .libffi
    }

    var cPath: dc_call_path {
        switch self {
        case .stub: DC_CALL_PATH_STUB
        case .libffi: DC_CALL_PATH_FFI
        }
    }
}
