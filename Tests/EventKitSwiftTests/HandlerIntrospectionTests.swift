import CDispatchCore
import EventKitSwift
import Synchronization
import Testing

/// A target-action receiver for the listings.
private final class Listener: Sendable {
    func heard() {}
}

/// A C handler to find by function and target.
private let draw: @convention(c) (UnsafeMutableRawPointer?) -> Void = { _ in }
private let erase: @convention(c) (UnsafeMutableRawPointer?) -> Void = { _ in }

/// What an observer saw, in order.
private final class Changes: Sendable {
    private let seen = Mutex<[HandlerChange]>([])
    func append(_ change: HandlerChange) { seen.withLock { $0.append(change) } }
    var all: [HandlerChange] { seen.withLock { $0 } }
    func clear() { seen.withLock { $0 = [] } }
}

@Suite("Handler introspection and observers")
struct HandlerIntrospectionTests {
    // Node's test-event-emitter-listeners: listeners() in call order, and
    // after a removal without the one removed.
    @Test("handlers(for:) lists what an execute calls, in its order, and loses a handler once removed")
    func listenersInCallOrder() throws {
        let table = CommandTable(name: "emitter")
        let listener = Listener()
        let after = table.on("foo", phase: .after) {}
        let first = table.on("foo") {}
        let defaultHandler = try table.on("foo", phase: .runLast) {}
        let detailed = table.on("foo::bar") {}
        let target = table.addTarget(listener, action: Listener.heard, named: "heard", for: "foo")
        let firstPlaced = table.on("foo", options: .first) {}

        let ids = [firstPlaced, first, target, defaultHandler, after].map(\.handlerID)
        #expect(table.handlers(for: "foo").map(\.id) == ids.compactMap { $0 })
        #expect(table.handlers(for: "foo").map(\.phase) == [.normal, .normal, .normal, .runLast, .after])
        #expect(
            table.handlers(for: EventKey<Void>("foo").detail("bar")).map(\.id)
                == [firstPlaced, first, detailed, target, defaultHandler, after].compactMap(\.handlerID))
        #expect(table.handlers(for: "foo::bar")[2].event == "foo::bar")
        #expect(table.handlers(for: "foo").count == table.handlerCount(for: "foo"))

