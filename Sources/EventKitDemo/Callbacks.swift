// 9. Callbacks made at run time: libffi's closures and forwardInvocation:
// for C function pointers. A Swift closure that captures state becomes a C
// callback; a call to it can be re-sent, or become an event of a table.

import EventKitSwift
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

typealias Comparator = @convention(c) (UnsafeRawPointer?, UnsafeRawPointer?) -> Int32
typealias Measure = @convention(c) (Int64, Double) -> Int64
typealias ThreadStart = @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?

/// A C function the forwarding callback re-sends its calls to.
func measure(_ count: Int64, _ scale: Double) -> Int64 {
    Int64(Double(count) * scale)
}

func callbacks() throws {
    section(9, "Callbacks made at run time (libffi closures, forwardInvocation:)")

    // qsort's comparator, ordering by a table the closure captures: no
    // @convention(c) function could reach it.
    let priority: [String: Int] = ["urgent": 0, "soon": 1, "later": 2]
    let tasks = ["later", "urgent", "soon", "urgent", "later"]
    var order: [Int32] = tasks.indices.map(Int32.init)
    let byPriority = try CCallback { (a: UnsafeRawPointer?, b: UnsafeRawPointer?) -> Int32 in
        let left = priority[tasks[Int(a!.load(as: Int32.self))]]!
        let right = priority[tasks[Int(b!.load(as: Int32.self))]]!
        return left < right ? -1 : left > right ? 1 : 0
    }
    qsort(&order, order.count, MemoryLayout<Int32>.stride, try byPriority.function(as: Comparator.self))
    print("qsort with a capturing comparator (\(byPriority.signature.encoding)): \(order.map { tasks[Int($0)] })")

    // forwardInvocation: each call arrives as values, is logged, and is
    // re-sent to the real function, whose result the caller receives.
    let signature = try Signature("qqd")
    let logged = try CCallback(signature: signature) { arguments in
        let result = try Invocation.call(measure as Measure, signature: signature, arguments: arguments)
        print("  forwarded measure(\(arguments.map(\.description).joined(separator: ", "))) → \(result)")
        return result
    }
    let measured = try logged.function(as: Measure.self)(12, 2.5)
    print("the C caller received \(measured)")

    // A table's event as a C callback, called from a thread that C starts:
    // both handlers run for each call, and the first one's value returns.
    let table = CommandTable(name: "callbacks")
    let progress = table.on("progress") { (done: Int32) in print("  progress handler: \(done)%") }
    let total = Atomic<Int>(0)
    let tally = table.on("progress") { (done: Int32) in total.add(Int(done), ordering: .relaxed) }
    let report = try table.callback(for: "progress", signature: Signature("vi"))
    let reportFunction = try report.function(as: (@convention(c) (Int32) -> Void).self)
    let worker = try CCallback { (_: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? in
        for done in stride(from: 50, through: 100, by: 50) { reportFunction(Int32(done)) }
        return nil
    }
    var thread = pthread_t()
    guard pthread_create(&thread, nil, try worker.function(as: ThreadStart.self), nil) == 0 else {
        print("pthread_create failed")
        return
    }
    pthread_join(thread, nil)
    print("a pthread made the calls; the tally handler summed \(total.load(ordering: .relaxed))")
    progress.cancel()
    tally.cancel()
}
