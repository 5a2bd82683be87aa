// Runs one Swift hot path for callgrind:
//
//     EventKitCount --count <case> <iterations>
//
// Scripts/bench-report.py counts only what runs inside the case's counted
// loop (`--toggle-collect=*counted*`) and divides by the iterations: the
// case's instructions per execute, the loop's few included, as bench_counted()
// does for the C cases. Each case's handlers are closures with a context, as
// a user's are, and every execute must have run all of them, so a count is
// never of work optimized away.

import EventKitSwift
import Glibc

/// What the handlers add to.
final class Counter: @unchecked Sendable {
    var value = 0
}

/// A handler closure with a context of its own, the counter.
@inline(never)
func makeHandler(_ counter: Counter) -> @Sendable () -> Void {
    { counter.value &+= 1 }
}

@inline(never)
func makePairHandler(_ counter: Counter) -> @Sendable (Int, Double) -> Void {
    { index, scale in if index == 3 && scale > 0 { counter.value &+= 1 } }
}

@inline(never)
func makeSixHandler(_ counter: Counter) -> @Sendable (Int, Double, Bool, Int32, Float, UInt8) -> Void {
    { a, b, c, d, e, f in if a == 3 && b > 0 && c && d == -4 && e > 0 && f == 6 { counter.value &+= 1 } }
}

/// A value-type payload, as an order of a shop.
struct Order: EventPayload {
    var id: Int
    var items: [String]
}

@inline(never)
func makeOrderHandler(_ counter: Counter) -> @Sendable (Order) -> Void {
    { order in if order.id == 7 { counter.value &+= 1 } }
}

/// `void f(void *)`, called through an invocation on the stub path; it
/// counts its calls in the counter it is given.
func countCall(_ counter: UnsafeMutableRawPointer?) {
    Unmanaged<Counter>.fromOpaque(counter!).takeUnretainedValue().value &+= 1
}

/// A dictionary a case's loop changes, kept by reference.
final class DictionaryBox {
    var value: [String: [@Sendable () -> Void]]
    init(_ value: [String: [@Sendable () -> Void]]) { self.value = value }
}

/// A case: how many handlers each execute runs, and its counted loop, which
/// runs the execute the given number of times.
struct Case {
    let handlers: Int
    let counted: (Int) throws -> Void
}

let tick: EventKey<Void> = "sixteen-char-key"
let ticks: EventKey<Void> = "sixteen-char-ke0"
let pair: EventKey<(Int, Double)> = "sixteen-char-ke2"
let six: EventKey<(Int, Double, Bool, Int32, Float, UInt8)> = "sixteen-char-ke6"
let placed: EventKey<Order> = "sixteen-char-ord"

// The counted loops, one per case, so that each execute is compiled as a
// caller's would be.

@inline(never)
func countedTyped(_ iterations: Int, _ table: CommandTable, _ key: EventKey<Void>) throws {
    for _ in 0..<iterations { try table.execute(key) }
}

@inline(never)
func countedTypedPair(_ iterations: Int, _ table: CommandTable) throws {
    for _ in 0..<iterations { try table.execute(pair, 3, 2.5) }
}

@inline(never)
func countedTypedSix(_ iterations: Int, _ table: CommandTable) throws {
    for _ in 0..<iterations { try table.execute(six, 3, 2.5, true, -4, 0.5, 6) }
}

@inline(never)
func countedPayload(_ iterations: Int, _ table: CommandTable, _ order: Order) throws {
    for _ in 0..<iterations { try table.execute(placed, order) }
}

@inline(never)
func countedInvoke(_ iterations: Int, _ invocation: Invocation) throws {
    for _ in 0..<iterations { _ = try invocation.invoke() }
}

/// Registers a closure on the event `table` already has one handler of,
/// and cancels it, `iterations` times: what `on` + `cancel` costs.
@inline(never)
func countedOnCancel(_ iterations: Int, _ table: CommandTable, _ handler: @escaping @Sendable () -> Void) throws {
    for _ in 0..<iterations {
        let subscription = table.on("sixteen-char-onc", handler)
        subscription.cancel()
    }
    guard table.handlerCount(for: "sixteen-char-onc") == 1 else { throw CountFailure.handlersLeft }
}

