import CDispatchCore
import EventKitSwift
import Testing

/// A target whose actions log, for target-action phases.
private final class PhaseTarget: Sendable {
    let log: Log
    init(log: Log) { self.log = log }
    func closeWindow() { log.append("target default") }
    func closed() { log.append("target after") }
}

/// A C default handler: logs through the Log its target is.
private let cDefault: @convention(c) (UnsafeMutableRawPointer?) -> Void = { log in
    Unmanaged<Log>.fromOpaque(log!).takeUnretainedValue().append("C default")
}

@Suite("Handler phases")
struct HandlerPhaseTests {
    // GLib's class-handler order with g_signal_connect_after
    // (gobject/tests/signals.c): the run-first class closure, the handlers,
    // the run-last class closure, then the after-handlers, whatever order
    // they were connected in.
    @Test("Order: run-first default, normal handlers, run-last default, after-handlers, in any order added")
    func classHandlerOrderWithConnectAfter() throws {
        let table = CommandTable(name: "window")
        let log = Log()
        let subscriptions = [
            table.on("close", phase: .after) { log.append("after 1") },
            try table.on("close", phase: .runLast) { log.append("run last") },
            table.on("close") { log.append("normal 1") },
            table.on("close", phase: .after) { log.append("after 2") },
            try table.on("open", phase: .runFirst) { log.append("open default") },
            table.on("close", phase: .normal) { log.append("normal 2") },
            table.on("close", options: .first, phase: .after) { log.append("after first") },
            table.on("close", options: .first) { log.append("normal first") },
        ]
        #expect(try table.execute("close").handled == 7)
        #expect(
            log.all == [
                "normal first", "normal 1", "normal 2", "run last", "after first", "after 1", "after 2",
            ])

