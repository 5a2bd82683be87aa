internal import CDispatchCore
// Public for the layout of dc_value, which inlinable code reads.
public import CDispatchCoreBinding

/// A Swift type that travels through a ``CommandTable`` as one C argument, so
/// it can be an argument of a typed ``EventKey``.
///
/// `Bool`, every `Int` and `UInt` width, `Float`, `Double`, `String`, the
/// raw and typed pointers and `OpaquePointer` conform, and the `Optional` of
/// each but the numbers (see ``NullableEventArgument``). A class conforms by declaring it (`extension Controller:
/// EventArgument {}`): it travels as an ``ValueType/object``. An enum with a
/// raw value that conforms does too (`enum Mode: Int32, EventArgument`): it
/// travels as its raw value.
///
/// ```swift
/// extension EventKey where Arguments == (Mode, Double) {
///     static let configure: EventKey<(Mode, Double)> = "configure"
/// }
/// ```
///
/// Handlers of typed keys are registered with the signature these types
/// spell, so the C core checks every argument of an execute, whether it comes
/// from Swift, from the string API or from C, before any handler runs.
/// Handlers run on whatever thread executes, so a conformance may not be
/// isolated to an actor (the protocol refines `SendableMetatype`).
public protocol EventArgument: SendableMetatype {
    /// The C type this Swift type travels as; the parameter type of typed
    /// handlers.
    static var valueType: ValueType { get }

    /// This value as a ``Value`` of ``valueType``.
    var eventValue: Value { get }

    /// The Swift value for an argument that arrived as `eventValue`; `nil`
    /// when it does not stand for a value of this type (a null string for a
    /// `String`, an object of another class, a raw value with no case).
    init?(eventValue: Value)
}

// MARK: - Scalars

extension Bool: EventArgument {
    public static var valueType: ValueType { .bool }
    public var eventValue: Value { .bool(self) }
    public init?(eventValue: Value) {
        guard case .bool(let value) = eventValue else { return nil }
        self = value
    }
}

extension Float: EventArgument {
    public static var valueType: ValueType { .float }
    public var eventValue: Value { .float(self) }
    /// Takes a `.float`, or a `.double` that a `Float` holds exactly (or a NaN).
    public init?(eventValue: Value) {
        switch eventValue {
        case .float(let value): self = value
        case .double(let value) where value.isNaN: self = .nan
        case .double(let value):
            guard let exact = Float(exactly: value) else { return nil }
            self = exact
        default: return nil
        }
    }
}

extension Double: EventArgument {
    public static var valueType: ValueType { .double }
    public var eventValue: Value { .double(self) }
    /// Takes a `.double` or a `.float`.
    public init?(eventValue: Value) {
        switch eventValue {
        case .double(let value): self = value
        case .float(let value): self = Double(value)
        default: return nil
        }
    }
}

extension String: EventArgument {
    public static var valueType: ValueType { .string }
    public var eventValue: Value { .string(self) }
    /// Takes a non-null `.string`; a null C string is not a `String` (declare
    /// the argument `String?` to accept one).
    public init?(eventValue: Value) {
        guard case .string(let value?) = eventValue else { return nil }
        self = value
    }
}

/// An ``EventArgument`` whose C value may be null: its `Optional` is an
/// argument too, with `nil` travelling as the null pointer. `String`, the
/// raw and typed pointers and `OpaquePointer` conform; so may a class
/// (`extension Controller: NullableEventArgument {}`), to be passed as
/// `Controller?`.
public protocol NullableEventArgument: EventArgument {}

extension String: NullableEventArgument {}

extension Optional: EventArgument where Wrapped: NullableEventArgument {
    public static var valueType: ValueType { Wrapped.valueType }
    /// The wrapped value's, or the null value of its type for `nil`.
    public var eventValue: Value {
        if let self { return self.eventValue }
        switch Wrapped.valueType {
        case .string: return .string(nil)
        case .object: return .object(nil)
        default: return .pointer(nil)
        }
    }
    /// Takes what `Wrapped` takes, and any null pointer-like value as `nil`.
    public init?(eventValue: Value) {
        if eventValue.isNull {
            self = nil
        } else if let value = Wrapped(eventValue: eventValue) {
            self = value
        } else {
            return nil
        }
    }
}

// MARK: - Pointers

