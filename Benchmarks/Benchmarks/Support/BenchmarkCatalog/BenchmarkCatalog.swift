/// The benchmark cases, shared by the benchmark executable (which registers
/// one ordo-one benchmark per case, under `name`) and the summary tool (which
/// finds each case's exported histograms by that name and prints the table).
///
/// Every timed case runs `operationsPerIteration` operations in one measured
/// iteration, so the per-iteration overhead of the harness (two clock reads
/// and the counters) is spread over many operations; figures are divided back
/// to one operation. Memory cases register `operationsPerIteration` handlers
/// in one iteration and are divided back to one handler; the cancel case
/// cancels `operationsPerIteration` subscriptions and is divided back to one
/// cancel.

/// Where a case sits in the table, and what its ratios are taken against.
public enum Group: String, CaseIterable, Sendable {
    case dispatchOne = "Dispatch to 1 handler (ns per event)"
    case dispatchTen = "Dispatch to 10 handlers (ns per event)"
    case dispatchArguments = "Dispatch of (Int, Double) to 1 handler (ns per event)"
    case dispatchSixArguments = "Dispatch of six arguments to 1 handler (ns per event)"
    case dispatchPayload = "Dispatch of a struct payload to 1 handler (ns per event)"
    case registration = "Register + cancel one handler (ns per pair)"
    case cancellation = "Cancel subscriptions one by one (ns per cancel)"
    case invocation = "Calling a C function known at run time (ns per call)"
    case memory = "Memory per registered handler (10,000 handlers on one event)"
}

public enum CaseID: String, CaseIterable, Sendable {
    case closureArray1, dictionary1, notificationCenter1, openCombine1, executeString1, executeTyped1
    case closureArray10, dictionary10, notificationCenter10, openCombine10, executeString10, executeTyped10
    case closureArrayArguments, dictionaryArguments, executeStringArguments, executeTypedArguments
    case closureArraySix, executeTypedSix
    case dictionaryPayload, openCombinePayload, executeTypedPayload
    case registerDictionary, registerNotificationCenter, registerOpenCombine, registerCommandTable
    case cancelSubscriptions
    case directCall, rawFFICall, cInvocationInvoke, invocationStub, invocationLibffi
    case memoryDictionary, memoryNotificationCenter, memoryOpenCombine, memoryCommandTable, memoryCommandTableTyped
}

public struct BenchmarkCase: Sendable {
    public let id: CaseID
    /// The ordo-one benchmark name (also what `--filter` matches).
    public let name: String
    /// The row label in the summary table.
    public let label: String
    public let group: Group
    public let operationsPerIteration: Int

    public var isMemory: Bool { group == .memory }
}

/// The event key every keyed case uses: 16 characters, one more than a Swift
/// small string holds inline, as the figure asks.
public let sixteenCharacterKey = "sixteen-char-key"

/// Handlers registered in one iteration of a memory case.
public let memoryHandlerCount = 10_000

/// Operations in one iteration of a timed case (ordo-one's `.kilo`).
public let timedOperationsPerIteration = 1_000

/// Subscriptions on one event that one iteration of the cancel case cancels.
public let cancelSubscriptionCount = 1_000_000

/// "1M" for a million, else the count itself.
public func countLabel(_ count: Int) -> String {
    count % 1_000_000 == 0 ? "\(count / 1_000_000)M" : "\(count)"
}

