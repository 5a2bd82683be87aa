internal import CDispatchCore
import Logging
import Synchronization

/// A control with a command table: one handler object, and at most one
/// command per key, each a method of that handler (or a C function taking
/// it).
///
/// This is the control of the Objective-C article on command tables: a
/// control does not know what its events do; its controller becomes its
/// handler and fills its table, one command for each key, and the control
/// executes a key when the event happens.
///
/// ```swift
/// final class PlayerController {
///     let control = CommandControl<PlayerController>(name: "play button")
///     func play() { … }
///     func setLooping(_ on: Bool) { … }
///
///     init() {
///         control.handler = self
///         try? control.setCommand(PlayerController.play, for: "tap")
///         try? control.setCommand(PlayerController.setLooping, for: "long-press")
///     }
/// }
///
/// try controller.control.execute("tap")              // controller.play()
/// try controller.control.execute("long-press", true) // controller.setLooping(true)
/// ```
///
/// The rules:
///
/// - Registering a command for a key replaces the key's previous command.
/// - Assigning a different ``handler`` (or `nil`) removes every command:
///   commands are methods of the handler they were registered with.
///   Assigning the same object again keeps them.
/// - Executing a key runs its command against the current handler; a key
///   without a command runs nothing (``ExecuteResult/handled`` is 0).
///
/// The control holds its handler weakly, as a Cocoa control holds its
/// target, so a controller may own its control. Once the handler has died its
/// commands are never called and ``commandKeys`` is empty. Every method is
/// safe from any thread; commands run on the thread that executes.
///
/// The commands are handlers of a ``CommandTable`` the control owns; the
/// corresponding C type is `dc_table`.
public final class CommandControl<Handler: AnyObject>: @unchecked Sendable {
    // @unchecked: all mutable state is in `state`, behind its lock; Handler
    // need not be Sendable, since only a weak reference to it is kept and it
    // is called on the executing thread, as every handler is.

    /// The control's name, in log messages and errors.
    public var name: String { table.name }

    private let table: CommandTable

    // @unchecked: see the class; it only ever lives inside `state`'s lock.
    private struct State: @unchecked Sendable {
        var handler: HandlerReference
        /// The command of each key; each is a target-action of `handler`.
        var commands: [String: Registration] = [:]
    }

    /// The handler, held weakly in an object of its own, which the lock
    /// hands out and whose handler is loaded after the lock is let go:
    /// loading a weak reference makes a strong one, which is the handler's
    /// last when it dies meanwhile on another thread, and its deinit, user
    /// code, may use this control.
    // @unchecked: `object` is never written after init, and reading a weak
    // reference is thread-safe.
    private final class HandlerReference: @unchecked Sendable {
        weak let object: Handler?
        init(_ object: Handler?) {
            self.object = object
        }
    }

    private let state: Mutex<State>

    /// Creates a control with no commands.
    ///
    /// - Parameters:
    ///   - name: A name for log messages and errors.
    ///   - handler: The object commands run against; see ``handler``.
    ///   - logger: Where executes log at trace level; `nil` logs nothing.
    public init(name: String = "", handler: Handler? = nil, logger: Logger? = nil) {
        table = CommandTable(name: name, logger: logger)
        state = Mutex(State(handler: HandlerReference(handler)))
    }

    /// The object commands run against, held weakly.
    ///
    /// Assigning a different object, or `nil`, removes every command;
    /// assigning the current one again changes nothing.
    public var handler: Handler? {
        get { state.withLock { $0.handler }.object }
        set {
            // Compared outside the lock (see `HandlerReference`), and replaced
            // unless another thread replaced it meanwhile.
            while true {
                let current = state.withLock { $0.handler }
                if current.object === newValue { return }
                let replacement = HandlerReference(newValue)
                let removed = state.withLock { state -> [Registration]? in
                    guard state.handler === current else { return nil }
                    state.handler = replacement
                    defer { state.commands = [:] }
                    return Array(state.commands.values)
                }
                guard let removed else { continue }
                // Outside the lock: removing waits for calls of the command
                // running on other threads, which may themselves use this
                // control.
                removed.forEach { $0.cancel() }
                return
            }
        }
    }

    /// The keys that have a command, in no particular order; empty once the
    /// handler has died.
    public var commandKeys: [String] {
        let (handler, keys) = state.withLock { ($0.handler, Array($0.commands.keys)) }
        return handler.object == nil ? [] : keys
    }

    /// Whether `key` has a command for the current, live handler.
    public func hasCommand(for key: String) -> Bool {
        let (handler, hasCommand) = state.withLock { ($0.handler, $0.commands[key] != nil) }
        return hasCommand && handler.object != nil
    }

    /// Removes the command of `key`; `false` when it had none.
    @discardableResult
    public func removeCommand(for key: String) -> Bool {
        guard let removed = state.withLock({ $0.commands.removeValue(forKey: key) }) else { return false }
        removed.cancel()
        return true
    }

    /// Removes every command; the handler stays.
    public func removeAllCommands() {
        let removed = state.withLock { state -> [Registration] in
            defer { state.commands = [:] }
            return Array(state.commands.values)
        }
        removed.forEach { $0.cancel() }
    }

