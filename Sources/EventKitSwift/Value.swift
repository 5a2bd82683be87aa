internal import CDispatchCore

/// An argument passed to, or a value returned from, a dynamically called C
/// function, tagged with its ``ValueType``.
///
/// Before a call every argument is converted to its parameter's type by one
/// rule: a value of the same type fits; an integer fits any integer type that
/// holds it exactly (`.int64(5)` fits a `uint8` parameter, `.int64(-1)` does
/// not fit `uint32`); a float fits a double, and a double fits a float only
/// when the conversion is exact; a ``ValueType/pointer`` parameter takes any
/// object, pointer or string; a null of any pointer-like case fits any
/// pointer-like parameter. Nothing else mixes: bools and integers, integers
/// and floating point, objects, pointers and strings are distinct. A value
/// that does not fit is a ``DispatchError/typeMismatch(_:)``.
///
/// Literals make arguments short to write: `true` is ``bool(_:)``, an integer
/// literal is ``int64(_:)``, a floating-point literal is ``double(_:)``, a
/// string literal is ``string(_:)`` and `nil` is `.pointer(nil)`, C's `NULL`,
/// which fits every object, pointer and string parameter.
///
/// ```swift
/// try invocation.setArgument(42, at: 0)        // .int64(42), fits any integer parameter
/// try invocation.setArgument(0.5, at: 1)       // .double(0.5), fits float exactly
/// try invocation.setArgument(nil, at: 2)       // NULL
/// ```
///
/// A struct passed by value is ``structure(_:)``, whose ``StructValue`` owns
/// a copy of the struct's bytes: `Value(struct: timespec(tv_sec: 1, tv_nsec: 0))`
/// passes one, and ``structure(as:)`` reads one a function returned as its C
/// type. A struct fits a struct parameter of its size (see ``StructValue``
/// for the checks), and nothing else.
///
/// A struct C hands to Swift arrives as a ``structure(_:)`` of its own, a
/// copy that stays valid after the call: an ``Invocation``'s arguments and
/// return value and a ``CCallback``'s arguments, each with its encoding
/// from the signature; a `[Value]` table handler's arguments, with the size
/// the struct value carries (every struct from Swift, and every one the C
/// library hands out, carries its size); a struct a C handler returns to
/// ``CommandTable/execute(_:arguments:accumulator:requireHandler:strict:)``.
/// Only a struct of unknown size, which a C caller made with `dc_struct`
/// and executed to a `[Value]` handler, arrives as ``pointer(_:)`` to its
/// bytes, valid only for the call.
///
/// Objects cross into C as their unretained address
/// (`Unmanaged.passUnretained(_:)`), and an object coming back from C is taken
/// as a Swift object without a retain of its own
/// (`Unmanaged.takeUnretainedValue()`). So an `@`-typed value must be a Swift
/// class instance or `nil`, and a C function returning an object must return
/// one that is still alive. Use ``pointer(_:)`` for any other address.
///
/// `Value` is not `Sendable`: it may hold an object and raw pointers whose
/// thread-safety it cannot vouch for.
///
/// The corresponding C type is `dc_value`. Replaces the untyped buffers
/// passed to `-[NSInvocation setArgument:atIndex:]` and
/// `getReturnValue:`.
public enum Value {
    /// The value of a function returning `void`.
    case void
    /// A C `bool`.
    case bool(Bool)
    /// An `int8_t`.
    case int8(Int8)
    /// A `uint8_t`.
    case uint8(UInt8)
    /// An `int16_t`.
    case int16(Int16)
    /// A `uint16_t`.
    case uint16(UInt16)
    /// An `int32_t`.
    case int32(Int32)
    /// A `uint32_t`.
    case uint32(UInt32)
    /// An `int64_t`.
    case int64(Int64)
    /// A `uint64_t`.
    case uint64(UInt64)
    /// A `float`.
    case float(Float)
    /// A `double`.
    case double(Double)
    /// A Swift class instance, or `nil`; see the type's discussion for how it
    /// crosses into C.
    case object(AnyObject?)
    /// Any address, or `nil`. The caller keeps what it points to alive for as
    /// long as C may use it.
    case pointer(UnsafeMutableRawPointer?)
    /// A C string. Passed in as a NUL-terminated UTF-8 copy that stays valid
    /// for the call (and for as long as an ``Invocation`` holds it as an
    /// argument), so C reads it only up to its first NUL character; a
    /// `char *` coming back is copied into a Swift `String`, with invalid
    /// UTF-8 repaired.
    case string(String?)
    /// A C struct passed by value: its bytes, copied in and owned by the
    /// value. C reads them in place for the duration of a call.
    case structure(StructValue)
    #if arch(x86_64) || arch(i386)
    /// C `long double` (`D`), which is Swift's `Float80` on x86. (On
    /// AArch64, where it is a 128-bit quad that Swift has no type for, a C
    /// long double reaches Swift as ``pointer(_:)`` to its bytes.)
    case longDouble(Float80)
    /// C `long double _Complex` (`jD`), on x86.
    indirect case complexLongDouble(real: Float80, imaginary: Float80)
    #endif
    /// C `float _Complex` (`jf`): its real and imaginary parts.
    case complexFloat(real: Float, imaginary: Float)
    /// C `double _Complex` (`jd`): its real and imaginary parts.
    case complexDouble(real: Double, imaginary: Double)

