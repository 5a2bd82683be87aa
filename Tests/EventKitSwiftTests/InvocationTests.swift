import EventKitSwift
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

typealias AddFunction = @convention(c) (Int64, Double) -> Int64
typealias CountingFunction = @convention(c) (UnsafeMutableRawPointer?, Int64) -> Void

@Suite("Invocation")
struct InvocationTests {
    let add: AddFunction = { a, b in a + Int64(b) }

    /// Adds its second argument to the calls of the counter it gets first.
    let count: CountingFunction = { counter, amount in
        CallCounter.from(counter).calls += Int(amount)
    }

    // MARK: Calling

    @Test("Arguments set by index reach the function and invoke returns its result")
    func invokeReturnsResult() throws {
        let invocation = try Invocation(function: add, signature: Signature("qqd"))
        try invocation.setArgument(2, at: 0)
        try invocation.setArgument(3.5, at: 1)
        #expect(try invocation.invoke() == .int64(5))
        #expect(try invocation.returnValue() == .int64(5))
    }

    @Test("An invocation can be invoked again, with the same or new arguments")
    func invocationIsReusable() throws {
        let counter = CallCounter()
        let invocation = try Invocation(function: count, signature: Signature("v@q"))
        try invocation.setArgument(.object(counter), at: 0)
        try invocation.setArgument(1, at: 1)
        #expect(try invocation.invoke() == .void)
        try invocation.invoke()
        try invocation.setArgument(10, at: 1)
        try invocation.invoke()
        #expect(counter.calls == 12)
    }

    @Test("Arguments read back typed as their parameters")
    func argumentsReadBackTyped() throws {
        let takesNarrow: @convention(c) (Int32, UInt8, Float) -> Void = { _, _, _ in }
        let invocation = try Invocation(function: takesNarrow, signature: Signature("viCf"))
        try invocation.setArgument(.int64(-5), at: 0)
        try invocation.setArgument(.int16(200), at: 1)
        try invocation.setArgument(0.5, at: 2)
        #expect(try invocation.argument(at: 0) == .int32(-5))
        #expect(try invocation.argument(at: 1) == .uint8(200))
        #expect(try invocation.argument(at: 2) == .float(0.5))
    }

    @Test("Arguments that were never set are zero, false or null")
    func unsetArgumentsAreZero() throws {
        let ignore: @convention(c) (Bool, Int64, Double, UnsafeMutableRawPointer?, UnsafeMutablePointer<CChar>?) -> Void = { _, _, _, _, _ in }
        let invocation = try Invocation(function: ignore, signature: Signature("vBqd@*"))
        #expect(try invocation.argument(at: 0) == .bool(false))
        #expect(try invocation.argument(at: 1) == .int64(0))
        #expect(try invocation.argument(at: 2) == .double(0))
        #expect(try invocation.argument(at: 3) == .object(nil))
        #expect(try invocation.argument(at: 4) == .string(nil))
    }

