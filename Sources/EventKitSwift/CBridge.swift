internal import CDispatchCore

// Conversions between the Swift types and the C core's. Nothing here is public:
// the C module stays plumbing.

extension ValueType {
    /// The Swift face of a type the C core handed back. The core only ever
    /// reports types it accepted, all below `DC_TYPE_COUNT`; the test suite
    /// checks that each of those has a case.
    init(_ cType: dc_type) {
        switch cType {
        case DC_TYPE_VOID: self = .void
        case DC_TYPE_BOOL: self = .bool
        case DC_TYPE_INT8: self = .int8
        case DC_TYPE_UINT8: self = .uint8
        case DC_TYPE_INT16: self = .int16
        case DC_TYPE_UINT16: self = .uint16
        case DC_TYPE_INT32: self = .int32
        case DC_TYPE_UINT32: self = .uint32
        case DC_TYPE_INT64: self = .int64
        case DC_TYPE_UINT64: self = .uint64
        case DC_TYPE_FLOAT: self = .float
        case DC_TYPE_DOUBLE: self = .double
        case DC_TYPE_OBJECT: self = .object
        case DC_TYPE_POINTER: self = .pointer
        case DC_TYPE_STRING: self = .string
        case DC_TYPE_STRUCT: self = .structure
        case DC_TYPE_LONG_DOUBLE: self = .longDouble
        case DC_TYPE_COMPLEX_FLOAT: self = .complexFloat
        case DC_TYPE_COMPLEX_DOUBLE: self = .complexDouble
        case DC_TYPE_COMPLEX_LONG_DOUBLE: self = .complexLongDouble
        default: preconditionFailure("dc_type \(cType.rawValue) has no ValueType case")
        }
    }

    var cType: dc_type {
        switch self {
        case .void: DC_TYPE_VOID
        case .bool: DC_TYPE_BOOL
        case .int8: DC_TYPE_INT8
        case .uint8: DC_TYPE_UINT8
        case .int16: DC_TYPE_INT16
        case .uint16: DC_TYPE_UINT16
        case .int32: DC_TYPE_INT32
        case .uint32: DC_TYPE_UINT32
        case .int64: DC_TYPE_INT64
        case .uint64: DC_TYPE_UINT64
        case .float: DC_TYPE_FLOAT
        case .double: DC_TYPE_DOUBLE
        case .object: DC_TYPE_OBJECT
        case .pointer: DC_TYPE_POINTER
        case .string: DC_TYPE_STRING
        case .structure: DC_TYPE_STRUCT
        case .longDouble: DC_TYPE_LONG_DOUBLE
        case .complexFloat: DC_TYPE_COMPLEX_FLOAT
        case .complexDouble: DC_TYPE_COMPLEX_DOUBLE
        case .complexLongDouble: DC_TYPE_COMPLEX_LONG_DOUBLE
        }
    }

    /// The number of types the C core defines, for the test that proves
    /// each has a case. `package`: tests reach it without `@testable`.
    package static var cTypeCount: Int { Int(DC_TYPE_COUNT.rawValue) }

    /// The type for a raw `dc_type` value: for that same test, and for the
    /// scalar types code inlined into callers names by their raw values
    /// (`ScalarArguments`).
    package init(cTypeRawValue: UInt32) {
        self.init(dc_type(rawValue: cTypeRawValue))
    }

    /// The raw `dc_type` value of this type, for that same test.
    package var cTypeRawValue: UInt32 { cType.rawValue }
}

// MARK: - Values

/// A NUL-terminated UTF-8 copy of `string` for C to read (and write, within
/// its length). The caller owns it and gives it back with `freeCString(_:)`.
func makeCString(_ string: String) -> UnsafeMutablePointer<CChar> {
    let utf8 = string.utf8CString
    let copy = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count)
    utf8.withUnsafeBufferPointer { buffer in
        copy.initialize(from: buffer.baseAddress!, count: buffer.count)
    }
    return copy
}

