import CDispatchCore
import CDispatchCoreBinding
@testable import EventKitSwift
import Synchronization
import Testing

/// Counts calls of closures that capture nothing, so they have no context.
private let contextFreeCalls = Atomic(0)

/// An object a closure captures, to see how long the closure's context lives.
private final class Captured: Sendable {
    let calls = Atomic(0)
}

/// Counts calls of a global function (a test of its own, so tests running in
/// parallel do not count each other's calls).
private let functionCalls = Atomic(0)

/// A global function, registered as a closure without a context.
private func countFunctionCall() {
    functionCalls.add(1, ordering: .relaxed)
}

/// A method, registered as a closure whose context holds the object.
private final class Tally: Sendable {
    let total = Atomic(0)
    func add(_ amount: Int) { total.add(amount, ordering: .relaxed) }
    func addOne() { add(1) }
}

/// Whether this build has the C core call closures in Swift's own convention:
/// on x86-64 and AArch64 (SwiftPM builds the core with clang), unless the
/// build turned it off to test the fallback (`make test-swift-fallback`).
private var swiftCallsExpected: Bool {
    #if arch(x86_64) || arch(arm64)
        return DC__SWIFT_CALLS_TURNED_OFF == 0
    #else
        return false
    #endif
}

@Suite("MarshalHandler")
struct MarshalHandlerTests {
    @Test("Closures are called by the C core itself, with their context as the table's reference")
    func closuresAreSwiftCalls() {
        let captured = Captured()
        let withContext = MarshalHandler { captured.calls.add(1, ordering: .relaxed) }
        let withoutContext = MarshalHandler { contextFreeCalls.add(1, ordering: .relaxed) }
        let reading = MarshalHandler(reading: { _ in captured.calls.add(1, ordering: .relaxed) })
        #expect(MarshalHandler.swiftCalls == swiftCallsExpected)
        for handler in [withContext, withoutContext, reading] {
            // Otherwise a box and its @convention(c) trampoline.
            #expect(handler.flags == (swiftCallsExpected ? UInt32(DC__HANDLER_SWIFT_CALL) : 0))
        }
        #expect(withContext.data != nil)
        #expect((withoutContext.data == nil) == swiftCallsExpected)
        // Each reference the tables would have taken goes back.
        for handler in [withContext, withoutContext, reading] { handler.discard() }
    }

    @Test("The C core registers Swift-convention handlers exactly when the binding makes them")
    func coreAndBindingAgreeOnSwiftCalls() throws {
        // The library and the binding are built with the same setting: a
        // core built without the convention refuses the flag.
        let table = CommandTable(name: "agreement")
        let signature = try Signature("v")
        var options = dc_handler_options(
            flags: UInt32(DC__HANDLER_SWIFT_CALL), queue: nil, destroy: nil, destroy_data: nil)
        let function: dc_marshal = { _, _, _, _ in }
        let status = dc_table_add_marshal(table.unsafeCTable, "e", signature.cSignature, function, nil, &options, nil)
        #expect(status == (swiftCallsExpected ? DC_OK : DC_ERR_UNSUPPORTED))
    }

    @Test("The toolchain lays closures out and calls them as the C core does: values and captures arrive exact")
    func closureLayoutAndConventionAreTheCores() throws {
        // A closure capturing an object and a word, called by C with two
        // arguments: a context register or a closure layout other than the
        // one MarshalHandler reads would lose or swap them (or crash).
        let table = CommandTable(name: "convention")
        let captured = Captured()
        let first: Int64 = 0x1122_3344_5566_7788
        let scale: Int64 = 3
        let seen = Mutex<[Int64]>([])
        let handler = MarshalHandler(reading: { arguments in
            let (a, b) = ScalarArguments.arguments(arguments, as: Int64.self, Int64.self)
            seen.withLock { $0 += [a, b, a &* scale] }
            captured.calls.add(1, ordering: .relaxed)
        })
        let signature = try Signature("vqq")
        var id: dc_handler_id = 0
        // The table takes over the reference the handler's data holds.
        var options = dc_handler_options(
            flags: handler.flags | UInt32(DC__HANDLER_OWNS_TARGET), queue: nil, destroy: nil, destroy_data: nil)
        let status = dc_table_add_marshal(
            table.unsafeCTable, "pair", signature.cSignature, handler.function, handler.data, &options, &id)
        #expect(status == DC_OK)
        if status != DC_OK { handler.discard() }
        var values = [dc_int64(-7), dc_int64(first)]
        var result = dc_result()
        #expect(dc_table_execute(table.unsafeCTable, "pair", &values, 2, &result) == DC_OK)
        #expect(result.handled == 1)
        #expect(seen.withLock { $0 } == [-7, first, -21])
        #expect(captured.calls.load(ordering: .relaxed) == 1)
        #expect(dc_table_remove(table.unsafeCTable, id) == DC_OK)
    }

