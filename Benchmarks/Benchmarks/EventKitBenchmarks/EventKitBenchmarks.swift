// EventKitSwift beside the event mechanisms a Swift developer would otherwise
// use, measured in one run by ordo-one/benchmark:
//
//   dispatch to 1 and 10 handlers   an array of closures, a hand-written
//                                   [String: [() -> Void]], Foundation's
//                                   NotificationCenter, OpenCombine's
//                                   PassthroughSubject, CommandTable.execute
//                                   by string and by typed key (EventKey)
//   (Int, Double) to 1 handler      an array of closures, a dictionary,
//                                   CommandTable by string and by typed key
//   a struct payload to 1 handler   a [String: [(Order) -> Void]],
//                                   OpenCombine's PassthroughSubject<Order,
//                                   Never>, CommandTable by typed key
//   register + cancel one handler   the dictionary, NotificationCenter,
//                                   OpenCombine and CommandTable
//   cancel one by one               CommandTable: every Subscription of
//                                   cancelSubscriptionCount handlers on one
//                                   event cancelled in turn
//   calling a run-time C function   a direct call, a raw ffi_call, C's
//                                   dc_invocation_invoke() called from
//                                   Swift, Invocation.invoke() on both
//                                   call paths
//   memory per handler              malloc counters (MallocInterposer) while
//                                   10,000 handlers are registered
//
// Every handler does the same work, adding 1 to a counter; after each
// iteration the counter must have grown by exactly the calls the iteration
// made, so a figure is never reported for work that was optimized away or
// handlers that did not run. Each mechanism has exactly one event, keyed by
// the same 16-character string; the handlers are built before the measurement.
//
// `make bench-swift` runs this and prints the summary table (BenchSummary).

import Benchmark
import BenchFFI
import BenchmarkCatalog
import CDispatchCore
import EventKitSwift
import Foundation
import OpenCombine

/// What every handler increments. Only the benchmark thread touches it.
final class Counter: @unchecked Sendable {
    var value = 0
}

/// A handler closure with its own context, as a user's closure that captures
/// something has. Each mechanism gets the closure shape it calls, so none pays
/// for an adapter closure of ours; the array and dictionary baselines call
/// theirs through the thunk Swift puts in front of a closure a collection
/// holds, as a user's array of closures does.
func makeHandler(_ counter: Counter) -> @Sendable () -> Void {
    { counter.value &+= 1 }
}

/// The same handler in NotificationCenter's shape.
func makeObserver(_ counter: Counter) -> @Sendable (Notification) -> Void {
    { _ in counter.value &+= 1 }
}

/// The same handler in the shape of a sink of `PassthroughSubject<Void, Never>`.
func makeSink(_ counter: Counter) -> (()) -> Void {
    { _ in counter.value &+= 1 }
}

/// The typed key of the benchmark's event, kept once as the documentation
/// asks: a key remembers its interned id, so every execute reuses it.
let sixteenKey: EventKey<Void> = EventKey(sixteenCharacterKey)

extension EventKey where Arguments == Void {
    static var sixteen: EventKey<Void> { sixteenKey }
}

/// The same event name as a key of two arguments, for the argument cases.
let sixteenPairKey: EventKey<(Int, Double)> = EventKey(sixteenCharacterKey)
let sixKey: EventKey<(Int, Double, Bool, Int32, Float, UInt8)> = EventKey(sixteenCharacterKey)

extension EventKey where Arguments == (Int, Double) {
    static var sixteenPair: EventKey<(Int, Double)> { sixteenPairKey }
}

/// A value-type payload: an order of a shop, whose items array makes it a
/// struct with a reference inside, as most real payloads are.
struct Order: Sendable {
    var id: Int
    var items: [String]
}
extension Order: EventPayload {}

let sixteenOrderKey: EventKey<Order> = EventKey(sixteenCharacterKey)

/// Stops the run when an iteration's handlers did not all run.
func expectCalls(_ counter: Counter, since start: Int, _ expected: Int, _ id: CaseID) {
    let made = counter.value &- start
    if made != expected {
        fatalError("\(benchmarkCase(id).name): \(made) handler calls, expected \(expected)")
    }
}

/// Runs setup code that cannot fail unless the library is broken.
func must<T>(_ what: String, _ body: () throws -> T) -> T {
    do {
        return try body()
    } catch {
        fatalError("benchmark setup: \(what): \(error)")
    }
}

