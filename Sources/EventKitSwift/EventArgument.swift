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
/// travels as its raw value. A `Sendable` struct or enum conforms through
/// ``EventPayload`` (`extension Order: EventPayload {}`), and arrays, sets
/// and dictionaries of arguments conform already: they travel as an object
/// that boxes the value.
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

/// Arguments of the built-in scalar types (`Bool`, the integers, `Float`,
/// `Double`) crossing to and from C in inlinable code, where their types are
/// known and the checks on them fold away: a typed execute builds its C
/// values in its caller's code, and a typed handler reads its arguments in
/// the code that registered it, with nothing looked up at run time.
///
/// Where the types are a pack, the work per argument stays off the values'
/// generic type, which Swift does not specialize inside a pack's loop (it
/// does unroll the loop and fold comparisons of types): the values cross as
/// a tuple, whose type is known, and each one is loaded or stored at its
/// offset as an integer of its width.
@usableFromInline
enum ScalarArguments {
    /// A built-in scalar type: its C type (a `dc_type` value) and its size.
    @usableFromInline
    struct Scalar {
        @usableFromInline let type: UInt32
        @usableFromInline let size: Int

        @inlinable @inline(__always)
        init<A>(_ type: Int, _: A.Type) {
            self.type = UInt32(type)
            size = MemoryLayout<A>.size
        }
    }

    /// The C type and size of `A` when it is a built-in scalar, `nil` for
    /// every other type, including a raw-value enum or a class that travels
    /// as one. Folds to a constant where `A` is known, in a pack's loop too.
    @inlinable @inline(__always)
    static func scalar<A>(_: A.Type) -> Scalar? {
        if A.self == Bool.self { return Scalar(DC__TYPE_BOOL, Bool.self) }
        if A.self == Int8.self { return Scalar(DC__TYPE_INT8, Int8.self) }
        if A.self == UInt8.self { return Scalar(DC__TYPE_UINT8, UInt8.self) }
        if A.self == Int16.self { return Scalar(DC__TYPE_INT16, Int16.self) }
        if A.self == UInt16.self { return Scalar(DC__TYPE_UINT16, UInt16.self) }
        if A.self == Int32.self { return Scalar(DC__TYPE_INT32, Int32.self) }
        if A.self == UInt32.self { return Scalar(DC__TYPE_UINT32, UInt32.self) }
        if A.self == Int64.self { return Scalar(DC__TYPE_INT64, Int64.self) }
        if A.self == Int.self { return Scalar(DC__TYPE_INT64, Int.self) }
        if A.self == UInt64.self { return Scalar(DC__TYPE_UINT64, UInt64.self) }
        if A.self == UInt.self { return Scalar(DC__TYPE_UINT64, UInt.self) }
        if A.self == Float.self { return Scalar(DC__TYPE_FLOAT, Float.self) }
        if A.self == Double.self { return Scalar(DC__TYPE_DOUBLE, Double.self) }
        return nil
    }

    /// Whether `types` are all built-in scalars, laid out in a tuple of them
    /// as `pack` and `unpack` read and write it: in order, each at the next
    /// multiple of its size. Folds to a constant where the types are known.
    @inlinable @inline(__always)
    static func areScalars<each A>(_ types: repeat (each A).Type) -> Bool {
        var end = 0
        for type in repeat each types {
            guard let scalar = scalar(type) else { return false }
            end = offset(after: end, of: scalar) &+ scalar.size
        }
        return end <= MemoryLayout<(repeat each A)>.size
    }

    /// The offset of `scalar` in a tuple whose previous element ends at
    /// `end`.
    @inlinable @inline(__always)
    static func offset(after end: Int, of scalar: Scalar) -> Int {
        (end &+ scalar.size &- 1) & ~(scalar.size &- 1)
    }

    /// The ``ValueType``s of `types`, all built-in scalars.
    @usableFromInline
    static func valueTypes<each A>(of types: repeat (each A).Type) -> [ValueType] {
        var valueTypes: [ValueType] = []
        for type in repeat each types { valueTypes.append(ValueType(cTypeRawValue: scalar(type)!.type)) }
        return valueTypes
    }

    /// How many of `types` there are.
    @inlinable @inline(__always)
    static func count<each A>(of types: repeat (each A).Type) -> Int {
        var count = 0
        for _ in repeat each types { count &+= 1 }
        return count
    }

    /// Calls `body` with room on the stack for `count` C values.
    @inlinable @inline(__always)
    static func withValues<Result>(
        _ count: Int, _ body: (UnsafeMutableRawPointer) throws -> Result
    ) rethrows -> Result {
        // Unprotected (no stack canary): `pack` writes these values, within
        // their count, and the C core only reads them.
        try _withUnprotectedUnsafeTemporaryAllocation(of: dc__scalar_value.self, capacity: count) { values in
            try body(UnsafeMutableRawPointer(values.baseAddress.unsafelyUnwrapped))
        }
    }

