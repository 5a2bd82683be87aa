internal import CDispatchCore
internal import CDispatchCoreBinding

/// What the C table is given for a Swift handler: the function it calls as a
/// marshal, the data it passes, holding one reference the table takes over
/// (`DC__HANDLER_OWNS_TARGET`), and the flag saying how it calls them.
///
/// A box with a `@convention(c)` trampoline serves any closure. A closure
/// that returns nothing and cannot throw, taking nothing or the C arguments,
/// goes without one where the C core can call Swift's own convention
/// (`DC__HANDLER_SWIFT_CALL`): the table calls the closure's function with its
/// context, so a call passes through no trampoline and the handler allocates
/// no box.
struct MarshalHandler {
    let function: dc_marshal
    let data: UnsafeMutableRawPointer?
    let flags: UInt32

    /// `box`, retained, called through `trampoline`; `flags`, the binding's
    /// handler flags it needs.
    init(box: HandlerBox, trampoline: dc_marshal, flags: UInt32 = 0) {
        function = trampoline
        data = Unmanaged.passRetained(box).toOpaque()
        self.flags = flags
    }

    /// A typed closure's box: one taking payloads has the C table ask the
    /// table's object check about the objects of an execute from C, before
    /// any handler runs (`CommandTable.init`).
    init(arguments box: ArgumentsHandlerBox) {
        self.init(
            box: box, trampoline: ArgumentsHandlerBox.trampoline,
            flags: box.takesPayloads ? UInt32(DC__HANDLER_CHECK_OBJECTS) : 0)
    }

    /// `body`, called with no arguments.
    init(_ body: @escaping @Sendable () -> Void) {
        if Self.swiftCalls {
            self.init(swiftCall: ClosureParts(NoArguments(body: body)))
        } else {
            self.init(box: VoidHandlerBox(body: body), trampoline: VoidHandlerBox.trampoline)
        }
    }

    /// `body`, called with the address of the C arguments, which it reads
    /// itself (see `ScalarArguments.unpack(_:of:into:)`).
    init(reading body: @escaping @Sendable (UnsafeRawPointer) -> Void) {
        if Self.swiftCalls {
            self.init(swiftCall: ClosureParts(ReadingArguments(body: body)))
        } else {
            self.init(box: ScalarsHandlerBox(body: body), trampoline: ScalarsHandlerBox.trampoline)
        }
    }

    /// `body`, called with the first C argument, an object or NULL, as the
    /// Swift object it is (the caller keeps it alive for the call).
    init(_ body: @escaping @Sendable (AnyObject?) -> Void) {
        self.init(reading: { arguments in
            let address = arguments.load(as: dc_value.self).object
            body(address.map { Unmanaged<AnyObject>.fromOpaque($0).takeUnretainedValue() })
        })
    }

    private init(swiftCall parts: ClosureParts) {
        function = unsafeBitCast(parts.function, to: dc_marshal.self)
        // The table's reference to the context, which keeps what the closure
        // captured; a closure that captures nothing has none.
        if let context = parts.context {
            data = Unmanaged<AnyObject>.fromOpaque(context).retain().toOpaque()
        } else {
            data = nil
        }
        flags = UInt32(DC__HANDLER_SWIFT_CALL)
    }

    /// Gives back the reference `data` holds, when the table did not take it
    /// (the handler was not registered).
    func discard() {
        if let data { Unmanaged<AnyObject>.fromOpaque(data).release() }
    }

    /// Whether the C core calls Swift's convention here: the core's own
    /// answer (clang on x86-64 or AArch64; SwiftPM builds it with clang).
    static var swiftCalls: Bool { DC__SWIFT_CALLS != 0 }
}

// MARK: - A closure's function and context

/// A Swift closure as it is stored: a pointer to its function, which takes
/// its parameters and then the context in Swift's context register, and its
/// context, a reference-counted object or nil.
///
/// The closures are read out of the non-generic structs below. A closure
/// passed through a generic parameter (as `unsafeBitCast` would pass it) is
/// first wrapped in a thunk that takes its arguments indirectly; a stored
/// property of a concrete function type holds the closure as the C core calls
/// it, with its parameters in registers.
private struct ClosureParts {
    let function: UnsafeRawPointer
    let context: UnsafeMutableRawPointer?

    init(_ closure: NoArguments) {
        self = Self.parts(of: closure)
    }

    init(_ closure: ReadingArguments) {
        self = Self.parts(of: closure)
    }

    private static func parts<Holder>(of holder: Holder) -> ClosureParts {
        precondition(
            MemoryLayout<Holder>.size == MemoryLayout<ClosureParts>.size,
            "a Swift closure is not a function and a context here")
        return withUnsafeBytes(of: holder) { $0.load(as: ClosureParts.self) }
    }
}

/// A `() -> Void` closure: the C core calls its function with the context
/// alone.
private struct NoArguments {
    let body: @Sendable () -> Void
}

/// A closure that reads the C arguments: the C core calls its function with
/// the arguments' address, then the context.
private struct ReadingArguments {
    let body: @Sendable (UnsafeRawPointer) -> Void
}
