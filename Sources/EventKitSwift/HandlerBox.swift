internal import CDispatchCore
internal import CDispatchCoreBinding
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What a Swift handler that is more than a closure the C core calls itself
/// (see `MarshalHandler`) is to the C table: a box registered as a marshal
/// handler's data, retained once at registration and released by the table
/// (`DC__HANDLER_OWNS_TARGET`, through the table's `release` callback),
/// exactly once, when the handler goes away.
///
/// The C table calls one `@convention(c)` trampoline per box kind, which
/// reaches the box through `_withUnsafeGuaranteedRef`: a call costs no
/// reference counting.
///
/// The base class stores nothing: a box of a closure that cannot throw is the
/// object header and the closure, 32 bytes, on top of the C handler and its
/// subscription (a closure the C core calls itself has no box).
class HandlerBox: @unchecked Sendable {}

/// The box a trampoline is called with: the data it was registered with,
/// which the table passes as given and is never NULL, so it is not checked on
/// every call.
@inline(__always)
func calledBox<Box: HandlerBox>(_ data: UnsafeMutableRawPointer?, as _: Box.Type) -> Unmanaged<Box> {
    Unmanaged.fromOpaque(data.unsafelyUnwrapped)
}

/// A box whose handler can fail: it keeps the C table, to hand the error to
/// the execute running it.
class FailableHandlerBox: HandlerBox, @unchecked Sendable {
    /// The C table, to stop the emission when a handler throws. The table
    /// outlives its boxes: removing its handlers releases them.
    let cTable: OpaquePointer

    init(cTable: OpaquePointer) {
        self.cTable = cTable
    }

    /// Hands `error` to the Swift execute running this handler, which
    /// rethrows it, and stops the emission. An execute made from C gave no
    /// place for it (C cannot receive a Swift error): the emission stops and
    /// the error is dropped.
    final func fail(with error: any Error) {
        if let slot = dc__table_execute_context(cTable) {
            slot.assumingMemoryBound(to: HandlerError.self).pointee.record(error)
        }
        dc_table_stop_emission(cTable)
    }
}

/// Where a handler's error goes: each Swift execute passes one, as its C
/// execute context, so an error reaches exactly the execute that ran the
/// handler, however executes nest or interleave.
///
/// The error is kept as a retained raw pointer rather than an `any Error?`,
/// so the slot is a trivial value: an execute in which no handler failed (the
/// hot path) releases nothing when it is done with it.
struct HandlerError {
    private var thrown: UnsafeMutableRawPointer?

    init() {
        thrown = nil
    }

    /// Whether a handler has failed, without taking the error.
    var failed: Bool { thrown != nil }

    /// Keeps `error`, replacing an earlier one.
    mutating func record(_ error: any Error) {
        if let thrown { Unmanaged<ThrownError>.fromOpaque(thrown).release() }
        thrown = Unmanaged.passRetained(ThrownError(error)).toOpaque()
    }

    /// The recorded error, if any, giving back the slot's reference to it.
    /// Call it at most once per recorded error.
    mutating func take() -> (any Error)? {
        guard let taken = thrown else { return nil }
        thrown = nil
        return Unmanaged<ThrownError>.fromOpaque(taken).takeRetainedValue().error
    }
}

/// A handler's error on its way to the execute that ran the handler.
final class ThrownError {
    let error: any Error
    init(_ error: any Error) {
        self.error = error
    }
}

// MARK: - Box kinds

/// `() -> Void`, signature "v", where the C core cannot call the closure
/// itself.
final class VoidHandlerBox: HandlerBox, @unchecked Sendable {
    let body: @Sendable () -> Void
    init(body: @escaping @Sendable () -> Void) {
        self.body = body
    }

    static let trampoline: dc_marshal = { data, _, _, _ in
        calledBox(data, as: VoidHandlerBox.self)._withUnsafeGuaranteedRef { $0.body() }
    }
}

