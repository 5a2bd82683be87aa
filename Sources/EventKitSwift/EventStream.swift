internal import CDispatchCoreBinding

/// The executes of one event as an `AsyncSequence`: each element is made
/// from one execute's arguments, in the order the executes ran.
///
/// ```swift
/// for await snapshot in table.events(for: "progress", bufferingPolicy: .bufferingNewest(1)) {
///     if case .double(let fraction) = snapshot.arguments.first { show(fraction) }
/// }
/// ```
///
/// Creating the stream registers a handler for the event at once, so executes
/// that happen before iteration starts are buffered, as the buffering policy
/// says. The handler is removed when the stream terminates: the consuming
/// task is cancelled, or the stream and its iterator are released (leaving a
/// `for await` loop releases the iterator). Termination never waits for an
/// execute delivering to the stream on another thread: from then on the
/// handler yields nothing, and when such a call is running, the removal
/// follows on another thread once it has returned (see <doc:Semantics>). The stream finishes, after
/// handing out what it buffered, when its handler goes away in any other way:
/// ``CommandTable/removeAll(for:)-(String)``, ``CommandTable/removeAll()``, or the
/// table being released.
///
/// One task iterates a stream; as with `AsyncStream`, awaiting `next()` from
/// two tasks at once is a programming error.
///
/// Replaces `NotificationCenter.notifications(named:object:)` and a Combine
/// subject's `values`.
public struct EventStream<Element: Sendable>: AsyncSequence, Sendable {
    public typealias Failure = Never

    /// What the stream keeps of executes that happen faster than the
    /// consuming task takes them.
    public enum BufferingPolicy: Sendable {
        /// Keep every element until it is taken. Memory grows while the
        /// consumer falls behind.
        case unbounded
        /// Keep the oldest `limit` elements not yet taken, and drop the
        /// newer ones while the buffer is full.
        case bufferingOldest(Int)
        /// Keep the newest `limit` elements not yet taken, dropping the
        /// oldest one to make room for each new one.
        case bufferingNewest(Int)

        var asyncStreamPolicy: AsyncStream<Element>.Continuation.BufferingPolicy {
            switch self {
            case .unbounded: .unbounded
            case .bufferingOldest(let limit): .bufferingOldest(limit)
            case .bufferingNewest(let limit): .bufferingNewest(limit)
            }
        }
    }

    let base: AsyncStream<Element>

    public func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator())
    }

    /// Takes a stream's elements one by one.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<Element>.Iterator

        /// The next element, or `nil` once the stream has finished or the
        /// task is cancelled.
        public mutating func next() async -> Element? {
            await base.next()
        }

        /// The next element, awaited without leaving the caller's actor.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            await base.next(isolation: actor)
        }
    }
}

/// The arguments of one execute, copied so that they can cross to any task.
///
/// An object argument becomes its identity only (``SendableValue/object(_:)``):
/// a class instance cannot be proven safe to share with another task, so the
/// snapshot keeps which object it was, not the object. To receive the objects
/// themselves, or anything else made from the arguments, pass a transform to
/// ``CommandTable/events(for:bufferingPolicy:_:)``.
public struct EventSnapshot: Sendable, Equatable, CustomStringConvertible {
    /// The event that was executed.
    public let event: String
    /// Its arguments, in order.
    public let arguments: [SendableValue]

    public init(event: String, arguments: [SendableValue]) {
        self.event = event
        self.arguments = arguments
    }

    /// The snapshot of `values`, executed as `event`.
    public init(event: String, values: [Value]) {
        self.init(event: event, arguments: values.map(SendableValue.init))
    }

    public var description: String {
        "\(event)(\(arguments.map(\.description).joined(separator: ", ")))"
    }
}

/// A ``Value`` that can cross to another task: the same cases, with an object
/// reduced to its identity and a pointer to its address.
public enum SendableValue: Sendable, Equatable, CustomStringConvertible {
    case void
    case bool(Bool)
    case int8(Int8)
    case uint8(UInt8)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case float(Float)
    case double(Double)
    /// Which object was passed (compare with `ObjectIdentifier(someObject)`),
    /// or `nil`. It does not keep the object alive.
    case object(ObjectIdentifier?)
    /// The address that was passed, or `nil`. Turning it back into a pointer
    /// is your statement that what it points to is alive and may be used on
    /// the current thread.
    case pointer(UInt?)
    case string(String?)
    case structure(StructValue)
    #if arch(x86_64) || arch(i386)
    case longDouble(Float80)
    case complexLongDouble(real: Float80, imaginary: Float80)
    #endif
    case complexFloat(real: Float, imaginary: Float)
    case complexDouble(real: Double, imaginary: Double)