func timedConfiguration() -> Benchmark.Configuration {
    Benchmark.Configuration(
        metrics: [.wallClock, .instructions, .mallocCountTotal],
        timeUnits: .nanoseconds,
        warmupIterations: 20,
        scalingFactor: .kilo,
        maxDuration: .milliseconds(1_500),
        maxIterations: 1_000_000
    )
}

func memoryConfiguration() -> Benchmark.Configuration {
    Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal, .freeCountTotal, .mallocBytesCount, .memoryLeakedBytes],
        timeUnits: .microseconds,
        warmupIterations: 1,
        scalingFactor: .one,
        maxDuration: .seconds(3),
        maxIterations: 20
    )
}

/// Registers a timed case; `body` runs `timedOperationsPerIteration`
/// operations (ordo-one's `.kilo`, so figures divide back to one operation)
/// and checks that every handler ran.
func timed(_ id: CaseID, _ body: @escaping (Benchmark) throws -> Void) {
    let benchmarkCase = benchmarkCase(id)
    precondition(benchmarkCase.operationsPerIteration == timedConfiguration().scalingFactor.rawValue)
    Benchmark(benchmarkCase.name, configuration: timedConfiguration(), closure: body)
}

/// One iteration registers `cancelSubscriptionCount` handlers, then measures
/// cancelling them all: a handful of such iterations make the figure.
func cancelConfiguration() -> Benchmark.Configuration {
    Benchmark.Configuration(
        metrics: [.wallClock, .instructions, .mallocCountTotal],
        timeUnits: .milliseconds,
        warmupIterations: 1,
        scalingFactor: .one,
        maxDuration: .seconds(10),
        maxIterations: 5
    )
}

func memory(_ id: CaseID, _ body: @escaping (Benchmark) throws -> Void) {
    Benchmark(benchmarkCase(id).name, configuration: memoryConfiguration(), closure: body)
}

