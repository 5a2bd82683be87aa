internal import CDispatchCore
internal import CDispatchCoreBinding
import Logging

/// One execute as an emission hook sees it: the key executed, its event and
/// detail, and the arguments, once they have been checked and before any
/// handler runs.
///
/// The corresponding C type is `dc_emission`.
public struct Emission: CustomStringConvertible {
    /// The key executed: `"notify::size"`, or `"notify"` without a detail.
    public let key: String
    /// The event's name: `"notify"`.
    public let event: String
    /// The detail: `"size"`; `nil` when the execute had none.
    public let detail: String?
    /// The arguments the execute carries, as given (a struct as a copy of
    /// the size it was given with, or, from a C caller that gave none, as
    /// ``Value/pointer(_:)`` to its bytes, valid only during the hook).
    public let arguments: [Value]

    public var description: String {
        "Emission(\"\(key)\", \(arguments.count) argument\(arguments.count == 1 ? "" : "s"))"
    }

    /// The emission the C core describes.
    init(_ emission: dc_emission) {
        key = String(cString: emission.key)
        event = String(
            decoding: UnsafeRawBufferPointer(start: emission.key, count: emission.event_length), as: UTF8.self)
        detail = emission.detail.map { String(cString: $0) }
        arguments = (0..<emission.count).map { Value(emission.arguments[$0]) }
    }
}

extension CommandTable {
    /// Calls `hook` once per execute of `event` (`nil`: of every event of
    /// the table), before the execute's handlers run, for as long as the
    /// returned subscription lives: how tracing and logging see every event
    /// without touching its handlers.
    ///
    /// ```swift
    /// let tracing = try table.addEmissionHook { emission in
    ///     print("executing", emission.key, emission.arguments)
    ///     return true   // stay installed
    /// }
    /// ```
    ///
    /// A hook on an event sees its executes with any detail; one on a
    /// detailed key (`"notify::size"`) only those of that key. It runs on the
    /// executing thread, after the arguments were checked (an execute that
    /// fails that check calls no hook) and before the first handler, however
    /// the execute was made: by name or typed key, from Swift or from C.
    /// Hooks run in the order they were added; one added while an execute is
    /// running is called from the next execute on.
    ///
    /// What the hook returns says whether it stays: returning `false` removes
    /// it, as GLib's emission hooks are removed. A hook that throws is
    /// removed too, and the execute that called it throws the error having
    /// run no handler, as when a handler throws (an execute made from C,
    /// which cannot receive a Swift error, runs no handler and drops it).
    ///
    /// The hook may use the table as a handler may: execute, add and remove.
    /// Once the subscription's ``Registration/cancel()`` has returned, the
    /// hook is not called again, not even by an execute already running on
    /// another thread. An event that a hook watches takes the general
    /// execute, so a hook costs only the events it watches.
    ///
    /// - Parameters:
    ///   - event: The event's name or a detailed key; `nil` for every event.
    ///   - hook: Called with each execute; returns whether it stays.
    /// - Returns: The subscription that keeps the hook installed.
    /// - Throws: ``DispatchError/invalidArgument(_:)`` for a malformed key.
    ///
    /// The corresponding C function is `dc_table_add_emission_hook`.
    /// Replaces `g_signal_add_emission_hook`.
    public func addEmissionHook(
        for event: String? = nil, _ hook: @escaping @Sendable (Emission) throws -> Bool
    ) throws(DispatchError) -> Subscription {
        try addRawEmissionHook(for: event) { emission in
            do {
                return try hook(Emission(emission.pointee))
            } catch {
                Self.fail(emission.pointee.table, with: error)
                return false
            }
        }
    }

    /// Calls `hook` once per execute of `key`; see
    /// ``addEmissionHook(for:_:)-(String?,_)``.
    ///
    /// - Parameters:
    ///   - key: The event, with or without a detail.
    ///   - hook: Called with each execute; returns whether it stays.
    /// - Returns: The subscription that keeps the hook installed.
    /// - Throws: ``DispatchError/invalidArgument(_:)`` for a malformed key.
    public func addEmissionHook<Arguments>(
        for key: EventKey<Arguments>, _ hook: @escaping @Sendable (Emission) throws -> Bool
    ) throws(DispatchError) -> Subscription {
        try addEmissionHook(for: key.name, hook)
    }

