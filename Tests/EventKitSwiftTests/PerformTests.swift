import EventKitSwift
import Foundation
import Synchronization
import Testing

/// Takes three parameters and reports which it received: `a * 100 + b * 10`,
/// plus 1 when the object is not nil.
private let describeThree: @convention(c) (Int64, Int64, UnsafeMutableRawPointer?) -> Int64 = { a, b, object in
    a * 100 + b * 10 + (object == nil ? 0 : 1)
}

/// `value * factor`, truncated.
private let scale: @convention(c) (Int64, Double) -> Int64 = { value, factor in
    Int64(Double(value) * factor)
}

/// A value type that has no ``Value``.
private struct Point {
    let x: Int
}

@Suite("perform(_:with:)")
struct PerformTests {
    @Test("A handler that takes fewer parameters than the arguments given receives the first ones")
    func fewerParametersThanArguments() throws {
        let table = CommandTable(name: "player")
        let log = Log()
        let subscriptions = [
            table.on("toggle") { log.append("nothing") },
            table.on("toggle") { (on: Bool) in log.append("on \(on)") },
        ]
        let returned = try table.perform("toggle", with: [true, 5, "extra"])

        #expect(log.all == ["nothing", "on true"])
        #expect(returned == nil, "handlers returning Void return nothing")
        withExtendedLifetime(subscriptions) {}
    }

    @Test("A handler given exactly its arguments returns its value")
    func exactlyTheArguments() throws {
        let table = CommandTable(name: "math")
        try table.register("scale", function: scale, signature: Signature("qqd"))

        #expect(try table.perform("scale", with: [21, 2.0]) == .int64(42))
        #expect(try table.perform("scale", with: [Int32(5), Float(0.5)]) == .int64(2))
        #expect(try table.perform("scale", with: [Value.int64(3), 3.0]) == .int64(9))
    }

    @Test("A handler that takes more parameters than the arguments given receives zero and nil for the rest")
    func moreParametersThanArguments() throws {
        let table = CommandTable(name: "math")
        try table.register("three", function: describeThree, signature: Signature("qqq@"))
        let parcel = Parcel()

        #expect(try table.perform("three", with: [5]) == .int64(500))
        #expect(try table.perform("three", with: [5, 3]) == .int64(530))
        #expect(try table.perform("three", with: [5, 3, parcel]) == .int64(531))
        #expect(try table.perform("three", with: []) == .int64(0))
        #expect(try table.perform("three") == .int64(0))
    }

    @Test("The first handler that returns a value gives the result, and every handler runs")
    func firstReturnedValueWins() throws {
        let table = CommandTable(name: "vote")
        let log = Log()
        let subscriptions = [
            table.on("vote") { (_: [Value]) -> Value in
                log.append("silent")
                return .void
            },
            table.on("vote") { (_: [Value]) -> Value in
                log.append("yes")
                return "yes"
            },
            table.on("vote") { (_: [Value]) -> Value in
                log.append("no")
                return "no"
            },
        ]

        #expect(try table.perform("vote") == .string("yes"))
        #expect(log.all == ["silent", "yes", "no"])
        withExtendedLifetime(subscriptions) {}
    }

    @Test("Nothing handling the key throws unrecognizedSelector with the key, also once its handler is gone")
    func unrecognizedSelector() throws {
        let table = CommandTable(name: "player")
        var error = #expect(throws: DispatchError.self) { try table.perform("jump", with: [1]) }
        #expect(error == .unrecognizedSelector("jump"))

        let subscription = table.on("jump") {}
        #expect(try table.perform("jump") == nil)
        subscription.cancel()
        error = #expect(throws: DispatchError.self) { try table.perform("jump") }
        #expect(error == .unrecognizedSelector("jump"))
    }

    @Test("NSNull arrives as nil, at a C object parameter and in an optional object closure alike")
    func nullObjectArrivesAsNil() throws {
        let table = CommandTable(name: "player")
        try table.register("three", function: describeThree, signature: Signature("qqq@"))
        #expect(try table.perform("three", with: [5, 3, NSNull()]) == .int64(530))
        #expect(try table.perform("three", with: [5, 3, Parcel()]) == .int64(531))

        let received = Mutex<[String]>([])
        let subscription = table.on("select") { (item: Parcel?) in
            received.withLock { $0.append(item.map { "\(type(of: $0))" } ?? "nil") }
        }
        try table.perform("select", with: [NSNull()])
        try table.perform("select", with: [Optional<NSNull>.some(NSNull())])
        #expect(received.withLock { $0 } == ["nil", "nil"])
        withExtendedLifetime(subscription) {}
    }