/// The address a non-null `.pointer` value holds.
private func pointerPayload(_ value: Value) -> UnsafeMutableRawPointer? {
    guard case .pointer(let pointer?) = value else { return nil }
    return pointer
}

extension UnsafeRawPointer: NullableEventArgument {
    public static var valueType: ValueType { .pointer }
    public var eventValue: Value { .pointer(UnsafeMutableRawPointer(mutating: self)) }
    /// Takes a non-null `.pointer` (declare the argument optional to accept null).
    public init?(eventValue: Value) {
        guard let pointer = pointerPayload(eventValue) else { return nil }
        self.init(pointer)
    }
}

extension UnsafeMutableRawPointer: NullableEventArgument {
    public static var valueType: ValueType { .pointer }
    public var eventValue: Value { .pointer(self) }
    /// Takes a non-null `.pointer` (declare the argument optional to accept null).
    public init?(eventValue: Value) {
        guard let pointer = pointerPayload(eventValue) else { return nil }
        self = pointer
    }
}

extension OpaquePointer: NullableEventArgument {
    public static var valueType: ValueType { .pointer }
    public var eventValue: Value { .pointer(UnsafeMutableRawPointer(self)) }
    /// Takes a non-null `.pointer` (declare the argument optional to accept null).
    public init?(eventValue: Value) {
        guard let pointer = pointerPayload(eventValue) else { return nil }
        self.init(pointer)
    }
}

extension UnsafePointer: NullableEventArgument {
    public static var valueType: ValueType { .pointer }
    public var eventValue: Value { .pointer(UnsafeMutableRawPointer(mutating: self)) }
    /// Takes a non-null `.pointer` (declare the argument optional to accept
    /// null), as the address of a `Pointee`: the sender vouches for the type.
    public init?(eventValue: Value) {
        guard let pointer = pointerPayload(eventValue) else { return nil }
        self.init(pointer.assumingMemoryBound(to: Pointee.self))
    }
}

extension UnsafeMutablePointer: NullableEventArgument {
    public static var valueType: ValueType { .pointer }
    public var eventValue: Value { .pointer(UnsafeMutableRawPointer(self)) }
    /// Takes a non-null `.pointer` (declare the argument optional to accept
    /// null), as the address of a `Pointee`: the sender vouches for the type.
    public init?(eventValue: Value) {
        guard let pointer = pointerPayload(eventValue) else { return nil }
        self = pointer.assumingMemoryBound(to: Pointee.self)
    }
}

// MARK: - Integers

/// The integer an integer-typed value holds, whatever its width.
private func integerPayload<Integer: FixedWidthInteger>(_ value: Value, as _: Integer.Type) -> Integer? {
    switch value {
    case .int8(let value): Integer(exactly: value)
    case .uint8(let value): Integer(exactly: value)
    case .int16(let value): Integer(exactly: value)
    case .uint16(let value): Integer(exactly: value)
    case .int32(let value): Integer(exactly: value)
    case .uint32(let value): Integer(exactly: value)
    case .int64(let value): Integer(exactly: value)
    case .uint64(let value): Integer(exactly: value)
    default: nil
    }
}

// Each integer type takes a value of any integer type that it holds exactly,
// the rule the C core converts arguments by.

extension Int: EventArgument {
    public static var valueType: ValueType { .int64 }
    public var eventValue: Value { .int64(Int64(self)) }
    public init?(eventValue: Value) {
        guard let value = integerPayload(eventValue, as: Int.self) else { return nil }
        self = value
    }
}

extension Int8: EventArgument {
    public static var valueType: ValueType { .int8 }
    public var eventValue: Value { .int8(self) }
    public init?(eventValue: Value) {
        guard let value = integerPayload(eventValue, as: Int8.self) else { return nil }
        self = value
    }
}

extension Int16: EventArgument {
    public static var valueType: ValueType { .int16 }
    public var eventValue: Value { .int16(self) }
    public init?(eventValue: Value) {
        guard let value = integerPayload(eventValue, as: Int16.self) else { return nil }
        self = value
    }
}

extension Int32: EventArgument {
    public static var valueType: ValueType { .int32 }
    public var eventValue: Value { .int32(self) }
    public init?(eventValue: Value) {
        guard let value = integerPayload(eventValue, as: Int32.self) else { return nil }
        self = value
    }
}