/// Frees a copy made by `makeCString(_:)`; `nil` does nothing.
func freeCString(_ copy: UnsafeMutablePointer<CChar>?) {
    copy?.deallocate()
}

extension Value {
    /// The C value for this value, and the string copy it points to, if any.
    ///
    /// What a C value points to is owned one of two ways. A string is a copy
    /// the caller owns: it frees `ownedString` with `freeCString(_:)` once C
    /// is done with the value. An object and a struct's bytes belong to this
    /// value: the caller keeps the value alive for as long as C may use the C
    /// value (objects cross unretained; a struct's bytes are its
    /// `StructValue`'s, which nothing writes, and C only reads or copies them).
    ///
    /// A struct crosses with what it knows of its layout: the layout itself
    /// when it came from C, its size when it was made in Swift, so that C
    /// refuses it for a parameter of another layout (or size) wherever it
    /// knows the parameter's, instead of reading past the bytes.
    func makeCValue() -> (value: dc_value, ownedString: UnsafeMutablePointer<CChar>?) {
        switch self {
        case .void: return (dc_void(), nil)
        case .bool(let value): return (dc_bool(value), nil)
        case .int8(let value): return (dc_int8(value), nil)
        case .uint8(let value): return (dc_uint8(value), nil)
        case .int16(let value): return (dc_int16(value), nil)
        case .uint16(let value): return (dc_uint16(value), nil)
        case .int32(let value): return (dc_int32(value), nil)
        case .uint32(let value): return (dc_uint32(value), nil)
        case .int64(let value): return (dc_int64(value), nil)
        case .uint64(let value): return (dc_uint64(value), nil)
        case .float(let value): return (dc_float(value), nil)
        case .double(let value): return (dc_double(value), nil)
        case .object(let object):
            let address = object.map { Unmanaged.passUnretained($0).toOpaque() }
            return (dc_object(address), nil)
        case .pointer(let pointer): return (dc_pointer(pointer), nil)
        case .string(nil): return (dc_string(nil), nil)
        case .string(let string?):
            let copy = makeCString(string)
            return (dc_string(copy), copy)
        case .structure(let structure):
            var value = dc_struct_of(structure.storage.address, structure.size)
            if structure.storage.cStructID != 0 { value.struct_id = structure.storage.cStructID }
            return (value, nil)
        #if arch(x86_64) || arch(i386)
        case .longDouble(let value): return Self.wideCValue(DC_TYPE_LONG_DOUBLE, [value])
        case let .complexLongDouble(real, imaginary): return Self.wideCValue(DC_TYPE_COMPLEX_LONG_DOUBLE, [real, imaginary])
        #endif
        case let .complexFloat(real, imaginary): return Self.wideCValue(DC_TYPE_COMPLEX_FLOAT, [real, imaginary])
        case let .complexDouble(real, imaginary): return Self.wideCValue(DC_TYPE_COMPLEX_DOUBLE, [real, imaginary])
        }
    }