    /// Installs `body` as an emission hook, which reads the C core's
    /// emission itself.
    func addRawEmissionHook(
        for event: String?, _ body: @escaping @Sendable (UnsafePointer<dc_emission>) -> Bool
    ) throws(DispatchError) -> Subscription {
        try Self.addRawEmissionHook(to: handle, for: event, body)
    }

    /// `addRawEmissionHook(for:_:)` on the table `handle` owns, for use
    /// before the table is initialized.
    static func addRawEmissionHook(
        to handle: TableHandle, for event: String?, _ body: @escaping @Sendable (UnsafePointer<dc_emission>) -> Bool
    ) throws(DispatchError) -> Subscription {
        let box = Unmanaged.passRetained(EmissionHookBox(body)).toOpaque()
        var id: dc_hook_id = 0
        let status = dc_table_add_emission_hook(
            handle.cTable, event, EmissionHookBox.hook, box, EmissionHookBox.release, &id)
        if status != DC_OK {
            Unmanaged<EmissionHookBox>.fromOpaque(box).release()
            try DispatchError.check(status)
        }
        return Subscription(canceller: HookRemover(table: handle), handler: id)
    }

    /// Hands `error` to the Swift execute of `cTable` running on this
    /// thread, if one is, and stops its emission: what a failing hook does,
    /// as a failing handler does (`FailableHandlerBox.fail(with:)`).
    static func fail(_ cTable: OpaquePointer?, with error: any Error) {
        if let slot = dc__table_execute_context(cTable) {
            slot.assumingMemoryBound(to: HandlerError.self).pointee.record(error)
        }
        dc_table_stop_emission(cTable)
    }

    /// The hook through which a table with a logger logs each execute at
    /// trace level: the table's name, the key executed and how many handlers
    /// the execute considers (it runs before them, so it cannot tell how
    /// many ran).
    static func loggingHook(_ logger: Logger, table name: String, handle: TableHandle) -> Subscription {
        do {
            return try addRawEmissionHook(to: handle, for: nil) { emission in
                logger.trace(
                    "executing",
                    metadata: [
                        "table": "\(name)", "event": "\(String(cString: emission.pointee.key))",
                        "handlers": "\(handlerCount(emission.pointee))",
                    ])
                return true
            }
        } catch {
            // A hook on every event can only fail for want of memory, which
            // Swift treats as fatal.
            fatalError("CommandTable \(name): installing the logging hook failed: \(error)")
        }
    }

    /// How many handlers the execute `emission` describes considers.
    private static func handlerCount(_ emission: dc_emission) -> Int {
        var count = 0
        _ = dc_table_handler_count(emission.table, emission.key, &count)
        return count
    }
}

/// An emission hook's closure, retained by the C table and released by the
/// hook's destroy notify, once, when the hook is removed or the table
/// destroyed.
final class EmissionHookBox: Sendable {
    let body: @Sendable (UnsafePointer<dc_emission>) -> Bool

    init(_ body: @escaping @Sendable (UnsafePointer<dc_emission>) -> Bool) {
        self.body = body
    }

    static let hook: dc_emission_hook = { emission, data in
        Unmanaged<EmissionHookBox>.fromOpaque(data!)._withUnsafeGuaranteedRef { $0.body(emission!) }
    }

    static let release: @convention(c) (UnsafeMutableRawPointer?) -> Void = { data in
        Unmanaged<EmissionHookBox>.fromOpaque(data!).release()
    }
}

/// What cancels an emission hook's subscription: the hook's removal, which
/// waits for its calls running on other threads.
final class HookRemover: Canceller, @unchecked Sendable {
    // @unchecked: the handle is constant and thread-safe.
    private let table: TableHandle

    init(table: TableHandle) {
        self.table = table
    }

    override func cancel(handler: UInt64) {
        // A hook that returned false is gone already: not an error here.
        _ = dc_table_remove_emission_hook(table.cTable, handler)
    }
}