        let first = Log()
        let withFirst = [
            table.on("open", options: .first) { first.append("normal first") },
            table.on("open", phase: .after) { first.append("after") },
            table.on("open") { first.append("normal") },
        ]
        try table.execute("open")
        #expect(log.all.last == "open default")
        #expect(first.all == ["normal first", "normal", "after"])
        withExtendedLifetime((subscriptions, withFirst)) {}
    }

    @Test("Typed keys, owners, target-actions and C functions take phases too, and C executes keep the order")
    func everyVerbTakesAPhase() throws {
        let table = CommandTable(name: "window")
        let log = Log()
        let target = PhaseTarget(log: log)
        let key = EventKey<Int>("resize")
        let subscriptions = [
            table.on(key, phase: .after) { size in log.append("typed after \(size)") },
            try table.on(key, phase: .runFirst) { size in log.append("typed default \(size)") },
            table.on(key) { size in log.append("typed \(size)") },
        ]
        try table.execute(key, 3)
        var size = dc_int64(4)
        #expect(dc_table_execute(table.unsafeCTable, "resize", &size, 1, nil) == DC_OK)
        #expect(
            log.all == [
                "typed default 3", "typed 3", "typed after 3", "typed default 4", "typed 4", "typed after 4",
            ])

        let more = Log()
        let owned = [
            table.on("close", owner: target, phase: .after) { _ in more.append("owner after") },
            table.on(EventKey<Void>("close"), owner: target) { _ in more.append("owner") },
        ]
        try table.addTarget(target, action: PhaseTarget.closeWindow, named: "close", for: "close", phase: .runLast)
        table.addTarget(target, action: PhaseTarget.closed, named: "closed", for: "close", phase: .after)
        try table.execute("close")
        #expect(more.all == ["owner", "owner after"])
        #expect(log.all.suffix(2) == ["target default", "target after"])

        let cTable = CommandTable(name: "C")
        let cOrder = Log()
        try cTable.register(
            "draw", function: cDefault, signature: Signature("v^v"),
            target: Unmanaged.passUnretained(cOrder).toOpaque(), phase: .runFirst)
        let normal = cTable.on("draw") { cOrder.append("normal") }
        try cTable.execute("draw")
        #expect(cOrder.all == ["C default", "normal"])
        withExtendedLifetime((subscriptions, owned, normal)) {}
    }

    // GLib's stop-emission test: a handler stopping the emission keeps the
    // run-last class closure (and what comes after it) from running.
    @Test("Stopping the emission in a normal handler skips the run-last default and the after-handlers")
    func stopEmissionBeforeRunLast() throws {
        let table = CommandTable(name: "window")
        let log = Log()
        let subscriptions = [
            try table.on("close", phase: .runLast) { log.append("default") },
            table.on("close", phase: .after) { log.append("after") },
            table.on("close") {
                log.append("veto")
                #expect(throws: Never.self) { try table.stopEmission() }
            },
            table.on("close") { log.append("not reached") },
        ]
        let result = try table.execute("close")
        #expect(result.stopped)
        #expect(result.handled == 1)
        #expect(log.all == ["veto"])
        withExtendedLifetime(subscriptions) {}
    }

    @Test("A run-first default that stops the emission runs alone; outside an execute stopping throws")
    func runFirstDefaultStops() throws {
        let table = CommandTable(name: "window")
        let log = Log()
        let subscriptions = [
            table.on("close") { log.append("normal") },
            try table.on("close", phase: .runFirst) {
                log.append("default")
                try? table.stopEmission()
            },
        ]
        #expect(try table.execute("close").stopped)
        #expect(log.all == ["default"])
        expectDispatchError(DispatchError.invalidState) { try table.stopEmission() }
        withExtendedLifetime(subscriptions) {}
    }

    @Test("A true-handled accumulator stops before the run-last default, as GLib's does")
    func trueHandledStopsBeforeDefault() throws {
        let table = CommandTable(name: "window")
        let log = Log()
        let subscriptions = [
            try table.on("delete", phase: .runLast) { (_: [Value]) in
                log.append("default")
                return .bool(true)
            },
            table.on("delete") { (_: [Value]) in
                log.append("handled")
                return .bool(true)
            },
        ]
        let result = try table.execute("delete", arguments: [], accumulator: .trueHandled)
        #expect(result.returnValue == .bool(true))
        #expect(log.all == ["handled"])
        withExtendedLifetime(subscriptions) {}
    }

    @Test("An event has one default handler: a second throws invalidState, and a default cannot be placed first")
    func secondDefaultThrows() throws {
        let table = CommandTable(name: "window")
        let log = Log()
        let target = PhaseTarget(log: log)
        let defaultHandler = try table.on("close", phase: .runFirst) { log.append("default") }
        let message = expectDispatchError(DispatchError.invalidState) {
            _ = try table.on("close", phase: .runLast) { log.append("second") }
        }
        #expect(message.contains("close"))
        expectDispatchError(DispatchError.invalidState) {
            _ = try table.on(EventKey<Void>("close"), phase: .runFirst) { log.append("typed") }
        }
        expectDispatchError(DispatchError.invalidState) {
            try table.addTarget(target, action: PhaseTarget.closeWindow, named: "close", for: "close", phase: .runLast)
        }
        expectDispatchError(DispatchError.invalidArgument) {
            _ = try table.on("open", options: .first, phase: .runFirst) { log.append("first default") }
        }
        #expect(table.handlerCount(for: "close") == 1)
        #expect(table.handlerCount(for: "open") == 0)
        try table.execute("close")
        #expect(log.all == ["default"])

        // Once the first is gone, another may take its place.
        defaultHandler.cancel()
        let replacement = try table.on("close", phase: .runLast) { log.append("replacement") }
        try table.execute("close")
        #expect(log.all == ["default", "replacement"])
        withExtendedLifetime(replacement) {}
    }

    @Test("removeAll, removeAll(for:) and removeTarget keep the default; cancelling or releasing it removes it")
    func removalsKeepTheDefault() throws {
        let table = CommandTable(name: "window")
        let log = Log()
        let target = PhaseTarget(log: log)
        var defaultHandler: Subscription? = try table.on("close", phase: .runLast) { log.append("default") }
        let normal = table.on("close") { log.append("normal") }
        table.addTarget(target, action: PhaseTarget.closed, named: "closed", for: "close", phase: .after)
        #expect(table.removeAll(for: "close") == 2)
        #expect(normal.isCancelled == false)
        try table.execute("close")
        #expect(log.all == ["default"])

        let again = table.on("close") { log.append("normal again") }
        #expect(table.removeAll() == 1)
        try table.execute("close")
        #expect(log.all == ["default", "default"])

        #expect(table.handlerCount(for: "close") == 1)
        defaultHandler = nil
        #expect(table.handlerCount(for: "close") == 0)
        #expect(try table.execute("close").handled == 0)

        // A target-action default stays through removeTarget and goes with
        // its registration's cancel.
        let targetDefault = try table.addTarget(
            target, action: PhaseTarget.closeWindow, named: "closeWindow", for: "close", phase: .runFirst)
        #expect(table.removeTarget(target) == 0)
        try table.execute("close")
        #expect(log.all.last == "target default")
        targetDefault.cancel()
        #expect(try table.execute("close").handled == 0)
        withExtendedLifetime((defaultHandler, normal, again)) {}
    }

    @Test("A target-action default whose target dies is skipped and pruned, never called")
    func deadTargetDefaultIsPruned() throws {
        let table = CommandTable(name: "window")
        let log = Log()
        var target: PhaseTarget? = PhaseTarget(log: log)
        try table.addTarget(target!, action: PhaseTarget.closeWindow, named: "close", for: "close", phase: .runLast)
        try table.execute("close")
        target = nil
        #expect(try table.execute("close").handled == 0)
        #expect(table.handlerCount(for: "close") == 0)
        #expect(log.all == ["target default"])
        // Its place is free again.
        let next = try table.on("close", phase: .runLast) { log.append("next default") }
        try table.execute("close")
        #expect(log.all == ["target default", "next default"])
        withExtendedLifetime(next) {}
    }

    @Test("Event.add runs an after-handler after the others, whatever order they were added in")
    func eventAfterHandlers() {
        let source = EventSource<Void, Void>("closed")
        let log = Log()
        let subscriptions = [
            source.event.add(phase: .after) { log.append("after") },
            source.event.add { log.append("normal") },
        ]
        source.raise()
        #expect(log.all == ["normal", "after"])
        #expect(source.removeAll() == 2)
        withExtendedLifetime(subscriptions) {}
    }

    @Test("Typed executes without arguments, the inline path, run defaults, after-handlers and details too")
    func inlineExecuteKeepsPhasesAndDetails() throws {
        let table = CommandTable(name: "window")
        let log = Log()
        let close = EventKey<Void>("close")
        let closeWindow = close.detail("window")
        let subscriptions = [
            table.on(close) { log.append("normal") },
            table.on(close, phase: .after) { log.append("after") },
            table.on(closeWindow) { log.append("detail") },
        ]
        for _ in 0..<2 { try table.execute(close) }
        #expect(log.all == ["normal", "after", "normal", "after"])
        let defaultHandler = try table.on(close, phase: .runFirst) { log.append("default") }
        try table.execute(close)
        try table.execute(closeWindow)
        #expect(log.all.suffix(7) == ["default", "normal", "after", "default", "normal", "detail", "after"])

        // With a scalar argument, the lean path of typed executes.
        let resize = EventKey<Int>("resize")
        let sized = [
            table.on(resize, phase: .after) { size in log.append("after \(size)") },
            table.on(resize) { size in log.append("normal \(size)") },
        ]
        for size in 1...2 { try table.execute(resize, size) }
        #expect(log.all.suffix(4) == ["normal 1", "after 1", "normal 2", "after 2"])
        withExtendedLifetime((subscriptions, defaultHandler, sized)) {}
    }

    @Test("Raw option bits make no phase: it comes from phase: alone")
    func rawOptionBitsMakeNoPhase() throws {
        let table = CommandTable(name: "window")
        let log = Log()
        let raw = HandlerOptions(rawValue: 0x700)
        let subscriptions = [
            table.on("close", options: raw) { log.append("first") },
            table.on("close", options: raw) { log.append("second") },
            table.on("close", options: raw, phase: .after) { log.append("after") },
        ]
        try table.execute("close")
        #expect(log.all == ["first", "second", "after"])
        #expect(table.handlers(for: "close").map(\.phase) == [.normal, .normal, .after])
        withExtendedLifetime(subscriptions) {}
    }

    @Test("A table's deinit releases its default handlers' closures, though their subscriptions live on")
    func deinitReleasesDefaults() throws {
        let released = SharedCount()
        final class Witness: Sendable {
            let released: SharedCount
            init(_ released: SharedCount) { self.released = released }
            deinit { released.add() }
        }
        var subscription: Subscription?
        do {
            let table = CommandTable(name: "short-lived")
            let witness = Witness(released)
            subscription = try table.on("close", phase: .runLast) { withExtendedLifetime(witness) {} }
        }
        #expect(released.value == 1)
        subscription?.cancel()
        #expect(released.value == 1)
    }

    @Test("A once default runs once and goes; a strict default keeps its strictness")
    func defaultsWithOptions() throws {
        let table = CommandTable(name: "window")
        let log = Log()
        let once = try table.on("close", options: .once, phase: .runLast) { log.append("once default") }
        try table.execute("close")
        try table.execute("close")
        #expect(log.all == ["once default"])
        #expect(once.handlerID.flatMap(table.handlerInfo) == nil)

        let strict = try table.on("resize", options: .strict, phase: .runFirst) { (_: Int) in log.append("strict") }
        expectDispatchError(DispatchError.arity) { try table.execute("resize", 1, 2) }
        #expect(table.handlerInfo(strict.handlerID!)?.options == .strict)
        withExtendedLifetime(strict) {}
    }
}
