import CDispatchCore
import EventKitSwift
import Foundation
import Synchronization
import Testing

// Value types as event payloads: structs, enums with associated values and
// collections travel through typed keys and the string API, C handlers see
// them as objects, and an execute of another Swift type fails before any
// handler runs.

private struct Order: Sendable, Equatable {
    var id: Int
    var items: [String]
}
extension Order: EventPayload {}

private struct Invoice: Sendable, Equatable {
    var total: Double
}
extension Invoice: EventPayload {}

private enum Shape: Sendable, Equatable {
    case circle(radius: Double)
    case rectangle(width: Double, height: Double)
}
extension Shape: EventPayload {}

extension EventKey where Arguments == Order {
    fileprivate static let placed: EventKey<Order> = "order.placed"
}
extension EventKey where Arguments == (Order, Int) {
    fileprivate static let placedAt: EventKey<(Order, Int)> = "order.placedAt"
}
extension EventKey where Arguments == Order? {
    fileprivate static let maybePlaced: EventKey<Order?> = "order.maybe"
}

/// The C handler of `PayloadTests.cHandlerKeepsAndPassesBackPayload`: keeps
/// its object argument, retained, for the test to execute again with.
nonisolated(unsafe) private var keptObject: UnsafeMutableRawPointer?
private let keepObject: @convention(c) (UnsafeMutableRawPointer?) -> Void = { object in
    keptObject = object.map { Unmanaged<AnyObject>.fromOpaque($0).retain().toOpaque() }
}

extension Order {
    /// Order `id`, whose item count is `id % 4`: a handler that finds
    /// another count got an order torn or mixed up.
    fileprivate static func numbered(_ id: Int) -> Order {
        Order(id: id, items: Array(repeating: "item", count: id % 4))
    }

    fileprivate var isWhole: Bool { items.count == id % 4 }
}

/// The C handler of `PayloadTests.cExecuteOfOtherTypeFailsBeforeAnyHandler`,
/// run before the Swift one: counts its calls.
private let cCalls = Atomic<Int>(0)
private let countCCall: @convention(c) (UnsafeMutableRawPointer?) -> Void = { _ in
    cCalls.add(1, ordering: .relaxed)
}

/// Executes `event` of `table` from C, with `value`'s object as its one
/// argument: the status, and what it did in `result` when given.
private func executeFromC(
    _ table: CommandTable, _ event: String, _ value: Value, _ result: UnsafeMutablePointer<dc_result>? = nil
) -> dc_status {
    guard case .object(let object?) = value else { return DC_ERR_INVALID_ARGUMENT }
    return withExtendedLifetime(object) {
        var argument = dc_object(Unmanaged.passUnretained(object).toOpaque())
        return dc_table_execute(table.unsafeCTable, event, &argument, 1, result)
    }
}

/// What the threaded tests count: orders received, orders or errors that
/// should not be, and executes refused for a payload of another type.
private final class OrderTally: Sendable {
    let received = Atomic<Int>(0)
    let corrupt = Atomic<Int>(0)
    let mismatches = Atomic<Int>(0)

    /// A handler of `.placed` on `table` that counts each order it gets.
    func countOrders(on table: CommandTable) -> Subscription {
        table.on(.placed) { order in
            if !order.isWhole { self.corrupt.add(1, ordering: .relaxed) }
            self.received.add(1, ordering: .relaxed)
        }
    }
}

/// Counts an execute's error in `tally`'s mismatches when it is a type
/// mismatch naming both `first` and `second`, else as corrupt.
private func record(_ error: any Error, naming first: String, _ second: String, in tally: OrderTally) {
    if let error = error as? DispatchError, error == .typeMismatch(error.message),
        error.message.contains(first), error.message.contains(second)
    {
        tally.mismatches.add(1, ordering: .relaxed)
    } else {
        tally.corrupt.add(1, ordering: .relaxed)
    }
}

/// Runs `body` on `count` threads of their own, given each one's number,
/// each in `done` until it returns.
private func startThreads(_ count: Int, in done: DispatchGroup, _ body: @escaping @Sendable (Int) -> Void) {
    for thread in 0..<count {
        done.enter()
        Thread {
            body(thread)
            done.leave()
        }.start()
    }
}

/// Registers, then cancels, a handler of `Invoice` on "order.placed" and
/// handlers of `[String]` and `[Int]` on `fresh`.
private func register(on table: CommandTable, _ fresh: String) {
    let invoices = table.on(EventKey<Invoice>("order.placed")) { _ in }
    let strings = table.on(EventKey<[String]>(fresh)) { _ in }
    let numbers = table.on(EventKey<[Int]>(fresh)) { _ in }
    invoices.cancel()
    strings.cancel()
    numbers.cancel()
}

