// A tour of EventKitSwift: calling C functions whose types are known only at run
// time. Each section stands alone; run it with `swift run EventKitDemo`.

import EventKitSwift

func section(_ title: String) {
    print("\n== \(title) ==")
}

/// The object the C function below receives as its `@` argument.
final class Scale {
    let factor: Int64
    init(factor: Int64) { self.factor = factor }
}

/// The C type of `scaledCount`: `int64_t (void *scale, int64_t count, double bonus)`,
/// signature "q@qd".
typealias ScaledCount = @convention(c) (UnsafeMutableRawPointer?, Int64, Double) -> Int64

/// The function the tour calls dynamically, as a C caller would see it.
func scaledCount(_ scale: UnsafeMutableRawPointer?, _ count: Int64, _ bonus: Double) -> Int64 {
    let factor = Unmanaged<Scale>.fromOpaque(scale!).takeUnretainedValue().factor
    return count * factor + Int64(bonus)
}

// MARK: - Sections

func signatures() throws {
    section("Signatures (NSMethodSignature)")
    let compute = try Signature("q@qd")
    print("\"q@qd\" describes \(compute)")
    print("  returns \(compute.returnType), takes \(compute.parameterTypes), call path: \(compute.callPath)")
    let fromTypes = try Signature(returning: .int64, parameters: [.object, .int64, .double])
    print("  built from types, it is the same interned signature: \(fromTypes == compute)")

    let method = try Signature("v24@0:8B16")
    print("method encoding \"v24@0:8B16\" reads as \(method.encoding), equal to \"v@:B\": \(method == (try Signature("v@:B")))")

    let twelve = try Signature("v" + String(repeating: "q", count: 12))
    print("twelve int64 parameters (\(twelve.encoding)) take the \(twelve.callPath) path")
}

func invocation() throws {
    section("An invocation (NSInvocation)")
    let scale = Scale(factor: 10)
    let compute: ScaledCount = scaledCount
    let invocation = try Invocation(function: compute, signature: Signature("q@qd"))
    try invocation.setArgument(.object(scale), at: 0)
    try invocation.setArgument(4, at: 1)
    try invocation.setArgument(2.0, at: 2)
    print("compute(scale ×10, 4, 2.0) = \(try invocation.invoke())")

    try invocation.setArgument(7, at: 1)
    print("again with count 7        = \(try invocation.invoke())")
    print("argument 1 reads back as \(try invocation.argument(at: 1))")
    print(invocation)
}

func oneShot() throws {
    section("A one-shot call (dc_call)")
    let scale = Scale(factor: 3)
    let compute: ScaledCount = scaledCount
    let result = try Invocation.call(
        compute, signature: Signature("q@qd"), arguments: [.object(scale), 5, 0.5])
    print("compute(scale ×3, 5, 0.5) = \(result)")
}

func libffiPath() throws {
    section("Ten parameters, on the libffi path")
    typealias Ten = @convention(c) (
        Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64
    ) -> Int64
    let weigh: Ten = { a, b, c, d, e, f, g, h, i, j in
        a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h + 9 * i + 10 * j
    }
    let signature = try Signature("q" + String(repeating: "q", count: 10))
    let invocation = try Invocation(function: weigh, signature: signature)
    for index in 0..<10 {
        try invocation.setArgument(.int64(Int64(index + 1)), at: index)
    }
    print("\(signature.encoding) takes \(invocation.callPath)")
    print("1·1 + 2·2 + … + 10·10 = \(try invocation.invoke())")
}

func errors() throws {
    section("Errors carry the core's message")
    do {
        _ = try Signature("v@Z")
    } catch let error as DispatchError {
        print("\(error.statusName): \(error.message)")
    }

    let compute: ScaledCount = scaledCount
    let invocation = try Invocation(function: compute, signature: Signature("q@qd"))
    do {
        try invocation.setArgument("four", at: 1)
    } catch let error as DispatchError {
        print("\(error.statusName): \(error.message)")
    }
    do {
        try invocation.setArgument(4, at: 3)
    } catch let error as DispatchError {
        print("\(error.statusName): \(error.message)")
    }
}

// MARK: - Tour

try signatures()
try invocation()
try oneShot()
try libffiPath()
try errors()
