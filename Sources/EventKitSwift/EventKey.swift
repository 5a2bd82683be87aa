internal import CDispatchCore
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
/// `Arguments` is `Void`, one ``EventArgument`` type, a class, or a tuple of
/// two or three ``EventArgument`` types. A wrong argument does not compile:
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
/// A key remembers the event's interned id in the table it was last used with,
/// so a typed execute skips hashing the name: keep keys in static members
/// rather than making a new one for each call.
///
/// The corresponding C functions are `dc_table_intern` and
/// `dc_table_execute_id`. Replaces `NSNotification.Name` constants and
/// `@selector` values, with the argument types checked.
public struct EventKey<Arguments>: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The event's name and its interned id, remembered per table: one
    /// reference, so a key is one word to load and pass.
    @usableFromInline let storage: EventKeyStorage

    /// The event's name, as the string API and C callers spell it.
    public var name: String { storage.name }

    /// A key for the event `name`.
    public init(_ name: String) {
        storage = EventKeyStorage(name)
    }

    /// A key for the event the literal names.
    public init(stringLiteral name: String) {
        self.init(name)
    }

    /// The event's name.
    public var description: String { name }

    /// Keys are equal when their names are: they stand for the same event.
    public static func == (lhs: EventKey, rhs: EventKey) -> Bool {
        lhs.name == rhs.name
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
    }
}

/// What a key holds: its event's name, and the id the event was interned as
/// in the table that last used the key, packed with that table's serial in
/// one atomic word so that a reader never pairs one table's serial with
/// another table's id.
///
/// A key shared by several tables stays correct: a lookup for a table other
/// than the remembered one interns the name there and remembers that table
/// instead.
@usableFromInline
final class EventKeyStorage: Sendable {
    let name: String
    private let packed = Atomic<UInt64>(0)

    init(_ name: String) {
        self.name = name
    }

    /// The remembered id, if it belongs to the table with `serial`.
    func id(forTable serial: UInt32) -> dc_event_id? {
        let packed = packed.load(ordering: .relaxed)
        guard UInt32(truncatingIfNeeded: packed >> 32) == serial else { return nil }
        return dc_event_id(truncatingIfNeeded: packed)
    }

    func remember(_ id: dc_event_id, forTable serial: UInt32) {
        packed.store(UInt64(serial) << 32 | UInt64(id), ordering: .relaxed)
    }
}

extension CommandTable {
    /// The interned id of `key`'s event in this table, remembered in the key
    /// when this table was the last to use it.
    ///
    /// - Throws: ``DispatchError/outOfMemory(_:)`` when interning fails.
    func eventID<Arguments>(for key: EventKey<Arguments>) throws(DispatchError) -> dc_event_id {
        try eventID(of: key.storage)
    }

    /// The interned id of `key`'s event in this table, remembered in `key`.
    func eventID(of key: EventKeyStorage) throws(DispatchError) -> dc_event_id {
        if let id = key.id(forTable: serial) { return id }
        return try internAndRemember(key)
    }

    /// The first use of a key with this table. Out of line, so that a typed
    /// execute, which inlines `eventID(of:)`, stays short.
    @inline(never)
    private func internAndRemember(_ key: EventKeyStorage) throws(DispatchError) -> dc_event_id {
        let id = try eventID(named: key.name)
        key.remember(id, forTable: serial)
        return id
    }

    /// The interned id of the event `name` in this table.
    func eventID(named name: String) throws(DispatchError) -> dc_event_id {
        var id: dc_event_id = 0
        try DispatchError.check(dc_table_intern(cTable, name, &id))
        return id
    }
}