@Suite("EventPayload")
struct EventPayloadTests {
    @Test("A struct travels through a typed key to its handler, unchanged")
    func structThroughTypedKey() throws {
        let table = CommandTable(name: "payload")
        let received = Arrivals<Order>()
        let subscription = table.on(.placed) { order in received.append(order) }
        let order = Order(id: 7, items: ["tea", "milk"])
        let result = try table.execute(.placed, order)
        #expect(result.handled == 1)
        #expect(received.all == [order])
        withExtendedLifetime(subscription) {}
    }

    @Test("An enum with associated values, an array, a set and a dictionary are payloads")
    func enumsAndCollectionsArePayloads() throws {
        let table = CommandTable(name: "payload")
        let shapes = Arrivals<Shape>()
        let lists = Arrivals<[String]>()
        let sets = Arrivals<Set<Int>>()
        let stock = Arrivals<[String: [Order]]>()
        let subscriptions = [
            table.on(EventKey<Shape>("shape")) { shapes.append($0) },
            table.on(EventKey<[String]>("list")) { lists.append($0) },
            table.on(EventKey<Set<Int>>("set")) { sets.append($0) },
            table.on(EventKey<[String: [Order]]>("stock")) { stock.append($0) },
        ]
        try table.execute(EventKey<Shape>("shape"), .rectangle(width: 2, height: 3))
        try table.execute(EventKey<[String]>("list"), ["a", "b"])
        try table.execute(EventKey<Set<Int>>("set"), [1, 2, 3])
        try table.execute(EventKey<[String: [Order]]>("stock"), ["tea": [Order(id: 1, items: [])]])
        #expect(shapes.all == [.rectangle(width: 2, height: 3)])
        #expect(lists.all == [["a", "b"]])
        #expect(sets.all == [[1, 2, 3]])
        #expect(stock.all == [["tea": [Order(id: 1, items: [])]]])
        withExtendedLifetime(subscriptions) {}
    }

    @Test("A payload is one element of a key's tuple, beside a scalar")
    func payloadInATuple() throws {
        let table = CommandTable(name: "payload")
        let received = Arrivals<String>()
        let subscription = table.on(.placedAt) { order, slot in received.append("\(order.id)@\(slot)") }
        try table.execute(.placedAt, Order(id: 3, items: []), 12)
        #expect(received.all == ["3@12"])
        withExtendedLifetime(subscription) {}
    }

    @Test("An optional payload carries nil as the null object")
    func optionalPayload() throws {
        let table = CommandTable(name: "payload")
        let received = Arrivals<Int?>()
        let subscription = table.on(.maybePlaced) { order in received.append(order?.id) }
        try table.execute(.maybePlaced, nil)
        try table.execute(.maybePlaced, Order(id: 4, items: []))
        #expect(received.all == [nil, 4])
        withExtendedLifetime(subscription) {}
    }

    @Test("The string API takes payloads both ways: an annotated handler and an execute by name")
    func payloadByName() throws {
        let table = CommandTable(name: "payload")
        let received = Arrivals<Order>()
        let subscription = table.on("order.placed") { (order: Order) in received.append(order) }
        let order = Order(id: 9, items: ["jam"])
        try table.execute("order.placed", order)
        try table.execute(.placed, order)
        #expect(received.all == [order, order])
        withExtendedLifetime(subscription) {}
    }

    @Test("An execute with a payload of another Swift type throws naming both types, and runs no handler")
    func otherSwiftTypeFailsBeforeAnyHandler() throws {
        let table = CommandTable(name: "payload")
        let calls = Atomic<Int>(0)
        let subscriptions = [
            table.on("order.placed") { calls.add(1, ordering: .relaxed) },
            table.on(.placed) { _ in calls.add(1, ordering: .relaxed) },
        ]
        let message = expectDispatchError(DispatchError.typeMismatch) {
            try table.execute("order.placed", Invoice(total: 2))
        }
        #expect(message.contains("Order") && message.contains("Invoice"), "\(message)")
        #expect(message.contains("order.placed"))
        #expect(calls.load(ordering: .relaxed) == 0)

        // A detailed key's execute runs the event's handlers: it is checked too.
        expectDispatchError(DispatchError.typeMismatch) {
            try table.execute(EventKey<Invoice>("order.placed::rush"), Invoice(total: 2))
        }
        #expect(calls.load(ordering: .relaxed) == 0)
        withExtendedLifetime(subscriptions) {}
    }

