import EventKitSwift
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Every `DispatchError` case, reached from Swift through public API only, with
/// the message a user would read. `DispatchErrorTests` proves each C status has
/// a case; this suite proves a Swift caller can actually meet each one, and
/// what it says when they do. Cases that no public Swift call can produce say
/// why next to what they assert.
@Suite("DispatchError reachability")
struct DispatchErrorReachabilityTests {
    private static let negate: @convention(c) (Double) -> Double = { -$0 }
    private static let ignore: @convention(c) (Int64) -> Void = { _ in }

    // MARK: - Signatures and invocations

    @Test("nullArgument: a nil function pointer for an invocation, a call or a registration")
    func nullArgument() throws {
        let signature = try Signature("v")
        let noFunction: UnsafeRawPointer? = nil
        var message = expectDispatchError(DispatchError.nullArgument) {
            _ = try Invocation(function: noFunction, signature: signature)
        }
        #expect(message == "dc_invocation_create: the function must not be NULL")
        message = expectDispatchError(DispatchError.nullArgument) {
            _ = try Invocation.call(noFunction, signature: signature, arguments: [])
        }
        #expect(message == "dc_call: the function must not be NULL")
        let table = CommandTable(name: "errors")
        message = expectDispatchError(DispatchError.nullArgument) {
            try table.register("event", function: noFunction, signature: signature)
        }
        #expect(message == "dc_table_add: the function must not be NULL")
        #expect(table.handlerCount(for: "event") == 0)
    }

    @Test("invalidArgument: a Swift closure where a C function is expected")
    func invalidArgument() throws {
        let closure: () -> Void = {}
        let signature = try Signature("v")
        var message = expectDispatchError(DispatchError.invalidArgument) {
            _ = try Invocation(function: closure, signature: signature)
        }
        #expect(message.hasPrefix("a value of type () -> () is not a C function"))
        message = expectDispatchError(DispatchError.invalidArgument) {
            _ = try Invocation.call(42, signature: signature, arguments: [])
        }
        #expect(message.hasPrefix("a value of type Swift.Int is not a C function"))
        let table = CommandTable()
        expectDispatchError(DispatchError.invalidArgument) {
            try table.register("event", function: closure, signature: signature)
        }
        #expect(table.handlerCount(for: "event") == 0)
    }

    @Test("badSignature: unknown codes, empty encodings, void parameters, too many parameters, NUL bytes")
    func badSignature() {
        var message = expectDispatchError(DispatchError.badSignature) { _ = try Signature("v@Z") }
        #expect(message == "bad type encoding \"v@Z\": unknown type code at position 2 ('Z')")
        message = expectDispatchError(DispatchError.badSignature) { _ = try Signature("") }
        #expect(message == "bad type encoding \"\": the encoding is empty")
        message = expectDispatchError(DispatchError.badSignature) {
            _ = try Signature(returning: .int64, parameters: [.void])
        }
        #expect(message == "bad signature: parameter 0 is void, which is not a parameter type")
        let tooLong = "v" + String(repeating: "i", count: Signature.maximumParameterCount + 1)
        message = expectDispatchError(DispatchError.badSignature) { _ = try Signature(tooLong) }
        let limit = Signature.maximumParameterCount
        #expect(message.contains("more than \(limit) parameters at position \(limit + 1)"))
        message = expectDispatchError(DispatchError.badSignature) { _ = try Signature("v\0i") }
        #expect(message == "bad type encoding: NUL byte at position 1")
    }

    @Test("typeMismatch: an argument that does not fit its parameter, set or called")
    func typeMismatchInInvocations() throws {
        let invocation = try Invocation(function: Self.negate, signature: Signature("dd"))
        var message = expectDispatchError(DispatchError.typeMismatch) {
            try invocation.setArgument("seven", at: 0)
        }
        #expect(message == "dc_invocation_set_argument: argument 0 of signature \"dd\": expected double, got string")
        message = expectDispatchError(DispatchError.typeMismatch) {
            _ = try Invocation.call(Self.negate, signature: Signature("dd"), arguments: [true])
        }
        #expect(message.contains("expected double, got bool"))
    }

