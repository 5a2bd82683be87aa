internal import CDispatchCore
import Synchronization

/// A `Sendable` Swift value that travels through a ``CommandTable`` as an
/// object, so that a struct, an enum with associated values or a collection
/// can be an event's payload.
///
/// A value type becomes a payload with an empty declaration; arrays, sets
/// and dictionaries of arguments (`[String]`, `[Order]`, `[String: Int]`)
/// are payloads already:
///
/// ```swift
/// struct Order: Sendable { var id: Int; var items: [String] }
/// extension Order: EventPayload {}
///
/// extension EventKey where Arguments == Order {
///     static let placed: EventKey<Order> = "order.placed"
/// }
/// table.on(.placed) { order in ship(order) }.store(in: &subscriptions)
/// try table.execute(.placed, Order(id: 7, items: ["tea"]))
/// ```
///
/// A payload is an ``EventArgument`` of ``ValueType/object``: each execute
/// puts the value in one box, which the table retains and releases as any
/// object (a queued delivery keeps it until delivered). A C handler sees the
/// box as an object (`@`) it may retain, keep and pass back to an execute;
/// a Swift handler gets the value back. Its `Optional` is an argument too,
/// `nil` travelling as the null object.
///
/// An event's payload argument carries one Swift type in a table: an
/// execute, by key or by name, whose value at that argument is of another
/// Swift type than its Swift handlers take throws
/// ``DispatchError/typeMismatch(_:)`` naming both types before any handler
/// runs. Scalars, strings and pointers are not payloads: they keep
/// travelling as their C types.
///
/// Declare the conformance on value types: a class is an argument as
/// itself (`extension Controller: EventArgument {}`), and a raw-value enum
/// as its raw value.
public protocol EventPayload: NullableEventArgument, Sendable {}

// Inlinable, so that each payload type's conformance is compiled where the
// type is known: its box's metadata is then found without a look-up by
// generic arguments on every execute.
extension EventPayload {
    /// A payload travels as an object, its box.
    @inlinable public static var valueType: ValueType { .object }

    /// The value in a new box: one allocation.
    @inlinable public var eventValue: Value { .object(PayloadBox(self)) }

    /// Takes a non-null object that is the box of a `Self`.
    @inlinable public init?(eventValue: Value) {
        guard let value = PayloadBox<Self>.value(in: eventValue) else { return nil }
        self = value
    }
}

// A collection of arguments travels as a payload, and is as safe to share
// between threads as its elements: `Sendable` where they are, and vouched
// for by a class's declaration of `EventArgument` where they are classes.
// (A conditional conformance cannot require `Sendable` of the elements.)

extension Array: EventArgument, NullableEventArgument where Element: EventArgument {
    public static var valueType: ValueType { .object }
    /// The array in a new box: one allocation.
    public var eventValue: Value { .object(PayloadBox(self)) }
    /// Takes a non-null object that is the box of an array of `Element`.
    public init?(eventValue: Value) {
        guard let value = PayloadBox<Self>.value(in: eventValue) else { return nil }
        self = value
    }
}

extension Set: EventArgument, NullableEventArgument where Element: EventArgument {
    public static var valueType: ValueType { .object }
    /// The set in a new box: one allocation.
    public var eventValue: Value { .object(PayloadBox(self)) }
    /// Takes a non-null object that is the box of a set of `Element`.
    public init?(eventValue: Value) {
        guard let value = PayloadBox<Self>.value(in: eventValue) else { return nil }
        self = value
    }
}

extension Dictionary: EventArgument, NullableEventArgument where Key: EventArgument, Value: EventArgument {
    public static var valueType: ValueType { .object }
    /// The dictionary in a new box: one allocation.
    public var eventValue: EventKitSwift.Value { .object(PayloadBox(self)) }
    /// Takes a non-null object that is the box of a dictionary of these
    /// key and value types.
    public init?(eventValue: EventKitSwift.Value) {
        guard let value = PayloadBox<Self>.value(in: eventValue) else { return nil }
        self = value
    }
}

/// The collections that travel as payloads.
protocol CollectionPayload {}
extension Array: CollectionPayload where Element: EventArgument {}
extension Set: CollectionPayload where Element: EventArgument {}
extension Dictionary: CollectionPayload where Key: EventArgument, Value: EventArgument {}

/// What every payload's box answers without its type: the Swift type it
/// holds.
@usableFromInline
class AnyPayloadBox: @unchecked Sendable {
    // @unchecked: no state here; the subclass holds an immutable Sendable
    // value.

    /// The type of the value inside.
    var payloadType: Any.Type { preconditionFailure("AnyPayloadBox.payloadType is overridden by PayloadBox") }

    @usableFromInline init() {}
}

/// The object a payload travels as. Immutable, so sharing it between the
/// threads an execute and its queued deliveries run on is as safe as
/// sharing its value.
@usableFromInline
final class PayloadBox<Payload>: AnyPayloadBox, CustomStringConvertible, @unchecked Sendable {
    // @unchecked: `Payload` is an EventPayload, Sendable, or a collection
    // of arguments (see above).
    @usableFromInline let value: Payload