public let benchmarkCases: [BenchmarkCase] = {
    func timed(_ id: CaseID, _ group: Group, _ name: String, _ label: String) -> BenchmarkCase {
        BenchmarkCase(id: id, name: name, label: label, group: group,
                      operationsPerIteration: timedOperationsPerIteration)
    }
    func memory(_ id: CaseID, _ name: String, _ label: String) -> BenchmarkCase {
        BenchmarkCase(id: id, name: name, label: label, group: .memory,
                      operationsPerIteration: memoryHandlerCount)
    }
    return [
        timed(.closureArray1, .dispatchOne, "dispatch 1: closure array", "array of closures"),
        timed(.dictionary1, .dispatchOne, "dispatch 1: string dictionary", "[String: [() -> Void]] lookup + call"),
        timed(.notificationCenter1, .dispatchOne, "dispatch 1: NotificationCenter", "NotificationCenter.post, 1 observer"),
        timed(.openCombine1, .dispatchOne, "dispatch 1: OpenCombine", "OpenCombine PassthroughSubject.send, 1 sink"),
        timed(.executeString1, .dispatchOne, "dispatch 1: CommandTable string", "CommandTable.execute(\"\(sixteenCharacterKey)\")"),
        timed(.executeTyped1, .dispatchOne, "dispatch 1: CommandTable typed key", "CommandTable.execute(.sixteen), EventKey<Void>"),

        timed(.closureArray10, .dispatchTen, "dispatch 10: closure array", "array of 10 closures"),
        timed(.dictionary10, .dispatchTen, "dispatch 10: string dictionary", "[String: [() -> Void]] lookup + 10 calls"),
        timed(.notificationCenter10, .dispatchTen, "dispatch 10: NotificationCenter", "NotificationCenter.post, 10 observers"),
        timed(.openCombine10, .dispatchTen, "dispatch 10: OpenCombine", "OpenCombine PassthroughSubject.send, 10 sinks"),
        timed(.executeString10, .dispatchTen, "dispatch 10: CommandTable string", "CommandTable.execute(\"\(sixteenCharacterKey)\")"),
        timed(.executeTyped10, .dispatchTen, "dispatch 10: CommandTable typed key", "CommandTable.execute(.sixteen), EventKey<Void>"),

        timed(.closureArrayArguments, .dispatchArguments, "arguments: closure array",
              "array of (Int, Double) closures"),
        timed(.dictionaryArguments, .dispatchArguments, "arguments: string dictionary",
              "[String: [(Int, Double) -> Void]] lookup"),
        timed(.executeStringArguments, .dispatchArguments, "arguments: CommandTable string",
              "CommandTable.execute(\"\(sixteenCharacterKey)\", Value...)"),
        timed(.executeTypedArguments, .dispatchArguments, "arguments: CommandTable typed key",
              "CommandTable.execute(EventKey<(Int, Double)>, ...)"),

        timed(.closureArraySix, .dispatchSixArguments, "six arguments: closure array",
              "array of (Int, Double, Bool, Int32, Float, UInt8) closures"),
        timed(.executeTypedSix, .dispatchSixArguments, "six arguments: CommandTable typed key",
              "CommandTable.execute(EventKey<(Int, Double, Bool, Int32, Float, UInt8)>, ...)"),

        timed(.dictionaryPayload, .dispatchPayload, "payload: string dictionary",
              "[String: [(Order) -> Void]] lookup + call"),
        timed(.openCombinePayload, .dispatchPayload, "payload: OpenCombine",
              "OpenCombine PassthroughSubject<Order, Never>.send"),
        timed(.executeTypedPayload, .dispatchPayload, "payload: CommandTable typed key",
              "CommandTable.execute(EventKey<Order>, order)"),

        timed(.registerDictionary, .registration, "register: string dictionary", "[String: [() -> Void]] append + removeLast"),
        timed(.registerNotificationCenter, .registration, "register: NotificationCenter", "NotificationCenter addObserver + removeObserver"),
        timed(.registerOpenCombine, .registration, "register: OpenCombine", "OpenCombine sink + cancel"),
        timed(.registerCommandTable, .registration, "register: CommandTable", "CommandTable.on + Subscription.cancel"),

        BenchmarkCase(id: .cancelSubscriptions, name: "cancel: CommandTable one by one",
                      label: "Subscription.cancel() of \(countLabel(cancelSubscriptionCount)) "
                          + "on one event, in order",
                      group: .cancellation, operationsPerIteration: cancelSubscriptionCount),

        timed(.directCall, .invocation, "call: direct", "direct call through a @convention(c) pointer"),
        timed(.rawFFICall, .invocation, "call: raw ffi_call", "raw ffi_call, cif prepared once"),
        timed(.cInvocationInvoke, .invocation, "call: C dc_invocation_invoke",
              "dc_invocation_invoke() from Swift, stub path"),
        timed(.invocationStub, .invocation, "call: Invocation stub", "Invocation.invoke(), stub path"),
        timed(.invocationLibffi, .invocation, "call: Invocation libffi", "Invocation.invoke(), libffi path"),

        memory(.memoryDictionary, "memory: string dictionary", "[String: [() -> Void]] append"),
        memory(.memoryNotificationCenter, "memory: NotificationCenter", "NotificationCenter addObserver"),
        memory(.memoryOpenCombine, "memory: OpenCombine", "OpenCombine PassthroughSubject.sink"),
        memory(.memoryCommandTable, "memory: CommandTable", "CommandTable.on(String) (handler + Subscription)"),
        memory(.memoryCommandTableTyped, "memory: CommandTable typed key", "CommandTable.on(EventKey) (handler + Subscription)"),
    ]
}()

public func benchmarkCase(_ id: CaseID) -> BenchmarkCase {
    benchmarkCases.first { $0.id == id }!
}