    /// Makes the command that `register` adds to the table, for the current
    /// handler, the one command of `key`.
    private func setCommand(
        for key: String, _ register: (CommandTable, Handler) throws -> Registration
    ) throws {
        // The previous command goes first, so an execute on another thread
        // never runs two commands for the key, and it goes outside the lock
        // (see `handler`).
        removeCommand(for: key)
        while true {
            // The handler is loaded outside the lock (see `HandlerReference`)
            // and registered for under it, unless it was replaced meanwhile.
            let current = state.withLock { $0.handler }
            guard let handler = current.object else {
                throw DispatchError(
                    status: DC_ERR_STATE, message: "control \(name): no handler to register \"\(key)\" for")!
            }
            let outcome = try state.withLock { state -> Registration?? in
                guard state.handler === current else { return nil }
                return .some(state.commands.updateValue(try register(table, handler), forKey: key))
            }
            withExtendedLifetime(handler) {}
            guard let displaced = outcome else { continue }
            // Only another thread setting the same key at the same moment
            // leaves a command here.
            displaced?.cancel()
            return
        }
    }

    // MARK: Commands

    /// Makes `action`, taking the event's object argument, the command of
    /// `key`.
    public func setCommand(_ action: @escaping @Sendable (Handler) -> (AnyObject?) -> Void, for key: String) throws {
        try setCommand(for: key) { $0.addTarget($1, action: action, named: key, for: key) }
    }

    /// Makes `action`, taking the event's sender and arguments, the command
    /// of `key`.
    public func setCommand(
        _ action: @escaping @Sendable (Handler) -> (_ sender: AnyObject?, _ arguments: [Value]) -> Void,
        for key: String
    ) throws {
        try setCommand(for: key) { $0.addTarget($1, action: action, named: key, for: key) }
    }

    /// Makes `action`, a method of the handler taking the key's argument,
    /// the command of `key`'s event, replacing its previous one.
    ///
    /// - Throws: ``DispatchError/invalidState(_:)`` when the control has no
    ///   live handler.
    public func setCommand<A: EventArgument>(
        _ action: @escaping @Sendable (Handler) -> (A) -> Void, for key: EventKey<A>
    ) throws {
        try setCommand(for: key.name) { $0.addTarget($1, action: action, named: key.name, for: key) }
    }

    /// Makes `action`, a method of the handler taking the key's arguments
    /// (none, or two or more), the command of `key`'s event, replacing its
    /// previous one; a string literal names the key, whose argument types
    /// the method gives.
    ///
    /// ```swift
    /// try control.setCommand(PlayerController.play, for: "tap")
    /// try control.setCommand(PlayerController.seek, for: "seek")   // seek(to: Double, animated: Bool)
    /// ```
    // Disfavoured: a string literal with a method of one argument fits the
    // one-argument form too, which is the one meant.
    @_disfavoredOverload
    public func setCommand<each A: EventArgument>(
        _ action: @escaping @Sendable (Handler) -> (repeat each A) -> Void, for key: EventKey<(repeat each A)>
    ) throws {
        try setCommand(for: key.name) { $0.addTarget($1, action: action, named: key.name, for: key) }
    }

    /// Makes the C function `function`, whose type `signature` describes, the
    /// command of `key`: it is called with the handler as parameter 0 and the
    /// event's arguments after it, through a cast function pointer when the
    /// signature allows it and through libffi otherwise, and its return value
    /// is the execute's.
    ///
    /// ```swift
    /// try control.setCommand(function: scaleFunction, signature: Signature("q@q"), for: "scale")
    /// try control.execute("scale", 21).returnValue   // .int64(…)
    /// ```
    ///
    /// - Throws: ``DispatchError/invalidState(_:)`` without a live handler;
    ///   ``DispatchError/typeMismatch(_:)`` when parameter 0 is not an object
    ///   or pointer; ``DispatchError/invalidArgument(_:)`` when `function` is
    ///   not a C function.
    public func setCommand<Function>(function: Function, signature: Signature, for key: String) throws {
        try setCommand(for: key) { try $0.addTarget($1, function: function, signature: signature, for: key) }
    }

    // MARK: Executing

    /// Runs the command of `key`, a name known only at run time, against
    /// the handler with `arguments`.
    ///
    /// - Throws: what ``CommandTable/execute(_:arguments:accumulator:requireHandler:strict:)``
    ///   throws: a ``DispatchError/typeMismatch(_:)`` before the command runs
    ///   when an argument does not fit it.
    @discardableResult
    public func execute(_ key: String, arguments: [Value]) throws -> ExecuteResult {
        try table.execute(key, arguments: arguments)
    }

    /// Runs the command of `key`'s event against the handler with `argument`.
    @discardableResult
    public func execute<A: EventArgument>(_ key: EventKey<A>, _ argument: A) throws -> ExecuteResult {
        try table.execute(key, argument)
    }

    /// Runs the command of `key`'s event against the handler with its
    /// arguments (none, or two or more).
    @discardableResult
    public func execute<each A: EventArgument>(
        _ key: EventKey<(repeat each A)>, _ arguments: repeat each A
    ) throws -> ExecuteResult {
        try table.execute(key, repeat each arguments)
    }
}
