internal import CDispatchCore
internal import CDispatchCoreBinding
import Synchronization

/// Where the built-in scalars of a typed key's arguments lie in a Swift tuple
/// of them, so that an execute of two or more hands the table the tuple its
/// caller built and a handler reads its arguments from one, the tuple's
/// layout known where the types are (in the caller's code) and the copying
/// between the tuple and the C values done here, by a loop that knows no
/// Swift type.
///
/// Made once per key (``EventKey`` keeps it): a pack of types is walked at
/// run time, at a cost an execute should not pay.
@usableFromInline
final class ScalarLayout: @unchecked Sendable {
    // @unchecked: the fields are written once, in init.

    /// One argument: its C type, where it lies in the tuple and its width.
    struct Field {
        let type: dc_type
        let offset: Int
        let size: Int
    }

    /// The fields, in order; a buffer rather than an array, so that reading
    /// them on every execute and handler call costs no reference counting.
    private let fields: UnsafeMutableBufferPointer<Field>
    /// The C types, in order: the signature of the key's handlers.
    @usableFromInline let valueTypes: [ValueType]

    private init(fields: [Field], valueTypes: [ValueType]) {
        self.fields = .allocate(capacity: fields.count)
        _ = self.fields.initialize(from: fields)
        self.valueTypes = valueTypes
    }

    deinit {
        fields.deallocate()
    }

    /// The layout of a tuple of `types`, `nil` unless they are all built-in
    /// scalars. A tuple lays its elements out in order, each at the next
    /// offset its alignment allows; the tuple's own size is checked against
    /// that, and a tuple laid out otherwise takes the converting path.
    static func of<each A: EventArgument>(_ types: repeat (each A).Type) -> ScalarLayout? {
        var fields: [Field] = []
        var valueTypes: [ValueType] = []
        var offset = 0
        for type in repeat each types {
            guard let valueType = ScalarArgument.valueType(of: type) else { return nil }
            let (size, alignment) = sizeAndAlignment(of: type)
            offset = (offset + alignment - 1) / alignment * alignment
            fields.append(Field(type: valueType.cType, offset: offset, size: size))
            valueTypes.append(valueType)
            offset += size
        }
        guard offset <= MemoryLayout<(repeat each A)>.size else { return nil }
        return ScalarLayout(fields: fields, valueTypes: valueTypes)
    }

    private static func sizeAndAlignment<T>(of _: T.Type) -> (Int, Int) {
        (MemoryLayout<T>.size, MemoryLayout<T>.alignment)
    }

    /// How many arguments.
    var count: Int { fields.count }

    /// Writes the C values of the tuple at `tuple` into `values`, room for
    /// `count` of them.
    func pack(_ tuple: UnsafeRawPointer, into values: UnsafeMutablePointer<dc_value>) {
        for index in 0..<fields.count {
            let field = fields[index]
            (values + index).pointee.type = field.type
            Self.payload(of: values + index).storeBytes(of: Self.load(field.size, from: tuple + field.offset), as: UInt64.self)
        }
    }

    /// Writes the C values `arguments` (one per field, converted to the
    /// field's type by the table) into the tuple at `tuple`.
    @usableFromInline
    func unpack(_ arguments: UnsafeRawPointer, into tuple: UnsafeMutableRawPointer) {
        let values = UnsafeMutablePointer(mutating: arguments.assumingMemoryBound(to: dc_value.self))
        for index in 0..<fields.count {
            let field = fields[index]
            let payload = Self.payload(of: values + index)
            let target = tuple + field.offset
            switch field.size {
            // Any nonzero byte is true: a C caller's bool is not always 0 or 1.
            case 1 where field.type == DC_TYPE_BOOL: target.storeBytes(of: payload.load(as: UInt8.self) != 0, as: Bool.self)
            case 1: target.storeBytes(of: payload.load(as: UInt8.self), as: UInt8.self)
            case 2: target.storeBytes(of: payload.load(as: UInt16.self), as: UInt16.self)
            case 4: target.storeBytes(of: payload.load(as: UInt32.self), as: UInt32.self)
            default: target.storeBytes(of: payload.load(as: UInt64.self), as: UInt64.self)
            }
        }
    }

    /// Where `value`'s payload is.
    private static func payload(of value: UnsafeMutablePointer<dc_value>) -> UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(value) + Int(DC__VALUE_PAYLOAD_OFFSET)
    }

    /// The `size` bytes at `address`, zero-extended.
    private static func load(_ size: Int, from address: UnsafeRawPointer) -> UInt64 {
        switch size {
        case 1: UInt64(address.load(as: UInt8.self))
        case 2: UInt64(address.loadUnaligned(as: UInt16.self))
        case 4: UInt64(address.loadUnaligned(as: UInt32.self))
        default: address.loadUnaligned(as: UInt64.self)
        }
    }
}

extension EventKeyStorage {
    /// Whether the key's arguments, `types`, are all built-in scalars, whose
    /// layout the key then keeps (made on first use). Inlined into a typed
    /// execute: where the answer is known it is one load.
    @inlinable
    func hasScalarLayout<each A: EventArgument>(of types: repeat (each A).Type) -> Bool {
        switch scalarLayoutAddress.load(ordering: .acquiring) {
        case ScalarLayoutAddress.unknown: makeScalarLayout(of: repeat each types) != nil
        case ScalarLayoutAddress.none: false
        default: true
        }
    }

    /// The layout of the key's arguments, `types`, made and kept on first use.
    @usableFromInline
    func makeScalarLayout<each A: EventArgument>(of types: repeat (each A).Type) -> ScalarLayout? {
        let made = ScalarLayout.of(repeat each types)
        let address = made.map { UInt(bitPattern: Unmanaged.passRetained($0).toOpaque()) } ?? ScalarLayoutAddress.none
        let (exchanged, original) = scalarLayoutAddress.compareExchange(
            expected: ScalarLayoutAddress.unknown, desired: address, ordering: .acquiringAndReleasing)
        if !exchanged, address != ScalarLayoutAddress.none {
            // Another thread made it first: keep that one.
            Unmanaged<ScalarLayout>.fromOpaque(UnsafeRawPointer(bitPattern: address)!).release()
            return original == ScalarLayoutAddress.none ? nil : scalarLayout.takeUnretainedValue()
        }
        return made
    }

    /// The key's layout, once `hasScalarLayout(of:)` has said it has one;
    /// the key holds it for as long as it lives.
    @usableFromInline var scalarLayout: Unmanaged<ScalarLayout> {
        Unmanaged.fromOpaque(
            UnsafeRawPointer(bitPattern: scalarLayoutAddress.load(ordering: .acquiring)).unsafelyUnwrapped)
    }

    /// Gives back the key's reference to its layout.
    func releaseScalarLayout() {
        let address = scalarLayoutAddress.load(ordering: .acquiring)
        guard address != ScalarLayoutAddress.unknown, address != ScalarLayoutAddress.none else { return }
        Unmanaged<ScalarLayout>.fromOpaque(UnsafeRawPointer(bitPattern: address)!).release()
    }
}

/// What `EventKeyStorage.scalarLayoutAddress` holds besides a retained
/// layout's address.
@usableFromInline
enum ScalarLayoutAddress {
    /// Not worked out yet.
    @usableFromInline static let unknown: UInt = 0
    /// Not all built-in scalars: no layout.
    @usableFromInline static let none: UInt = 1
}