/// What `countedOnCancel` is compared with: appending the handler to a
/// `[String: [() -> Void]]` that has one under the same key, and removing
/// it, `iterations` times.
@inline(never)
func countedDictionaryAppendRemove(
    _ iterations: Int, _ dictionary: inout [String: [@Sendable () -> Void]], _ handler: @escaping @Sendable () -> Void
) throws {
    for _ in 0..<iterations {
        dictionary["sixteen-char-onc", default: []].append(handler)
        dictionary["sixteen-char-onc"]!.removeLast()
    }
    guard dictionary["sixteen-char-onc"]?.count == 1 else { throw CountFailure.handlersLeft }
}

/// A counted loop that left the table otherwise than it found it.
enum CountFailure: Error {
    case handlersLeft
}

@inline(never)
func countedString(_ iterations: Int, _ table: CommandTable) throws {
    for _ in 0..<iterations { try table.execute("sixteen-char-str") }
}

/// The case `name`, its handlers registered on `table` for as long as
/// `subscriptions` keeps them.
func makeCase(
    _ name: String, on table: CommandTable, counting counter: Counter, into subscriptions: inout [Subscription]
) -> Case? {
    switch name {
    case "swift.typed.1":
        subscriptions.append(table.on(tick, makeHandler(counter)))
        return Case(handlers: 1) { try countedTyped($0, table, tick) }
    case "swift.typed.10":
        for _ in 0..<10 { subscriptions.append(table.on(ticks, makeHandler(counter))) }
        return Case(handlers: 10) { try countedTyped($0, table, ticks) }
    case "swift.typed_pair.1":
        subscriptions.append(table.on(pair, makePairHandler(counter)))
        return Case(handlers: 1) { try countedTypedPair($0, table) }
    case "swift.typed_six.1":
        subscriptions.append(table.on(six, makeSixHandler(counter)))
        return Case(handlers: 1) { try countedTypedSix($0, table) }
    case "swift.string.1":
        subscriptions.append(table.on("sixteen-char-str", makeHandler(counter)))
        return Case(handlers: 1) { try countedString($0, table) }
    case "swift.payload.1":
        subscriptions.append(table.on(placed, makeOrderHandler(counter)))
        let order = Order(id: 7, items: ["tea", "milk"])
        return Case(handlers: 1) { try countedPayload($0, table, order) }
    case "swift.on_cancel":
        // The event has a handler already, as in the benchmark package's
        // case: the pair adds to, and removes from, an existing event.
        let handler = makeHandler(counter)
        subscriptions.append(table.on("sixteen-char-onc", handler))
        return Case(handlers: 0) { try countedOnCancel($0, table, handler) }
    case "swift.dictionary.append_remove":
        // The baseline of swift.on_cancel, not guarded: the standard
        // library's cost, beside which the pair's is read.
        let handler = makeHandler(counter)
        let dictionary = DictionaryBox(["sixteen-char-onc": [handler]])
        return Case(handlers: 0) { try countedDictionaryAppendRemove($0, &dictionary.value, handler) }
    case "swift.invoke.void_ptr":
        // One "handler": the function the invocation calls.
        guard let invocation = try? Invocation(function: countCall as @convention(c) (UnsafeMutableRawPointer?) -> Void, signature: Signature("v^v")),
            (try? invocation.setArgument(.pointer(Unmanaged.passUnretained(counter).toOpaque()), at: 0)) != nil
        else { return nil }
        return Case(handlers: 1) { try countedInvoke($0, invocation) }
    default:
        return nil
    }
}

/// Runs the case the arguments name; the exit status says whether it ran
/// as it must.
func run(_ arguments: [String]) -> Int32 {
    let table = CommandTable(name: "count")
    let counter = Counter()
    var subscriptions: [Subscription] = []
    guard arguments.count == 4, arguments[1] == "--count", let iterations = Int(arguments[3]), iterations > 0,
        let chosen = makeCase(arguments[2], on: table, counting: counter, into: &subscriptions)
    else {
        print("usage: EventKitCount --count swift.typed.1|swift.typed.10|swift.typed_pair.1|swift.typed_six.1|swift.string.1|swift.payload.1|swift.on_cancel|swift.dictionary.append_remove|swift.invoke.void_ptr N")
        return 2
    }
    do {
        // The first execute interns the key's event and remembers it.
        try chosen.counted(1)
        counter.value = 0
        try chosen.counted(iterations)
    } catch {
        print("EventKitCount: \(arguments[2]) failed: \(error)")
        return 1
    }
    withExtendedLifetime(subscriptions) {}
    guard counter.value == iterations * chosen.handlers else {
        print("EventKitCount: \(counter.value) handler calls, expected \(iterations * chosen.handlers)")
        return 1
    }
    return 0
}

exit(run(CommandLine.arguments))
