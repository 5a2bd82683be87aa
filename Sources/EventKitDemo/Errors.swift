// 8. Errors: a bad call throws a DispatchError naming what was wrong, and runs
// nothing; Objective-C raised NSInvalidArgumentException or corrupted memory.

import EventKitSwift
import Synchronization

func errors() throws {
    section(8, "Errors, caught before any handler runs")
    let table = CommandTable(name: "player")
    let calls = Atomic(0)
    let counter = table.on("volume") { (_: [Value]) -> Value in
        calls.add(1, ordering: .relaxed)
        return .void
    }
    let volume = try Signature("v^vd")
    let level: @convention(c) (UnsafeMutableRawPointer?, Double) -> Void = { _, _ in }
    try table.register("volume", function: level, signature: volume)

    do {
        try table.execute("volume", nil, "loud")
    } catch let error as DispatchError {
        print("execute \"volume\" with (nil, \"loud\") → \(error.statusName)")
        print("  \(error.message)")
    }
    print("handlers that ran: \(calls.load(ordering: .relaxed)), not even the [Value] closure ahead of the C function")

    do {
        try table.perform("rewind")
    } catch let error as DispatchError {
        print("table.perform(\"rewind\") → \(error.statusName): \(error.message)")
    }
    do {
        _ = try Signature("v@Z")
    } catch let error as DispatchError {
        print("Signature(\"v@Z\") → \(error.statusName): \(error.message)")
    }
    withExtendedLifetime(counter) {}
}