    @Test("An execute from C with an object of another Swift type fails naming both types, before any handler, C ones included")
    func cExecuteOfOtherTypeFailsBeforeAnyHandler() throws {
        let table = CommandTable(name: "payload")
        try table.register("order.placed", function: countCCall, signature: Signature("v@"))
        let orders = Arrivals<Order>()
        let subscription = table.on(.placed) { orders.append($0) }
        cCalls.store(0, ordering: .relaxed)

        #expect(executeFromC(table, "order.placed", Invoice(total: 2).eventValue) == DC_ERR_TYPE)
        let message = String(cString: dc_last_error_message())
        #expect(message.contains("Order") && message.contains("Invoice") && message.contains("order.placed"), "\(message)")
        #expect(cCalls.load(ordering: .relaxed) == 0 && orders.all.isEmpty)

        // A detailed key's execute runs the event's handlers: asked too.
        #expect(executeFromC(table, "order.placed::rush", Invoice(total: 2).eventValue) == DC_ERR_TYPE)
        #expect(cCalls.load(ordering: .relaxed) == 0 && orders.all.isEmpty)

        let order = Order(id: 3, items: ["tea"])
        #expect(executeFromC(table, "order.placed", order.eventValue) == DC_OK)
        #expect(cCalls.load(ordering: .relaxed) == 1 && orders.all == [order])
        withExtendedLifetime(subscription) {}
    }

    @Test("Executes from C on two threads, of the right payload type and another, while a third registers and cancels the Swift handlers: each runs whole or fails before any handler")
    func cExecutesRacedAgainstPayloadHandlers() {
        let table = CommandTable(name: "payload")
        let tally = OrderTally()
        let cRuns = Atomic<Int>(0)
        let rounds = 300, executesEach = 2_000
        let over = Atomic<Bool>(false)
        withWatchdog(seconds: 60) {
            let done = DispatchGroup()
            startThreads(2, in: done) { thread in
                // Thread 0 sends orders, thread 1 invoices; a box of either
                // kept alive for the C calls. Each goes on until the rounds
                // are over, at least `executesEach` times.
                let value = thread == 0 ? Order.numbered(2).eventValue : Invoice(total: 1).eventValue
                var result = dc_result()
                var executes = 0
                while executes < executesEach || !over.load(ordering: .acquiring) {
                    executes += 1
                    let status = executeFromC(table, "order.placed", value, &result)
                    // A handler given a payload it does not take stops the
                    // emission: none may be.
                    if status == DC_OK && !result.stopped {
                        cRuns.add(1, ordering: .relaxed)
                    } else if !(status == DC_ERR_TYPE && thread == 1) {
                        tally.corrupt.add(1, ordering: .relaxed)
                    }
                }
            }
            startThreads(1, in: done) { _ in
                // A handler of orders is there most of the time: each round
                // replaces it, and registers invoices on another event.
                var orders = tally.countOrders(on: table)
                for round in 0..<rounds {
                    let invoices = table.on(EventKey<Invoice>("order.placed.\(round % 2)")) { _ in }
                    orders.cancel()
                    orders = tally.countOrders(on: table)
                    invoices.cancel()
                    usleep(50)
                }
                orders.cancel()
                over.store(true, ordering: .releasing)
            }
            #expect(done.wait(timeout: .now() + 50) == .success)
        }
        #expect(tally.corrupt.load(ordering: .relaxed) == 0)
        #expect(cRuns.load(ordering: .relaxed) >= executesEach)
        #expect(tally.received.load(ordering: .relaxed) > 0)
    }

    @Test("Once the handler taking one payload type is gone, the event takes another")
    func removedHandlerReleasesItsType() throws {
        let table = CommandTable(name: "payload")
        let orders = table.on(.placed) { _ in }
        expectDispatchError(DispatchError.typeMismatch) {
            try table.execute("order.placed", Invoice(total: 1))
        }
        orders.cancel()
        let invoices = Arrivals<Invoice>()
        let subscription = table.on(EventKey<Invoice>("order.placed")) { invoices.append($0) }
        try table.execute("order.placed", Invoice(total: 1))
        #expect(invoices.all == [Invoice(total: 1)])
        withExtendedLifetime(subscription) {}
    }