    @Test("A key whose only target has died throws unrecognizedSelector, as one with no handler does")
    func deadTargetIsUnrecognized() throws {
        let table = CommandTable(name: "player")
        let log = Log()
        let controller = registerShortLivedController(on: table, log: log)
        #expect(controller() == nil)
        let error = #expect(throws: DispatchError.self) { try table.perform("reset") }
        #expect(error == .unrecognizedSelector("reset"))
        #expect(log.all.isEmpty)
    }

    @Test("unrecognizedSelector is a Swift-only case: its own name, a fixed description and the key as message")
    func unrecognizedSelectorDescribesItself() {
        let error = DispatchError.unrecognizedSelector("jump")
        #expect(error.statusName == "unrecognizedSelector")
        #expect(error.statusDescription == "unrecognized selector")
        #expect(error.message == "jump")
        #expect(error.description == "unrecognized selector: jump")
        #expect(error != .noHandler("jump"))
        // No C status becomes it: every one keeps its own C name.
        for rawValue in DispatchError.cFailureStatusRawValues {
            let mapped = DispatchError(statusRawValue: rawValue, message: "jump")
            #expect(mapped?.statusName == DispatchError.cStatusName(rawValue: rawValue))
            #expect(mapped != error)
        }
    }

    @Test("A handler queued for another thread counts as handling the key")
    func queuedHandlerIsRecognized() throws {
        let table = CommandTable(name: "worker")
        let queue = try EventQueue()
        let received = Arrivals<String>()
        let subscription = table.on("decode", on: .queue(queue)) { (values: [Value]) in
            received.append("\(values)")
        }
        let outcome = Mutex<String>("")
        runOnSeparateThread {
            do {
                let returned = try table.perform("decode", with: ["intro.ogg"])
                outcome.withLock { $0 = "returned \(returned.map { "\($0)" } ?? "nothing")" }
            } catch {
                outcome.withLock { $0 = "threw \(error)" }
            }
        }

        #expect(outcome.withLock { $0 } == "returned nothing")
        #expect(received.all.isEmpty, "the delivery waits for the owner's drain")
        #expect(queue.drain() == 1)
        #expect(received.all == ["[string(\"intro.ogg\")]"])
        withExtendedLifetime(subscription) {}
    }

    @Test("Each argument becomes the Value of its type")
    func argumentsBecomeValues() throws {
        let table = CommandTable(name: "values")
        let received = Arrivals<String>()
        let subscription = table.on("show") { (values: [Value]) -> Value in
            received.append(values.map(\.description).joined(separator: " "))
            return .void
        }
        let parcel = Parcel(name: "box")
        let address = UnsafeMutableRawPointer(bitPattern: 0x1000)!
        let missing: Int? = nil
        let present: Int? = 7
        try table.perform(
            "show",
            with: [
                true, 1, UInt(2), Int8(-3), UInt16(4), Int32(5), UInt64(6), Float(0.5), 2.5, "text",
                "text".dropFirst(2), Value.uint8(9), nil, missing, present, address,
            ])
        try table.perform("show", with: [parcel])

        #expect(
            received.all.first
                == "bool(true) int64(1) uint64(2) int8(-3) uint16(4) int32(5) uint64(6) float(0.5) double(2.5) "
                + "string(\"text\") string(\"xt\") uint8(9) pointer(nil) pointer(nil) int64(7) "
                + "pointer(0x0000000000001000)")
        #expect(received.all.last?.hasPrefix("object(Parcel@") == true)
        withExtendedLifetime(subscription) {}
    }

    @Test("An argument that has no Value throws typeMismatch and runs no handler")
    func argumentWithoutValue() {
        let table = CommandTable(name: "geometry")
        let log = Log()
        let subscription = table.on("move") { log.append("moved") }
        let error = #expect(throws: DispatchError.self) {
            try table.perform("move", with: [1, Point(x: 2)])
        }
        #expect(
            error
                == .typeMismatch(
                    "table geometry, perform \"move\": argument 1 is a Point, which has no Value "
                        + "(expected a Bool, number, String, class instance, pointer or nil)"))
        #expect(log.all.isEmpty)
        withExtendedLifetime(subscription) {}
    }

    @Test("An argument that does not fit the handler's parameter throws typeMismatch and runs no handler")
    func argumentThatDoesNotFit() {
        let table = CommandTable(name: "player")
        let log = Log()
        let subscriptions = [
            table.on("toggle") { log.append("first") },
            table.on("toggle") { (on: Bool) in log.append("on \(on)") },
        ]
        expectDispatchError(DispatchError.typeMismatch) {
            try table.perform("toggle", with: ["yes"])
        }
        #expect(log.all.isEmpty)
        withExtendedLifetime(subscriptions) {}
    }
}
