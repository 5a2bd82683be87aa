import EventKitSwift
import Foundation
import Testing

// Typed values from variables wherever arguments are passed: one-shot calls,
// invocations and perform; a CCallback as a function pointer; a struct as a
// struct.

/// `strlen(text) * times`, a C function of `int (const char *, int)`.
private let lengthTimes: @convention(c) (UnsafePointer<CChar>?, Int32) -> Int32 = { text, times in
    Int32(strlen(text!)) * times
}

/// Sorts `count` ints at `base` with `compare`: a C function taking a
/// callback, `void (void *, size_t, int (*)(const void *, const void *))`.
private let sortInts: @convention(c) (UnsafeMutableRawPointer?, Int, UnsafeRawPointer?) -> Void = {
    base, count, compare in
    qsort(base!, count, MemoryLayout<Int32>.stride, unsafeBitCast(compare, to: Comparator.self))
}

private struct Order: EventPayload, Equatable {
    var id: Int
}

@Suite("Arguments from variables")
struct ArgumentsFromVariablesTests {
    @Test("A one-shot call takes typed values from variables beside literals")
    func callTakesVariables() throws {
        let count: Int32 = 3
        let fruit = "banana"
        let signature = try Signature("i*i")
        #expect(try Invocation.call(lengthTimes, signature: signature, arguments: ["banana", count]) == .int32(18))
        #expect(try Invocation.call(lengthTimes, signature: signature, arguments: [fruit, Int32(2)]) == .int32(12))
        // Literals alone keep the Value form.
        #expect(try Invocation.call(lengthTimes, signature: signature, arguments: ["kiwi", 2]) == .int32(8))
    }

    @Test("An invocation's argument is set from a typed variable")
    func invocationSetsVariables() throws {
        let invocation = try Invocation(function: lengthTimes, signature: Signature("i*i"))
        let fruit = "fig", count: Int32 = 4
        try invocation.setArgument(fruit, at: 0)
        try invocation.setArgument(count, at: 1)
        #expect(try invocation.invoke() == .int32(12))
        expectDispatchError(DispatchError.typeMismatch) { try invocation.setArgument(2.5, at: 1) }
    }

    @Test("A CCallback goes in as a function pointer, to a call and to an invocation")
    func callbackIsAFunctionPointer() throws {
        let descending = try CCallback { (a: UnsafeRawPointer?, b: UnsafeRawPointer?) -> Int32 in
            let left = a!.load(as: Int32.self), right = b!.load(as: Int32.self)
            return left < right ? 1 : left > right ? -1 : 0
        }
        var numbers: [Int32] = [3, 9, 1, 4]
        let signature = try Signature("v^vQ^v")
        try numbers.withUnsafeMutableBytes { bytes in
            let base = bytes.baseAddress!
            try Invocation.call(sortInts, signature: signature, arguments: [base, bytes.count / 4, descending])
        }
        #expect(numbers == [9, 4, 3, 1])

        let invocation = try Invocation(function: sortInts, signature: signature)
        var more: [Int32] = [5, 7, 6]
        try more.withUnsafeMutableBytes { bytes in
            try invocation.setArgument(bytes.baseAddress!, at: 0)
            try invocation.setArgument(3, at: 1)
            try invocation.setArgument(descending, at: 2)
            try invocation.invoke()
        }
        #expect(more == [7, 6, 5])
    }

    @Test("A struct goes in as a struct and comes back as one")
    func structInAndOut() throws {
        let divide: @convention(c) (Int32, Int32) -> div_t = div
        let dividend: Int32 = 7
        let quotient = try Invocation.call(
            divide, signature: Signature("{div_t=ii}ii"), arguments: [.int32(dividend), .int32(2)])
        let echo: @convention(c) (div_t) -> Int32 = { $0.quot * 10 + $0.rem }
        let result = try Invocation.call(echo, signature: Signature("i{div_t=ii}"), arguments: [quotient])
        #expect(result == .int32(31))
        #expect(try Invocation.call(echo, signature: Signature("i{div_t=ii}"), arguments: [Value(struct: div_t(quot: 2, rem: 1))]) == .int32(21))
    }

    @Test("perform passes a payload as its box and a CCallback as its function pointer")
    func performTakesPayloadsAndCallbacks() throws {
        let table = CommandTable(name: "perform")
        let orders = Arrivals<Order>()
        let pointers = Arrivals<Bool>()
        let callback = try CCallback { (value: Int32) -> Int32 in value }
        let subscriptions = [
            table.on(EventKey<Order>("ship")) { orders.append($0) },
            table.on("call") { (pointer: UnsafeRawPointer) in pointers.append(pointer == callback.address) },
        ]
        try table.perform("ship", with: [Order(id: 4)])
        try table.perform("call", with: [callback])
        #expect(orders.all == [Order(id: 4)])
        #expect(pointers.all == [true])
        withExtendedLifetime(subscriptions) {}
    }
}