        first.cancel()
        #expect(table.handlers(for: "foo").map(\.id) == [firstPlaced, target, defaultHandler, after].compactMap(\.handlerID))
        #expect(table.handlers(for: "nothing").isEmpty)
        #expect(table.handlers(for: "a::b::c").isEmpty)
        withExtendedLifetime((after, defaultHandler, detailed, target, firstPlaced, listener)) {}
    }

    @Test("handlerInfo tells a handler's event, options, phase, marshal, queue, blocks and target")
    func handlerInfoDescribesOne() throws {
        let table = CommandTable(name: "emitter")
        var listener: Listener? = Listener()
        let once = table.on("foo::bar", options: [.once, .strict]) {}
        let target = table.addTarget(listener!, action: Listener.heard, named: "heard", for: "foo", phase: .after)
        let queue = try EventQueue()
        let queued = table.on("foo", on: .queue(queue)) {}
        let cTarget = UnsafeMutableRawPointer(bitPattern: 0x40)
        let function = try table.register("draw", function: draw, signature: Signature("v^v"), target: cTarget)

        let onceInfo = try #require(table.handlerInfo(once.handlerID!))
        #expect(onceInfo.event == "foo::bar")
        #expect(onceInfo.options == [.once, .strict])
        #expect(onceInfo.phase == .normal && onceInfo.isMarshal && !onceInfo.isQueued && !onceInfo.isBlocked)
        #expect(onceInfo.target == nil && onceInfo.unsafeTarget == nil)

        let targetInfo = try #require(table.handlerInfo(target.handlerID!))
        #expect(targetInfo.phase == .after)
        #expect(targetInfo.target === listener)
        #expect(table.handlerInfo(queued.handlerID!)?.isQueued == true)

        let functionInfo = try #require(table.handlerInfo(function.handlerID!))
        #expect(!functionInfo.isMarshal && functionInfo.unsafeTarget == cTarget && functionInfo.target == nil)

        #expect(dc_table_block(table.unsafeCTable, function.handlerID!.rawValue) == DC_OK)
        #expect(dc_table_block(table.unsafeCTable, function.handlerID!.rawValue) == DC_OK)
        #expect(table.handlerInfo(function.handlerID!)?.blockedCount == 2)
        #expect(table.handlers(for: "draw").first?.isBlocked == true)

        // A dead target's handler is still listed until an execute prunes it,
        // without its target.
        listener = nil
        #expect(table.handlerInfo(target.handlerID!)?.target == nil)
        try table.execute("foo")
        #expect(table.handlerInfo(target.handlerID!) == nil)

        let id = try #require(once.handlerID)
        once.cancel()
        #expect(once.handlerID == nil)
        #expect(table.handlerInfo(id) == nil)
        withExtendedLifetime(queued) {}
    }

    // GLib's handler lookup by function and data (g_signal_handler_find).
    @Test("findHandler finds a C handler by function and target, on one event or any, and nothing once removed")
    func findByFunctionAndTarget() throws {
        let table = CommandTable(name: "canvas")
        let one = UnsafeMutableRawPointer(bitPattern: 0x10), two = UnsafeMutableRawPointer(bitPattern: 0x20)
        let drawOne = try table.register("draw", function: draw, signature: Signature("v^v"), target: one)
        let drawTwo = try table.register("draw", function: draw, signature: Signature("v^v"), target: two)
        let eraseTwo = try table.register("erase", function: erase, signature: Signature("v^v"), target: two)

        #expect(try table.findHandler(for: "draw", function: draw, target: two)?.id == drawTwo.handlerID)
        #expect(try table.findHandler(function: draw, target: one)?.id == drawOne.handlerID)
        #expect(try table.findHandler(function: erase, target: two)?.id == eraseTwo.handlerID)
        #expect(try table.findHandler(for: "erase", function: draw, target: two) == nil)
        #expect(try table.findHandler(for: "draw", function: draw) == nil)
        #expect(try table.findHandler(for: "nothing", function: draw, target: one) == nil)

        drawTwo.cancel()
        #expect(try table.findHandler(for: "draw", function: draw, target: two) == nil)
        expectDispatchError(DispatchError.invalidArgument) {
            _ = try table.findHandler(for: "draw::", function: draw, target: one)
        }
        expectDispatchError(DispatchError.invalidArgument) { _ = try table.findHandler(function: "draw") }
        withExtendedLifetime((drawOne, eraseTwo)) {}
    }

    // Node's test-event-emitter-new-listener and -remove-listeners:
    // 'newListener' and 'removeListener' for each listener that comes and goes.
    @Test("An observer is told of each handler added and removed, with its event and id, however it goes")
    func observerSeesAddsAndRemovals() throws {
        let table = CommandTable(name: "emitter")
        let changes = Changes()
        let observer = table.observeHandlers { changes.append($0) }
        #expect(observer.handlerID == nil)

        let hello = table.on("hello") {}
        let helloID = try #require(hello.handlerID)
        #expect(changes.all == [HandlerChange(.added, event: "hello", handler: helloID)])
        hello.cancel()
        #expect(changes.all.last == HandlerChange(.removed, event: "hello", handler: helloID))

        changes.clear()
        let once = table.on("once::bar", options: .once) {}
        var listener: Listener? = Listener()
        let target = table.addTarget(listener!, action: Listener.heard, named: "heard", for: "gone")
        let stays = table.on("stays") {}
        let defaultHandler = try table.on("stays", phase: .runFirst) {}
        try table.execute("once::bar")
        listener = nil
        try table.execute("gone")
        #expect(table.removeAll() == 1)
        // A registration keeps naming its handler after the handler went by
        // itself (run once, pruned), until cancelled.
        let ids = [once, target, stays, defaultHandler].compactMap(\.handlerID)
        #expect(
            changes.all == [
                HandlerChange(.added, event: "once::bar", handler: ids[0]),
                HandlerChange(.added, event: "gone", handler: ids[1]),
                HandlerChange(.added, event: "stays", handler: ids[2]),
                HandlerChange(.added, event: "stays", handler: ids[3]),
                HandlerChange(.removed, event: "once::bar", handler: ids[0]),
                HandlerChange(.removed, event: "gone", handler: ids[1]),
                HandlerChange(.removed, event: "stays", handler: ids[2]),
            ])

        // C registrations are told too; an observer cancelled hears no more.
        changes.clear()
        let function = try table.register("draw", function: draw, signature: Signature("v^v"))
        #expect(changes.all == [HandlerChange(.added, event: "draw", handler: function.handlerID!)])
        observer.cancel()
        function.cancel()
        _ = table.on("later") {}
        #expect(changes.all.count == 1)
        withExtendedLifetime(defaultHandler) {}
    }

    @Test("Observers run in the order added, and may add and remove handlers from inside")
    func observersChangeTheTableFromInside() throws {
        let table = CommandTable(name: "emitter")
        let changes = Changes()
        let log = Log()
        let spawned = Mutex<[Subscription]>([])
        // Node's pattern: on a listener for "data", start reading; a
        // "probe" listener is taken away as soon as it is added.
        let first = table.observeHandlers { change in
            log.append("first \(change)")
            guard change.kind == .added else { return }
            if change.event == "data" {
                let reader = table.on("read") { log.append("reading") }
                spawned.withLock { $0.append(reader) }
            } else if change.event == "probe" {
                #expect(table.handlerInfo(change.handler) != nil)
                let removed = dc_table_remove(table.unsafeCTable, change.handler.rawValue)
                #expect(removed == DC_OK)
            }
        }
        let second = table.observeHandlers { changes.append($0) }

        let data = table.on("data") {}
        let probe = table.on("probe") {}
        #expect(try table.execute("read").handled == 1)
        #expect(try table.execute("probe").handled == 0)
        // A change made inside an observer is told, to every observer, before
        // the observers after it hear of the change they were told.
        #expect(
            changes.all.map { "\($0.kind) \($0.event)" } == [
                "added read", "added data", "removed probe", "added probe",
            ])
        #expect(
            log.all == [
                "first added \(data.handlerID!) \"data\"", "first added \(changes.all[0].handler) \"read\"",
                "first added \(probe.handlerID!) \"probe\"", "first removed \(probe.handlerID!) \"probe\"", "reading",
            ])
        withExtendedLifetime((first, second, probe)) {}
        spawned.withLock { $0 = [] }
    }
}
