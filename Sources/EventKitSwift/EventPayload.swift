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
/// runs; an execute from C fails the same way, with `DC_ERR_TYPE`.
/// Scalars, strings and pointers are not payloads: they keep
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

    /// The box that `cValue`, a handler's C argument, holds, if it is an
    /// object that is a payload's box.
    @inline(__always)
    static func box(in cValue: dc_value) -> AnyPayloadBox? {
        guard cValue.type == DC_TYPE_OBJECT, let object = cValue.object else { return nil }
        return Unmanaged<AnyObject>.fromOpaque(object).takeUnretainedValue() as? AnyPayloadBox
    }

    /// Whether the value inside is a `T`.
    @inline(__always)
    final func holds<T>(_: T.Type) -> Bool {
        ObjectIdentifier(payloadType) == ObjectIdentifier(T.self)
    }

    /// The value inside, which is a `T` (`holds(T.self)`): a copy, with no
    /// `Optional<T>` or temporary of `T` around it, so that an unspecialized
    /// caller looks no metadata up.
    func payload<T>(as _: T.Type) -> T {
        preconditionFailure("AnyPayloadBox.payload(as:) is overridden by PayloadBox")
    }
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

    override func payload<T>(as _: T.Type) -> T {
        _identityCast(value, to: T.self)
    }

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

/// The class of the box a `Payload` travels in: what an execute's object
/// is compared with, by its class alone.
private func boxClass<Payload>(of _: Payload.Type) -> ObjectIdentifier {
    ObjectIdentifier(PayloadBox<Payload>.self)
}

/// The Swift payload types a table's handlers take, per event and argument,
/// so that an execute with a value of another type fails before any
/// handler runs. A handler's types are registered while its box lives,
/// which is as long as the table keeps the handler.
///
/// An execute by typed key reads what it checks without a lock or a hash:
/// each registration publishes, for the event it changed, one word per
/// argument (the class of the box the argument's handlers take), and the
/// execute finds that list through its event's interned id. Executes by
/// name take the lock and hash the name.
final class PayloadTypes: Sendable {
    /// One argument of one event (its name without a detail: handlers of
    /// `"notify"` run for `"notify::size"` too).
    struct Slot: Hashable {
        let event: String
        let index: Int
    }

    /// A type registered for a slot: the type, its box's class, and how
    /// many handlers take it.
    private struct Registered {
        let type: Any.Type
        let box: ObjectIdentifier
        var handlers: Int
    }

    /// What the lock guards. The memory behind `Published` lists, event
    /// cells and directories is never freed before the table goes, so a
    /// reader holding an address read a moment ago never finds it freed.
    private struct State: ~Copyable {
        /// The types registered for each event's arguments, by event and
        /// index, then by type.
        var types: [String: [Int: [ObjectIdentifier: Registered]]] = [:]
        /// Each event's cell, by its name without a detail.
        var cells: [String: Published.Cell] = [:]
        /// Every list published, one for each different content.
        var lists: [[UInt]: Published.List] = [:]
        /// Directories replaced by a larger one.
        var retired: [Published.Directory] = []

        deinit {
            for cell in cells.values { cell.free() }
            for list in lists.values { list.free() }
            for directory in retired { directory.free() }
        }
    }

    private let state = Mutex(State())

    /// Event ids to their events' cells, for executes by typed key.
    private let directory = Published.DirectoryReference()

    /// How many handlers take a payload: an execute on a table with none
    /// skips the check with one load.
    private let handlerCount = Atomic<Int>(0)

    /// Whether no handler takes a payload.
    var isEmpty: Bool {
        @inline(__always) get { handlerCount.load(ordering: .relaxed) == 0 }
    }