    /// The sendable form of `value`.
    public init(_ value: Value) {
        switch value {
        case .void: self = .void
        case .bool(let value): self = .bool(value)
        case .int8(let value): self = .int8(value)
        case .uint8(let value): self = .uint8(value)
        case .int16(let value): self = .int16(value)
        case .uint16(let value): self = .uint16(value)
        case .int32(let value): self = .int32(value)
        case .uint32(let value): self = .uint32(value)
        case .int64(let value): self = .int64(value)
        case .uint64(let value): self = .uint64(value)
        case .float(let value): self = .float(value)
        case .double(let value): self = .double(value)
        case .object(let object): self = .object(object.map(ObjectIdentifier.init))
        case .pointer(let pointer): self = .pointer(pointer.map { UInt(bitPattern: $0) })
        case .string(let string): self = .string(string)
        case .structure(let structure): self = .structure(structure)
        #if arch(x86_64) || arch(i386)
        case .longDouble(let value): self = .longDouble(value)
        case let .complexLongDouble(real, imaginary): self = .complexLongDouble(real: real, imaginary: imaginary)
        #endif
        case let .complexFloat(real, imaginary): self = .complexFloat(real: real, imaginary: imaginary)
        case let .complexDouble(real, imaginary): self = .complexDouble(real: real, imaginary: imaginary)
        }
    }

    /// The type the value was passed as.
    public var type: ValueType {
        Value(sendable: self).type
    }

    /// The type and payload, as ``Value`` describes itself: `int64(42)`,
    /// `string("hi")`, `object(0x…)`.
    public var description: String {
        switch self {
        case .object(let identity?):
            "object(\(Self.hexAddress(UInt(bitPattern: identity))))"
        case .pointer(let address?):
            "pointer(\(Self.hexAddress(address)))"
        default:
            Value(sendable: self).description
        }
    }

    /// An address as a pointer describes itself: `0x` and every hex digit.
    private static func hexAddress(_ address: UInt) -> String {
        let digits = String(address, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 2 * MemoryLayout<UInt>.size - digits.count)) + digits
    }
}

extension Value {
    /// The value a sendable value describes, for every case but a non-nil
    /// object or pointer, which it cannot bring back.
    fileprivate init(sendable: SendableValue) {
        switch sendable {
        case .void: self = .void
        case .bool(let value): self = .bool(value)
        case .int8(let value): self = .int8(value)
        case .uint8(let value): self = .uint8(value)
        case .int16(let value): self = .int16(value)
        case .uint16(let value): self = .uint16(value)
        case .int32(let value): self = .int32(value)
        case .uint32(let value): self = .uint32(value)
        case .int64(let value): self = .int64(value)
        case .uint64(let value): self = .uint64(value)
        case .float(let value): self = .float(value)
        case .double(let value): self = .double(value)
        case .object: self = .object(nil)
        case .pointer: self = .pointer(nil)
        case .string(let value): self = .string(value)
        case .structure(let value): self = .structure(value)
        #if arch(x86_64) || arch(i386)
        case .longDouble(let value): self = .longDouble(value)
        case let .complexLongDouble(real, imaginary): self = .complexLongDouble(real: real, imaginary: imaginary)
        #endif
        case let .complexFloat(real, imaginary): self = .complexFloat(real: real, imaginary: imaginary)
        case let .complexDouble(real, imaginary): self = .complexDouble(real: real, imaginary: imaginary)
        }
    }
}

// MARK: - Streams of a table's events

extension CommandTable {
    /// The executes of `event`, from now on, as an asynchronous sequence of
    /// snapshots of their arguments.
    ///
    /// ```swift
    /// let toggles = table.events(for: "toggle", bufferingPolicy: .bufferingNewest(8))
    /// for await snapshot in toggles {
    ///     print(snapshot.arguments)          // [.bool(true)]
    /// }
    /// ```
    ///
    /// The handler is registered before this returns and removed when the
    /// stream terminates; see ``EventStream``. It receives every argument as
    /// given, like an `on(_:_:)` handler taking `[Value]`, and counts as one
    /// handler in ``CommandTable/handlerCount(for:)-(String)`` and in each
    /// execute's result.
    ///
    /// - Parameters:
    ///   - event: The event's name.
    ///   - bufferingPolicy: What to keep while the consumer is behind;
    ///     unbounded unless you say otherwise.
    public func events(
        for event: String, bufferingPolicy: EventStream<EventSnapshot>.BufferingPolicy = .unbounded
    ) -> EventStream<EventSnapshot> {
        events(for: event, bufferingPolicy: bufferingPolicy) { values in
            EventSnapshot(event: event, values: values)
        }
    }

