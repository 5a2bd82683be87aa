import EventKitSwift
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

typealias Comparator = @convention(c) (UnsafeRawPointer?, UnsafeRawPointer?) -> Int32
typealias StringTransform = @convention(c) (UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>?
typealias ThreadStart = @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?

/// The error a callback's closure throws in these tests.
struct CallbackRefusal: Error, Equatable {
    let reason: String
}

/// The errors a callback reported, in order.
final class ReportedErrors: Sendable {
    private let errors = Mutex<[any Error]>([])
    var all: [any Error] { errors.withLock { $0 } }
    func report(_ error: any Error) { errors.withLock { $0.append(error) } }
}

@Suite("CCallback")
struct CCallbackTests {
    // MARK: Typed closures

    @Test("A capturing typed closure sorts with qsort as a C comparator")
    func typedClosureSortsWithQsort() throws {
        // The order comes from a captured table, which no @convention(c)
        // function could reach.
        let rank: [Int32: Int] = [7: 0, 3: 1, 9: 2, 1: 3]
        let byRank = try CCallback { (a: UnsafeRawPointer?, b: UnsafeRawPointer?) -> Int32 in
            let left = rank[a!.load(as: Int32.self)]!, right = rank[b!.load(as: Int32.self)]!
            return left < right ? -1 : left > right ? 1 : 0
        }
        #expect(byRank.signature.encoding == "i^v^v")
        var numbers: [Int32] = [1, 9, 7, 3, 9]
        qsort(&numbers, numbers.count, MemoryLayout<Int32>.stride, try byRank.function(as: Comparator.self))
        #expect(numbers == [7, 3, 9, 9, 1])
    }

    @Test("Parameter and result types give the signature")
    func typesGiveSignature() throws {
        let mixed = try CCallback { (_: Int32, _: Double, _: Bool, _: String?) -> UInt8 in 0 }
        #expect(mixed.signature.encoding == "CidB*")
        let void = try CCallback { (_: UnsafeMutableRawPointer?) in }
        #expect(void.signature.encoding == "v^v")
        let none = try CCallback { () -> Int64 in 42 }
        #expect(none.signature.encoding == "q")
        let call = try none.function(as: (@convention(c) () -> Int64).self)
        #expect(call() == 42)
    }

    @Test("Every argument arrives as its Swift type and the result returns to C")
    func argumentsAndResultCross() throws {
        let seen = Mutex<[String]>([])
        let describe = try CCallback { (count: Int32, scale: Double, flag: Bool, name: String?) -> Double in
            seen.withLock { $0.append("\(count) \(scale) \(flag) \(name ?? "nil")") }
            return Double(count) * scale
        }
        typealias Describe = @convention(c) (Int32, Double, Bool, UnsafePointer<CChar>?) -> Double
        let function = try describe.function(as: Describe.self)
        #expect(function(3, 1.5, true, "three") == 4.5)
        #expect(function(-2, 0.25, false, nil) == -0.5)
        #expect(seen.withLock { $0 } == ["3 1.5 true three", "-2 0.25 false nil"])
    }

    @Test("A String result reaches C as a malloc copy the caller frees")
    func stringResultIsCallerOwnedCopy() throws {
        let shout = try CCallback { (text: String?) -> String? in text.map { $0.uppercased() } }
        let function = try shout.function(as: StringTransform.self)
        let result = try #require(function("quiet"))
        #expect(String(cString: result) == "QUIET")
        free(result)
        #expect(function(nil) == nil)
    }

    @Test("A thread start routine made from a closure runs on the new thread")
    func threadStartRoutine() throws {
        let ranOn = Mutex<pthread_t?>(nil)
        let start = try CCallback { (argument: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? in
            ranOn.withLock { $0 = pthread_self() }
            return argument.map { $0 + 1 }
        }
        var thread = pthread_t()
        let argument = UnsafeMutableRawPointer(bitPattern: 0x1000)
        #expect(pthread_create(&thread, nil, try start.function(as: ThreadStart.self), argument) == 0)
        var result: UnsafeMutableRawPointer?
        #expect(pthread_join(thread, &result) == 0)
        #expect(result == UnsafeMutableRawPointer(bitPattern: 0x1001))
        #expect(ranOn.withLock { $0 } == thread)
    }

    // MARK: Closures of a run-time signature

    @Test("A closure of a run-time signature re-sends the call, as forwardInvocation: does")
    func runTimeSignatureForwards() throws {
        let signature = try Signature("qqd")
        let add: @convention(c) (Int64, Double) -> Int64 = { a, b in a + Int64(b) }
        let calls = Mutex<[String]>([])
        let forward = try CCallback(signature: signature) { arguments in
            let described = arguments.map(\.description).joined(separator: ", ")
            calls.withLock { $0.append(described) }
            return try Invocation.call(add, signature: signature, arguments: arguments)
        }
        let function = try forward.function(as: (@convention(c) (Int64, Double) -> Int64).self)
        #expect(function(40, 2.5) == 42)
        #expect(calls.withLock { $0 } == ["\(Value.int64(40)), \(Value.double(2.5))"])
    }

    @Test("bsearch finds through a comparator of a run-time signature")
    func runTimeSignatureSearches() throws {
        let compare = try CCallback(signature: Signature("i^v^v")) { arguments in
            guard case .pointer(let key?) = arguments[0], case .pointer(let element?) = arguments[1] else {
                throw CallbackRefusal(reason: "null")
            }
            let a = key.load(as: Int.self), b = element.load(as: Int.self)
            return .int32(a < b ? -1 : a > b ? 1 : 0)
        }
        let sorted = [2, 3, 5, 7, 11, 13]
        let comparator = try compare.function(as: Comparator.self)
        var key = 7
        let found = sorted.withUnsafeBufferPointer { buffer in
            bsearch(&key, buffer.baseAddress!, buffer.count, MemoryLayout<Int>.stride, comparator)
        }
        #expect(found?.load(as: Int.self) == 7)
        key = 8
        let missing = sorted.withUnsafeBufferPointer { buffer in
            bsearch(&key, buffer.baseAddress!, buffer.count, MemoryLayout<Int>.stride, comparator)
        }
        #expect(missing == nil)
    }

    // MARK: Failures

    @Test("An error thrown inside returns zero and reaches onError")
    func thrownErrorReturnsZero() throws {
        let errors = ReportedErrors()
        let picky = try CCallback(onError: errors.report) { (value: Int32) -> Int32 in
            guard value >= 0 else { throw CallbackRefusal(reason: "negative") }
            return value * 2
        }
        let function = try picky.function(as: (@convention(c) (Int32) -> Int32).self)
        #expect(function(21) == 42)
        #expect(function(-1) == 0)
        #expect(errors.all.count == 1)
        #expect(errors.all.first as? CallbackRefusal == CallbackRefusal(reason: "negative"))
    }

    @Test("A result that does not fit the return type returns zero and reaches onError as a type mismatch")
    func unfitResultReturnsZero() throws {
        let errors = ReportedErrors()
        let wrong = try CCallback(signature: Signature("i"), onError: errors.report) { _ in .string("seven") }
        let function = try wrong.function(as: (@convention(c) () -> Int32).self)
        #expect(function() == 0)
        let error = try #require(errors.all.first as? DispatchError)
        #expect(error == .typeMismatch(error.message))
        #expect(error.message.contains("return value"))
    }

    @Test("Naming a type that is not a C function throws")
    func functionAsRejectsSwiftTypes() throws {
        let callback = try CCallback { () -> Int32 in 1 }
        expectDispatchError(DispatchError.invalidArgument) {
            _ = try callback.function(as: (() -> Int32).self)
        }
        expectDispatchError(DispatchError.invalidArgument) {
            _ = try callback.function(as: Int.self)
        }
        let optional = try callback.function(as: (@convention(c) () -> Int32)?.self)
        #expect(optional?() == 1)
    }

    // MARK: Lifetime and threads

    @Test("The closure and what it captures are released with the callback")
    func capturesReleasedWithCallback() throws {
        final class Capture: Sendable {}
        weak var weakCapture: Capture?
        do {
            let capture = Capture()
            weakCapture = capture
            let callback = try CCallback { () -> Bool in withExtendedLifetime(capture) { true } }
            #expect(try callback.function(as: (@convention(c) () -> Bool).self)())
        }
        #expect(weakCapture == nil)
    }

    @Test("Four threads call one callback at once and every call is counted")
    func fourThreadsCallOneCallback() throws {
        let total = Atomic<Int>(0)
        let accumulate = try CCallback { (amount: Int64) -> Int64 in
            Int64(total.add(Int(amount), ordering: .relaxed).newValue)
        }
        let function = try accumulate.function(as: (@convention(c) (Int64) -> Int64).self)
        let perThread = 20_000
        withWatchdog(seconds: 60) {
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                for _ in 0..<perThread { _ = function(Int64(thread + 1)) }
            }
        }
        #expect(total.load(ordering: .relaxed) == perThread * (1 + 2 + 3 + 4))
    }

    // MARK: Table callbacks

    @Test("A table callback runs the event's handlers and returns the first result")
    func tableCallbackReturnsHandlersResult() throws {
        let table = CommandTable(name: "callbacks")
        let seen = Atomic<Int>(0)
        let first = table.on("compare") { arguments in
            seen.add(arguments.count, ordering: .relaxed)
            guard case .pointer(let a?) = arguments[0], case .pointer(let b?) = arguments[1] else { return .int32(0) }
            return .int32(a.load(as: Int32.self) - b.load(as: Int32.self))
        }
        let second = table.on("compare") { _ in .int32(999) }
        let compare = try table.callback(for: "compare", signature: Signature("i^v^v"))
        var numbers: [Int32] = [5, 2, 8, 1]
        qsort(&numbers, numbers.count, MemoryLayout<Int32>.stride, try compare.function(as: Comparator.self))
        #expect(numbers == [1, 2, 5, 8])
        #expect(seen.load(ordering: .relaxed) > 0)
        withExtendedLifetime((first, second)) {}
    }

    @Test("A table callback whose execute fails returns zero and reaches onError")
    func tableCallbackFailureReachesOnError() throws {
        let table = CommandTable(name: "callbacks")
        let errors = ReportedErrors()
        let ran = Atomic<Int>(0)
        let counting = table.on("count") { (step: Int32) in ran.add(Int(step), ordering: .relaxed) }
        // The callback passes a string where the handler takes an int32.
        let mistyped = try table.callback(for: "count", signature: Signature("v*"), onError: errors.report)
        let function = try mistyped.function(as: (@convention(c) (UnsafePointer<CChar>?) -> Void).self)
        function("seven")
        #expect(ran.load(ordering: .relaxed) == 0)
        let error = try #require(errors.all.first as? DispatchError)
        #expect(error == .typeMismatch(error.message))
        #expect(error.message.contains("count"))
        // No handler is not a failure: the zero value, and nothing reported.
        let lonely = try table.callback(for: "nobody", signature: Signature("iq"), onError: errors.report)
        #expect(try lonely.function(as: (@convention(c) (Int64) -> Int32).self)(1) == 0)
        #expect(errors.all.count == 1)
        counting.cancel()
    }

    @Test("A table callback keeps its table alive and executes from another thread")
    func tableCallbackKeepsTableAlive() throws {
        let calls = Atomic<Int>(0)
        var subscription: Subscription?
        let callback: CCallback
        do {
            let table = CommandTable(name: "kept")
            subscription = table.on("tick") { (step: Int32) in calls.add(Int(step), ordering: .relaxed) }
            callback = try table.callback(for: "tick", signature: Signature("vi"))
        }
        let tick = try callback.function(as: (@convention(c) (Int32) -> Void).self)
        let thread = Thread { tick(5) }
        thread.start()
        let deadline = ContinuousClock.now + .seconds(30)
        while calls.load(ordering: .relaxed) == 0 && ContinuousClock.now < deadline { usleep(1000) }
        #expect(calls.load(ordering: .relaxed) == 5)
        subscription?.cancel()
    }
}