    /// A struct argument holding the bytes of `value`, a value of a C struct
    /// type such as `div_t` or `timespec`: ``structure(_:)`` of
    /// ``StructValue/init(_:)``.
    ///
    /// ```swift
    /// try invocation.setArgument(Value(struct: timespec(tv_sec: 1, tv_nsec: 0)), at: 0)
    /// ```
    ///
    /// - Parameter value: The struct whose bytes are copied.
    public init<T: BitwiseCopyable>(struct value: T) {
        self = .structure(StructValue(value))
    }

    /// The struct this value holds, read as a value of `type`, such as the
    /// `div_t` a call of `div` returned.
    ///
    /// ```swift
    /// let divide: @convention(c) (Int32, Int32) -> div_t = div
    /// let result = try Invocation.call(divide, signature: Signature("{div_t=ii}ii"), arguments: [.int32(7), .int32(2)])
    /// let quotient = try result.structure(as: div_t.self).quot   // 3
    /// ```
    ///
    /// - Parameter type: The C struct type to read the bytes as; its
    ///   `MemoryLayout<T>.stride` (C's `sizeof`) must be the struct's size.
    /// - Returns: The struct as a `T`.
    /// - Throws: ``DispatchError/typeMismatch(_:)`` when this value is not a
    ///   ``structure(_:)``, or when its size is not `T`'s, naming both.
    ///
    /// Replaces `-[NSInvocation getReturnValue:]` into a struct variable.
    public func structure<T: BitwiseCopyable>(as type: T.Type) throws(DispatchError) -> T {
        guard case .structure(let structure) = self else {
            throw DispatchError(status: DC_ERR_TYPE, message: "expected a struct (\(T.self)), got \(self)")!
        }
        return try structure.load(as: type)
    }

    /// The type this value is tagged with.
    public var type: ValueType {
        switch self {
        case .void: .void
        case .bool: .bool
        case .int8: .int8
        case .uint8: .uint8
        case .int16: .int16
        case .uint16: .uint16
        case .int32: .int32
        case .uint32: .uint32
        case .int64: .int64
        case .uint64: .uint64
        case .float: .float
        case .double: .double
        case .object: .object
        case .pointer: .pointer
        case .string: .string
        case .structure: .structure
        #if arch(x86_64) || arch(i386)
        case .longDouble: .longDouble
        case .complexLongDouble: .complexLongDouble
        #endif
        case .complexFloat: .complexFloat
        case .complexDouble: .complexDouble
        }
    }

    /// Whether this is a null object, pointer or string.
    public var isNull: Bool {
        switch self {
        case .object(nil), .pointer(nil), .string(nil): true
        default: false
        }
    }
}

@available(*, unavailable, message: "a Value may hold an object or raw pointers that are not Sendable")
extension Value: Sendable {}

