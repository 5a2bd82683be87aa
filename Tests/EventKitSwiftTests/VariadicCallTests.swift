import EventKitSwift
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The address of the C function `name`, as `dlsym` finds it in the process.
private func symbol(_ name: String) throws -> UnsafeMutableRawPointer {
    let process = try #require(dlopen(nil, RTLD_NOW))
    defer { dlclose(process) }
    return try #require(dlsym(process, name))
}

/// snprintf(buffer, 256, format, arguments...) called through `signature`:
/// what it returned and what it wrote.
private func snprintf(
    _ signature: Signature, _ format: String, _ arguments: [Value]
) throws -> (returned: Value, text: String) {
    let function = try symbol("snprintf")
    var buffer = [CChar](repeating: 0, count: 256)
    let returned = try buffer.withUnsafeMutableBufferPointer { text in
        try Invocation.call(
            function, signature: signature,
            arguments: [.pointer(UnsafeMutableRawPointer(text.baseAddress)), .uint64(UInt64(text.count)), .string(format)]
                + arguments)
    }
    return (returned, buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
}

/// What vsnprintf writes for `format` and `arguments`: the direct call to
/// compare with.
private func directlyFormatted(_ format: String, _ arguments: [any CVarArg]) -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    _ = buffer.withUnsafeMutableBufferPointer { text in
        withVaList(arguments) { vsnprintf(text.baseAddress, text.count, format, $0) }
    }
    return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
}

@Suite("Variadic calls")
struct VariadicCallTests {
    // MARK: Calling snprintf

    @Test("snprintf formats an int, a long long, a double, a C string and a pointer as a direct call does")
    func snprintfFormatsEveryKind() throws {
        let signature = try Signature(variadic: "i^vQ*iqd*^v", fixedCount: 3)
        let address = try #require(UnsafeMutableRawPointer(bitPattern: 0xdead_beef))
        let format = "%d|%lld|%.3f|%s|%p"
        let (returned, text) = try snprintf(
            signature, format, [.int32(-42), .int64(1 << 40 + 7), .double(3.14159), "dispatch", .pointer(address)])
        let expected = "dispatch".withCString { string in
            directlyFormatted(format, [Int32(-42), Int64(1 << 40 + 7), 3.14159, string, OpaquePointer(address)])
        }
        #expect(text == expected)
        #expect(text == "-42|1099511627783|3.142|dispatch|0xdeadbeef")
        #expect(returned == .int32(Int32(text.utf8.count)))
    }

    @Test("More floating-point and integer arguments than there are registers reach the stack intact")
    func manyArguments() throws {
        let doubles = (1...10).map { Double($0) + 0.5 }
        let integers: [Int64] = (1...8).map { Int64($0) * -1_000_000_007 }
        let format = Array(repeating: "%.1f", count: doubles.count).joined(separator: " ") + " "
            + Array(repeating: "%lld", count: integers.count).joined(separator: " ")
        let signature = try Signature(
            variadic: "i^vQ*" + String(repeating: "d", count: doubles.count) + String(repeating: "q", count: integers.count),
            fixedCount: 3)
        let (_, text) = try snprintf(signature, format, doubles.map(Value.double) + integers.map(Value.int64))
        #expect(text == directlyFormatted(format, doubles + integers as [any CVarArg]))
    }

    @Test("One function is called in several shapes, each through its own signature")
    func severalShapes() throws {
        #expect(try snprintf(Signature(variadic: "i^vQ*", fixedCount: 3), "plain", []).text == "plain")
        #expect(try snprintf(Signature(variadic: "i^vQ**d", fixedCount: 3), "%s=%g", ["pi", 3.25]).text == "pi=3.25")
        #expect(try snprintf(Signature(variadic: "i^vQ*Qi", fixedCount: 3), "%zu/%x", [.uint64(7), .int32(255)]).text == "7/ff")
    }

    @Test("An invocation of a variadic function can be invoked again with new arguments")
    func invocationIsReusable() throws {
        var buffer = [CChar](repeating: 0, count: 64)
        try buffer.withUnsafeMutableBufferPointer { text in
            let invocation = try Invocation(
                function: try symbol("snprintf"), signature: Signature(variadic: "i^vQ*d", fixedCount: 3))
            try invocation.setArgument(.pointer(UnsafeMutableRawPointer(text.baseAddress)), at: 0)
            try invocation.setArgument(.uint64(UInt64(text.count)), at: 1)
            try invocation.setArgument("%.2f", at: 2)
            try invocation.setArgument(1.5, at: 3)
            #expect(try invocation.invoke() == .int32(4))
            #expect(String(cString: text.baseAddress!) == "1.50")
            try invocation.setArgument(-0.125, at: 3)
            #expect(try invocation.invoke() == .int32(5))
            #expect(String(cString: text.baseAddress!) == "-0.12")
            #expect(invocation.callPath == .libffi)
        }
    }