    @Test("A closure's context, holding what it captured, lives exactly as long as its handler")
    func contextLivesAsLongAsTheHandler() throws {
        let table = CommandTable(name: "lifetime")
        let key = EventKey<Int>("count")
        weak var watched: Captured?
        var subscriptions: [Subscription] = []
        do {
            let captured = Captured()
            watched = captured
            subscriptions.append(table.on("tap") { captured.calls.add(1, ordering: .relaxed) })
            subscriptions.append(table.on(key) { (n: Int) in captured.calls.add(n, ordering: .relaxed) })
        }
        // Only the two handlers' contexts hold it now.
        #expect(watched != nil)
        #expect(try table.execute("tap").handled == 1)
        #expect(try table.execute(key, 10).handled == 1)
        #expect(watched?.calls.load(ordering: .relaxed) == 11)
        subscriptions[0].cancel()
        #expect(watched != nil)
        subscriptions[1].cancel()
        #expect(watched == nil)
    }

    @Test("A closure that captures nothing runs by name, by typed key and through the general execute")
    func contextFreeClosureRuns() throws {
        let table = CommandTable(name: "free")
        let key = EventKey<Void>("tick")
        let before = contextFreeCalls.load(ordering: .relaxed)
        let subscription = table.on(key) { contextFreeCalls.add(1, ordering: .relaxed) }
        #expect(try table.execute(key).handled == 1)
        #expect(try table.execute("tick").handled == 1)
        // An option the lean execute does not take: the general one calls it.
        #expect(try table.execute("tick", arguments: [], accumulator: .last).handled == 1)
        #expect(contextFreeCalls.load(ordering: .relaxed) - before == 3)
        subscription.cancel()
        #expect(try table.execute(key).handled == 0)
    }

    @Test("Functions and methods given as closures run as closures do")
    func functionsAndMethodsRun() throws {
        let table = CommandTable(name: "references")
        let tally = Tally()
        var subscriptions = Set<Subscription>()
        table.on("tick", countFunctionCall).store(in: &subscriptions)
        table.on("tick", tally.addOne).store(in: &subscriptions)
        table.on(EventKey<Int>("add"), tally.add).store(in: &subscriptions)
        #expect(try table.execute("tick").handled == 2)
        #expect(try table.execute(EventKey<Int>("add"), 41).handled == 1)
        #expect(functionCalls.load(ordering: .relaxed) == 1)
        #expect(tally.total.load(ordering: .relaxed) == 42)
    }

    @Test("Where the C core cannot call Swift, boxes call the same closures")
    func boxesServeAsTheFallback() throws {
        let table = CommandTable(name: "boxes")
        let log = Log()
        let void = MarshalHandler(box: VoidHandlerBox { log.append("void") }, trampoline: VoidHandlerBox.trampoline)
        let reading = MarshalHandler(
            box: ScalarsHandlerBox { arguments in
                log.append("read \(ScalarArguments.arguments(arguments, as: Int.self))")
            },
            trampoline: ScalarsHandlerBox.trampoline)
        #expect(void.flags == 0 && reading.flags == 0)
        let event = try table.eventID(for: EventKey<Int>("boxed"))
        let ids = [
            try table.addHandler(void, signature: Signatures.void, event: event),
            try table.addHandler(reading, signature: try Signature(returning: .void, parameters: [.int64]), event: event),
        ]
        #expect(try table.execute("boxed", .int64(4)).handled == 2)
        #expect(try table.execute(EventKey<Int>("boxed"), 5).handled == 2)
        #expect(log.all == ["void", "read 4", "void", "read 5"])
        for id in ids { table.handle.removeHandler(id) }
        #expect(try table.execute("boxed", .int64(6)).handled == 0)
    }
}