    @Test("A null literal fits object, pointer and string parameters")
    func nullFitsPointerLikeParameters() throws {
        let countNulls: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutablePointer<CChar>?) -> Int32 = { a, b, c in
            Int32((a == nil ? 1 : 0) + (b == nil ? 1 : 0) + (c == nil ? 1 : 0))
        }
        let invocation = try Invocation(function: countNulls, signature: Signature("i@^v*"))
        try invocation.setArgument(.object(CallCounter()), at: 0)
        try invocation.setArgument(.string("set"), at: 2)
        #expect(try invocation.invoke() == .int32(1))
        for index in 0..<3 { try invocation.setArgument(nil, at: index) }
        #expect(try invocation.invoke() == .int32(3))
    }

    // MARK: Errors

    @Test("A mismatched argument throws typeMismatch, keeps the previous value and calls nothing")
    func typeMismatchIsRejected() throws {
        let counter = CallCounter()
        let invocation = try Invocation(function: count, signature: Signature("v@q"))
        try invocation.setArgument(.object(counter), at: 0)
        try invocation.setArgument(3, at: 1)
        let message = expectDispatchError(DispatchError.typeMismatch) {
            try invocation.setArgument("seven", at: 1)
        }
        #expect(message.contains("argument 1"))
        #expect(message.contains("int64"))
        #expect(message.contains("string"))
        expectDispatchError(DispatchError.typeMismatch) {
            try invocation.setArgument(.int64(1), at: 0)
        }
        #expect(counter.calls == 0)
        #expect(try invocation.argument(at: 1) == .int64(3))
        #expect(try invocation.argument(at: 0) == .object(counter))
    }

    @Test("Values that do not fit exactly are type mismatches")
    func inexactValuesAreRejected() throws {
        let cases: [(encoding: String, value: Value)] = [
            ("vI", .int64(-1)), ("vC", .int64(256)), ("vc", .uint64(200)),
            ("vq", .bool(true)), ("vB", .int64(1)), ("vq", .double(1)), ("vd", .int64(1)),
            ("vf", .double(0.1)), ("v@", .string("s")), ("v*", .object(CallCounter())),
            ("v*", .pointer(UnsafeMutableRawPointer(bitPattern: 8))),
        ]
        let function: @convention(c) () -> Void = {}
        for (encoding, value) in cases {
            let invocation = try Invocation(function: function, signature: Signature(encoding))
            let message = expectDispatchError(DispatchError.typeMismatch) {
                try invocation.setArgument(value, at: 0)
            }
            #expect(message.contains(value.type.name), "\(encoding) with \(value): \(message)")
        }
    }

    @Test("An index outside the parameters throws indexOutOfRange", arguments: [-1, 2, 100])
    func indexOutOfRange(index: Int) throws {
        let invocation = try Invocation(function: add, signature: Signature("qqd"))
        let setMessage = expectDispatchError(DispatchError.indexOutOfRange) {
            try invocation.setArgument(1, at: index)
        }
        #expect(setMessage.contains("\(index)"))
        #expect(setMessage.contains("2 parameters"))
        expectDispatchError(DispatchError.indexOutOfRange) {
            _ = try invocation.argument(at: index)
        }
    }

    @Test("Asking for the return value before the first invoke throws notInvoked")
    func returnValueBeforeInvoke() throws {
        let invocation = try Invocation(function: add, signature: Signature("qqd"))
        expectDispatchError(DispatchError.notInvoked) {
            _ = try invocation.returnValue()
        }
        try invocation.invoke()
        #expect(try invocation.returnValue() == .int64(0))
    }

    @Test("A Swift closure or any other non-C value is rejected as a function")
    func nonCFunctionsAreRejected() throws {
        let signature = try Signature("v")
        let closure: () -> Void = {}
        let message = expectDispatchError(DispatchError.invalidArgument) {
            _ = try Invocation(function: closure, signature: signature)
        }
        #expect(message.contains("not a C function"))
        expectDispatchError(DispatchError.invalidArgument) {
            _ = try Invocation(function: 0x1000, signature: signature)
        }
        expectDispatchError(DispatchError.invalidArgument) {
            _ = try Invocation.call(CallCounter(), signature: signature, arguments: [])
        }
    }

    @Test("A null function pointer is rejected with nullArgument")
    func nullFunctionIsRejected() throws {
        let signature = try Signature("v")
        let missing: UnsafeMutableRawPointer? = nil
        expectDispatchError(DispatchError.nullArgument) {
            _ = try Invocation(function: missing, signature: signature)
        }
        let missingFunction: (@convention(c) () -> Void)? = nil
        expectDispatchError(DispatchError.nullArgument) {
            try Invocation.call(missingFunction, signature: signature, arguments: [])
        }
    }

    // MARK: Call paths

    @Test("Both call paths give identical results on the same signatures")
    func callPathsAgree() throws {
        let negate: @convention(c) (Int8) -> Int8 = { 0 &- $0 }
        let scale: @convention(c) (Float, Double) -> Double = { Double($0) * $1 }
        let halve: @convention(c) (Float, Int32) -> Float = { $0 / Float($1) }
        let isNull: @convention(c) (UnsafeMutableRawPointer?) -> Bool = { $0 == nil }
        let store: @convention(c) (UnsafeMutableRawPointer?, Int64) -> Void = { out, value in
            out!.storeBytes(of: value, as: Int64.self)
        }
        let echo: @convention(c) (UnsafeMutablePointer<CChar>?) -> UnsafeMutablePointer<CChar>? = { $0 }
        let mix: @convention(c) (Int64, Double, Int64, Double, Int64, Double) -> Double = {
            Double($0) + $1 * 10 + Double($2) * 100 + $3 * 1000 + Double($4) * 10_000 + $5 * 100_000
        }
        let six: @convention(c) (Int64, Int64, Int64, Int64, Int64, Int64) -> UInt64 = {
            UInt64($0 + 2 * $1 + 3 * $2 + 4 * $3 + 5 * $4 + 6 * $5)
        }
        let eightFloats: @convention(c) (Float, Float, Float, Float, Float, Float, Float, Float) -> Double = {
            Double($0 + 2 * $1 + 3 * $2 + 4 * $3 + 5 * $4 + 6 * $5 + 7 * $6 + 8 * $7)
        }
        let slot = UnsafeMutablePointer<Int64>.allocate(capacity: 1)
        defer { slot.deallocate() }

        let cases: [(encoding: String, function: UnsafeRawPointer, arguments: [Value], expected: Value)] = [
            ("cc", address(of: negate), [.int8(-128)], .int8(-128)),
            ("cc", address(of: negate), [.int8(5)], .int8(-5)),
            ("dfd", address(of: scale), [.float(1.5), .double(-2)], .double(-3)),
            ("ffi", address(of: halve), [.float(3), .int32(2)], .float(1.5)),
            ("B^v", address(of: isNull), [nil], .bool(true)),
            ("B@", address(of: isNull), [.object(CallCounter())], .bool(false)),
            ("v^qq", address(of: store), [.pointer(UnsafeMutableRawPointer(slot)), 77], .void),
            ("**", address(of: echo), ["round trip"], .string("round trip")),
            ("dqdqdqd", address(of: mix), [1, 2.0, 3, 4.0, 5, 6.0], .double(1 + 20 + 300 + 4000 + 50_000 + 600_000)),
            ("Qqqqqqq", address(of: six), [1, 1, 1, 1, 1, 1], .uint64(21)),
            ("dffffffff", address(of: eightFloats), Array(repeating: .float(1), count: 8), .double(36)),
        ]
        for testCase in cases {
            let signature = try Signature(testCase.encoding)
            #expect(signature.callPath == .stub, "\(signature)")
            let stub = try Invocation(function: testCase.function, signature: signature)
            let libffi = try Invocation(function: testCase.function, signature: signature)
            try libffi.setCallPath(.libffi)
            #expect(stub.callPath == .stub)
            #expect(libffi.callPath == .libffi)
            for (index, argument) in testCase.arguments.enumerated() {
                try stub.setArgument(argument, at: index)
                try libffi.setArgument(argument, at: index)
            }
            slot.pointee = 0
            let stubResult = try stub.invoke()
            let stubStored = slot.pointee
            slot.pointee = 0
            let libffiResult = try libffi.invoke()
            #expect(stubResult == testCase.expected, "\(signature) on the stub path")
            #expect(libffiResult == testCase.expected, "\(signature) on libffi")
            #expect(stubStored == slot.pointee)
            if testCase.encoding == "v^qq" {
                #expect(stubStored == 77)
            }
        }
    }

    @Test("Narrow integer and bool returns keep their sign and range on both paths")
    func narrowReturns() throws {
        let cases: [(String, UnsafeRawPointer, Value)] = [
            ("c", address(of: { Int8.min } as @convention(c) () -> Int8), .int8(.min)),
            ("c", address(of: { Int8.max } as @convention(c) () -> Int8), .int8(.max)),
            ("c", address(of: { -1 } as @convention(c) () -> Int8), .int8(-1)),
            ("C", address(of: { UInt8.max } as @convention(c) () -> UInt8), .uint8(.max)),
            ("s", address(of: { Int16.min } as @convention(c) () -> Int16), .int16(.min)),
            ("S", address(of: { UInt16.max } as @convention(c) () -> UInt16), .uint16(.max)),
            ("i", address(of: { Int32.min } as @convention(c) () -> Int32), .int32(.min)),
            ("I", address(of: { UInt32.max } as @convention(c) () -> UInt32), .uint32(.max)),
            ("q", address(of: { Int64.min } as @convention(c) () -> Int64), .int64(.min)),
            ("Q", address(of: { UInt64.max } as @convention(c) () -> UInt64), .uint64(.max)),
            ("B", address(of: { true } as @convention(c) () -> Bool), .bool(true)),
        ]
        try expectReturnsOnBothPaths(cases)
    }

    @Test("A narrow return is read from the low bits of its register, whatever the upper bits hold")
    func narrowReturnsIgnoreUpperBits() throws {
        // Each function returns a full 64-bit register; the signature says the
        // callee returns something narrower, as a C callee may leave the upper
        // bits undefined.
        let dirty: @convention(c) () -> UInt64 = { 0xDEAD_BEEF_FFFF_FF80 }
        let dirtyTrue: @convention(c) () -> UInt64 = { 0xDEAD_BEEF_0000_0001 }
        let dirtyFalse: @convention(c) () -> UInt64 = { 0xFFFF_FFFF_FFFF_FF00 }
        let dirtyFloat: @convention(c) () -> Double = { Double(bitPattern: 0x7FF8_DEAD_3FC0_0000) }
        let cases: [(String, UnsafeRawPointer, Value)] = [
            ("c", address(of: dirty), .int8(-128)),
            ("C", address(of: dirty), .uint8(0x80)),
            ("s", address(of: dirty), .int16(-128)),
            ("S", address(of: dirty), .uint16(0xFF80)),
            ("i", address(of: dirty), .int32(-128)),
            ("I", address(of: dirty), .uint32(0xFFFF_FF80)),
            ("B", address(of: dirtyTrue), .bool(true)),
            ("B", address(of: dirtyFalse), .bool(false)),
            ("f", address(of: dirtyFloat), .float(1.5)),
        ]
        try expectReturnsOnBothPaths(cases)
    }

    @Test("A value converts to a narrower or wider parameter type when it fits exactly")
    func exactConversionsFit() throws {
        let function: @convention(c) () -> Void = {}
        let cases: [(encoding: String, value: Value, stored: Value)] = [
            ("vC", .int64(255), .uint8(255)),
            ("vc", .uint16(127), .int8(127)),
            ("vi", .uint32(7), .int32(7)),
            ("vq", .uint64(UInt64(Int64.max)), .int64(.max)),
            ("vQ", .int8(0), .uint64(0)),
            ("vd", .float(0.1), .double(Double(Float(0.1)))),
            ("vf", .double(0.25), .float(0.25)),
            ("v^v", .string(nil), .pointer(nil)),
            ("v@", .pointer(nil), .object(nil)),
            ("v*", .object(nil), .string(nil)),
        ]
        for (encoding, value, stored) in cases {
            let invocation = try Invocation(function: function, signature: Signature(encoding))
            try invocation.setArgument(value, at: 0)
            #expect(try invocation.argument(at: 0) == stored, "\(value) for \(encoding)")
        }
        let nanInvocation = try Invocation(function: function, signature: Signature("vf"))
        try nanInvocation.setArgument(.double(.nan), at: 0)
        guard case .float(let stored) = try nanInvocation.argument(at: 0) else {
            Issue.record("a NaN double set for a float parameter reads back as a float")
            return
        }
        #expect(stored.isNaN)
    }

    @Test("Twelve parameters, eight of them integers, take the libffi path and arrive in order")
    func twelveParametersOnLibffi() throws {
        typealias Twelve = @convention(c) (
            Int64, Double, Int32, Float, Int64, Int64, Int8, Double, Int64, Int64, UInt16, Int64
        ) -> Double
        let weigh: Twelve = { a, b, c, d, e, f, g, h, i, j, k, l in
            let integers = Double(a) * 1 + Double(c) * 3 + Double(e) * 5 + Double(f) * 6
                + Double(g) * 7 + Double(i) * 9 + Double(j) * 10 + Double(k) * 11 + Double(l) * 12
            return integers + b * 2 + Double(d) * 4 + h * 8
        }
        let signature = try Signature("dqdifqqcdqqSq")
        #expect(signature.parameterTypes.count == 12)
        #expect(signature.callPath == .libffi)
        let invocation = try Invocation(function: weigh, signature: signature)
        #expect(invocation.callPath == .libffi)
        let message = expectDispatchError(DispatchError.unsupported) {
            try invocation.setCallPath(.stub)
        }
        #expect(message.contains("dqdifqqcdqqSq"))
        let arguments: [Value] = [1, 2.0, 3, 4.0, 5, 6, 7, 8.0, 9, 10, 11, 12]
        for (index, argument) in arguments.enumerated() {
            try invocation.setArgument(argument, at: index)
        }
        let expected = (1...12).reduce(0.0) { $0 + Double($1 * $1) }
        #expect(try invocation.invoke() == .double(expected))
        #expect(try Invocation.call(weigh, signature: signature, arguments: arguments) == .double(expected))
    }

    @Test("Twelve parameters that all fit in registers agree on both paths")
    func twelveParametersInRegisters() throws {
        typealias Twelve = @convention(c) (
            Int64, Double, Int32, Float, Int64, Double, Int8, Double, Int64, Float, UInt16, Double
        ) -> Double
        let weigh: Twelve = { a, b, c, d, e, f, g, h, i, j, k, l in
            let integers = Double(a) * 1 + Double(c) * 3 + Double(e) * 5 + Double(g) * 7
                + Double(i) * 9 + Double(k) * 11
            return integers + b * 2 + Double(d) * 4 + f * 6 + h * 8 + Double(j) * 10 + l * 12
        }
        let signature = try Signature("dqdifqdcdqfSd")
        #expect(signature.callPath == .stub)
        let arguments: [Value] = [1, 2.0, 3, 4.0, 5, 6.0, 7, 8.0, 9, 10.0, 11, 12.0]
        let expected = Value.double((1...12).reduce(0.0) { $0 + Double($1 * $1) })
        for path in [Signature.CallPath.stub, .libffi] {
            let invocation = try Invocation(function: weigh, signature: signature)
            try invocation.setCallPath(path)
            for (index, argument) in arguments.enumerated() {
                try invocation.setArgument(argument, at: index)
            }
            #expect(try invocation.invoke() == expected, "on \(path)")
        }
    }

    // MARK: Floating point

    @Test("Floats and doubles are passed and returned as their own types")
    func floatsAndDoubles() throws {
        let combine: @convention(c) (Float, Double, Float) -> Float = { a, b, c in a + Float(b) * c }
        let widen: @convention(c) (Double, Float) -> Double = { a, b in a + Double(b) }
        let narrow = try Invocation(function: combine, signature: Signature("ffdf"))
        try narrow.setArgument(.float(0.1), at: 0)
        try narrow.setArgument(.double(2), at: 1)
        try narrow.setArgument(.float(0.25), at: 2)
        #expect(try narrow.invoke() == .float(Float(0.1) + 2 * 0.25))

        let wide = try Invocation(function: widen, signature: Signature("ddf"))
        try wide.setArgument(.double(0.1), at: 0)
        try wide.setArgument(.float(0.1), at: 1)
        #expect(try wide.invoke() == .double(0.1 + Double(Float(0.1))))
        try wide.setArgument(.float(0.5), at: 0)
        #expect(try wide.argument(at: 0) == .double(0.5))
    }

    // MARK: Strings, pointers and objects

    @Test("A string argument is passed as a C string and a returned C string is copied back")
    func stringsRoundTrip() throws {
        let echo: @convention(c) (UnsafeMutablePointer<CChar>?) -> UnsafeMutablePointer<CChar>? = { $0 }
        let length: @convention(c) (UnsafeMutablePointer<CChar>?) -> Int64 = { string in
            var count: Int64 = 0
            while string![Int(count)] != 0 { count += 1 }
            return count
        }
        let invocation = try Invocation(function: echo, signature: Signature("**"))
        try invocation.setArgument("héllo, wörld", at: 0)
        #expect(try invocation.invoke() == .string("héllo, wörld"))
        #expect(try invocation.argument(at: 0) == .string("héllo, wörld"))
        try invocation.setArgument(.string(nil), at: 0)
        #expect(try invocation.invoke() == .string(nil))
        #expect(try Invocation.call(length, signature: Signature("q*"), arguments: ["héllo"]) == .int64(6))
    }

    @Test("A string argument stays valid after the Swift string that set it is gone")
    func stringArgumentsAreCopied() throws {
        let echo: @convention(c) (UnsafeMutablePointer<CChar>?) -> UnsafeMutablePointer<CChar>? = { $0 }
        let invocation = try Invocation(function: echo, signature: Signature("**"))
        do {
            let temporary = String(repeating: "long enough to be heap allocated ", count: 4)
            try invocation.setArgument(.string(temporary), at: 0)
        }
        let expected = String(repeating: "long enough to be heap allocated ", count: 4)
        #expect(try invocation.invoke() == .string(expected))
        try invocation.setArgument("short", at: 0)
        #expect(try invocation.invoke() == .string("short"))
    }

    @Test("A C buffer passed as a pointer is changed in place by the function")
    func pointerBufferIsMutatedInPlace() throws {
        let uppercase: @convention(c) (UnsafeMutablePointer<CChar>?) -> Void = { text in
            var cursor = text!
            while cursor.pointee != 0 {
                if (97...122).contains(cursor.pointee) { cursor.pointee -= 32 }
                cursor += 1
            }
        }
        let utf8 = "hello, c".utf8CString
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count)
        defer { buffer.deallocate() }
        utf8.withUnsafeBufferPointer { buffer.initialize(from: $0.baseAddress!, count: $0.count) }

        let invocation = try Invocation(function: uppercase, signature: Signature("v^c"))
        try invocation.setArgument(.pointer(UnsafeMutableRawPointer(buffer)), at: 0)
        try invocation.invoke()
        #expect(String(cString: buffer) == "HELLO, C")

        try invocation.setArgument("own copy", at: 0)
        try invocation.invoke()
        guard case .pointer(let copy?) = try invocation.argument(at: 0) else {
            Issue.record("a string set for a ^ parameter reads back as a pointer")
            return
        }
        #expect(String(cString: copy.assumingMemoryBound(to: CChar.self)) == "OWN COPY")
    }

    @Test("An object passed through an @-typed function comes back as the identical instance")
    func objectIdentityRoundTrips() throws {
        let identity: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { $0 }
        let object = CallCounter()
        let invocation = try Invocation(function: identity, signature: Signature("@@"))
        try invocation.setArgument(.object(object), at: 0)
        let result = try invocation.invoke()
        guard case .object(let returned?) = result else {
            Issue.record("expected an object, got \(result)")
            return
        }
        #expect(ObjectIdentifier(returned) == ObjectIdentifier(object))
        #expect(try invocation.argument(at: 0) == .object(object))
        #expect(try Invocation.call(identity, signature: Signature("@@"), arguments: [.object(object)]) == .object(object))
    }

    @Test("An invocation keeps its object arguments alive until they are replaced")
    func objectArgumentsAreRetained() throws {
        let ignore: @convention(c) (UnsafeMutableRawPointer?) -> Void = { _ in }
        let invocation = try Invocation(function: ignore, signature: Signature("v@"))
        weak var weakObject: CallCounter?
        do {
            let object = CallCounter()
            weakObject = object
            try invocation.setArgument(.object(object), at: 0)
        }
        #expect(weakObject != nil)
        try invocation.setArgument(nil, at: 0)
        #expect(weakObject == nil)
    }

    @Test("An invocation lets go of its object arguments when it is released")
    func releasingInvocationReleasesArguments() throws {
        let ignore: @convention(c) (UnsafeMutableRawPointer?) -> Void = { _ in }
        weak var weakObject: CallCounter?
        do {
            let invocation = try Invocation(function: ignore, signature: Signature("v@"))
            let object = CallCounter()
            weakObject = object
            try invocation.setArgument(.object(object), at: 0)
        }
        #expect(weakObject == nil)
    }

    // MARK: One-shot calls

    @Test("Invocation.call converts the arguments, calls once and returns the result")
    func oneShotCall() throws {
        let counter = CallCounter()
        #expect(try Invocation.call(add, signature: Signature("qqd"), arguments: [40, 2.0]) == .int64(42))
        #expect(try Invocation.call(count, signature: Signature("v@q"), arguments: [.object(counter), 5]) == .void)
        #expect(counter.calls == 5)
    }

    @Test("Invocation.call with the wrong number of arguments throws arity and calls nothing")
    func oneShotArity() throws {
        let counter = CallCounter()
        let message = expectDispatchError(DispatchError.arity) {
            try Invocation.call(count, signature: Signature("v@q"), arguments: [.object(counter)])
        }
        #expect(message.contains("2"))
        #expect(counter.calls == 0)
    }

    @Test("Invocation.call with a mismatched argument throws typeMismatch and calls nothing")
    func oneShotTypeMismatch() throws {
        let counter = CallCounter()
        let message = expectDispatchError(DispatchError.typeMismatch) {
            try Invocation.call(count, signature: Signature("v@q"), arguments: [.object(counter), 1.5])
        }
        #expect(message.contains("argument 1"))
        #expect(counter.calls == 0)
    }

    // MARK: Functions found at run time

    @Test("A function found with dlsym can be invoked through its address")
    func dlsymFunction() throws {
        let process = try #require(dlopen(nil, RTLD_NOW))
        defer { dlclose(process) }
        let strlenAddress = dlsym(process, "strlen")
        #expect(strlenAddress != nil)
        let invocation = try Invocation(function: strlenAddress, signature: Signature("Q*"))
        try invocation.setArgument("dispatch", at: 0)
        #expect(try invocation.invoke() == .uint64(8))
        let labsAddress = try #require(dlsym(process, "labs"))
        #expect(try Invocation.call(labsAddress, signature: Signature("qq"), arguments: [-12]) == .int64(12))
    }

    @Test("The description names the function's signature and the call path")
    func description() throws {
        let invocation = try Invocation(function: add, signature: Signature("qqd"))
        #expect(invocation.description.hasPrefix("Invocation(0x"))
        #expect(invocation.description.hasSuffix("qqd (int64 (int64, double)), stub)"))
        #expect(invocation.signature == (try Signature("qqd")))
    }
}

/// The address of a C function, to store functions of different types together.
private func address<Function>(of function: Function) -> UnsafeRawPointer {
    precondition(MemoryLayout<Function>.size == MemoryLayout<UnsafeRawPointer>.size)
    return unsafeBitCast(function, to: UnsafeRawPointer.self)
}