    @Test("A C handler sees the payload as an object it may retain and pass back to an execute")
    func cHandlerKeepsAndPassesBackPayload() throws {
        let table = CommandTable(name: "payload")
        try table.register("order.placed", function: keepObject, signature: Signature("v@"))
        let order = Order(id: 5, items: ["bread"])
        try table.execute(.placed, order)
        let kept = try #require(keptObject)
        let object = Unmanaged<AnyObject>.fromOpaque(kept).takeRetainedValue()
        keptObject = nil

        let echoed = Arrivals<Order>()
        let subscription = table.on(EventKey<Order>("order.echo")) { echoed.append($0) }
        try table.execute("order.echo", arguments: [.object(object)])
        #expect(echoed.all == [order])
        withExtendedLifetime(subscription) {}
    }

    @Test("A queued delivery keeps the payload until its owner drains it")
    func queuedDeliveryKeepsPayload() throws {
        let table = CommandTable(name: "payload")
        let queue = try EventQueue()
        let received = Arrivals<Order>()
        let subscription = table.on(.placed, on: .queue(queue)) { order in received.append(order) }
        runOnSeparateThread {
            for id in 0..<3 { _ = try? table.execute(.placed, Order(id: id, items: ["x"])) }
        }
        #expect(received.all.isEmpty)
        #expect(queue.drain() == 3)
        #expect(received.all.map(\.id) == [0, 1, 2])
        withExtendedLifetime(subscription) {}
    }

    @Test("Payloads executed from three threads while a fourth adds and removes handlers arrive whole")
    func payloadsAcrossThreadsWhileHandlersChange() {
        let table = CommandTable(name: "payload")
        let tally = OrderTally()
        let steady = tally.countOrders(on: table)
        let executesEach = 2_000
        withWatchdog(seconds: 60) {
            let done = DispatchGroup()
            startThreads(3, in: done) { thread in
                for index in 0..<executesEach {
                    let order = Order.numbered(thread * executesEach + index)
                    if (try? table.execute(.placed, order)) == nil { tally.corrupt.add(1, ordering: .relaxed) }
                }
            }
            startThreads(1, in: done) { _ in
                for _ in 0..<500 {
                    let extra = table.on(.placed) { order in
                        if !order.isWhole { tally.corrupt.add(1, ordering: .relaxed) }
                    }
                    let wrongType = table.on(EventKey<Order?>("order.placed")) { _ in }
                    extra.cancel()
                    wrongType.cancel()
                }
            }
            #expect(done.wait(timeout: .now() + 50) == .success)
        }
        #expect(tally.corrupt.load(ordering: .relaxed) == 0)
        #expect(tally.received.load(ordering: .relaxed) == 3 * executesEach)
        withExtendedLifetime(steady) {}
    }

    @Test("Executes by typed key on three threads while a fourth registers new payload types: each runs or throws a mismatch naming both types")
    func newPayloadTypesRacedAgainstTypedExecutes() {
        let table = CommandTable(name: "payload")
        let tally = OrderTally()
        let steady = tally.countOrders(on: table)
        // Events that only the registering thread gives handlers, more of
        // them than the first directory of event ids holds.
        let freshEvents = 200
        let over = Atomic<Bool>(false)
        withWatchdog(seconds: 60) {
            let done = DispatchGroup()
            startThreads(3, in: done) { thread in
                var index = 0
                while !over.load(ordering: .acquiring) {
                    let id = thread * 1_000_000 + index
                    do {
                        try table.execute(.placed, Order.numbered(id))
                    } catch {
                        record(error, naming: "Order", "Invoice", in: tally)
                    }
                    do {
                        try table.execute(EventKey<[Int]>("fresh.\(index % freshEvents)"), [id])
                    } catch {
                        record(error, naming: "Array<Int>", "Array<String>", in: tally)
                    }
                    index += 1
                }
            }
            for round in 0..<2_000 {
                let fresh = "fresh.\(round % freshEvents)"
                register(on: table, fresh)
            }
            over.store(true, ordering: .releasing)
            #expect(done.wait(timeout: .now() + 50) == .success)
        }
        #expect(tally.corrupt.load(ordering: .relaxed) == 0)
        #expect(tally.received.load(ordering: .relaxed) > 0)

        // Once the race is over, the checks stand as registered.
        let before = tally.received.load(ordering: .relaxed)
        _ = try? table.execute(.placed, Order(id: 1, items: ["a"]))
        #expect(tally.received.load(ordering: .relaxed) == before + 1)
        let invoices = table.on(EventKey<Invoice>("order.placed")) { _ in }
        let message = expectDispatchError(DispatchError.typeMismatch) {
            try table.execute(.placed, Order(id: 1, items: ["a"]))
        }
        #expect(message.contains("Order") && message.contains("Invoice"), "\(message)")
        #expect(tally.received.load(ordering: .relaxed) == before + 1)
        withExtendedLifetime((steady, invoices)) {}
    }
}
