import Logging
import Synchronization

/// A named event of one object that others subscribe to and only its owner
/// raises: the .NET `event`, or the Objective-C event handler list that the
/// `DEFINE_EVENT` macros declare.
///
/// Declare an event with ``EventSource``, one line; the owner raises it
/// through the wrapper's storage, which is private to the owner:
///
/// ```swift
/// struct Scroll { let offset: Double }
///
/// final class ScrollView {
///     @EventSource("didScroll") var didScroll: Event<ScrollView, Scroll>
///
///     func scroll(to offset: Double) {
///         _didScroll.raise(sender: self, args: Scroll(offset: offset))
///     }
/// }
///
/// let subscriptions = [
///     scrollView.didScroll.add { print("scrolled") },
///     scrollView.didScroll.add { view in print("scrolled", view) },
///     scrollView.didScroll.add { view, scroll in print("scrolled to", scroll.offset) },
/// ]
/// scrollView.didScroll.addTarget(header, action: Header.followScroll, named: "followScroll")
/// ```
///
/// A handler takes as many of the event's values as it wants: nothing, the
/// sender, or the sender and the arguments, whatever the event carries.
/// (Objective-C passed `nil` to a handler that took more than the raise
/// gave; here the event's type fixes what every raise gives: `Args` is
/// `Void` for an event raised with a sender only, and `Sender` and `Args`
/// both `Void` for one raised with nothing.)
///
/// Underneath is a ``CommandTable`` with one event, so handlers have its
/// semantics (<doc:Semantics>): they run in the order they were added; a
/// handler may add and remove handlers and raise events while it runs; a
/// handler removed is not called after its removal returns; and every method
/// is safe from any thread, raises from several threads running in
/// parallel. A closure handler lives as long as its ``Subscription``, a
/// target-action as long as its target.
///
/// The event's ``name`` names its table, so it is in the table's trace log
/// of each raise and in ``description``.
///
/// Replaces .NET's `event EventHandler<T>` and the Objective-C article's
/// `Event` class with `addHandler:action:`, `removeHandler:action:` and
/// `raise`, `raiseWithSender:` and `raiseWithSender:args:`.
public final class Event<Sender, Args>: Sendable {
    /// The event's name, in logs and descriptions.
    public let name: String

    /// The table whose one event this is, named after it.
    private let table: CommandTable

    /// The table's event, by which raises skip hashing the name.
    private let key: EventKey<RaisedValues>

    /// Only an ``EventSource`` makes events, so only an owner raises them.
    init(name: String, logger: Logger?) {
        self.name = name
        self.table = CommandTable(name: name, logger: logger)
        self.key = EventKey(name)
    }

    /// How many handlers the event has (handlers of dead targets included
    /// until the next raise prunes them).
    public var handlerCount: Int {
        table.handlerCount(for: key)
    }
}

/// What a raise hands to its handlers: the sender and the arguments, in one
/// object the table passes as its one argument.
class RaisedValues: EventArgument {}

private final class TypedRaisedValues<Sender, Args>: RaisedValues {
    let sender: Sender
    let args: Args

    init(sender: Sender, args: Args) {
        self.sender = sender
        self.args = args
    }
}

// MARK: - Closures

extension Event {
    /// Runs `handler` each time the event is raised, for as long as the
    /// returned subscription lives.
    ///
    /// ```swift
    /// let subscription = button.clicked.add { print("clicked") }
    /// ```
    ///
    /// The closure is the handler the table calls, with nothing between;
    /// otherwise as the form with the sender and arguments.
    public func add(
        phase: HandlerPhase.Choice<Never> = .normal, _ handler: @escaping @Sendable () -> Void
    ) -> Subscription {
        table.on(EventKey<Void>(name), phase: phase, handler)
    }

    /// Runs `handler` with the event's sender and arguments each time the
    /// event is raised, for as long as the returned subscription lives.
    ///
    /// ```swift
    /// let subscription = slider.valueChanged.add { slider, value in print(slider, value) }
    /// ```
    ///
    /// Adding the same closure twice makes two handlers: closures have no
    /// identity to compare.
    ///
    /// `phase: .after` runs the handler after the event's others, as
    /// `g_signal_connect_after` does (``HandlerPhase``). An event's default
    /// handler is its owner's to define, so `add` offers the phases a
    /// subscriber chooses: `.normal` and `.after`.
    ///
    /// - Parameters:
    ///   - phase: Where among the event's handlers it runs.
    ///   - handler: Runs with the sender and the arguments each time the
    ///     event is raised.
    /// - Returns: The subscription that keeps the handler registered.
    ///
    /// Replaces `-[Event addHandler:action:]`.
    public func add(
        phase: HandlerPhase.Choice<Never> = .normal, _ handler: @escaping @Sendable (Sender, Args) -> Void
    ) -> Subscription {
        addRaised(on: nil, phase: phase, handler)
    }

