// 1. Signatures and invocations: NSMethodSignature and NSInvocation, on plain
// C function pointers, through both call paths.

import EventKitSwift

/// The object the C function `scaledCount` receives as its `@` argument.
final class Meter {
    let factor: Int64
    init(factor: Int64) { self.factor = factor }
}

/// `int64_t scaled_count(void *meter, int64_t count, double bonus)`, "q@qd".
typealias ScaledCount = @convention(c) (UnsafeMutableRawPointer?, Int64, Double) -> Int64

/// A C function, written in Swift here; in real use it comes from `dlsym`.
func scaledCount(_ meter: UnsafeMutableRawPointer?, _ count: Int64, _ bonus: Double) -> Int64 {
    let factor = Unmanaged<Meter>.fromOpaque(meter!).takeUnretainedValue().factor
    return count * factor + Int64(bonus)
}

/// Ten parameters: more integer registers than the typed stubs cover, so
/// calls take the libffi path.
typealias Weigh = @convention(c) (Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64) -> Int64

func weigh(
    _ a: Int64, _ b: Int64, _ c: Int64, _ d: Int64, _ e: Int64,
    _ f: Int64, _ g: Int64, _ h: Int64, _ i: Int64, _ j: Int64
) -> Int64 {
    a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h + 9 * i + 10 * j
}

func dynamicCalls() throws {
    section(1, "Signatures and invocations (NSMethodSignature, NSInvocation)")
    let signature = try Signature("q@qd")
    print("Signature(\"q@qd\") → \(signature), \(signature.callPath) path")
    let method = try Signature("v24@0:8B16")
    let sameAsPlain = method == (try Signature("v@:B"))
    print("Signature(\"v24@0:8B16\") → \(method.encoding), the same signature as \"v@:B\": \(sameAsPlain)")

    let compute: ScaledCount = scaledCount
    let invocation = try Invocation(function: compute, signature: signature)
    try invocation.setArgument(.object(Meter(factor: 10)), at: 0)
    try invocation.setArgument(4, at: 1)
    try invocation.setArgument(2.0, at: 2)
    print("compute(meter ×10, 4, 2.0) = \(try invocation.invoke())  via \(invocation.callPath)")
    try invocation.setCallPath(.libffi)
    print("the same, forced to libffi = \(try invocation.invoke())  via \(invocation.callPath)")

    let once = try Invocation.call(compute, signature: signature, arguments: [.object(Meter(factor: 3)), 5, 0.5])
    print("one shot: compute(meter ×3, 5, 0.5) = \(once)")

    let weighing = try Invocation(function: weigh as Weigh, signature: Signature(String(repeating: "q", count: 11)))
    for index in 0..<10 {
        try weighing.setArgument(.int64(Int64(index + 1)), at: index)
    }
    let weight = try weighing.invoke()
    print("weigh(1, 2, …, 10), \"\(weighing.signature.encoding)\" = \(weight)  via \(weighing.callPath)")
}