    /// Writes the C values of `arguments`, all built-in scalars, into
    /// `values`, room for one per argument.
    @inlinable @inline(__always)
    static func pack<each A>(_ arguments: repeat each A, into values: UnsafeMutableRawPointer) {
        withUnsafeBytes(of: (repeat each arguments)) { tuple in
            var end = 0
            var value = values
            for type in repeat (each A).self {
                let scalar = scalar(type).unsafelyUnwrapped
                let offset = offset(after: end, of: scalar)
                let bits = load(scalar.size, from: tuple.baseAddress.unsafelyUnwrapped + offset)
                value.storeBytes(of: dc__scalar_value(type: scalar.type, struct_id: 0, bits: bits), as: dc__scalar_value.self)
                value += MemoryLayout<dc__scalar_value>.stride
                end = offset &+ scalar.size
            }
        }
    }

    /// Writes the C values `values` (one per type, converted to its C type
    /// by the table) into `tuple`, a tuple of `types` (all built-in scalars).
    @inlinable @inline(__always)
    static func unpack<each A>(
        _ values: UnsafeRawPointer, of types: repeat (each A).Type, into tuple: UnsafeMutableRawPointer
    ) {
        var end = 0
        var value = values
        for type in repeat each types {
            let scalar = scalar(type).unsafelyUnwrapped
            let offset = offset(after: end, of: scalar)
            let bits = value.load(as: dc__scalar_value.self).bits
            let field = tuple + offset
            switch scalar.size {
            // Any nonzero byte is true: a C caller's bool is not always 0 or 1.
            case 1 where scalar.type == DC__TYPE_BOOL: field.storeBytes(of: UInt8(truncatingIfNeeded: bits) != 0, as: Bool.self)
            case 1: field.storeBytes(of: UInt8(truncatingIfNeeded: bits), as: UInt8.self)
            case 2: field.storeBytes(of: UInt16(truncatingIfNeeded: bits), as: UInt16.self)
            case 4: field.storeBytes(of: UInt32(truncatingIfNeeded: bits), as: UInt32.self)
            default: field.storeBytes(of: bits, as: UInt64.self)
            }
            value += MemoryLayout<dc__scalar_value>.stride
            end = offset &+ scalar.size
        }
    }

    /// The built-in scalars of `types` in the C values from `values` on
    /// (skipping the first `index`), which the C core has converted to their
    /// C types, as a tuple of them; one type gives the value itself.
    @inlinable @inline(__always)
    static func arguments<each A>(
        _ values: UnsafeRawPointer, at index: Int = 0, as types: repeat (each A).Type
    ) -> (repeat each A) {
        withUnsafeTemporaryAllocation(
            byteCount: MemoryLayout<(repeat each A)>.size, alignment: MemoryLayout<(repeat each A)>.alignment
        ) { tuple in
            unpack(
                values + index &* MemoryLayout<dc__scalar_value>.stride, of: repeat each types,
                into: tuple.baseAddress.unsafelyUnwrapped)
            return tuple.baseAddress.unsafelyUnwrapped.load(as: (repeat each A).self)
        }
    }

    /// The `size` bytes at `address`, zero-extended: the payload bits of a C
    /// value. Loaded at the value's own width: a narrower store followed by
    /// a 64-bit load would stall the load.
    @inlinable @inline(__always)
    static func load(_ size: Int, from address: UnsafeRawPointer) -> UInt64 {
        switch size {
        case 1: UInt64(address.load(as: UInt8.self))
        case 2: UInt64(address.loadUnaligned(as: UInt16.self))
        case 4: UInt64(address.loadUnaligned(as: UInt32.self))
        default: address.loadUnaligned(as: UInt64.self)
        }
    }
}

extension EventArgument {
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
        let current = index
        index += 1
        if ScalarArguments.scalar(Self.self) != nil { return scalarArgument(arguments!, at: current) }
        // A payload of exactly this type is copied out of its box, without
        // the look-ups of `Optional<Self>` and `Result` that converting it
        // through a Value costs an unspecialized call.
        if let box = AnyPayloadBox.box(in: arguments![current]), box.holds(Self.self) {
            return box.payload(as: Self.self)
        }
        return try convertedArgument(arguments![current], at: current, event: event)
    }

    /// `argument(_:at:event:)` for a built-in scalar. Out of line: the
    /// temporary tuple it reads through costs a metadata look-up at the
    /// entry of any function that contains it.
    @inline(never)
    private static func scalarArgument(_ arguments: UnsafePointer<dc_value>, at index: Int) -> Self {
        ScalarArguments.arguments(arguments, at: index, as: Self.self)
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