let benchmarks: @Sendable () -> Void = {
    precondition("sixteen-char-key" == sixteenCharacterKey && sixteenCharacterKey.utf8.count == 16)
    let notificationName = Notification.Name(sixteenCharacterKey)

    // MARK: Dispatch to 1 and 10 handlers

    for handlerCount in [1, 10] {
        let one = handlerCount == 1
        let counter = Counter()
        let handlers = (0..<handlerCount).map { _ in makeHandler(counter) }

        // An array of closures: no lookup at all.
        let closures = identity(handlers)
        timed(one ? .closureArray1 : .closureArray10) { benchmark in
            let start = counter.value
            for _ in benchmark.scaledIterations {
                for closure in closures { closure() }
            }
            expectCalls(counter, since: start, timedOperationsPerIteration * handlerCount,
                        one ? .closureArray1 : .closureArray10)
        }

        // The hand-written event table: a dictionary lookup, then the calls.
        let dictionary: [String: [@Sendable () -> Void]] = identity([sixteenCharacterKey: handlers])
        timed(one ? .dictionary1 : .dictionary10) { benchmark in
            let start = counter.value
            for _ in benchmark.scaledIterations {
                if let closures = dictionary["sixteen-char-key"] {
                    for closure in closures { closure() }
                }
            }
            expectCalls(counter, since: start, timedOperationsPerIteration * handlerCount,
                        one ? .dictionary1 : .dictionary10)
        }

        // Foundation's NotificationCenter, a private one so nothing else
        // observes it.
        let center = NotificationCenter()
        let observers = (0..<handlerCount).map { _ in
            center.addObserver(forName: notificationName, object: nil, queue: nil, using: makeObserver(counter))
        }
        timed(one ? .notificationCenter1 : .notificationCenter10) { benchmark in
            let start = counter.value
            for _ in benchmark.scaledIterations {
                center.post(name: notificationName, object: nil)
            }
            expectCalls(counter, since: start, timedOperationsPerIteration * handlerCount,
                        one ? .notificationCenter1 : .notificationCenter10)
            withExtendedLifetime(observers) {}
        }

        // OpenCombine: a subject used as an event bus.
        let subject = PassthroughSubject<Void, Never>()
        let sinks = (0..<handlerCount).map { _ in subject.sink(receiveValue: makeSink(counter)) }
        timed(one ? .openCombine1 : .openCombine10) { benchmark in
            let start = counter.value
            for _ in benchmark.scaledIterations {
                subject.send()
            }
            expectCalls(counter, since: start, timedOperationsPerIteration * handlerCount,
                        one ? .openCombine1 : .openCombine10)
            withExtendedLifetime(sinks) {}
        }

        // CommandTable, executed by its string key. Its handlers are made
        // for it, as the observers and sinks above are: an element of
        // `handlers` is the closure as an array holds it, behind Swift's
        // reabstraction thunk, and registering it would put a second thunk
        // in front of it, a call a user's `on { ... }` does not make.
        let table = CommandTable(name: "dispatch")
        let subscriptions = (0..<handlerCount).map { _ in table.on(EventKey<Void>(sixteenCharacterKey), makeHandler(counter)) }
        timed(one ? .executeString1 : .executeString10) { benchmark in
            let start = counter.value
            for _ in benchmark.scaledIterations {
                try table.execute("sixteen-char-key")
            }
            expectCalls(counter, since: start, timedOperationsPerIteration * handlerCount,
                        one ? .executeString1 : .executeString10)
            withExtendedLifetime(subscriptions) {}
        }

        // CommandTable, executed by a typed key registered the typed way.
        // Its own table, so the string case's handlers do not run here.
        let typedTable = CommandTable(name: "typed")
        let typedSubscriptions = (0..<handlerCount).map { _ in typedTable.on(.sixteen, makeHandler(counter)) }
        timed(one ? .executeTyped1 : .executeTyped10) { benchmark in
            let start = counter.value
            for _ in benchmark.scaledIterations {
                try typedTable.execute(.sixteen)
            }
            expectCalls(counter, since: start, timedOperationsPerIteration * handlerCount,
                        one ? .executeTyped1 : .executeTyped10)
            withExtendedLifetime(typedSubscriptions) {}
        }
    }

    // MARK: Dispatch of two arguments to 1 handler

    // The same four ways to an event whose handler takes (Int, Double): the
    // closure checks what it got, so a figure is never for a wrong call.
    do {
        let counter = Counter()
        let handler: @Sendable (Int, Double) -> Void = { number, fraction in
            if number == 3 && fraction == 2.5 { counter.value &+= 1 }
        }

        let closures = identity([handler])
        timed(.closureArrayArguments) { benchmark in
            let start = counter.value
            for _ in benchmark.scaledIterations {
                for closure in closures { closure(3, 2.5) }
            }
            expectCalls(counter, since: start, timedOperationsPerIteration, .closureArrayArguments)
        }

        let dictionary: [String: [@Sendable (Int, Double) -> Void]] = identity([sixteenCharacterKey: [handler]])
        timed(.dictionaryArguments) { benchmark in
            let start = counter.value
            for _ in benchmark.scaledIterations {
                if let closures = dictionary["sixteen-char-key"] {
                    for closure in closures { closure(3, 2.5) }
                }
            }
            expectCalls(counter, since: start, timedOperationsPerIteration, .dictionaryArguments)
        }

        // One handler registered the typed way, reached both ways.
        let table = CommandTable(name: "arguments")
        let subscription = table.on(.sixteenPair, handler)
        timed(.executeStringArguments) { benchmark in
            let start = counter.value
            for _ in benchmark.scaledIterations {
                try table.execute("sixteen-char-key", .int64(3), .double(2.5))
            }
            expectCalls(counter, since: start, timedOperationsPerIteration, .executeStringArguments)
            withExtendedLifetime(subscription) {}
        }
        timed(.executeTypedArguments) { benchmark in
            let start = counter.value
            for _ in benchmark.scaledIterations {
                try table.execute(.sixteenPair, 3, 2.5)
            }
            expectCalls(counter, since: start, timedOperationsPerIteration, .executeTypedArguments)
            withExtendedLifetime(subscription) {}
        }
    }

    // MARK: Dispatch of six arguments to 1 handler

    // A typed key of six scalars of four widths beside an array of closures
    // of the same six: the closure checks every argument.
    do {
        let counter = Counter()
        let handler: @Sendable (Int, Double, Bool, Int32, Float, UInt8) -> Void = { a, b, c, d, e, f in
            if a == 3 && b == 2.5 && c && d == -4 && e == 0.5 && f == 6 { counter.value &+= 1 }
        }
        let closures = identity([handler])
        timed(.closureArraySix) { benchmark in
            let start = counter.value
            for _ in benchmark.scaledIterations {
                for closure in closures { closure(3, 2.5, true, -4, 0.5, 6) }
            }
            expectCalls(counter, since: start, timedOperationsPerIteration, .closureArraySix)
        }

        let table = CommandTable(name: "six")
        let subscription = table.on(sixKey, handler)
        timed(.executeTypedSix) { benchmark in
            let start = counter.value
            for _ in benchmark.scaledIterations {
                try table.execute(sixKey, 3, 2.5, true, -4, 0.5, 6)
            }
            expectCalls(counter, since: start, timedOperationsPerIteration, .executeTypedSix)
            withExtendedLifetime(subscription) {}
        }
    }

    // MARK: Dispatch of a struct payload to 1 handler

    // The same Order to one handler three ways: the handler checks the
    // order it got, so a figure is never for a wrong call. The order is
    // made once; each way passes it as it is.
    do {
        let counter = Counter()
        let handler: @Sendable (Order) -> Void = { order in
            if order.id == 7 && order.items.count == 2 { counter.value &+= 1 }
        }
        let order = Order(id: 7, items: ["tea", "milk"])

        let dictionary: [String: [@Sendable (Order) -> Void]] = identity([sixteenCharacterKey: [handler]])
        timed(.dictionaryPayload) { benchmark in
            let start = counter.value
            for _ in benchmark.scaledIterations {
                if let closures = dictionary["sixteen-char-key"] {
                    for closure in closures { closure(order) }
                }
            }
            expectCalls(counter, since: start, timedOperationsPerIteration, .dictionaryPayload)
        }

        let subject = PassthroughSubject<Order, Never>()
        let sink = subject.sink(receiveValue: handler)
        timed(.openCombinePayload) { benchmark in
            let start = counter.value
            for _ in benchmark.scaledIterations {
                subject.send(order)
            }
            expectCalls(counter, since: start, timedOperationsPerIteration, .openCombinePayload)
            withExtendedLifetime(sink) {}
        }

        let table = CommandTable(name: "payload")
        let subscription = table.on(sixteenOrderKey, handler)
        timed(.executeTypedPayload) { benchmark in
            let start = counter.value
            for _ in benchmark.scaledIterations {
                try table.execute(sixteenOrderKey, order)
            }
            expectCalls(counter, since: start, timedOperationsPerIteration, .executeTypedPayload)
            withExtendedLifetime(subscription) {}
        }
    }

    // MARK: Register + cancel one handler

    // Every mechanism already has one handler on the event, so the pair adds
    // to and removes from an existing entry.
    do {
        let counter = Counter()
        let handler = makeHandler(counter)
        let observer = makeObserver(counter)
        let sink = makeSink(counter)

        var dictionary: [String: [@Sendable () -> Void]] = [sixteenCharacterKey: [handler]]
        timed(.registerDictionary) { benchmark in
            for _ in benchmark.scaledIterations {
                dictionary["sixteen-char-key", default: []].append(handler)
                dictionary["sixteen-char-key"]!.removeLast()
            }
            precondition(dictionary[sixteenCharacterKey]!.count == 1)
        }

        let center = NotificationCenter()
        let kept = center.addObserver(forName: notificationName, object: nil, queue: nil, using: observer)
        timed(.registerNotificationCenter) { benchmark in
            for _ in benchmark.scaledIterations {
                let token = center.addObserver(forName: notificationName, object: nil, queue: nil, using: observer)
                center.removeObserver(token)
            }
            withExtendedLifetime(kept) {}
        }

        let subject = PassthroughSubject<Void, Never>()
        let keptSink = subject.sink(receiveValue: sink)
        timed(.registerOpenCombine) { benchmark in
            for _ in benchmark.scaledIterations {
                let cancellable = subject.sink(receiveValue: sink)
                cancellable.cancel()
            }
            withExtendedLifetime(keptSink) {}
        }

        let table = CommandTable(name: "register")
        let keptSubscription = table.on(EventKey<Void>(sixteenCharacterKey), handler)
        timed(.registerCommandTable) { benchmark in
            for _ in benchmark.scaledIterations {
                let subscription = table.on("sixteen-char-key", handler)
                subscription.cancel()
            }
            withExtendedLifetime(keptSubscription) {}
            precondition(table.handlerCount(for: sixteenCharacterKey) == 1)
        }
    }

    // MARK: Cancel one by one

    // cancelSubscriptionCount handlers on one event of a fresh table, each
    // with its Subscription kept, registered before startMeasurement; then
    // each Subscription's cancel() in registration order. Every on() is its
    // own handler, so the handlers share one closure.
    do {
        let handler = makeHandler(Counter())
        let count = cancelSubscriptionCount
        Benchmark(benchmarkCase(.cancelSubscriptions).name, configuration: cancelConfiguration()) { benchmark in
            let table = CommandTable(name: "cancel")
            var subscriptions: [EventKitSwift.Subscription] = []
            subscriptions.reserveCapacity(count)
            for _ in 0..<count { subscriptions.append(table.on(EventKey<Void>(sixteenCharacterKey), handler)) }
            precondition(table.handlerCount(for: sixteenCharacterKey) == count)
            benchmark.startMeasurement()
            for subscription in subscriptions { subscription.cancel() }
            benchmark.stopMeasurement()
            precondition(table.handlerCount(for: sixteenCharacterKey) == 0)
        }
    }

    // MARK: Calling a C function known at run time

    do {
        let touch: @convention(c) (UnsafeMutableRawPointer?) -> Void = { cell in
            cell!.assumingMemoryBound(to: Int.self).pointee &+= 1
        }
        let cell = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        cell.initialize(to: 0)
        let argument = UnsafeMutableRawPointer(cell)
        func expectTouches(since start: Int, _ id: CaseID) {
            if cell.pointee &- start != timedOperationsPerIteration {
                fatalError("\(benchmarkCase(id).name): the function was not called every time")
            }
        }

        let direct = identity(touch)
        timed(.directCall) { benchmark in
            let start = cell.pointee
            for _ in benchmark.scaledIterations { direct(argument) }
            expectTouches(since: start, .directCall)
        }

        // ffi_call with a cif prepared once: what the libffi path is
        // measured against. Everything it points to lives until exit. The
        // two types are built here as libffi defines its ffi_type_pointer and
        // ffi_type_void (Swift 6 will not read those mutable C globals).
        let pointerType = UnsafeMutablePointer<ffi_type>.allocate(capacity: 1)
        pointerType.initialize(to: ffi_type(
            size: MemoryLayout<UnsafeRawPointer>.size, alignment: UInt16(MemoryLayout<UnsafeRawPointer>.alignment),
            type: UInt16(FFI_TYPE_POINTER), elements: nil))
        let voidType = UnsafeMutablePointer<ffi_type>.allocate(capacity: 1)
        voidType.initialize(to: ffi_type(size: 1, alignment: 1, type: UInt16(FFI_TYPE_VOID), elements: nil))
        let argumentTypes = UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>.allocate(capacity: 1)
        argumentTypes.initialize(to: pointerType)
        let cif = UnsafeMutablePointer<ffi_cif>.allocate(capacity: 1)
        cif.initialize(to: ffi_cif())
        guard ffi_prep_cif(cif, FFI_DEFAULT_ABI, 1, voidType, argumentTypes) == FFI_OK else {
            fatalError("benchmark setup: ffi_prep_cif failed")
        }
        let argumentSlot = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: 1)
        argumentSlot.initialize(to: argument)
        let argumentValues = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: 1)
        argumentValues.initialize(to: UnsafeMutableRawPointer(argumentSlot))
        let ffiFunction = unsafeBitCast(touch, to: (@convention(c) () -> Void).self)
        timed(.rawFFICall) { benchmark in
            let start = cell.pointee
            for _ in benchmark.scaledIterations { ffi_call(cif, ffiFunction, nil, argumentValues) }
            expectTouches(since: start, .rawFFICall)
        }

        // C's own invocation of the same function, invoked through the C
        // API: what Invocation.invoke() adds to it is the Swift layer's.
        var cSignature: OpaquePointer?
        var cInvocation: OpaquePointer?
        var cArgument = dc_pointer(argument)
        guard dc_signature_create("v^v", &cSignature) == DC_OK,
            dc_invocation_create(cSignature, unsafeBitCast(touch, to: dc_function.self), &cInvocation) == DC_OK,
            dc_invocation_set_argument(cInvocation, 0, &cArgument) == DC_OK, let cInvocation
        else {
            fatalError("benchmark setup: the C invocation of v^v")
        }
        timed(.cInvocationInvoke) { benchmark in
            let start = cell.pointee
            for _ in benchmark.scaledIterations {
                if dc_invocation_invoke(cInvocation) != DC_OK { fatalError("dc_invocation_invoke failed") }
            }
            expectTouches(since: start, .cInvocationInvoke)
        }

        let signature = must("Signature(\"v^v\")") { try Signature("v^v") }
        precondition(signature.callPath == .stub, "v^v is expected to take the stub path")
        let stub = must("Invocation") { try Invocation(function: touch, signature: signature) }
        must("setArgument") { try stub.setArgument(.pointer(argument), at: 0) }
        timed(.invocationStub) { benchmark in
            let start = cell.pointee
            for _ in benchmark.scaledIterations { try stub.invoke() }
            expectTouches(since: start, .invocationStub)
        }

        let libffi = must("Invocation") { try Invocation(function: touch, signature: signature) }
        must("setArgument") { try libffi.setArgument(.pointer(argument), at: 0) }
        must("setCallPath") { try libffi.setCallPath(.libffi) }
        timed(.invocationLibffi) { benchmark in
            let start = cell.pointee
            for _ in benchmark.scaledIterations { try libffi.invoke() }
            expectTouches(since: start, .invocationLibffi)
        }
    }

    // MARK: Memory per handler

    // One iteration registers memoryHandlerCount handlers on one event of a
    // fresh container, between startMeasurement and stopMeasurement; the
    // container and the tokens' array (reserved beforehand) are made and freed
    // outside. All handlers share one closure, so its context is not counted:
    // what remains is what the mechanism itself keeps per handler.
    do {
        let counter = Counter()
        let handler = makeHandler(counter)
        let observer = makeObserver(counter)
        let sink = makeSink(counter)
        let count = memoryHandlerCount

        memory(.memoryDictionary) { benchmark in
            var dictionary: [String: [@Sendable () -> Void]] = [:]
            benchmark.startMeasurement()
            for _ in 0..<count { dictionary[sixteenCharacterKey, default: []].append(handler) }
            benchmark.stopMeasurement()
            precondition(dictionary[sixteenCharacterKey]!.count == count)
        }

        memory(.memoryNotificationCenter) { benchmark in
            let center = NotificationCenter()
            var observers: [any NSObjectProtocol] = []
            observers.reserveCapacity(count)
            benchmark.startMeasurement()
            for _ in 0..<count {
                observers.append(
                    center.addObserver(forName: notificationName, object: nil, queue: nil, using: observer))
            }
            benchmark.stopMeasurement()
            precondition(observers.count == count)
            observers.forEach(center.removeObserver)
        }

        memory(.memoryOpenCombine) { benchmark in
            let subject = PassthroughSubject<Void, Never>()
            var sinks: [AnyCancellable] = []
            sinks.reserveCapacity(count)
            benchmark.startMeasurement()
            for _ in 0..<count { sinks.append(subject.sink(receiveValue: sink)) }
            benchmark.stopMeasurement()
            precondition(sinks.count == count)
        }

        memory(.memoryCommandTable) { benchmark in
            let table = CommandTable(name: "memory")
            var subscriptions: [EventKitSwift.Subscription] = []
            subscriptions.reserveCapacity(count)
            benchmark.startMeasurement()
            for _ in 0..<count { subscriptions.append(table.on(EventKey<Void>(sixteenCharacterKey), handler)) }
            benchmark.stopMeasurement()
            precondition(table.handlerCount(for: sixteenCharacterKey) == count)
            withExtendedLifetime(subscriptions) {}
        }

        memory(.memoryCommandTableTyped) { benchmark in
            let table = CommandTable(name: "memory")
            var subscriptions: [EventKitSwift.Subscription] = []
            subscriptions.reserveCapacity(count)
            benchmark.startMeasurement()
            for _ in 0..<count { subscriptions.append(table.on(.sixteen, handler)) }
            benchmark.stopMeasurement()
            precondition(table.handlerCount(for: sixteenCharacterKey) == count)
            withExtendedLifetime(subscriptions) {}
        }
    }
}
