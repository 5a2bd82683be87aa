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
    /// pointer and `"*"` for a selector slot (`"v24@0:8B16"` gives `"v@*B"`).
    ///
    /// The corresponding C function is `dc_signature_encoding`.
    public let encoding: String

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
    /// `@"Name"` are objects. Structs, unions, arrays and bit-fields by value
    /// are refused.
    ///
    /// - Throws: ``DispatchError/badSignature(_:)`` for an empty encoding, an
    ///   unknown code (a NUL byte included), a dangling `^`, `void` as a parameter, an aggregate by
    ///   value or more than ``maximumParameterCount`` parameters, with a message
    ///   naming the offending position; ``DispatchError/ffi(_:)`` when libffi
    ///   cannot prepare the call.
    ///
    /// The corresponding C function is `dc_signature_create`. Replaces
    /// `+[NSMethodSignature signatureWithObjCTypes:]`.
    public convenience init(_ encoding: String) throws {
        // C would read only up to a NUL, so "v\0q" would silently be "v".
        if let position = encoding.utf8.firstIndex(of: 0) {
            let offset = encoding.utf8.distance(from: encoding.utf8.startIndex, to: position)
            throw DispatchError(
                status: DC_ERR_BAD_SIGNATURE,
                message: "bad type encoding: NUL byte at position \(offset)"
            )!
        }
        var created: OpaquePointer?
        try DispatchError.check(dc_signature_create(encoding, &created))
        self.init(owning: created!)
    }

    /// Creates the signature of a function returning `returnType` and taking
    /// `parameters`. Equal to, and interned with, the signature of the
    /// equivalent encoding.
    ///
    /// - Throws: ``DispatchError/badSignature(_:)`` when a parameter is
    ///   ``ValueType/void`` or there are more than ``maximumParameterCount``.
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
    /// `q@qd (int64 (object, int64, double))`.
    public var description: String {
        let parameters = parameterTypes.map(\.name).joined(separator: ", ")
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
