// BenchSummary: prints one table of a benchmark run, every figure with its
// ratios to the baselines measured in the same run, then the targets.
//
//   BenchSummary <folder> [--strict]
//   BenchSummary <folder> --tsv      one "swift.<case><TAB><figure>" line per case
//                                    (median ns, or bytes kept per handler), for
//                                    Scripts/bench-report.py's combined table
//
// <folder> holds what `swift package benchmark --format histogramEncoded
// --path <folder>` exported: one HDR histogram per benchmark and metric, of
// raw per-iteration values (nanoseconds, or counts). Every figure here is a
// histogram's median (and minimum) divided by the operations in one iteration.
// --strict exits 1 when a target is missed (by default the run only reports).

import BenchmarkCatalog
import Foundation
import Histogram

// MARK: - Reading the run

let benchmarkTarget = "EventKitBenchmarks"

struct Figures {
    /// Per operation (timed cases) or per handler (memory cases).
    var median: Double
    var minimum: Double
}

struct Run {
    let folder: URL
    let files: [String]

    init(folder: URL) throws {
        self.folder = folder
        files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".histogram.json") }
    }

    /// ordo-one names each file "<baseline>.<target>.<benchmark>.<metric>.histogram.json",
    /// with '/' and ' ' replaced by '_'.
    func figures(_ benchmarkCase: BenchmarkCase, _ metric: String) -> Figures? {
        func clean(_ text: String) -> String {
            text.replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: " ", with: "_")
        }
        let suffix = ".\(clean(benchmarkTarget)).\(clean(benchmarkCase.name)).\(metric).histogram.json"
        guard let file = files.first(where: { $0.hasSuffix(suffix) }) else { return nil }
        do {
            let data = try Data(contentsOf: folder.appendingPathComponent(file))
            let histogram = try JSONDecoder().decode(Histogram<UInt64>.self, from: data)
            guard histogram.totalCount > 0 else { return nil }
            let operations = Double(benchmarkCase.operationsPerIteration)
            return Figures(
                median: Double(histogram.valueAtPercentile(50)) / operations,
                minimum: Double(histogram.min) / operations)
        } catch {
            FileHandle.standardError.write(Data("BenchSummary: \(file): \(error)\n".utf8))
            return nil
        }
    }
}

// MARK: - Formatting

func number(_ value: Double?, decimals: Int = 1) -> String {
    guard let value else { return "-" }
    return String(format: "%.\(decimals)f", value)
}

func ratio(_ value: Double?, _ baseline: Double?) -> String {
    guard let value, let baseline, baseline > 0 else { return "-" }
    let r = value / baseline
    return r >= 100 ? String(format: "%.0fx", r) : r >= 10 ? String(format: "%.1fx", r) : String(format: "%.2fx", r)
}

func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
    let count = text.count
    if count >= width { return text }
    let padding = String(repeating: " ", count: width - count)
    return left ? text + padding : padding + text
}

func row(_ columns: [(String, Int)]) -> String {
    columns.enumerated().map { index, column in pad(column.0, column.1, left: index == 0) }
        .joined(separator: " ")
}

