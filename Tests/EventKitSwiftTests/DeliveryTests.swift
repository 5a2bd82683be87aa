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
            table.on("select", on: .dispatchQueue(queue)) { (object: AnyObject?) in
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
        let subscription = table.on("tick", on: .mainActor) { (values: [Value]) in
            guard case .int64(let tick)? = values.first else { return }
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
        let subscription = table.on("select", on: .mainActor) { (object: AnyObject?) in
            model.names.append((object as? Parcel)?.name ?? "none")
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
