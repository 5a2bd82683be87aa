import EventKitSwift
import Foundation
import Synchronization
import Testing

/// Counts calls of the C functions that take it as their object argument, so a
/// test can prove a function was or was not called. Each test makes its own,
/// which keeps parallel tests apart.
final class CallCounter {
    var calls = 0
}

extension CallCounter {
    /// The counter a C function received as its `@` argument.
    static func from(_ address: UnsafeMutableRawPointer?) -> CallCounter {
        Unmanaged<CallCounter>.fromOpaque(address!).takeUnretainedValue()
    }
}

/// Expects `body` to throw the `DispatchError` case that `expected` names
/// (`DispatchError.typeMismatch`, say) and returns the error's message.
@discardableResult
func expectDispatchError(
    _ expected: (String) -> DispatchError,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) -> String {
    let error = #expect(throws: DispatchError.self, sourceLocation: sourceLocation) {
        try body()
    }
    guard let error else { return "" }
    #expect(error == expected(error.message), "threw \(error)", sourceLocation: sourceLocation)
    return error.message
}

/// Calls each parameterless function with the signature its encoding names,
/// on the stub path and on libffi, and expects `expected` from both.
func expectReturnsOnBothPaths(
    _ cases: [(encoding: String, function: UnsafeRawPointer, expected: Value)],
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    for (encoding, function, expected) in cases {
        let signature = try Signature(encoding)
        for path in [Signature.CallPath.stub, .libffi] {
            let invocation = try Invocation(function: function, signature: signature)
            try invocation.setCallPath(path)
            #expect(try invocation.invoke() == expected, "\(encoding) on \(path)", sourceLocation: sourceLocation)
        }
    }
}

/// Runs `body`, failing the test (instead of hanging the suite) when it takes
/// longer than `seconds`.
func withWatchdog(seconds: Double, _ body: () throws -> Void) rethrows {
    let finished = Atomic<Bool>(false)
    let watchdog = Thread {
        let deadline = Date().addingTimeInterval(seconds)
        while !finished.load(ordering: .acquiring) {
            if Date() > deadline {
                print("watchdog: a threaded test hung for \(seconds) s")
                exit(99)
            }
            usleep(10_000)
        }
    }
    watchdog.start()
    defer { finished.store(true, ordering: .releasing) }
    try body()
}