    /// A value C carries by the address of its bytes (long double, the
    /// complex types: a complex is its real and imaginary parts in a row),
    /// in a copy the caller owns as it owns a string's: it frees it with
    /// `freeCString(_:)` once C is done with the value.
    private static func wideCValue<Part: BinaryFloatingPoint>(_ type: dc_type, _ parts: [Part])
        -> (value: dc_value, ownedString: UnsafeMutablePointer<CChar>?)
    {
        let stride = MemoryLayout<Part>.stride
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: stride * parts.count)
        let raw = UnsafeMutableRawPointer(copy)
        for (index, part) in parts.enumerated() { raw.storeBytes(of: part, toByteOffset: index * stride, as: Part.self) }
        return (dc_value_at(type, raw), copy)
    }

    /// The parts of a value C carries by address, read from its bytes.
    private static func wideParts<Part: BinaryFloatingPoint>(_ cValue: dc_value, count: Int, as _: Part.Type) -> [Part] {
        let raw = UnsafeRawPointer(cValue.pointer!)
        return (0..<count).map { raw.loadUnaligned(fromByteOffset: $0 * MemoryLayout<Part>.stride, as: Part.self) }
    }

    /// The Swift value for a C value: a string is copied, an object is taken
    /// without a retain of its own (it must be a live Swift object).
    ///
    /// A struct is copied: its size is the one `layout`, the layout of the
    /// parameter or return value it is the value of, gives, or without one
    /// (a variadic marshal's argument, whose layout no signature declares)
    /// the size the value knows (`dc_struct_size`, which every struct value
    /// from Swift or from the library knows). A struct of unknown
    /// size (a C caller's `dc_struct`, to a variadic marshal) is `.pointer`
    /// to its bytes, which C owns and which are valid only for the call.
    init(_ cValue: dc_value, layout: dc_layout? = nil) {
        switch cValue.type {
        case DC_TYPE_VOID: self = .void
        case DC_TYPE_BOOL: self = .bool(cValue.boolValue)
        case DC_TYPE_INT8: self = .int8(cValue.i8)
        case DC_TYPE_UINT8: self = .uint8(cValue.u8)
        case DC_TYPE_INT16: self = .int16(cValue.i16)
        case DC_TYPE_UINT16: self = .uint16(cValue.u16)
        case DC_TYPE_INT32: self = .int32(cValue.i32)
        case DC_TYPE_UINT32: self = .uint32(cValue.u32)
        case DC_TYPE_INT64: self = .int64(cValue.i64)
        case DC_TYPE_UINT64: self = .uint64(cValue.u64)
        case DC_TYPE_FLOAT: self = .float(cValue.f)
        case DC_TYPE_DOUBLE: self = .double(cValue.d)
        case DC_TYPE_OBJECT:
            self = .object(cValue.object.map { Unmanaged<AnyObject>.fromOpaque($0).takeUnretainedValue() })
        case DC_TYPE_POINTER: self = .pointer(cValue.pointer)
        case DC_TYPE_STRING: self = .string(cValue.string.map { String(cString: $0) })
        case DC_TYPE_STRUCT:
            if let layout, layout.type == DC_TYPE_STRUCT, let bytes = cValue.pointer {
                self = .structure(StructValue(copying: bytes, layout: layout, cStructID: cValue.struct_id))
            } else if case let size = withUnsafePointer(to: cValue, dc_struct_size), size > 0, let bytes = cValue.pointer {
                self = .structure(StructValue(copying: bytes, size: size, cStructID: cValue.struct_id))
            } else {
                self = .pointer(cValue.pointer)
            }
        #if arch(x86_64) || arch(i386)
        case DC_TYPE_LONG_DOUBLE where cValue.pointer != nil:
            self = .longDouble(Self.wideParts(cValue, count: 1, as: Float80.self)[0])
        case DC_TYPE_COMPLEX_LONG_DOUBLE where cValue.pointer != nil:
            let parts = Self.wideParts(cValue, count: 2, as: Float80.self)
            self = .complexLongDouble(real: parts[0], imaginary: parts[1])
        #endif
        case DC_TYPE_COMPLEX_FLOAT where cValue.pointer != nil:
            let parts = Self.wideParts(cValue, count: 2, as: Float.self)
            self = .complexFloat(real: parts[0], imaginary: parts[1])
        case DC_TYPE_COMPLEX_DOUBLE where cValue.pointer != nil:
            let parts = Self.wideParts(cValue, count: 2, as: Double.self)
            self = .complexDouble(real: parts[0], imaginary: parts[1])
        case DC_TYPE_LONG_DOUBLE, DC_TYPE_COMPLEX_FLOAT, DC_TYPE_COMPLEX_DOUBLE, DC_TYPE_COMPLEX_LONG_DOUBLE:
            self = .pointer(cValue.pointer) /* a long double Swift has no type for (AArch64), or none given */
        default: preconditionFailure("dc_value tagged with dc_type \(cValue.type.rawValue)")
        }
    }

    /// Argument `index` of the C invocation `cInvocation`, typed as its
    /// parameter; a struct is copied, its layout the parameter's.
    init(argument index: Int, of cInvocation: OpaquePointer) throws(DispatchError) {
        var cValue = dc_value()
        try DispatchError.check(dc_invocation_get_argument(cInvocation, index, &cValue))
        guard cValue.type == DC_TYPE_STRUCT else {
            self.init(cValue)
            return
        }
        // Cannot fail: the argument at this index was just read.
        var layout = dc_layout()
        _ = dc_signature_parameter_layout(dc_invocation_signature(cInvocation), index, &layout)
        self.init(cValue, layout: layout)
    }

    /// The return value of the C invocation `cInvocation`'s last invoke,
    /// typed as its signature's return type; a struct is copied out of the
    /// invocation's storage, which the next invoke overwrites.
    init(returnValueOf cInvocation: OpaquePointer) throws(DispatchError) {
        var cValue = dc_value()
        try DispatchError.check(dc_invocation_get_return_value(cInvocation, &cValue))
        guard cValue.type == DC_TYPE_STRUCT else {
            self.init(cValue)
            return
        }
        // Cannot fail: an invocation always has a signature.
        var layout = dc_layout()
        _ = dc_signature_return_layout(dc_invocation_signature(cInvocation), &layout)
        self.init(cValue, layout: layout)
    }
}