extension Int64: EventArgument {
    public static var valueType: ValueType { .int64 }
    public var eventValue: Value { .int64(self) }
    public init?(eventValue: Value) {
        guard let value = integerPayload(eventValue, as: Int64.self) else { return nil }
        self = value
    }
}

extension UInt: EventArgument {
    public static var valueType: ValueType { .uint64 }
    public var eventValue: Value { .uint64(UInt64(self)) }
    public init?(eventValue: Value) {
        guard let value = integerPayload(eventValue, as: UInt.self) else { return nil }
        self = value
    }
}

extension UInt8: EventArgument {
    public static var valueType: ValueType { .uint8 }
    public var eventValue: Value { .uint8(self) }
    public init?(eventValue: Value) {
        guard let value = integerPayload(eventValue, as: UInt8.self) else { return nil }
        self = value
    }
}

extension UInt16: EventArgument {
    public static var valueType: ValueType { .uint16 }
    public var eventValue: Value { .uint16(self) }
    public init?(eventValue: Value) {
        guard let value = integerPayload(eventValue, as: UInt16.self) else { return nil }
        self = value
    }
}

extension UInt32: EventArgument {
    public static var valueType: ValueType { .uint32 }
    public var eventValue: Value { .uint32(self) }
    public init?(eventValue: Value) {
        guard let value = integerPayload(eventValue, as: UInt32.self) else { return nil }
        self = value
    }
}

extension UInt64: EventArgument {
    public static var valueType: ValueType { .uint64 }
    public var eventValue: Value { .uint64(self) }
    public init?(eventValue: Value) {
        guard let value = integerPayload(eventValue, as: UInt64.self) else { return nil }
        self = value
    }
}

// MARK: - Classes and raw values

extension EventArgument where Self: AnyObject {
    /// A class travels as an ``ValueType/object``.
    public static var valueType: ValueType { .object }
    /// The instance, passed unretained for the call.
    public var eventValue: Value { .object(self) }
    /// Takes a non-null object that is an instance of this class (or a
    /// subclass).
    public init?(eventValue: Value) {
        guard case .object(let object?) = eventValue, let instance = object as? Self else { return nil }
        self = instance
    }
}

extension EventArgument where Self: RawRepresentable, RawValue: EventArgument {
    /// A raw-value enum travels as its raw value.
    public static var valueType: ValueType { RawValue.valueType }
    public var eventValue: Value { rawValue.eventValue }
    /// Takes a raw value that names a case.
    public init?(eventValue: Value) {
        guard let rawValue = RawValue(eventValue: eventValue) else { return nil }
        self.init(rawValue: rawValue)
    }
}

// MARK: - Crossing to and from C

/// An argument of a built-in scalar type (`Bool`, the integers, `Float`,
/// `Double`) as the bits of its C value's payload, made in inlinable code:
/// where the argument's type is known the checks fold away, so a typed
/// execute hands the module two words instead of a generic value.
@usableFromInline
struct ScalarArgument {
    @usableFromInline let type: ValueType
    /// The payload's bits, the value at its own width in the low bytes.
    @usableFromInline let bits: UInt64

    @inlinable
    init(type: ValueType, bits: UInt64) {
        self.type = type
        self.bits = bits
    }

    /// The C type of `A` when it is a built-in scalar, `nil` for every other
    /// type (as `init(_:)`). Folds to a constant where `A` is known.
    @inlinable
    static func valueType<A: EventArgument>(of _: A.Type) -> ValueType? {
        if A.self == Bool.self { return .bool }
        if A.self == Int8.self { return .int8 }
        if A.self == UInt8.self { return .uint8 }
        if A.self == Int16.self { return .int16 }
        if A.self == UInt16.self { return .uint16 }
        if A.self == Int32.self { return .int32 }
        if A.self == UInt32.self { return .uint32 }
        if A.self == Int64.self || A.self == Int.self { return .int64 }
        if A.self == UInt64.self || A.self == UInt.self { return .uint64 }
        if A.self == Float.self { return .float }
        if A.self == Double.self { return .double }
        return nil
    }

    /// This argument as a C value.
    // Always inlined: an execute builds its C arguments in place.
    @inline(__always)
    var cValue: dc_value {
        var value = dc_value()
        value.type = type.cType
        value.u64 = bits
        return value
    }

