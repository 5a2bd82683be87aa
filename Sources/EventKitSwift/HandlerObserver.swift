internal import CDispatchCore
import Synchronization

/// A handler added to, or removed from, a table: what a handler observer
/// (``CommandTable/observeHandlers(_:)``) is told.
///
/// The corresponding C type is `dc_table_change`. Replaces Node's
/// `'newListener'` and `'removeListener'` events.
public struct HandlerChange: Hashable, Sendable, CustomStringConvertible {
    /// What happened to a handler.
    public enum Kind: Hashable, Sendable {
        /// It was added (not when adding kept one there already).
        case added
        /// It was removed, in any way: cancelled, pruned with its target,
        /// run once, or removed with its event or target.
        case removed
    }

    /// What happened.
    public let kind: Kind
    /// The key the handler was added with: its event's name, or a detailed
    /// key (`"notify::size"`).
    public let event: String
    /// The handler's id.
    public let handler: HandlerID

    /// A change of `kind` to `handler`, added with the key `event`.
    ///
    /// - Parameters:
    ///   - kind: What happened.
    ///   - event: The key the handler was added with.
    ///   - handler: The handler's id.
    public init(_ kind: Kind, event: String, handler: HandlerID) {
        self.kind = kind
        self.event = event
        self.handler = handler
    }

    public var description: String {
        "\(kind == .added ? "added" : "removed") \(handler) \"\(event)\""
    }
}

extension CommandTable {
    /// Calls `observer` after each handler added to or removed from this
    /// table, for as long as the returned subscription lives: Node's
    /// `'newListener'` and `'removeListener'`, after the fact.
    ///
    /// ```swift
    /// let watching = table.observeHandlers { change in
    ///     if change.kind == .added, change.event == "data" { startReading() }
    /// }
    /// ```
    ///
    /// The observer runs on the thread that added or removed the handler,
    /// before that call returns, with no lock held: it may add and remove
    /// handlers (it is told of those too) and execute events, as a handler
    /// may. It is told of every way a handler goes (cancelled, pruned with
    /// its dead target or owner, run once, removed with its event, its
    /// target or the table's ``removeAll()``) except the table's own end,
    /// and of none of its own subscription's. Observers run in the order they
    /// were added; once the subscription's ``Registration/cancel()`` has
    /// returned, the observer is not called again, not even by a change
    /// being told on another thread.
    ///
    /// - Parameter observer: Called with each change.
    /// - Returns: The subscription that keeps the observer.
    ///
    /// The corresponding C function is `dc_table_set_observer`, whose one
    /// observer this table sets once and fans out to every Swift observer.
    public func observeHandlers(_ observer: @escaping @Sendable (HandlerChange) -> Void) -> Subscription {
        let observers = handlerObservers.withLock { installed in
            if let installed { return installed }
            let created = HandlerObservers(tableName: name)
            let status = dc_table_set_observer(
                cTable, HandlerObservers.observe, Unmanaged.passRetained(created).toOpaque(),
                HandlerObservers.release)
            // Only running out of memory fails here, which Swift treats as fatal.
            precondition(
                status == DC_OK, "dc_table_set_observer failed: \(String(cString: dc_last_error_message()))")
            installed = created
            return created
        }
        let registered = observers.table.on(HandlerObservers.changed) { added, handler, event in
            observer(HandlerChange(added ? .added : .removed, event: event, handler: HandlerID(rawValue: handler)))
        }
        // Its own subscription, whose handler is no handler of this table.
        return Subscription { registered.cancel() }
    }
}

/// The one C observer of a table, which tells each change to the table's
/// Swift observers: handlers of an event of a table of its own, so that
/// they run in order and keep every promise a table's handlers keep
/// (removal never late, re-entrancy, threads).
final class HandlerObservers: Sendable {
    /// The observers' table, one event: a change, as (added, handler id,
    /// the key the handler was added with).
    let table: CommandTable
    static let changed: EventKey<(Bool, UInt64, String)> = "changed"

    init(tableName: String) {
        table = CommandTable(name: "\(tableName) observers")
    }

    static let observe: dc_table_observer = { data, cTable, change, event, handler in
        Unmanaged<HandlerObservers>.fromOpaque(data!)._withUnsafeGuaranteedRef { observers in
            var name: UnsafePointer<CChar>?
            _ = dc_table_event_name(cTable, event, &name)
            // Observers throw nothing; an execute nested too deeply runs none.
            _ = try? observers.table.execute(
                changed, change == DC_HANDLER_ADDED, handler, name.map { String(cString: $0) } ?? "")
        }
    }

    static let release: @convention(c) (UnsafeMutableRawPointer?) -> Void = { data in
        Unmanaged<HandlerObservers>.fromOpaque(data!).release()
    }
}