    deinit {
        directory.free()
    }

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
        state.withLock { state in
            for (slot, type) in slots {
                let key = ObjectIdentifier(type)
                state.types[slot.event, default: [:]][slot.index, default: [:]][
                    key, default: Registered(type: type, box: boxClass(of: type), handlers: 0)
                ].handlers += 1
            }
            publish(Set(slots.map(\.0.event)), in: &state)
        }
        handlerCount.add(1, ordering: .relaxed)
    }

    /// Unregisters one handler taking `slots`.
    func remove(_ slots: [(Slot, Any.Type)]) {
        handlerCount.subtract(1, ordering: .relaxed)
        state.withLock { state in
            for (slot, type) in slots {
                let key = ObjectIdentifier(type)
                guard var registered = state.types[slot.event]?[slot.index]?[key] else { continue }
                registered.handlers -= 1
                state.types[slot.event]![slot.index]![key] = registered.handlers > 0 ? registered : nil
                if state.types[slot.event]![slot.index]!.isEmpty { state.types[slot.event]![slot.index] = nil }
                if state.types[slot.event]!.isEmpty { state.types[slot.event] = nil }
            }
            publish(Set(slots.map(\.0.event)), in: &state)
        }
    }

    /// Publishes what an execute of each of `events` checks: per argument,
    /// the one box class its handlers take, `Published.anyClass` where none
    /// takes a payload, `Published.noClass` where they take several types
    /// (every execute fails there).
    private func publish(_ events: Set<String>, in state: inout State) {
        for event in events {
            let arguments = state.types[event] ?? [:]
            var classes = [UInt](repeating: Published.anyClass, count: (arguments.keys.max() ?? -1) + 1)
            for (index, types) in arguments {
                classes[index] = types.count == 1 ? UInt(bitPattern: types.first!.value.box) : Published.noClass
            }
            let list: Published.List?
            if classes.isEmpty {
                list = nil
            } else if let existing = state.lists[classes] {
                list = existing
            } else {
                let made = Published.List(classes)
                state.lists[classes] = made
                list = made
            }
            cell(of: event, in: &state).publish(list)
        }
    }

    /// The cell of `event` (a name without a detail), made on first use.
    private func cell(of event: String, in state: inout State) -> Published.Cell {
        if let cell = state.cells[event] { return cell }
        let cell = Published.Cell()
        state.cells[event] = cell
        return cell
    }

    /// Throws when `object`, argument `index` of an execute of the event
    /// with interned id `id`, named `event`, is not of the payload type its
    /// handlers take.
    @inline(__always)
    func check(_ key: EventKeyStorage, id: dc_event_id, _ object: AnyObject, at index: Int) throws(DispatchError) {
        let cell = directory.cell(at: Int(id))
        guard let cell, cell.accepts(ObjectIdentifier(type(of: object)), at: index) else {
            // The name only here: reading it is a retain and a release.
            try checkMissed(key.name, id: id, object, at: index, known: cell != nil)
            return
        }
    }

    /// `check` where the event's cell is not in the directory yet, or the
    /// object is not of the type the cell says: enters the cell, then checks
    /// under the lock, which names the types in its error.
    @inline(never)
    private func checkMissed(
        _ event: String, id: dc_event_id, _ object: AnyObject, at index: Int, known: Bool
    ) throws(DispatchError) {
        if !known {
            state.withLock { state in
                directory.enter(cell(of: Self.baseEvent(event), in: &state), at: Int(id), retiring: &state.retired)
            }
        }
        try checkSlow(event, object, at: index)
    }

    /// Throws when argument `index` of an execute of `event` is an object
    /// that is not of the payload type its handlers take: an execute by
    /// name's check.
    @inline(__always)
    func check(_ event: String, _ value: Value, at index: Int) throws(DispatchError) {
        guard !isEmpty, case .object(let object?) = value else { return }
        try checkSlow(event, object, at: index)
    }

    /// `check` for each of `values`.
    @inline(__always)
    func check(_ event: String, _ values: [Value]) throws(DispatchError) {
        guard !isEmpty else { return }
        for index in values.indices {
            guard case .object(let object?) = values[index] else { continue }
            try checkSlow(event, object, at: index)
        }
    }

    @inline(never)
    private func checkSlow(_ event: String, _ object: AnyObject, at index: Int) throws(DispatchError) {
        guard let refusal = refusal(of: object, at: index, event: event) else { return }
        throw DispatchError(status: DC_ERR_TYPE, message: refusal)!
    }

    /// Why `object`, argument `index` of an execute of `event`, is not of the
    /// payload type the event's handlers take there; `nil` when it is, or
    /// when no handler takes a payload there.
    func refusal(of object: AnyObject, at index: Int, event: String) -> String? {
        let sent: Any.Type = (object as? AnyPayloadBox)?.payloadType ?? type(of: object)
        let base = Self.baseEvent(event)
        let expected = state.withLock { state in
            state.types[base]?[index]?.values.first { $0.type != sent }?.type
        }
        guard let expected else { return nil }
        return "event \"\(event)\": argument \(index): its handlers take \(expected), got \(sent)"
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

/// The memory an execute by typed key reads its payload check from, without
/// a lock: words written under `PayloadTypes`' lock and published with
/// release stores, read with acquire loads. Nothing here is freed before the
/// `PayloadTypes` that made it.
enum Published {
    /// An argument no handler takes a payload at.
    static let anyClass: UInt = 0
    /// An argument whose handlers take more than one payload type: no box
    /// class is this.
    static let noClass: UInt = 1

    /// One event's list of box classes, by argument, immutable once made:
    /// its count, then one word per argument.
    struct List: @unchecked Sendable {
        let words: UnsafeMutablePointer<UInt>

        init(_ classes: [UInt]) {
            words = .allocate(capacity: classes.count + 1)
            words.initialize(to: UInt(classes.count))
            (words + 1).initialize(from: classes, count: classes.count)
        }

        func free() {
            words.deallocate()
        }
    }

    /// One event's current list: its address, or 0 while none of the
    /// event's handlers takes a payload.
    struct Cell: @unchecked Sendable {
        let word: UnsafeMutablePointer<Atomic<UInt>>

        init() {
            word = .allocate(capacity: 1)
            word.initialize(to: Atomic(0))
        }

        init(address: UInt) {
            word = UnsafeMutablePointer(bitPattern: address).unsafelyUnwrapped
        }

        var address: UInt { UInt(bitPattern: word) }

        func publish(_ list: List?) {
            word.pointee.store(list.map { UInt(bitPattern: $0.words) } ?? 0, ordering: .releasing)
        }

        /// Whether an object of class `box` fits argument `index`.
        @inline(__always)
        func accepts(_ box: ObjectIdentifier, at index: Int) -> Bool {
            let address = word.pointee.load(ordering: .acquiring)
            guard address != 0 else { return true }
            let words = UnsafePointer<UInt>(bitPattern: address).unsafelyUnwrapped
            guard UInt(bitPattern: index) < words[0] else { return true }
            let expected = words[1 + index]
            return expected == Published.anyClass || expected == UInt(bitPattern: box)
        }

        func free() {
            word.deinitialize(count: 1)
            word.deallocate()
        }
    }

    /// Event ids to cells: word 0 holds the capacity, word `id` the address
    /// of event `id`'s cell or 0 (ids start at 1).
    struct Directory: @unchecked Sendable {
        let words: UnsafeMutablePointer<Atomic<UInt>>

        init(capacity: Int, copying old: Directory?) {
            words = .allocate(capacity: capacity)
            words.initialize(to: Atomic(UInt(capacity)))
            for id in 1..<capacity {
                let entry = old.flatMap { old in id < old.capacity ? old.words[id].load(ordering: .relaxed) : nil }
                (words + id).initialize(to: Atomic(entry ?? 0))
            }
        }

        var capacity: Int { Int(words[0].load(ordering: .relaxed)) }

        func free() {
            words.deinitialize(count: capacity)
            words.deallocate()
        }
    }

    /// The directory in use, replaced by a larger copy when an id does not
    /// fit.
    final class DirectoryReference: Sendable {
        private let address = Atomic<UInt>(0)

        /// The cell of event `id`, if entered.
        @inline(__always)
        func cell(at id: Int) -> Cell? {
            let address = address.load(ordering: .acquiring)
            guard address != 0 else { return nil }
            let words = UnsafeMutablePointer<Atomic<UInt>>(bitPattern: address).unsafelyUnwrapped
            guard id < Int(words[0].load(ordering: .relaxed)) else { return nil }
            let cell = words[id].load(ordering: .acquiring)
            return cell == 0 ? nil : Cell(address: cell)
        }

        /// Enters `cell` as event `id`'s; a directory it replaces goes to
        /// `retired`. Called under `PayloadTypes`' lock.
        func enter(_ cell: Cell, at id: Int, retiring retired: inout [Directory]) {
            let current = current()
            var directory = current
            if directory == nil || id >= directory!.capacity {
                let grown = Directory(capacity: max(16, (id + 1).nextPowerOfTwo), copying: current)
                address.store(UInt(bitPattern: grown.words), ordering: .releasing)
                if let current { retired.append(current) }
                directory = grown
            }
            directory!.words[id].store(cell.address, ordering: .releasing)
        }

        private func current() -> Directory? {
            let address = address.load(ordering: .acquiring)
            guard address != 0 else { return nil }
            return Directory(words: UnsafeMutablePointer(bitPattern: address).unsafelyUnwrapped)
        }

        func free() {
            current()?.free()
        }
    }
}

extension Published.Directory {
    init(words: UnsafeMutablePointer<Atomic<UInt>>) {
        self.words = words
    }
}

private extension Int {
    /// The least power of two not below this (which is positive).
    var nextPowerOfTwo: Int { 1 << (Int.bitWidth - (self - 1).leadingZeroBitCount) }
}

extension CommandTable {
    /// Throws when `value`, argument `index` of an execute of `key`, is an
    /// object that is not of the payload type the event's handlers take:
    /// the typed execute's check, which reads no lock and hashes nothing
    /// once the event has been checked before.
    @inline(__always)
    func checkPayload(_ key: EventKeyStorage, _ value: Value, at index: Int) throws(DispatchError) {
        guard !payloadTypes.isEmpty, case .object(let object?) = value else { return }
        try payloadTypes.check(key, id: event(of: key).id, object, at: index)
    }

    /// `checkPayload` for each of `values`.
    func checkPayloads(_ key: EventKeyStorage, _ values: [Value]) throws(DispatchError) {
        guard !payloadTypes.isEmpty else { return }
        for index in values.indices {
            try checkPayload(key, values[index], at: index)
        }
    }
}