    @Test("sscanf writes through pointer arguments in the variadic part")
    func sscanfWritesThroughPointers() throws {
        var number: Int32 = 0
        var fraction: Double = 0
        var word = [CChar](repeating: 0, count: 8)
        let matched = try withUnsafeMutablePointer(to: &number) { number in
            try withUnsafeMutablePointer(to: &fraction) { fraction in
                try word.withUnsafeMutableBufferPointer { word in
                    try Invocation.call(
                        try symbol("sscanf"), signature: Signature(variadic: "i**^i^d^c", fixedCount: 2),
                        arguments: [
                            "12 3.5 dispatch", "%d %lf %7s", .pointer(number), .pointer(fraction),
                            .pointer(UnsafeMutableRawPointer(word.baseAddress)),
                        ])
                }
            }
        }
        #expect(matched == .int32(3))
        #expect(number == 12 && fraction == 3.5)
        #expect(word.withUnsafeBufferPointer { String(cString: $0.baseAddress!) } == "dispatc")
    }

    @Test("A float, short or char value given for a promoted parameter is promoted on the way")
    func valuesArePromoted() throws {
        let signature = try Signature(variadic: "i^vQ*diii", fixedCount: 3)
        let (_, text) = try snprintf(signature, "%.2f %d %d %d", [.float(0.5), .int16(-3), .uint8(200), .int8(-1)])
        #expect(text == "0.50 -3 200 -1")
    }

    // MARK: The signature

    @Test("A variadic signature knows where its variadic arguments start")
    func variadicSignatureShape() throws {
        let signature = try Signature(variadic: "i^vQ*id", fixedCount: 3)
        #expect(signature.isVariadic)
        #expect(signature.fixedCount == 3)
        #expect(signature.encoding == "i^vQ*...id")
        #expect(signature.parameterTypes == [.pointer, .uint64, .string, .int32, .double])
        #expect(signature.returnType == .int32)
        #expect(signature.callPath == .libffi)
        #expect(signature.description == "i^vQ*...id (int32 (pointer, uint64, string, ..., int32, double))")

        let plain = try Signature("i^vQ*id")
        #expect(!plain.isVariadic)
        #expect(plain.fixedCount == 5)
        #expect(plain != signature)
    }

    @Test("Equal encodings with equal fixed counts are one signature; other fixed counts are others")
    func variadicInterning() throws {
        let first = try Signature(variadic: "i*id", fixedCount: 1)
        #expect(first == (try Signature(variadic: "i*id", fixedCount: 1)))
        #expect(first != (try Signature(variadic: "i*id", fixedCount: 2)))
        let noneFixed = try Signature(variadic: "i*id", fixedCount: 0)
        #expect(noneFixed.encoding == "i...*id")
        #expect(try Signature(variadic: "i*", fixedCount: 1).encoding == "i*...")
    }

    @Test(
        "An unpromoted type in the variadic part throws badSignature naming its position",
        arguments: ["f", "B", "c", "C", "s", "S"]
    )
    func unpromotedTypesAreRefused(code: String) throws {
        let message = expectDispatchError(DispatchError.badSignature) {
            _ = try Signature(variadic: "i^vQ*i" + code, fixedCount: 3)
        }
        #expect(message.contains("position 6"), "\(message)")
        #expect(message.contains("promoted"), "\(message)")
        // Among the fixed parameters, the same type is what C passes.
        #expect(try Signature(variadic: "i" + code + "*", fixedCount: 1).parameterTypes.count == 2)
    }

    @Test("A fixed count above the parameter count, or below zero, throws badSignature")
    func badFixedCounts() {
        let above = expectDispatchError(DispatchError.badSignature) {
            _ = try Signature(variadic: "i*i", fixedCount: 3)
        }
        #expect(above.contains("3 fixed parameters"), "\(above)")
        expectDispatchError(DispatchError.badSignature) {
            _ = try Signature(variadic: "i*i", fixedCount: -1)
        }
        expectDispatchError(DispatchError.badSignature) {
            _ = try Signature(variadic: "i*\0i", fixedCount: 1)
        }
        expectDispatchError(DispatchError.badSignature) {
            _ = try Signature(variadic: "", fixedCount: 0)
        }
    }

    @Test("Arguments that do not fit, or are too few, throw before anything is called")
    func badArgumentsThrow() throws {
        let signature = try Signature(variadic: "i^vQ*i", fixedCount: 3)
        let mismatch = expectDispatchError(DispatchError.typeMismatch) {
            _ = try snprintf(signature, "%d", ["seven"])
        }
        #expect(mismatch.contains("argument 3"), "\(mismatch)")
        expectDispatchError(DispatchError.typeMismatch) {
            _ = try snprintf(signature, "%d", [.int64(1 << 40)])
        }
        expectDispatchError(DispatchError.arity) {
            _ = try snprintf(signature, "%d", [])
        }
    }

    @Test("A callback may have a variadic signature: it takes that one call shape")
    func callbacksMayBeVariadic() throws {
        let signature = try Signature(variadic: "i*i", fixedCount: 1)
        _ = try CCallback(signature: signature) { _ in .int32(0) }
    }
}
