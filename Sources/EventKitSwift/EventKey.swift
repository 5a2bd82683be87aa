internal import CDispatchCore
internal import CDispatchCoreBinding
import Synchronization

/// The name of an event together with the types of its arguments, so the
/// compiler checks every execute and every handler of it.
///
/// Declare keys as static members, constrained to their arguments, and use
/// them with a leading dot:
///
/// ```swift
/// extension EventKey where Arguments == Void {
///     static let reset: EventKey<Void> = "reset"
/// }
/// extension EventKey where Arguments == Bool {
///     static let toggle: EventKey<Bool> = "toggle"
/// }
/// extension EventKey where Arguments == (String, Int) {
///     static let rename: EventKey<(String, Int)> = "rename"
/// }
///
/// table.on(.toggle) { (on: Bool) in print("toggle", on) }.store(in: &subscriptions)
/// try table.execute(.toggle, true)
/// try table.execute(.rename, "track", 3)
/// ```
///
/// `Arguments` is `Void`, one ``EventArgument`` type (a class too, once it
/// declares the conformance), or a tuple of any number of them; the closures
/// of `on` and the arguments of `execute` take their types from the key, so
/// a closure needs no annotation. A wrong or missing argument does not
/// compile:
///
/// ```swift
/// try table.execute(.toggle, "yes")   // error: cannot convert value of type 'String' to 'Bool'
/// ```
///
/// while the string API, which cannot know, checks at run time: with a
/// handler of `.toggle` registered, `try table.execute("toggle", "yes")`
/// throws ``DispatchError/typeMismatch(_:)`` and runs no handler. A key and
/// its name are the same event: handlers registered either way run for
/// executes made either way, from Swift or from C.
///
/// A key remembers its event in the table it was last used with (the
/// interned id, and where the C core keeps the event), so a typed execute
/// skips hashing the name and looking the event up. A string literal has one
/// key for the life of the process, so `table.execute("resize", w, h)` in a
/// loop remembers too; a key made with ``init(_:)`` from a name each time
/// does not: keep such keys in static members.
///
/// The corresponding C functions are `dc_table_intern` and
/// `dc_table_execute_id`. Replaces `NSNotification.Name` constants and
/// `@selector` values, with the argument types checked.
public struct EventKey<Arguments>: Hashable, Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The event's name and the event as a table interned it, remembered
    /// per table: one reference, so a key is one word to load and pass.
    @usableFromInline let storage: EventKeyStorage

    /// The event's name, as the string API and C callers spell it.
    public var name: String { storage.name }

    /// A key for the event `name`.
    public init(_ name: String) {
        storage = EventKeyStorage(name)
    }

    /// A key for the event the literal names: one key per literal for the
    /// life of the process, so a literal where a key is expected costs no
    /// allocation and finds the event the key remembers, however often the
    /// code runs.
    public init(stringLiteral literal: StaticString) {
        storage = EventKeyStorage(literal: literal)
    }

    /// A key for the event the interpolated string names, made each time.
    public init(stringInterpolation: EventKeyInterpolation) {
        self.init(stringInterpolation.name)
    }

    /// The event's name.
    public var description: String { name }

    /// The key of this event with `detail`, of the same argument types:
    /// `"notify"` with the detail `"size"` is `"notify::size"`, as in GLib.
    ///
    /// ```swift
    /// extension EventKey where Arguments == Int {
    ///     static let notify: EventKey<Int> = "notify"
    ///     static let notifySize = EventKey.notify.detail("size")
    /// }
    /// table.on(.notify) { value in print("any property", value) }
    /// table.on(.notifySize) { value in print("size", value) }
    /// try table.execute(.notifySize, 12)   // runs both
    /// try table.execute(.notify, 12)       // runs the first only
    /// ```
    ///
    /// Executing a detailed key runs the event's handlers added without a
    /// detail and those added with that detail, in one registration order,
    /// after one check of the arguments against all of them; executing the
    /// event without a detail runs only those added without one. The string
    /// API takes `"notify::size"` as it is, and C callers the same key.
    ///
    /// A detail is not checked here: a malformed one (empty, or holding
    /// `"::"` or a `:` next to the separator, or added to a key that has a
    /// detail already) makes a key every execute of which throws
    /// ``DispatchError/invalidArgument(_:)``, and with which `on` registers
    /// nothing (see ``CommandTable/on(_:on:options:phase:_:)-(EventKey<Void>,_,_,_,_)``).
    /// A detailed key interns to an id of its own: keep it in a static
    /// member, as other keys, rather than making one for each call.
    ///
    /// - Parameter detail: The detail, such as a property's name.
    /// - Returns: The key `"event::detail"`.
    public func detail(_ detail: String) -> EventKey<Arguments> {
        EventKey(name + "::" + detail)
    }

    /// Keys are equal when their names are: they stand for the same event.
    public static func == (lhs: EventKey, rhs: EventKey) -> Bool {
        lhs.name == rhs.name
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
    }
}

/// The name an interpolated string literal makes for an ``EventKey``,
/// each value written as `String(describing:)` writes it: `"row.\(index)"`.
public struct EventKeyInterpolation: StringInterpolationProtocol, Sendable {
    /// The name so far.
    var name = ""

    public init(literalCapacity: Int, interpolationCount: Int) {
        name.reserveCapacity(literalCapacity + 8 * interpolationCount)
    }

    public mutating func appendLiteral(_ literal: StaticString) {
        name += literal.description
    }