    /// Runs `handler` with the event's sender and the elements of its
    /// arguments, none or a tuple's, each time the event is raised, for as
    /// long as the returned subscription lives: an `Event<Button, Void>`
    /// takes `{ button in … }`, an `Event<Slider, (Double, Bool)>`
    /// `{ slider, value, isFinal in … }` as well as `{ slider, args in … }`.
    ///
    /// - Parameters:
    ///   - phase: Where among the event's handlers it runs
    ///     (``HandlerPhase``): `.normal` or `.after`.
    ///   - handler: Runs with the sender and each argument each time the
    ///     event is raised.
    /// - Returns: The subscription that keeps the handler registered.
    public func add<each A>(
        phase: HandlerPhase.Choice<Never> = .normal, _ handler: @escaping @Sendable (Sender, repeat each A) -> Void
    ) -> Subscription
    where Args == (repeat each A) {
        addRaised(on: nil, phase: phase) { sender, args in handler(sender, repeat each args) }
    }

    /// Runs `handler` with each raise's sender and arguments, on the raising
    /// thread or `target`.
    fileprivate func addRaised(
        on target: DeliveryTarget?, phase: HandlerPhase.Choice<Never>,
        _ handler: @escaping @Sendable (Sender, Args) -> Void
    ) -> Subscription {
        table.onObject(name, on: target, phase: phase) { raised in
            guard let raised = Self.values(raised) else { return }
            handler(raised.sender, raised.args)
        }
    }

    /// The values `raised`, the table's argument, carries.
    fileprivate static func values(_ raised: AnyObject?) -> TypedRaisedValues<Sender, Args>? {
        // Only `raise` executes the table, always with these.
        raised as? TypedRaisedValues<Sender, Args>
    }
}

extension Event where Sender: Sendable, Args: Sendable {
    /// Runs `handler` on `delivery` with the event's sender and arguments
    /// each time the event is raised, in the order of the raises; see
    /// ``Delivery`` for the lifetime of deliveries.
    ///
    /// ```swift
    /// let subscription = downloader.progress.add(on: .dispatchQueue(.main)) { _, fraction in
    ///     bar.value = fraction
    /// }
    /// ```
    ///
    /// The sender and the arguments are kept alive until the handler has
    /// run.
    public func add(
        on delivery: Delivery<Nonisolated>, phase: HandlerPhase.Choice<Never> = .normal,
        _ handler: @escaping @Sendable (Sender, Args) -> Void
    ) -> Subscription {
        addRaised(on: delivery.target, phase: phase, handler)
    }

    /// Runs `handler` on `delivery` with the event's sender and the elements
    /// of its arguments, none or a tuple's, each time the event is raised.
    public func add<each A>(
        on delivery: Delivery<Nonisolated>, phase: HandlerPhase.Choice<Never> = .normal,
        _ handler: @escaping @Sendable (Sender, repeat each A) -> Void
    ) -> Subscription where Args == (repeat each A) {
        addRaised(on: delivery.target, phase: phase) { sender, args in handler(sender, repeat each args) }
    }

    /// Runs `handler` on the main actor with the event's sender and
    /// arguments each time the event is raised, in the order of the raises.
    public func add(
        on delivery: Delivery<MainActor>, phase: HandlerPhase.Choice<Never> = .normal,
        _ handler: @escaping @MainActor @Sendable (Sender, Args) -> Void
    ) -> Subscription {
        addRaised(on: delivery.target, phase: phase, table.onMainActor(handler))
    }

    /// Runs `handler` on the main actor with the event's sender and the
    /// elements of its arguments, none or a tuple's, each time the event is
    /// raised, in the order of the raises.
    public func add<each A>(
        on delivery: Delivery<MainActor>, phase: HandlerPhase.Choice<Never> = .normal,
        _ handler: @escaping @MainActor @Sendable (Sender, repeat each A) -> Void
    ) -> Subscription where Args == (repeat each A) {
        add(on: delivery, phase: phase) { @MainActor (sender: Sender, args: Args) in handler(sender, repeat each args) }
    }
}

// MARK: - Target-action

extension Event {
    /// Calls `action` on `target` each time the event is raised, for as long
    /// as `target` lives.
    ///
    /// ```swift
    /// button.clicked.addTarget(controller, action: Controller.save, named: "save")
    /// ```
    ///
    /// `actionName` is the action's identity, as a selector is in
    /// Objective-C (Swift method references have none): adding the same
    /// target with the same name again keeps the first handler and returns
    /// its registration. The event holds `target` weakly: once it has died
    /// its handlers are skipped, never called, and pruned.
    ///
    /// Replaces `-[Event addHandler:action:]`.
    @discardableResult
    public func addTarget<Target: AnyObject>(
        _ target: Target, action: @escaping @Sendable (Target) -> () -> Void, named actionName: String
    ) -> Registration {
        table.addTarget(target, action: action, named: actionName, for: EventKey<Void>(name))
    }

    /// Calls `action` on `target` with the event's sender each time the
    /// event is raised, for as long as `target` lives; see
    /// `addTarget(_:action:named:)`.
    @discardableResult
    public func addTarget<Target: AnyObject>(
        _ target: Target, action: @escaping @Sendable (Target) -> (Sender) -> Void, named actionName: String
    ) -> Registration {
        let withArguments: @Sendable (Target) -> (Sender, Args) -> Void = { target in
            { sender, _ in action(target)(sender) }
        }
        return addTarget(target, action: withArguments, named: actionName)
    }