    /// Argument `index` of a handler call, of built-in scalar type `A` (one
    /// `valueType(of:)` knows), which the C core has converted to `A`'s C
    /// type: its payload read at `A`'s width, in the caller's code where `A`
    /// is known; `index` moves on to the next argument. The C core's binding
    /// header gives `dc_value`'s layout, which the caller cannot name.
    @inlinable
    static func argument<A: EventArgument>(_ arguments: UnsafeRawPointer, _ index: inout Int, as _: A.Type) -> A {
        let offset = index &* Int(DC__VALUE_STRIDE) &+ Int(DC__VALUE_PAYLOAD_OFFSET)
        index &+= 1
        if A.self == Bool.self {
            // Any nonzero byte is true: a C caller's bool is not always 0 or 1.
            return unsafeBitCast(arguments.load(fromByteOffset: offset, as: UInt8.self) != 0, to: A.self)
        }
        return arguments.load(fromByteOffset: offset, as: A.self)
    }

    /// `nil` for every type but the built-in scalars, including a raw-value
    /// enum or a class that travels as one (see `valueType(of:)`).
    @inlinable
    init?<A: EventArgument>(_ value: A) {
        guard let type = Self.valueType(of: A.self) else { return nil }
        self.init(type: type, bits: Self.bits(of: value))
    }

    /// The bytes of a built-in scalar, zero-extended: the payload bits of its
    /// C value. Loaded at the value's own width: a narrower store followed by
    /// a 64-bit load would stall the load.
    @inlinable
    static func bits<A>(of value: A) -> UInt64 {
        withUnsafeBytes(of: value) { bytes in
            switch bytes.count {
            case 1: UInt64(bytes.load(as: UInt8.self))
            case 2: UInt64(bytes.load(as: UInt16.self))
            case 4: UInt64(bytes.load(as: UInt32.self))
            default: bytes.load(as: UInt64.self)
            }
        }
    }
}

extension EventArgument {
    /// Calls `body` with this value as a C value, keeping what it points to
    /// (a string copy, an object) alive for the call.
    func withCValue<Result>(_ body: (dc_value) throws -> Result) rethrows -> Result {
        if let scalar = ScalarArgument(self) { return try body(scalar.cValue) }
        let value = eventValue
        let (cValue, ownedString) = value.makeCValue()
        defer { freeCString(ownedString) }
        return try withExtendedLifetime(value) { try body(cValue) }
    }

    /// The Swift value of argument `index` of a handler call, which the C core
    /// has already converted to ``valueType``; `index` moves on to the next.
    ///
    /// - Throws: ``DispatchError/typeMismatch(_:)`` naming `event` and the
    ///   index when the value does not stand for a `Self` (a null string for
    ///   `String`, an object of another class).
    static func argument(
        _ arguments: UnsafePointer<dc_value>?, at index: inout Int, event: String
    ) throws(DispatchError) -> Self {
        // A built-in scalar is copied as bits, not through a Value and an
        // Optional<Self>, whose metadata an unspecialized call looks up.
        if ScalarArgument.valueType(of: Self.self) != nil {
            return ScalarArgument.argument(UnsafeRawPointer(arguments!), &index, as: Self.self)
        }
        defer { index += 1 }
        return try convertedArgument(arguments![index], at: index, event: event)
    }

    /// `argument(_:at:event:)` for every type but the built-in scalars. Kept
    /// out of line: the `Optional<Self>` it needs costs a metadata lookup at
    /// the entry of any function that contains it.
    @inline(never)
    private static func convertedArgument(_ cValue: dc_value, at index: Int, event: String) throws(DispatchError)
        -> Self
    {
        let value = Value(cValue)
        guard let argument = Self(eventValue: value) else {
            throw argumentMismatch(event: event, index: index, expected: "\(Self.self)", actual: value)
        }
        return argument
    }
}

/// The C types of `types`, the parameters of a typed handler.
func valueTypes<each A: EventArgument>(of types: repeat (each A).Type) -> [ValueType] {
    var valueTypes: [ValueType] = []
    for type in repeat each types { valueTypes.append(type.valueType) }
    return valueTypes
}

/// The error for an argument the C core accepted but the Swift type does not.
func argumentMismatch(event: String, index: Int, expected: String, actual: Value) -> DispatchError {
    DispatchError(
        status: DC_ERR_TYPE,
        message: "event \"\(event)\": argument \(index): expected \(expected), got \(actual)")!
}