// MARK: - Function pointers

/// The C function pointer a Swift value stands for, or `nil` for a null one
/// (which the C core then reports as `.nullArgument`).
///
/// Accepted: a `@convention(c)` function, or `UnsafeRawPointer`,
/// `UnsafeMutableRawPointer` or `OpaquePointer` holding a function's address
/// (as `dlsym` returns it), each optional or not. Anything else (a Swift
/// closure, a class instance, an integer) throws `.invalidArgument` rather
/// than being called as code.
func cFunctionPointer<Function>(_ function: Function) throws(DispatchError) -> dc_function? {
    let addressTypes: [Any.Type] = [
        UnsafeRawPointer.self, UnsafeRawPointer?.self,
        UnsafeMutableRawPointer.self, UnsafeMutableRawPointer?.self,
        OpaquePointer.self, OpaquePointer?.self,
    ]
    let isAddress = addressTypes.contains { $0 == Function.self }
    guard isAddress || isCFunctionType(Function.self) else {
        throw DispatchError(
            status: DC_ERR_INVALID_ARGUMENT,
            message: "a value of type \(String(reflecting: Function.self)) is not a C function: "
                + "pass a @convention(c) function or a raw pointer to one"
        )!
    }
    return unsafeBitCast(function, to: dc_function?.self)
}

/// Whether `type` is a `@convention(c)` function type, optional or not: one
/// C function pointer.
func isCFunctionType<Function>(_ type: Function.Type) -> Bool {
    let typeName = String(reflecting: type)
    return (typeName.hasPrefix("@convention(c) ") || typeName.hasPrefix("Swift.Optional<@convention(c) "))
        && MemoryLayout<Function>.size == MemoryLayout<dc_function?>.size
}

/// The C index for a Swift argument index. A negative index is reported here,
/// since `size_t` cannot carry it; every other index is checked by the core.
func cArgumentIndex(_ index: Int, of signature: Signature) throws(DispatchError) -> Int {
    guard index >= 0 else {
        throw DispatchError(
            status: DC_ERR_INDEX,
            message: "argument index \(index) is out of range for signature "
                + "\"\(signature.encoding)\" with \(signature.parameterTypes.count) parameters"
        )!
    }
    return index
}

extension dc_value {
    /// The payload of a bool value, any nonzero byte true: a C caller's bool
    /// is not always 0 or 1, and a Swift `Bool` must be.
    var boolValue: Bool { u8 != 0 }
}