    /// The executes of `event`, from now on, as an asynchronous sequence of
    /// what `transform` makes of each one's arguments.
    ///
    /// `transform` runs in the handler, on the executing thread, while the
    /// arguments are valid: it is the place to turn objects into something
    /// that may cross to the consuming task.
    ///
    /// ```swift
    /// let names = table.events(for: "select") { values in
    ///     values.first.flatMap { value -> String? in
    ///         guard case .object(let item as Item) = value else { return nil }
    ///         return item.name
    ///     }
    /// }
    /// ```
    public func events<Element: Sendable>(
        for event: String, bufferingPolicy: EventStream<Element>.BufferingPolicy = .unbounded,
        _ transform: @escaping @Sendable ([Value]) -> Element
    ) -> EventStream<Element> {
        stream(bufferingPolicy) { feed in
            on(event) { (values: [Value]) -> Value in
                feed.send(transform(values))
                return .void
            }
        }
    }

    /// The executes of `key`'s event, from now on, as an asynchronous
    /// sequence of their argument, typed as the key types it.
    ///
    /// ```swift
    /// for await fraction in table.events(for: .progress) {
    ///     bar.value = fraction                  // a Double
    /// }
    /// ```
    ///
    /// Buffered and ended as the stream of an event by name is (see
    /// ``events(for:bufferingPolicy:)->EventStream<EventSnapshot>``); its handler is a typed
    /// handler of the key, so an execute by name whose argument does not fit
    /// throws before any handler runs.
    public func events<A: EventArgument & Sendable>(
        for key: EventKey<A>, bufferingPolicy: EventStream<A>.BufferingPolicy = .unbounded
    ) -> EventStream<A> {
        stream(bufferingPolicy) { feed in on(key) { feed.send($0) } }
    }

    /// The executes of `key`'s event, from now on, as an asynchronous
    /// sequence of their arguments, two or more, as a tuple typed as the key
    /// types them.
    ///
    /// ```swift
    /// for await (title, index) in table.events(for: .rename) {
    ///     print(title, index)
    /// }
    /// ```
    public func events<each A: EventArgument & Sendable>(
        for key: EventKey<(repeat each A)>, bufferingPolicy: EventStream<(repeat each A)>.BufferingPolicy = .unbounded
    ) -> EventStream<(repeat each A)> {
        stream(bufferingPolicy) { (feed: StreamFeed<(repeat each A)>) in
            on(key) { (arguments: repeat each A) in feed.send((repeat each arguments)) }
        }
    }

    /// The executes of `key`'s event, which has no arguments, from now on,
    /// as an asynchronous sequence of `()`.
    public func events(
        for key: EventKey<Void>, bufferingPolicy: EventStream<Void>.BufferingPolicy = .unbounded
    ) -> EventStream<Void> {
        stream(bufferingPolicy) { feed in on(key) { feed.send(()) } }
    }

    /// A stream fed by the handler `register` registers, which is removed
    /// when the stream terminates.
    ///
    /// Termination runs where the stream ends: when the consuming task is
    /// cancelled, under the task's status lock, which a `yield` to the
    /// stream takes too. So it never waits for a call of the handler that
    /// is yielding: it closes the handler's gate, and removes the handler at
    /// once when no call is inside it, or from a Dispatch worker once the
    /// call has returned (``CallGate``). A call after termination yields
    /// nothing and is not counted by its execute.
    private func stream<Element: Sendable>(
        _ bufferingPolicy: EventStream<Element>.BufferingPolicy,
        _ register: (StreamFeed<Element>) -> Subscription
    ) -> EventStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: Element.self, bufferingPolicy: bufferingPolicy.asyncStreamPolicy)
        let gate = CallGate()
        let subscription = register(StreamFeed(continuation, gate: gate, cTable: cTable))
        continuation.onTermination = { _ in gate.close(cancelling: subscription) }
        return EventStream(base: stream)
    }
}

/// The continuation an event stream's handler yields to. The handler's
/// closure holds the only reference, so the feed goes away with the handler
/// and finishes the stream then, however the handler was removed.
// @unchecked: the continuation and the gate are Sendable, and the C table
// is thread-safe and outlives its handlers.
private final class StreamFeed<Element: Sendable>: @unchecked Sendable {
    let continuation: AsyncStream<Element>.Continuation
    /// What the stream's termination closes before removing the handler.
    let gate: CallGate
    let cTable: OpaquePointer

    init(_ continuation: AsyncStream<Element>.Continuation, gate: CallGate, cTable: OpaquePointer) {
        self.continuation = continuation
        self.gate = gate
        self.cTable = cTable
    }

    /// Yields `element`, made inside the gate (a transform is user code);
    /// once the stream has terminated, declines the call instead.
    func send(_ element: @autoclosure () -> Element) {
        let sent = gate.pass { continuation.yield(element()) }
        if !sent { _ = dc__table_decline_call(cTable) }
    }

    deinit {
        continuation.finish()
    }
}