/// A closure that reads the C arguments itself, where the C core cannot call
/// it directly: a typed handler whose arguments are all built-in scalars
/// (`Bool`, the integers, `Float`, `Double`), its closure made in the
/// caller's code where the argument types are known
/// (`ScalarArguments.unpack(_:of:into:)`), or
/// a `(Bool) -> Void` or `(AnyObject?) -> Void` closure.
final class ScalarsHandlerBox: HandlerBox, @unchecked Sendable {
    let body: @Sendable (UnsafeRawPointer) -> Void
    init(body: @escaping @Sendable (UnsafeRawPointer) -> Void) {
        self.body = body
    }

    static let trampoline: dc_marshal = { data, arguments, _, _ in
        calledBox(data, as: ScalarsHandlerBox.self)._withUnsafeGuaranteedRef { $0.body(UnsafeRawPointer(arguments!)) }
    }
}

/// `([Value]) throws -> Value`: a variadic marshal, every argument as given.
final class ValuesHandlerBox: FailableHandlerBox, @unchecked Sendable {
    let body: @Sendable ([Value]) throws -> Value
    init(cTable: OpaquePointer, body: @escaping @Sendable ([Value]) throws -> Value) {
        self.body = body
        super.init(cTable: cTable)
    }

    static let trampoline: dc_marshal = { data, arguments, count, result in
        let values = (0..<count).map { Value(arguments![$0]) }
        calledBox(data, as: ValuesHandlerBox.self)._withUnsafeGuaranteedRef { box in
            do {
                let returned = try box.body(values)
                result!.pointee = ReturnedValues.cValue(for: returned)
            } catch {
                box.fail(with: error)
            }
        }
    }
}

/// A handler with a fixed signature whose arguments arrive checked and
/// converted; used for typed keys and target-action.
final class TypedHandlerBox: FailableHandlerBox, @unchecked Sendable {
    let body: @Sendable (UnsafePointer<dc_value>?, Int) throws -> Value
    init(cTable: OpaquePointer, body: @escaping @Sendable (UnsafePointer<dc_value>?, Int) throws -> Value) {
        self.body = body
        super.init(cTable: cTable)
    }

    static let trampoline: dc_marshal = { data, arguments, count, result in
        calledBox(data, as: TypedHandlerBox.self)._withUnsafeGuaranteedRef { box in
            do {
                let returned = try box.body(arguments, count)
                if case .void = returned { return }
                let expected = result!.pointee.type
                var converted = dc_value()
                var cValue = ReturnedValues.cValue(for: returned)
                if dc_value_convert(&cValue, expected, &converted) == DC_OK {
                    result!.pointee = converted
                }
            } catch {
                box.fail(with: error)
            }
        }
    }
}

// MARK: - Values handed back to C

/// C copies of strings, and references to objects, that Swift handlers
/// returned. The caller of an execute reads a returned value after the
/// handler has returned, so a string's copy, and an object such as the box of
/// a payload the handler made, must outlive the handler: each thread keeps
/// its most recent ones and lets go of the oldest beyond a bound, so memory
/// stays bounded without a free call that C callers would have to make.
enum ReturnedValues {
    /// A kept string copy or a retained object, by address.
    private enum Kept {
        case string(UInt)
        case object(UInt)

        func release() {
            switch self {
            case .string(let address): freeCString(UnsafeMutablePointer<CChar>(bitPattern: address))
            case .object(let address):
                Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: address)!).release()
            }
        }
    }

    /// What each thread keeps, by thread.
    private static let kept = Mutex<[UInt: [Kept]]>([:])
    /// How many values a thread keeps: a returned string or object stays
    /// valid until this many more have been returned on the same thread.
    static let limit = 256

    static func cValue(for value: Value) -> dc_value {
        switch value {
        case .string(let string?):
            let copy = makeCString(string)
            keep(.string(UInt(bitPattern: copy)))
            return dc_string(copy)
        case .object(let object?):
            keep(.object(UInt(bitPattern: Unmanaged.passRetained(object).toOpaque())))
            return value.makeCValue().value
        default:
            return value.makeCValue().value
        }
    }

    private static func keep(_ value: Kept) {
        let thread = UInt(pthread_self())
        let evicted = kept.withLock { kept -> Kept? in
            var values = kept[thread, default: []]
            let evicted = values.count == limit ? values.removeFirst() : nil
            values.append(value)
            kept[thread] = values
            return evicted
        }
        evicted?.release()
    }
}