    @Test("typeMismatch: an execute whose argument does not fit a handler, and a target with no pointer slot")
    func typeMismatchInTables() throws {
        let table = CommandTable(name: "player")
        let subscription = table.on("toggle") { (_: Bool) in }
        let message = expectDispatchError(DispatchError.typeMismatch) { try table.execute("toggle", "yes") }
        #expect(message.hasPrefix("table player, event \"toggle\", handler "))
        #expect(message.hasSuffix("argument 0: expected bool, got string"))

        let target = UnsafeMutableRawPointer(bitPattern: 0x1000)
        let targetMessage = expectDispatchError(DispatchError.typeMismatch) {
            try table.register("count", function: Self.ignore, signature: Signature("vq"), target: target)
        }
        #expect(
            targetMessage == "table player, event \"count\": a bound target is passed as parameter 0, "
                + "which is int64 in signature \"vq\" (expected object, pointer or string)")
        #expect(table.handlerCount(for: "count") == 0)
        withExtendedLifetime(subscription) {}
    }

    @Test("typeMismatch: a typed handler given a value its C type admits but its Swift type does not")
    func typeMismatchInTypedHandlers() throws {
        final class Track: EventArgument {}
        final class Album {}
        let table = CommandTable(name: "library")
        let titles = EventKey<String>("title")
        let tracks = EventKey<Track>("track")
        let subscriptions = [
            table.on(titles) { (_: String) in },
            table.on(tracks) { (_: Track) in },
        ]
        // A null C string is a string to the core, but not a Swift String.
        var message = expectDispatchError(DispatchError.typeMismatch) {
            try table.execute("title", .string(nil))
        }
        #expect(message == "event \"title\": argument 0: expected String, got string(nil)")
        // Any object is an object to the core; only Swift knows its class.
        let album = Album()
        message = expectDispatchError(DispatchError.typeMismatch) { try table.execute("track", .object(album)) }
        #expect(message.hasPrefix("event \"track\": argument 0: expected Track, got object(Album@"))
        withExtendedLifetime(subscriptions) {}
    }

    @Test("arity: a call with the wrong number of arguments, a strict execute, a strict handler")
    func arity() throws {
        var message = expectDispatchError(DispatchError.arity) {
            _ = try Invocation.call(Self.negate, signature: Signature("dd"), arguments: [1.0, 2.0])
        }
        #expect(message == "dc_call: signature \"dd\" takes 1 arguments, 2 given")

        let table = CommandTable(name: "player")
        let lenient = table.on("toggle") { (_: Bool) in }
        message = expectDispatchError(DispatchError.arity) {
            try table.execute("toggle", arguments: [], strict: true)
        }
        #expect(message.hasSuffix("takes 1 arguments (signature \"vB\"), 0 given"))
        // Without strict, the missing argument arrives as false.
        #expect(try table.execute("toggle").handled == 1)

        let strict = table.on("seek", options: .strict) { (_: Bool) in }
        message = expectDispatchError(DispatchError.arity) { try table.execute("seek", true, false) }
        #expect(message.hasPrefix("table player, event \"seek\", handler "))
        #expect(message.hasSuffix("takes 1 arguments (signature \"vB\"), 2 given"))
        withExtendedLifetime((lenient, strict)) {}
    }

    @Test("indexOutOfRange: setting or reading an argument the signature does not have")
    func indexOutOfRange() throws {
        let invocation = try Invocation(function: Self.negate, signature: Signature("dd"))
        var message = expectDispatchError(DispatchError.indexOutOfRange) { try invocation.setArgument(1.0, at: 1) }
        #expect(
            message == "dc_invocation_set_argument: argument index 1 is out of range "
                + "for signature \"dd\" with 1 parameters")
        message = expectDispatchError(DispatchError.indexOutOfRange) { _ = try invocation.argument(at: 3) }
        #expect(message.hasPrefix("dc_invocation_get_argument: argument index 3 is out of range"))
        // A negative index cannot cross to C as a size_t; Swift reports it the same way.
        message = expectDispatchError(DispatchError.indexOutOfRange) { try invocation.setArgument(1.0, at: -1) }
        #expect(message == "argument index -1 is out of range for signature \"dd\" with 1 parameters")
    }

    @Test("notInvoked: a return value asked for before the first invoke")
    func notInvoked() throws {
        let invocation = try Invocation(function: Self.negate, signature: Signature("dd"))
        let message = expectDispatchError(DispatchError.notInvoked) { _ = try invocation.returnValue() }
        #expect(message == "the invocation of \"dd\" has no return value before it is invoked")
        try invocation.setArgument(2.0, at: 0)
        #expect(try invocation.invoke() == .double(-2))
        #expect(try invocation.returnValue() == .double(-2))
    }

    @Test("unsupported: forcing the stub path on a signature no stub covers")
    func unsupported() throws {
        let seven: @convention(c) (Int64, Int64, Int64, Int64, Int64, Int64, Int64) -> Int64 = { a, _, _, _, _, _, g in
            a + g
        }
        let invocation = try Invocation(function: seven, signature: Signature("qqqqqqqq"))
        #expect(invocation.callPath == .libffi)
        let message = expectDispatchError(DispatchError.unsupported) { try invocation.setCallPath(.stub) }
        #expect(message == "signature \"qqqqqqqq\" has no typed stub on this platform; it takes libffi")
        #expect(invocation.callPath == .libffi)
    }

    // MARK: - Tables

    @Test("noHandler: an execute that requires a handler and finds none")
    func noHandler() throws {
        let table = CommandTable(name: "player")
        let message = expectDispatchError(DispatchError.noHandler) {
            try table.execute("nobody", arguments: [], requireHandler: true)
        }
        #expect(message == "table player, event \"nobody\": no handler ran")
        // Without the requirement, nobody handling an event is not an error.
        #expect(try table.execute("nobody").handled == 0)
    }

    @Test("nestedTooDeeply: a handler that executes its own event without end")
    func nestedTooDeeply() throws {
        let table = CommandTable(name: "loop")
        let subscription = table.on("again") { (_: [Value]) throws -> Value in
            try table.execute("again")
            return .void
        }
        let message = expectDispatchError(DispatchError.nestedTooDeeply) { try table.execute("again") }
        #expect(message == "table loop, event \"again\": executes nested more than 64 deep on this thread")
        withExtendedLifetime(subscription) {}
    }

    // MARK: - Not reachable through public Swift API

    /// `DC_ERR_NOT_FOUND` comes from the C core for a handler id, event id or
    /// target it does not know. The Swift layer never hands a user an id and
    /// never reports the status: ``Subscription/cancel()`` is idempotent and
    /// ignores a handler already gone (pruned, once, or removed with its
    /// event), typed keys intern their own ids per table, `removeAll(for:)`
    /// and `removeTarget(_:)` of something unknown remove 0, and
    /// `handlerCount(for:)` of an unknown event is 0.
    @Test("notFound is not reachable from Swift: unknown events, targets and handlers already gone are not errors")
    func notFoundIsNotReachable() throws {
        let table = CommandTable()
        let subscription = table.on("tick") {}
        subscription.cancel()
        subscription.cancel()
        #expect(subscription.isCancelled)

        let once = table.on("tock", options: .once) {}
        #expect(try table.execute("tock").handled == 1)
        once.cancel()                       // its handler removed itself after running

        final class Stranger {}
        #expect(table.removeTarget(Stranger()) == 0)
        #expect(table.removeAll(for: "never-registered") == 0)
        #expect(table.handlerCount(for: "never-registered") == 0)
        #expect(try table.execute("never-registered").handled == 0)
        #expect(DispatchError.notFound("").statusName == "DC_ERR_NOT_FOUND")
    }

    @Test("invalidState: setting a command on a control that has no handler")
    func invalidState() throws {
        final class Player {
            func play() {}
        }
        let control = CommandControl<Player>(name: "play button")
        let message = expectDispatchError(DispatchError.invalidState) {
            try control.setCommand(Player.play, for: "tap")
        }
        #expect(message == "control play button: no handler to register \"tap\" for")
        #expect(control.commandKeys.isEmpty)

        let player = Player()
        control.handler = player
        try control.setCommand(Player.play, for: "tap")
        #expect(try control.execute("tap").handled == 1)
        withExtendedLifetime(player) {}
    }

    /// `DC_ERR_FFI` means `ffi_prep_cif` refused a call interface. The encoding
    /// parser admits only scalar and pointer types and at most 127 parameters,
    /// all of which libffi prepares on every ABI it supports, so no signature a
    /// Swift caller can create fails there. The largest and most mixed one is
    /// prepared here without error.
    @Test("ffi is not reachable from Swift: every signature the parser accepts, libffi prepares")
    func ffiIsNotReachable() throws {
        let codes = Array("BcCsSiIqQfd@^*")
        let parameters = (0..<Signature.maximumParameterCount).map { index -> String in
            let code = codes[index % codes.count]
            return code == "^" ? "^v" : String(code)
        }
        let signature = try Signature("d" + parameters.joined())
        #expect(signature.parameterTypes.count == Signature.maximumParameterCount)
        #expect(signature.callPath == .libffi)
        #expect(DispatchError.ffi("").statusName == "DC_ERR_FFI")
        #expect(DispatchError.ffi("").statusDescription == "libffi could not prepare the call")
    }

    /// `DC_ERR_NO_MEMORY` is what the core reports when an allocation fails,
    /// and also when the kernel has no file descriptor left for an event
    /// queue's descriptor (an `eventfd`, or a pipe where the core's POSIX
    /// platform layer is built). Failing allocations cannot be arranged from Swift,
    /// and where Swift would meet them (creating a table, registering a
    /// closure) it treats them as fatal, as it does for its own allocations.
    /// A process out of descriptors can be arranged: in a child process, so
    /// that no other test runs short.
    @Test("outOfMemory: an event queue when the process has no file descriptor left")
    func outOfMemory() async {
        await #expect(processExitsWith: .success) {
            var limit = rlimit()
            getrlimit(Self.openFilesLimit, &limit)
            limit.rlim_cur = 0
            guard setrlimit(Self.openFilesLimit, &limit) == 0 else { exit(2) }
            do {
                _ = try EventQueue()
                exit(3)
            } catch DispatchError.outOfMemory(let message) {
                let expected = ["eventfd", "pipe"].map { "dc_queue_create: \($0) failed: Too many open files" }
                exit(expected.contains(message) ? 0 : 4)
            } catch {
                exit(5)
            }
        }
    }

#if canImport(Glibc)
    private static let openFilesLimit = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
#else
    private static let openFilesLimit = RLIMIT_NOFILE
#endif
}