extension Value: Equatable {
    /// Two values are equal when they have the same type and equal payloads:
    /// objects by identity, pointers by address, strings by value, structs
    /// by their bytes, and floating-point numbers by IEEE 754 equality (so a
    /// NaN equals nothing).
    ///
    /// - Parameters:
    ///   - lhs: A value.
    ///   - rhs: Another value.
    public static func == (lhs: Value, rhs: Value) -> Bool {
        switch (lhs, rhs) {
        case (.void, .void): true
        case let (.bool(a), .bool(b)): a == b
        case let (.int8(a), .int8(b)): a == b
        case let (.uint8(a), .uint8(b)): a == b
        case let (.int16(a), .int16(b)): a == b
        case let (.uint16(a), .uint16(b)): a == b
        case let (.int32(a), .int32(b)): a == b
        case let (.uint32(a), .uint32(b)): a == b
        case let (.int64(a), .int64(b)): a == b
        case let (.uint64(a), .uint64(b)): a == b
        case let (.float(a), .float(b)): a == b
        case let (.double(a), .double(b)): a == b
        case let (.object(a), .object(b)): a === b
        case let (.pointer(a), .pointer(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.structure(a), .structure(b)): a == b
        #if arch(x86_64) || arch(i386)
        case let (.longDouble(a), .longDouble(b)): a == b
        case let (.complexLongDouble(a, b), .complexLongDouble(c, d)): a == c && b == d
        #endif
        case let (.complexFloat(a, b), .complexFloat(c, d)): a == c && b == d
        case let (.complexDouble(a, b), .complexDouble(c, d)): a == c && b == d
        default: false
        }
    }
}

extension Value: CustomStringConvertible {
    /// The type and payload, such as `int64(42)`, `string("hi")`,
    /// `object(Counter@0x…)` or `structure({div_t=ii} 03000000 01000000)`.
    public var description: String {
        switch self {
        case .void: "void"
        case .bool(let value): "bool(\(value))"
        case .int8(let value): "int8(\(value))"
        case .uint8(let value): "uint8(\(value))"
        case .int16(let value): "int16(\(value))"
        case .uint16(let value): "uint16(\(value))"
        case .int32(let value): "int32(\(value))"
        case .uint32(let value): "uint32(\(value))"
        case .int64(let value): "int64(\(value))"
        case .uint64(let value): "uint64(\(value))"
        case .float(let value): "float(\(value))"
        case .double(let value): "double(\(value))"
        case .object(nil): "object(nil)"
        case .object(let object?):
            "object(\(Swift.type(of: object))@\(Unmanaged.passUnretained(object).toOpaque()))"
        case .pointer(nil): "pointer(nil)"
        case .pointer(let pointer?): "pointer(\(pointer))"
        case .string(nil): "string(nil)"
        case .string(let string?): "string(\(string.debugDescription))"
        case .structure(let structure): "structure(\(structure))"
        #if arch(x86_64) || arch(i386)
        case .longDouble(let value): "longDouble(\(value))"
        case let .complexLongDouble(real, imaginary): "complexLongDouble(\(real), \(imaginary))"
        #endif
        case let .complexFloat(real, imaginary): "complexFloat(\(real), \(imaginary))"
        case let .complexDouble(real, imaginary): "complexDouble(\(real), \(imaginary))"
        }
    }
}

extension Value: ExpressibleByBooleanLiteral {
    /// `true` and `false` are ``bool(_:)``.
    public init(booleanLiteral value: Bool) {
        self = .bool(value)
    }
}

extension Value: ExpressibleByIntegerLiteral {
    /// An integer literal is ``int64(_:)``, which fits any integer parameter
    /// that can hold the number.
    public init(integerLiteral value: Int64) {
        self = .int64(value)
    }
}

extension Value: ExpressibleByFloatLiteral {
    /// A floating-point literal is ``double(_:)``. It fits a `float`
    /// parameter only when the number is exactly representable as a `Float`
    /// (`0.5` is, `0.1` is not); write `.float(0.1)` for those.
    public init(floatLiteral value: Double) {
        self = .double(value)
    }
}

extension Value: ExpressibleByStringLiteral {
    /// A string literal is ``string(_:)``.
    public init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension Value: ExpressibleByNilLiteral {
    /// `nil` is `.pointer(nil)`, C's `NULL`: it fits every object, pointer and
    /// string parameter.
    public init(nilLiteral: ()) {
        self = .pointer(nil)
    }
}