    public mutating func appendInterpolation<Value>(_ value: Value) {
        name += String(describing: value)
    }
}

/// What a key holds: its event's name, and the event as the table that last
/// used the key interned it, in the C core's cache for bindings
/// (`dc__event_cache`, which says how it stays right when several tables use
/// one key). Both live in one allocation, the cache after the name; a string
/// literal's is made once and kept (`dc__literal_key`).
@usableFromInline
struct EventKeyStorage: @unchecked Sendable {
    // @unchecked: the cache is only read and written through the C core's
    // atomic functions; the name is constant.
    @usableFromInline let buffer: EventKeyBuffer

    /// The storage kept for `literal` (`dc__literal_key`), made and kept on
    /// its first use; made each time when it cannot be kept.
    init(literal: StaticString) {
        buffer = Self.keptBuffer(of: literal)
    }

    private static func keptBuffer(of literal: StaticString) -> EventKeyBuffer {
        guard literal.hasPointerRepresentation else { return EventKeyStorage(literal.description).buffer }
        let address = UnsafeRawPointer(literal.utf8Start)
        if let kept = dc__literal_key(address) {
            return Unmanaged<EventKeyBuffer>.fromOpaque(kept).takeUnretainedValue()
        }
        let made = EventKeyStorage(literal.description).buffer
        // The reference the kept key holds, given back unless it was kept.
        let offered = Unmanaged.passRetained(made)
        let kept = dc__literal_key_keep(address, offered.toOpaque())
        if kept != offered.toOpaque() { offered.release() }
        return kept.map { Unmanaged<EventKeyBuffer>.fromOpaque($0).takeUnretainedValue() } ?? made
    }

    /// Storage for the event `name`, its cache zeroed, which is empty.
    init(_ name: String) {
        let words = (MemoryLayout<dc__event_cache>.size + 7) / 8
        buffer = unsafeDowncast(EventKeyBuffer.create(minimumCapacity: words) { _ in name }, to: EventKeyBuffer.self)
        buffer.withUnsafeMutablePointerToElements { elements in
            elements.initialize(repeating: 0, count: words)
            _ = UnsafeMutableRawPointer(elements).bindMemory(to: dc__event_cache.self, capacity: 1)
        }
    }

    /// The event's name, read through its address: `header`, a class's
    /// stored `var`, would check exclusive access on every read.
    var name: String { buffer.withUnsafeMutablePointerToHeader { $0.pointee } }

    /// The event as the table with `serial` interned it, if that table is the
    /// one remembered.
    @inline(__always)
    func event(inTable serial: UInt64) -> dc__cached_event {
        buffer.withUnsafeMutablePointerToElements { dc__event_cache_find(Self.cache($0), serial) }
    }

    /// Remembers `event` as the table with `serial` interned it, unless
    /// another thread is remembering one at the same time (the key then keeps
    /// that one).
    func remember(_ event: InternedEvent, inTable serial: UInt64) {
        buffer.withUnsafeMutablePointerToElements { dc__event_cache_remember(Self.cache($0), serial, event.record) }
    }

    /// The cache in the buffer's elements, bound to it when it was made.
    @inline(__always)
    private static func cache(_ elements: UnsafeMutablePointer<UInt64>) -> UnsafeMutablePointer<dc__event_cache> {
        UnsafeMutableRawPointer(elements).assumingMemoryBound(to: dc__event_cache.self)
    }
}

/// A key's one allocation: its name, then the words of its cache.
@usableFromInline
final class EventKeyBuffer: ManagedBuffer<String, UInt64> {}

/// An event as one table interned it: its record there, which holds its id.
struct InternedEvent {
    let record: UnsafePointer<dc__event_record>

    var id: dc_event_id { dc__event_record_id(record) }
}

extension CommandTable {
    /// The interned id of `key`'s event in this table, remembered in the key
    /// when this table was the last to use it.
    ///
    /// - Throws: ``DispatchError/outOfMemory(_:)`` when interning fails.
    func eventID<Arguments>(for key: EventKey<Arguments>) throws(DispatchError) -> dc_event_id {
        try event(of: key.storage).id
    }

    /// `key`'s event in this table, remembered in `key`.
    @inline(__always)
    func event(of key: EventKeyStorage) throws(DispatchError) -> InternedEvent {
        let found = key.event(inTable: serial)
        // A found event has a record: no second test of it.
        if _fastPath(found.found) { return InternedEvent(record: found.record.unsafelyUnwrapped) }
        return try internAndRemember(key)
    }

    /// The first use of a key with this table. Out of line, so that a typed
    /// execute, which inlines `event(of:)`, stays short.
    @inline(never)
    private func internAndRemember(_ key: EventKeyStorage) throws(DispatchError) -> InternedEvent {
        let id = try eventID(named: key.name)
        // An interned event has a record, which lives as long as the table;
        // finding it takes this thread's execute record, which may not exist
        // yet.
        guard let record = dc__event_record_of(cTable, id) else {
            throw DispatchError.outOfMemory("table \(name), event \"\(key.name)\": no memory for this thread")
        }
        let event = InternedEvent(record: record)
        key.remember(event, inTable: serial)
        return event
    }

    /// The interned id of the event `name` in this table.
    func eventID(named name: String) throws(DispatchError) -> dc_event_id {
        var id: dc_event_id = 0
        try DispatchError.check(dc_table_intern(cTable, name, &id))
        return id
    }
}
