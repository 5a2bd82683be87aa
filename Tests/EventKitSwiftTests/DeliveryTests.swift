import Dispatch
import EventKitSwift
import Testing

@Suite("Delivery")
struct DeliveryTests {
    // MARK: DispatchQueue

    @Test("A serial DispatchQueue runs the handler on the queue, once per execute, in execute order")
    func serialDispatchQueueKeepsOrder() throws {
        let table = CommandTable()
        let queue = DispatchQueue(label: "delivery.serial")
        let onQueue = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: onQueue, value: true)
        let ticks = Arrivals<Int64>()
        let ranOnQueue = Arrivals<Bool>()
        let subscription = table.on("tick", on: .dispatchQueue(queue)) { (values: [Value]) in
            guard case .int64(let tick)? = values.first else { return }
            ticks.append(tick)
            ranOnQueue.append(DispatchQueue.getSpecific(key: onQueue) == true)
        }

        for tick in 0..<500 {
            let result = try table.execute("tick", .int64(Int64(tick)))
            #expect(result.handled == 1)
        }
        queue.sync {}

        #expect(ticks.all == Array(0..<500))
        #expect(ranOnQueue.all == Array(repeating: true, count: 500))
        withExtendedLifetime(subscription) {}
    }

    @Test("Handlers of different shapes on one serial queue interleave in execute, then registration, order")
    func shapesInterleaveInOrder() throws {
        let table = CommandTable()
        let queue = DispatchQueue(label: "delivery.shapes")
        let calls = Arrivals<String>()
        let subscriptions = [
            table.on("toggle", on: .dispatchQueue(queue)) { calls.append("void") },
            table.on("toggle", on: .dispatchQueue(queue)) { (on: Bool) in calls.append("bool \(on)") },
        ]
        for on in [true, false, true] {
            try table.execute("toggle", .bool(on))
        }
        queue.sync {}

        #expect(calls.all == ["void", "bool true", "void", "bool false", "void", "bool true"])
        withExtendedLifetime(subscriptions) {}
    }

    @Test("Arguments are copied before the hop: the string survives the execute and the object stays alive")
    func argumentsAreCopiedBeforeTheHop() throws {
        let table = CommandTable()
        let queue = DispatchQueue(label: "delivery.copies")
        let texts = Arrivals<String>()
        let objectNames = Arrivals<String>()
        let subscriptions = [
            table.on("select", on: .dispatchQueue(queue)) { (values: [Value]) in
                guard case .string(let text?)? = values.last else { return }
                texts.append(text)
            },
            table.on("select", on: .dispatchQueue(queue)) { (values: [Value]) in
                guard case .object(let object)? = values.first else { return }
                objectNames.append((object as? Parcel)?.name ?? "none")
            },
        ]
        let watcher = WeakWatcher()
        queue.suspend()
        do {
            let parcel = Parcel(name: "parcel")
            watcher.watch(parcel)
            try table.execute("select", .object(parcel), "hello")
        }
        #expect(watcher.isAlive, "the waiting deliveries keep the object alive")

        queue.resume()
        queue.sync {}
        #expect(texts.all == ["hello"])
        #expect(objectNames.all == ["parcel"])
        #expect(!watcher.isAlive, "the deliveries released the object once they ran")
        withExtendedLifetime(subscriptions) {}
    }

    @Test("Cancelling a subscription skips its deliveries still waiting on the queue")
    func cancellingSkipsWaitingDeliveries() throws {
        let table = CommandTable()
        let queue = DispatchQueue(label: "delivery.cancel")
        let calls = Arrivals<String>()
        let subscription = table.on("reset", on: .dispatchQueue(queue)) { calls.append("reset") }
        queue.suspend()
        for _ in 0..<3 {
            try table.execute("reset")
        }
        subscription.cancel()
        queue.resume()
        queue.sync {}

        #expect(calls.all.isEmpty)
        #expect(table.handlerCount(for: "reset") == 0)
        #expect(try table.execute("reset").handled == 0)
    }

    @Test("Releasing the subscription removes a delivered handler")
    func releasingRemovesHandler() throws {
        let table = CommandTable()
        let queue = DispatchQueue(label: "delivery.release")
        var subscription: Subscription? = table.on("reset", on: .dispatchQueue(queue)) {}
        #expect(table.handlerCount(for: "reset") == 1)
        #expect(subscription?.isCancelled == false)

        subscription = nil
        #expect(table.handlerCount(for: "reset") == 0)
    }

    // MARK: Main actor

    @Test("The main actor receives every execute from another thread in order")
    @MainActor
    func mainActorKeepsOrder() async throws {
        let table = CommandTable()
        let model = MainModel()
        DispatchQueue.main.setSpecific(key: onMainQueue, value: true)
        let subscription = table.on("tick", on: .mainActor) { (tick: Int64) in
            // Main-actor state, touched without await: the closure is @MainActor.
            model.ticks.append(tick)
            // The main actor's executor is the main dispatch queue, which
            // after dispatchMain() may run on any one thread at a time.
            model.ranOnMainQueue.append(DispatchQueue.getSpecific(key: onMainQueue) == true)
        }

        await Task.detached {
            for tick in 0..<200 {
                _ = try? table.execute("tick", .int64(Int64(tick)))
            }
        }.value
        try await waitOnMainActor(until: { model.ticks.count == 200 })

        #expect(model.ticks == Array(0..<200))
        #expect(model.ranOnMainQueue == Array(repeating: true, count: 200))
        withExtendedLifetime(subscription) {}
    }

    @Test("An execute on the main actor posts too, behind the deliveries before it")
    @MainActor
    func mainActorExecuteDoesNotOvertake() async throws {
        let table = CommandTable()
        let model = MainModel()
        let subscription = table.on("toggle", on: .mainActor) { (on: Bool) in
            model.flags.append(on)
        }

        // Posted from elsewhere, and not yet run: the main actor is busy here.
        runOnSeparateThread {
            _ = try? table.execute("toggle", false)
        }
        let result = try table.execute("toggle", true)
        #expect(result.handled == 1)
        #expect(model.flags.isEmpty, "the handler runs later, not inside the execute")

        try await waitOnMainActor(until: { model.flags.count == 2 })
        #expect(model.flags == [false, true])
        withExtendedLifetime(subscription) {}
    }

    @Test("Cancelling a main-actor subscription skips its deliveries not yet run")
    @MainActor
    func mainActorCancellationSkipsWaitingDeliveries() async throws {
        let table = CommandTable()
        let model = MainModel()
        let subscription = table.on("reset", on: .mainActor) { model.resets += 1 }
        for _ in 0..<3 {
            try table.execute("reset")
        }
        subscription.cancel()
        // Runs after the three deliveries: the main queue is first in, first out.
        await withCheckedContinuation { continuation in
            DispatchQueue.main.async { continuation.resume() }
        }

        #expect(model.resets == 0)
        #expect(table.handlerCount(for: "reset") == 0)
    }

    @Test("A main-actor handler receives its object argument, retained until it runs")
    @MainActor
    func mainActorReceivesObjects() async throws {
        let table = CommandTable()
        let model = MainModel()
        let subscription = table.on("select", on: .mainActor) { (parcel: Parcel?) in
            model.names.append(parcel?.name ?? "none")
        }
        let watcher = WeakWatcher()
        do {
            let parcel = Parcel(name: "parcel")
            watcher.watch(parcel)
            try table.execute("select", .object(parcel))
            try table.execute("select", .object(nil))
        }
        #expect(watcher.isAlive)

        try await waitOnMainActor(until: { model.names.count == 2 })
        #expect(model.names == ["parcel", "none"])
        #expect(!watcher.isAlive)
        withExtendedLifetime(subscription) {}
    }

    // MARK: Typed keys and typed closures

    @Test("A typed key delivers 0, 1, 4 and 8 arguments to unannotated closures on a DispatchQueue")
    func typedKeysDeliverOnDispatchQueue() throws {
        let table = CommandTable()
        let queue = DispatchQueue(label: "delivery.typed")
        let calls = Arrivals<String>()
        let subscriptions = [
            table.on(.reset, on: .dispatchQueue(queue)) { calls.append("reset") },
            table.on(.toggle, on: .dispatchQueue(queue)) { on in calls.append("toggle \(on)") },
            table.on(.four, on: .dispatchQueue(queue)) { a, b, c, d in calls.append("four \(a + b + c + d)") },
            table.on(.eight, on: .dispatchQueue(queue)) { flag, a, b, c, d, e, f, g in
                calls.append("eight \(flag) \(Double(a) + Double(b) + Double(c) + Double(d) + Double(e) + f + Double(g))")
            },
        ]
        try table.execute(.reset)
        try table.execute(.toggle, true)
        try table.execute(.four, 1, 2, 3, 4)
        try table.execute(.eight, false, -1, 2, -3, 4, 0.5, 0.25, 6)
        queue.sync {}

        #expect(calls.all == ["reset", "toggle true", "four 10", "eight false 8.75"])
        withExtendedLifetime(subscriptions) {}
    }

    @Test("A typed delivery checks the arguments on the executing thread: a wrong type delivers nothing")
    func typedDeliveryChecksBeforeTheHop() throws {
        let table = CommandTable()
        let queue = DispatchQueue(label: "delivery.checked")
        let titles = Arrivals<String>()
        let subscription = table.on("rename", on: .dispatchQueue(queue)) { (title: String, index: Int) in
            titles.append("\(title) \(index)")
        }

        #expect(throws: DispatchError.self) { try table.execute("rename", 7, 1) }
        #expect(throws: DispatchError.self) { try table.execute("rename", .string(nil), 1) }
        try table.execute("rename", "intro", 2)
        queue.sync {}

        #expect(titles.all == ["intro 2"])
        withExtendedLifetime(subscription) {}
    }

    @Test("A typed key on an EventQueue converts on the poster and runs on the owner, strings and objects kept")
    func typedKeyOnEventQueue() throws {
        let table = CommandTable()
        let queue = try EventQueue()
        let calls = Arrivals<String>()
        let watcher = WeakWatcher()
        let subscription = table.on(.mixed, on: .queue(queue)) { title, track, level, note in
            calls.append("\(title) \(track.title) \(level) \(note ?? "none")")
        }
        runOnSeparateThread {
            let track = Track(title: "b-side")
            watcher.watch(track)
            var title = "side"
            title += " two"
            _ = try? table.execute(.mixed, title, track, 3, nil)
        }
        #expect(calls.all.isEmpty, "posted from another thread, the call waits for the owner")
        #expect(watcher.isAlive, "the waiting delivery keeps the object alive")

        #expect(queue.drain() == 1)
        #expect(calls.all == ["side two b-side 3 none"])
        #expect(!watcher.isAlive)
        withExtendedLifetime(subscription) {}
    }

    @Test("An object closure of a given class refuses another class before the hop")
    func objectClassIsCheckedBeforeTheHop() throws {
        let table = CommandTable()
        let queue = DispatchQueue(label: "delivery.object")
        let names = Arrivals<String>()
        let subscription = table.on("select", on: .dispatchQueue(queue)) { (parcel: Parcel?) in
            names.append(parcel?.name ?? "none")
        }

        #expect(throws: DispatchError.self) { try table.execute("select", .object(Track(title: "t"))) }
        try table.execute("select", .object(Parcel(name: "parcel")))
        try table.execute("select", .object(nil))
        queue.sync {}

        #expect(names.all == ["parcel", "none"])
        withExtendedLifetime(subscription) {}
    }

    @Test("A typed key's main-actor handler takes its arguments unannotated, in execute order")
    @MainActor
    func typedKeyOnMainActor() async throws {
        let table = CommandTable()
        let model = MainModel()
        let subscriptions = [
            table.on(.toggle, on: .mainActor) { on in model.flags.append(on) },
            table.on(.rename, on: .mainActor) { title, index in model.names.append("\(title) \(index)") },
        ]
        runOnSeparateThread {
            _ = try? table.execute(.toggle, false)
            _ = try? table.execute(.rename, "first", 1)
        }
        try table.execute(.toggle, true)

        try await waitOnMainActor(until: { model.flags.count == 2 && model.names.count == 1 })
        #expect(model.flags == [false, true])
        #expect(model.names == ["first 1"])
        withExtendedLifetime(subscriptions) {}
    }
}

/// Set on the main queue, to tell from inside a handler that it runs there.
/// One key for the whole run: the queue keeps a key's value for its life.
private let onMainQueue = DispatchSpecificKey<Bool>()

/// State that main-actor handlers write.
@MainActor
final class MainModel {
    var ticks: [Int64] = []
    var flags: [Bool] = []
    var names: [String] = []
    var ranOnMainQueue: [Bool] = []
    var resets = 0
}

/// Suspends, leaving the main actor free to run deliveries, until `condition`
/// holds or `timeout` passes (then the test's expectations report what is
/// missing, rather than the test hanging).
@MainActor
func waitOnMainActor(timeout: Duration = .seconds(2), until condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while !condition(), ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(1))
    }
}