    /// Calls `action` on `target` with the event's sender and arguments each
    /// time the event is raised, for as long as `target` lives; see
    /// `addTarget(_:action:named:)`.
    @discardableResult
    public func addTarget<Target: AnyObject>(
        _ target: Target, action: @escaping @Sendable (Target) -> (Sender, Args) -> Void, named actionName: String
    ) -> Registration {
        table.addTarget(
            target,
            action: { target in
                { (raised: AnyObject?) in
                    guard let raised = Self.values(raised) else { return }
                    action(target)(raised.sender, raised.args)
                }
            }, named: actionName, for: name)
    }

    /// Removes the action `actionName` of `target` and returns whether it
    /// was there.
    ///
    /// Replaces `-[Event removeHandler:action:]`.
    @discardableResult
    public func removeTarget(_ target: AnyObject, named actionName: String) -> Bool {
        table.removeTarget(target, named: actionName, for: name)
    }

    /// Removes every handler bound to `target` and returns how many.
    @discardableResult
    public func removeTarget(_ target: AnyObject) -> Int {
        table.removeTarget(target)
    }
}

// MARK: - Raising

extension Event {
    /// Runs every handler with `sender` and `args`.
    fileprivate func raise(sender: Sender, args: Args) {
        do {
            try table.execute(key, TypedRaisedValues(sender: sender, args: args))
        } catch {
            // The handlers throw nothing and take what every raise gives, so
            // the one failure left is nesting raises too deeply.
            table.logger?.error("raise failed", metadata: ["event": "\(name)", "error": "\(error)"])
        }
    }

    /// Removes every handler.
    fileprivate func removeAll() -> Int {
        table.removeAll()
    }
}

extension Event: CustomStringConvertible {
    /// The event's types, name and number of handlers, such as
    /// `Event<Button, Click>("clicked", 2 handlers)`.
    public var description: String {
        let count = handlerCount
        return "Event<\(Sender.self), \(Args.self)>(\"\(name)\", \(count) handler\(count == 1 ? "" : "s"))"
    }
}

// MARK: - The owner's side

/// Declares an ``Event`` that only its owner raises: the wrapped property is
/// the public, subscribe-only face, and the wrapper, private to the owner, is
/// the raiser.
///
/// ```swift
/// final class Button {
///     @EventSource("clicked") var clicked: Event<Button, Void>
///
///     func tap() {
///         _clicked.raise(sender: self)
///     }
/// }
/// ```
///
/// Swift makes a wrapper's storage (`_clicked`) private, so code outside the
/// owner can add and remove handlers but not raise the event or remove
/// other subscribers' handlers.
///
/// A `Sendable` class cannot hold a property wrapper (its storage is a
/// `var`); keep the source in a `let` and expose its ``event`` instead:
///
/// ```swift
/// final class Downloader: Sendable {
///     private let progressSource = EventSource<Downloader, Double>("progress")
///     var progress: Event<Downloader, Double> { progressSource.event }
/// }
/// ```
///
/// Replaces the Objective-C article's `DEFINE_EVENT` and `EVENT_RAISE`
/// macros, and .NET's `event` keyword.
@propertyWrapper
public struct EventSource<Sender, Args>: Sendable {
    /// The event others subscribe to.
    public let wrappedValue: Event<Sender, Args>

    /// Creates an event named `name`.
    ///
    /// - Parameters:
    ///   - name: The event's name, in logs and its description.
    ///   - logger: Where each raise logs at trace level, and a raise that
    ///     fails (nested more deeply than the core allows) at error level.
    public init(_ name: String, logger: Logger? = nil) {
        wrappedValue = Event(name: name, logger: logger)
    }

    /// The event others subscribe to.
    public var event: Event<Sender, Args> { wrappedValue }

    /// Runs every handler of the event, in order, with as many of `sender`
    /// and `args` as each takes.
    ///
    /// A handler delivered elsewhere runs later, on its queue or actor. A
    /// raise nested inside the event's handlers more deeply than the core
    /// allows (64 on one thread) runs no handler and logs an error.
    ///
    /// Replaces `-[Event raiseWithSender:args:]`.
    public func raise(sender: Sender, args: Args) {
        wrappedValue.raise(sender: sender, args: args)
    }

    /// Removes every handler of the event and returns how many: the owner's
    /// privilege, as clearing a .NET event is.
    ///
    /// Replaces `-[Event removeAllHandlers]`.
    @discardableResult
    public func removeAll() -> Int {
        wrappedValue.removeAll()
    }
}

extension EventSource where Args == Void {
    /// Runs every handler of an event that carries a sender only, with the
    /// sender if it takes it.
    ///
    /// Replaces `-[Event raiseWithSender:]`.
    public func raise(sender: Sender) {
        wrappedValue.raise(sender: sender, args: ())
    }
}

extension EventSource where Sender == Void, Args == Void {
    /// Runs every handler of an event that carries nothing.
    ///
    /// Replaces `-[Event raise]`.
    public func raise() {
        wrappedValue.raise(sender: (), args: ())
    }
}