func machineDescription() -> String {
    let info = ProcessInfo.processInfo
    var cpu = "unknown CPU"
    if let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
       let line = text.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
       let colon = line.firstIndex(of: ":") {
        cpu = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    let memory = Double(info.physicalMemory) / Double(1 << 30)
    return "\(info.hostName): \(cpu), \(info.activeProcessorCount) cores, "
        + String(format: "%.0f GiB", memory) + ", \(info.operatingSystemVersionString)"
}

// MARK: - The table

let arguments = CommandLine.arguments.dropFirst()
let strict = arguments.contains("--strict")
guard let folderPath = arguments.first(where: { !$0.hasPrefix("--") }) else {
    FileHandle.standardError.write(Data("usage: BenchSummary <folder> [--strict | --tsv]\n".utf8))
    exit(2)
}
let run: Run
do {
    run = try Run(folder: URL(fileURLWithPath: folderPath))
} catch {
    FileHandle.standardError.write(Data("BenchSummary: cannot read \(folderPath): \(error)\n".utf8))
    exit(2)
}
if run.files.isEmpty {
    FileHandle.standardError.write(Data("BenchSummary: no exported histograms in \(folderPath)\n".utf8))
    exit(2)
}

func time(_ id: CaseID) -> Figures? { run.figures(benchmarkCase(id), "wallClock") }
func perOperation(_ id: CaseID, _ metric: String) -> Figures? { run.figures(benchmarkCase(id), metric) }

/// The cancel case's target, ns per cancel; --tsv passes it on with the count.
let cancelTargetNanoseconds = 500.0

if arguments.contains("--tsv") {
    for benchmarkCase in benchmarkCases {
        let metric = benchmarkCase.isMemory ? "memoryLeakedBytes" : "wallClock"
        if let figures = perOperation(benchmarkCase.id, metric) {
            print("swift.\(benchmarkCase.id.rawValue)\t" + String(format: "%.4f", figures.median))
        }
    }
    let cancel = CaseID.cancelSubscriptions.rawValue
    print("swift.\(cancel).handlers\t\(cancelSubscriptionCount)")
    print("swift.\(cancel).target_ns\t" + String(format: "%.4f", cancelTargetNanoseconds))
    exit(0)
}

let labelWidth = 57
let showInstructions = benchmarkCases.contains { perOperation($0.id, "instructions") != nil }

print("EventKitSwift benchmarks, one run (ordo-one/benchmark 1.38.1 with its malloc interposer, release build)")
print(machineDescription())
print("Timed figures: ns per operation, the median over every iteration of 1,000 operations, and the")
print("fastest iteration (min); an iteration of the cancel case cancels "
    + "\(countLabel(cancelSubscriptionCount)) subscriptions.")
print("Ratios divide medians measured in this run: below 1x is faster.")
print("Every handler adds 1 to a counter; each iteration checks that all of them ran.")

/// The timed groups; each names the two baselines its ratio columns use.
let timedGroups: [(Group, (String, CaseID?), (String, CaseID?))] = [
    (.dispatchOne, ("vs dict", .dictionary1), ("vs array", .closureArray1)),
    (.dispatchTen, ("vs dict", .dictionary10), ("vs array", .closureArray10)),
    (.dispatchArguments, ("vs dict", .dictionaryArguments), ("vs array", .closureArrayArguments)),
    (.dispatchSixArguments, ("", nil), ("vs array", .closureArraySix)),
    (.dispatchPayload, ("vs dict", .dictionaryPayload), ("vs Combine", .openCombinePayload)),
    (.registration, ("vs dict", .registerDictionary), ("", nil)),
    (.cancellation, ("", nil), ("", nil)),
    (.invocation, ("vs direct", .directCall), ("vs ffi_call", .rawFFICall)),
]

for (group, first, second) in timedGroups {
    print()
    var header: [(String, Int)] = [(group.rawValue, labelWidth), ("median", 8), ("min", 8)]
    if showInstructions { header.append(("instr", 7)) }
    header += [("mallocs", 7), (first.0, 10), (second.0, 11)]
    print(row(header))
    for benchmarkCase in benchmarkCases where benchmarkCase.group == group {
        let figures = time(benchmarkCase.id)
        let isBaseline = benchmarkCase.id == first.1 || benchmarkCase.id == second.1
        var columns: [(String, Int)] = [
            ("  " + benchmarkCase.label + (isBaseline ? " (baseline)" : ""), labelWidth),
            (figures == nil ? "not run" : number(figures?.median), 8),
            (number(figures?.minimum), 8),
        ]
        if showInstructions {
            columns.append((number(perOperation(benchmarkCase.id, "instructions")?.median, decimals: 0), 7))
        }
        columns += [
            (number(perOperation(benchmarkCase.id, "mallocCountTotal")?.median, decimals: 1), 7),
            (ratio(figures?.median, first.1.flatMap(time)?.median), 10),
            (ratio(figures?.median, second.1.flatMap(time)?.median), 11),
        ]
        print(row(columns))
    }
}

// Memory: per handler, from the malloc interposer's counters.
print()
print(row([(Group.memory.rawValue, labelWidth + 11), ("mallocs", 8), ("allocated", 10),
           ("kept", 8), ("vs dict", 8)]))
print(row([("  per handler", labelWidth + 11), ("", 8), ("bytes", 10), ("bytes", 8), ("", 8)]))
func memory(_ id: CaseID, _ metric: String) -> Double? { perOperation(id, metric)?.median }
let dictionaryKept = memory(.memoryDictionary, "memoryLeakedBytes")
for benchmarkCase in benchmarkCases where benchmarkCase.group == .memory {
    let kept = memory(benchmarkCase.id, "memoryLeakedBytes")
    let label = "  " + benchmarkCase.label + (benchmarkCase.id == .memoryDictionary ? " (baseline)" : "")
    print(row([
        (label, labelWidth + 11),
        (number(memory(benchmarkCase.id, "mallocCountTotal"), decimals: 2), 8),
        (number(memory(benchmarkCase.id, "mallocBytesCount")), 10),
        (kept == nil ? "not run" : number(kept), 8),
        (ratio(kept, dictionaryKept), 8),
    ]))
}
print("  \"allocated\" counts every byte asked of malloc while registering, \"kept\" what was still allocated")
print("  after the last registration (what a handler costs while registered), both divided by the")
print("  \(memoryHandlerCount) handlers, which share one closure, so a closure's own context is not counted.")
print("  Bytes are the sizes asked for; glibc's own 8 to 23 bytes per malloc come on top.")

// MARK: - Targets

enum Verdict {
    case met, missed, notMeasured
}

var verdicts: [Verdict] = []

print()
print("Targets (issues 4, 6 and 39; figures are medians from the table above)")
@MainActor func target(_ what: String, _ goal: String, _ measured: Double?, unit: String,
            atMost limit: Double? = nil, atLeast floor: Double? = nil) {
    let columns: (String, String)
    let verdict: Verdict
    if let measured {
        let isRatio = unit == "x"
        let shown = number(measured, decimals: isRatio ? 2 : 1) + unit
        if let limit {
            if measured <= limit {
                verdict = .met
                columns = (shown, "met")
            } else if isRatio {
                verdict = .missed
                columns = (shown, "MISSED: " + number(measured / limit, decimals: 2) + "x over the limit")
            } else {
                verdict = .missed
                columns = (shown, "MISSED by " + number(measured - limit) + unit
                    + " (" + ratio(measured, limit) + " the target)")
            }
        } else if let floor {
            if measured >= floor {
                verdict = .met
                columns = (shown, "met")
            } else {
                verdict = .missed
                columns = (shown, "MISSED: needs " + number(floor / measured, decimals: 2) + "x more")
            }
        } else {
            verdict = .met
            columns = (shown, "")
        }
    } else {
        verdict = .notMeasured
        columns = ("-", "not measured: a case it needs was not in this run")
    }
    verdicts.append(verdict)
    print(row([("  " + what, 50), (goal, 9), (columns.0, 10)]) + "   " + columns.1)
}

func speedup(_ slow: CaseID, _ fast: CaseID) -> Double? {
    guard let slow = time(slow)?.median, let fast = time(fast)?.median, fast > 0 else { return nil }
    return slow / fast
}
func relative(_ id: CaseID, _ baseline: CaseID) -> Double? {
    guard let value = time(id)?.median, let base = time(baseline)?.median, base > 0 else { return nil }
    return value / base
}
target("execute(String), 1 closure", "<= 25 ns", time(.executeString1)?.median, unit: " ns", atMost: 25)
target("execute(EventKey), 1 closure", "<= 10 ns", time(.executeTyped1)?.median, unit: " ns", atMost: 10)
target("execute(EventKey), 10 closures", "<= 50 ns", time(.executeTyped10)?.median, unit: " ns", atMost: 50)
// Issue 4 gives these ns targets beside baselines of its own: the dictionary
// at about 50 ns, an array of 10 closures at about 80 ns. The same targets as
// ratios to this run's baselines, which the machine's speed (a shared VM's
// swings by a third from minute to minute) does not move.
target("execute(String), 1 closure / dictionary", "<= 0.5x", relative(.executeString1, .dictionary1),
       unit: "x", atMost: 25.0 / 50)
target("execute(EventKey), 1 closure / dictionary", "<= 0.2x", relative(.executeTyped1, .dictionary1),
       unit: "x", atMost: 10.0 / 50)
target("execute(EventKey), 10 closures / array of 10", "<= 0.62x", relative(.executeTyped10, .closureArray10),
       unit: "x", atMost: 50.0 / 80)
target("cancel one of \(countLabel(cancelSubscriptionCount)) subscriptions, one by one",
       "<= \(number(cancelTargetNanoseconds, decimals: 0)) ns", time(.cancelSubscriptions)?.median, unit: " ns",
       atMost: cancelTargetNanoseconds)
target("memory per Swift handler, on(String)", "<= 128 B", memory(.memoryCommandTable, "memoryLeakedBytes"),
       unit: " B", atMost: 128)
target("memory per Swift handler, on(EventKey)", "<= 128 B", memory(.memoryCommandTableTyped, "memoryLeakedBytes"),
       unit: " B", atMost: 128)
target("vs NotificationCenter, 1, execute(String)", ">= 10x", speedup(.notificationCenter1, .executeString1),
       unit: "x", atLeast: 10)
target("vs NotificationCenter, 1, execute(EventKey)", ">= 10x", speedup(.notificationCenter1, .executeTyped1),
       unit: "x", atLeast: 10)
target("vs NotificationCenter, 10, execute(String)", ">= 10x", speedup(.notificationCenter10, .executeString10),
       unit: "x", atLeast: 10)
target("vs NotificationCenter, 10, execute(EventKey)", ">= 10x", speedup(.notificationCenter10, .executeTyped10),
       unit: "x", atLeast: 10)
target("vs [String: [() -> Void]], 1, execute(String)", "<= 1x", relative(.executeString1, .dictionary1),
       unit: "x", atMost: 1)
target("vs [String: [() -> Void]], 10, execute(String)", "<= 1x", relative(.executeString10, .dictionary10),
       unit: "x", atMost: 1)
target("vs [String: [() -> Void]], 1, execute(EventKey)", "<= 1x", relative(.executeTyped1, .dictionary1),
       unit: "x", atMost: 1)
target("vs [String: [() -> Void]], 10, execute(EventKey)", "<= 1x", relative(.executeTyped10, .dictionary10),
       unit: "x", atMost: 1)
// Issue 39's: the Swift invocation within 1.5x of C's own on the same
// function, on + cancel within 1.5x of the dictionary's append and remove,
// and a struct payload's execute at most one allocation (its box). The
// malloc counter also counts the harness's own mallocs, about 16 in an
// iteration of any case: the dictionary's, which makes none itself, are taken
// off the payload's.
target("Invocation.invoke() / C dc_invocation_invoke, stub", "<= 1.5x",
       relative(.invocationStub, .cInvocationInvoke), unit: "x", atMost: 1.5)
target("on + cancel / dictionary append + removeLast", "<= 1.5x",
       relative(.registerCommandTable, .registerDictionary), unit: "x", atMost: 1.5)
func mallocs(_ id: CaseID) -> Double? { perOperation(id, "mallocCountTotal")?.median }
target("payload execute: mallocs beyond the dictionary's", "<= 1",
       mallocs(.executeTypedPayload).flatMap { payload in mallocs(.dictionaryPayload).map { payload - $0 } },
       unit: "", atMost: 1)
print("  (\"/ dictionary\" and \"/ array of 10\": issue 4's ns targets over the baselines it gives, 50 and")
print("  80 ns. \"vs [String: [() -> Void]]\": DESIGN.md's \"not slower than a hand-written dictionary\". The")
print("  NotificationCenter target is issue 6's at 1 handler, shown at 10 as well. The stub <= 2x direct and")
print("  libffi <= 1.1x ffi_call targets are the C core's, measured by make bench.)")

let missed = verdicts.filter { $0 == .missed }.count
let met = verdicts.filter { $0 == .met }.count
let notMeasured = verdicts.filter { $0 == .notMeasured }.count
print()
print("targets: \(met) met, \(missed) missed, \(notMeasured) not measured")
if strict && missed > 0 { exit(1) }