    /// The payload `value` holds, if it is the box of a `Payload`.
    @inlinable
    static func value(in value: EventKitSwift.Value) -> Payload? {
        guard case .object(let object?) = value, let box = object as? PayloadBox<Payload> else { return nil }
        return box.value
    }

    @usableFromInline
    init(_ value: Payload) {
        self.value = value
    }

    override var payloadType: Any.Type { Payload.self }

    @usableFromInline var description: String { "\(Payload.self)" }
}

/// An `Optional` of a payload: the payload type a handler taking it takes.
protocol OptionalPayload {
    static var wrappedPayloadType: Any.Type? { get }
}

extension Optional: OptionalPayload where Wrapped: NullableEventArgument {
    static var wrappedPayloadType: Any.Type? { payloadType(of: Wrapped.self) }
}

/// The payload type `type` stands for, if it is a payload or an optional
/// payload.
func payloadType(of type: any EventArgument.Type) -> Any.Type? {
    if type is any EventPayload.Type || type is any CollectionPayload.Type { return type }
    if let optional = type as? any OptionalPayload.Type { return optional.wrappedPayloadType }
    return nil
}

/// The Swift payload types a table's handlers take, per event and argument,
/// so that an execute with a value of another type fails before any
/// handler runs. A handler's types are registered while its box lives,
/// which is as long as the table keeps the handler.
final class PayloadTypes: Sendable {
    /// One argument of one event (its name without a detail: handlers of
    /// `"notify"` run for `"notify::size"` too).
    struct Slot: Hashable {
        let event: String
        let index: Int
    }

    /// The types registered for a slot, with how many handlers take each.
    private let types = Mutex<[Slot: [ObjectIdentifier: (type: Any.Type, handlers: Int)]]>([:])

    /// How many slots have a type: an execute on a table with none skips
    /// the check with one load.
    private let slotCount = Atomic<Int>(0)

    /// The slots of `event`'s arguments `types` that take payloads, with
    /// their types.
    static func slots(of event: String, _ types: [any EventArgument.Type]) -> [(Slot, Any.Type)] {
        let base = baseEvent(event)
        return types.indices.compactMap { index in
            payloadType(of: types[index]).map { (Slot(event: base, index: index), $0) }
        }
    }

    /// Registers one handler taking `slots`.
    func add(_ slots: [(Slot, Any.Type)]) {
        types.withLock { types in
            for (slot, type) in slots {
                if types[slot] == nil { slotCount.add(1, ordering: .relaxed) }
                types[slot, default: [:]][ObjectIdentifier(type), default: (type, 0)].handlers += 1
            }
        }
    }

    /// Unregisters one handler taking `slots`.
    func remove(_ slots: [(Slot, Any.Type)]) {
        types.withLock { types in
            for (slot, type) in slots {
                let key = ObjectIdentifier(type)
                guard var registered = types[slot], let entry = registered[key] else { continue }
                if entry.handlers > 1 {
                    registered[key]!.handlers -= 1
                } else {
                    registered[key] = nil
                }
                types[slot] = registered.isEmpty ? nil : registered
                if registered.isEmpty { slotCount.subtract(1, ordering: .relaxed) }
            }
        }
    }

    /// Throws when argument `index` of an execute of `event` is an object
    /// that is not of the payload type its handlers take.
    @inline(__always)
    func check(_ event: String, _ value: Value, at index: Int) throws(DispatchError) {
        guard slotCount.load(ordering: .relaxed) != 0, case .object(let object?) = value else { return }
        try checkSlow(event, object, at: index)
    }

    /// `check` for each of `values`.
    @inline(__always)
    func check(_ event: String, _ values: [Value]) throws(DispatchError) {
        guard slotCount.load(ordering: .relaxed) != 0 else { return }
        for index in values.indices {
            guard case .object(let object?) = values[index] else { continue }
            try checkSlow(event, object, at: index)
        }
    }

    @inline(never)
    private func checkSlow(_ event: String, _ object: AnyObject, at index: Int) throws(DispatchError) {
        let sent: Any.Type = (object as? AnyPayloadBox)?.payloadType ?? type(of: object)
        let slot = Slot(event: Self.baseEvent(event), index: index)
        let expected = types.withLock { types in
            types[slot]?.values.first { $0.type != sent }?.type
        }
        guard let expected else { return }
        throw DispatchError(
            status: DC_ERR_TYPE,
            message: "event \"\(event)\": argument \(index): its handlers take \(expected), got \(sent)")!
    }

    /// `event` without its detail.
    static func baseEvent(_ event: String) -> String {
        // A scan of the bytes: `firstRange(of:)` costs an execute many
        // times what the rest of it does.
        var event = event
        let separator = event.withUTF8 { bytes -> Int? in
            var index = 1
            while index < bytes.count {
                if bytes[index] == UInt8(ascii: ":") && bytes[index - 1] == UInt8(ascii: ":") { return index - 1 }
                index += 1
            }
            return nil
        }
        guard let separator else { return event }
        return String(decoding: event.utf8.prefix(separator), as: UTF8.self)
    }
}
