import CCookieSupport
import EventKitSwift
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The bytes of `value`, as C holds them.
private func bytes<T>(of value: T) -> [UInt8] {
    withUnsafeBytes(of: value) { Array($0) }
}

/// `outer` with every number scaled by `factor`, and its tag moved on by one.
private let scaleOuter: @convention(c) (test_outer, Int32) -> test_outer = { outer, factor in
    var scaled = outer
    scaled.tag += 1
    scaled.nested.small *= Int16(factor)
    scaled.nested.value *= Double(factor)
    scaled.counts = (outer.counts.0 * factor, outer.counts.1 * factor, outer.counts.2 * factor)
    return scaled
}

@Suite("StructValue")
struct StructValueTests {
    // MARK: Making and reading

    @Test("A struct made from a C struct value holds its bytes and reads back as that type")
    func madeFromCStruct() throws {
        let quotient = StructValue(div_t(quot: 3, rem: 1))
        #expect(quotient.size == MemoryLayout<div_t>.size)
        #expect(quotient.encoding == nil)
        #expect(quotient.bytes == bytes(of: div_t(quot: 3, rem: 1)))
        let read = try quotient.load(as: div_t.self)
        #expect(read.quot == 3 && read.rem == 1)

        let delay = try Value(struct: timespec(tv_sec: 5, tv_nsec: 6)).structure(as: timespec.self)
        #expect(delay.tv_sec == 5 && delay.tv_nsec == 6)
    }

    @Test("Raw bytes, from an array or a raw buffer, make the struct they lay out")
    func madeFromBytes() throws {
        let layout = bytes(of: div_t(quot: 3, rem: 1))
        let fromArray = StructValue(bytes: layout)
        let fromBuffer = layout.withUnsafeBytes { StructValue(bytes: $0) }
        #expect(fromArray == fromBuffer)
        #expect(fromArray == StructValue(div_t(quot: 3, rem: 1)))
        #expect(fromArray.size == 8)
        #expect(try fromBuffer.load(as: div_t.self).quot == 3)
        fromArray.withUnsafeBytes { buffer in
            #expect(Array(buffer) == layout)
        }
    }

    @Test("A Swift value's size is its stride, as C's sizeof counts the padding after the last field")
    func sizeIsStride() throws {
        let tuple: (Double, Int32) = (1.5, 7)
        let value = StructValue(tuple)
        #expect(value.size == 16)
        #expect(value.size == MemoryLayout<test_padded>.size)
        #expect(value.bytes[12..<16] == [0, 0, 0, 0])
        let read = try value.load(as: (Double, Int32).self)
        #expect(read.0 == 1.5 && read.1 == 7)
    }

    @Test("Equal bytes are equal structs and hash alike; the encoding is not compared")
    func equalityIsByBytes() throws {
        let divide: @convention(c) (Int32, Int32) -> div_t = div
        let returned = try Invocation.call(divide, signature: Signature("{div_t=ii}ii"), arguments: [.int32(7), .int32(2)])
        guard case .structure(let fromC) = returned else {
            Issue.record("expected a struct, got \(returned)")
            return
        }
        let fromSwift = StructValue(div_t(quot: 3, rem: 1))
        #expect(fromC.encoding == "{div_t=ii}")
        #expect(fromC == fromSwift)
        #expect(fromC.hashValue == fromSwift.hashValue)
        #expect(returned == Value(struct: div_t(quot: 3, rem: 1)))
        #expect(fromSwift != StructValue(div_t(quot: 3, rem: 2)))
        #expect(StructValue(bytes: [1, 2]) != StructValue(bytes: [1, 2, 0]))
        #expect(Value(struct: Int32(0)) != .int32(0))
    }

    @Test("Reading a struct as a type of another size throws typeMismatch naming both sizes")
    func wrongSizeThrows() {
        let quotient = Value(struct: div_t(quot: 1, rem: 2))
        let message = expectDispatchError(DispatchError.typeMismatch) {
            _ = try quotient.structure(as: timespec.self)
        }
        #expect(message.contains("16 bytes"), "\(message)")
        #expect(message.contains("8 bytes"), "\(message)")
        expectDispatchError(DispatchError.typeMismatch) {
            _ = try StructValue(bytes: [1, 2, 3]).load(as: Int32.self)
        }
    }

    @Test("Reading a value that is not a struct as one throws typeMismatch")
    func notAStructThrows() {
        let message = expectDispatchError(DispatchError.typeMismatch) {
            _ = try Value.int32(5).structure(as: div_t.self)
        }
        #expect(message.contains("int32(5)"), "\(message)")
    }

    @Test("A description shows the encoding, or the size, and the bytes four to a group")
    func descriptions() throws {
        #expect(StructValue(bytes: [1, 2, 3, 4, 0xab]).description == "5 bytes 01020304 ab")
        #expect(Value(struct: UInt32(0x0403_0201)).description == "structure(4 bytes 01020304)")
        let long = StructValue(bytes: [UInt8](repeating: 0, count: 100)).description
        #expect(long.hasPrefix("100 bytes 00000000"))
        #expect(long.hasSuffix(" …"))
        let divide: @convention(c) (Int32, Int32) -> div_t = div
        let returned = try Invocation.call(divide, signature: Signature("{div_t=ii}ii"), arguments: [.int32(7), .int32(2)])
        #expect(returned.description == "structure({div_t=ii} \(hex(bytes(of: div_t(quot: 3, rem: 1)))))")
    }

    @Test("A struct's sendable snapshot keeps its bytes")
    func sendableSnapshot() {
        let value = Value(struct: div_t(quot: 3, rem: 1))
        #expect(SendableValue(value) == .structure(StructValue(div_t(quot: 3, rem: 1))))
        #expect(SendableValue(value).type == .structure)
    }

    // MARK: Layouts

    @Test("A struct's layout lists its fields at C's offsets, nested structs and arrays included")
    func nestedLayout() throws {
        let layout = try Signature("{test_outer=c{test_inner=sd}[3i]}").returnLayout
        #expect(layout.type == .structure)
        #expect(layout.size == MemoryLayout<test_outer>.size)
        #expect(layout.size == 40)
        #expect(layout.alignment == MemoryLayout<test_outer>.alignment)
        #expect(layout.encoding == "{test_outer=c{test_inner=sd}[3i]}")
        #expect(layout.offset == 0 && layout.count == 1 && !layout.isArray)
        #expect(
            layout.fields.map(\.offset) == [
                MemoryLayout<test_outer>.offset(of: \.tag)!, MemoryLayout<test_outer>.offset(of: \.nested)!,
                MemoryLayout<test_outer>.offset(of: \.counts)!,
            ])
        #expect(layout.fields.map(\.type) == [.int8, .structure, .int32])

        let nested = layout.fields[1]
        #expect(nested.encoding == "{test_inner=sd}")
        #expect(nested.size == MemoryLayout<test_inner>.size)
        #expect(nested.fields.map(\.offset) == [0, MemoryLayout<test_inner>.offset(of: \.value)!])
        #expect(nested.fields.map(\.type) == [.int16, .double])

        let counts = layout.fields[2]
        #expect(counts.isArray)
        #expect(counts.encoding == "[3i]")
        #expect(counts.count == 3 && counts.size == 12 && counts.alignment == 4)
        #expect(counts.fields.isEmpty)
    }

    @Test("An array of structs lists its element struct's fields")
    func arrayOfStructs() throws {
        let layout = try Signature("{grid=[2{cell=cq}]}").returnLayout
        #expect(layout.size == 32)
        let cells = try #require(layout.fields.first)
        #expect(cells.isArray && cells.type == .structure && cells.count == 2 && cells.size == 32)
        #expect(cells.fields.map(\.offset) == [0, 8])
        #expect(cells.fields.map(\.type) == [.int8, .int64])
    }

    @Test("Quoted field names and anonymous structs parse to the canonical encoding")
    func fieldNamesAndAnonymousStructs() throws {
        let named = try Signature("{point=\"x\"d\"y\"d}")
        #expect(named.encoding == "{point=dd}")
        #expect(named.returnLayout.size == 16)
        let anonymous = try Signature("v{?=i[4c]}")
        #expect(anonymous.encoding == "v{?=i[4c]}")
        #expect(anonymous.parameterLayouts[0].size == 8)
    }

    @Test("Parameter layouts give each parameter's C size and alignment; void returns nothing")
    func parameterLayouts() throws {
        let signature = try Signature("v{test_padded=cd}qc^i@")
        let layouts = signature.parameterLayouts
        #expect(layouts.map(\.type) == [.structure, .int64, .int8, .pointer, .object])
        #expect(layouts.map(\.size) == [MemoryLayout<test_padded>.size, 8, 1, 8, 8])
        #expect(layouts.map(\.alignment) == [MemoryLayout<test_padded>.alignment, 8, 1, 8, 8])
        #expect(layouts.map(\.encoding) == ["{test_padded=cd}", "q", "c", "^v", "@"])
        #expect(layouts.allSatisfy { $0.offset == 0 && $0.count == 1 })
        #expect(layouts[0].fields.map(\.offset) == [0, MemoryLayout<test_padded>.offset(of: \.value)!])
        #expect(layouts.dropFirst().allSatisfy { $0.fields.isEmpty })
        #expect(signature.returnLayout.size == 0)
        #expect(signature.returnLayout.alignment == 1)
        #expect(signature.returnLayout.type == .void)
    }

    @Test("A layout describes itself by encoding, offset, size and alignment")
    func layoutDescription() throws {
        let layout = try Signature("{div_t=ii}").returnLayout
        #expect(layout.description == "{div_t=ii}: 8 bytes, alignment 4")
        #expect(layout.fields[1].description == "i at 4: 4 bytes, alignment 4")
    }

    @Test("frameSize counts the parameters as Objective-C method encodings do")
    func frameSize() throws {
        #expect(try Signature("v24@0:8B16").frameSize == 24)
        #expect(try Signature("v").frameSize == 0)
        #expect(try Signature("v{test_padded=cd}i").frameSize == 24)
    }

    @Test("A performSelector:withObjects: port sizes its return buffer with methodReturnLength")
    func methodReturnLength() throws {
        /// What the port returns: nothing for a void method, otherwise the
        /// bytes of the return value, read into a buffer of
        /// methodReturnLength bytes as `getReturnValue:` fills one.
        func perform(_ function: UnsafeRawPointer, _ signature: Signature, _ arguments: [Value]) throws -> [UInt8]? {
            let methodReturnLength = signature.returnLayout.size
            guard methodReturnLength > 0 else {
                try Invocation.call(function, signature: signature, arguments: arguments)
                return nil
            }
            var buffer = [UInt8](repeating: 0, count: methodReturnLength)
            switch try Invocation.call(function, signature: signature, arguments: arguments) {
            case .structure(let structure): buffer = structure.bytes
            case .int64(let number): buffer = bytes(of: number)
            case .int32(let number): buffer = bytes(of: number)
            default: break
            }
            #expect(buffer.count == methodReturnLength)
            return buffer
        }
        let divide: @convention(c) (Int32, Int32) -> div_t = div
        let absolute: @convention(c) (Int) -> Int = labs
        let nothing: @convention(c) () -> Void = {}
        #expect(try perform(address(of: divide), Signature("{div_t=ii}ii"), [.int32(7), .int32(2)]) == bytes(of: div(7, 2)))
        #expect(try perform(address(of: absolute), Signature("qq"), [-3]) == bytes(of: 3 as Int64))
        #expect(try perform(address(of: nothing), Signature("v"), []) == nil)
        #expect(try Signature("@@:").returnLayout.size == MemoryLayout<AnyObject>.size)
    }

    // MARK: Calls

    @Test("div and ldiv return their structs through an invocation and a one-shot call, as direct calls do")
    func divAndLdiv() throws {
        let divide: @convention(c) (Int32, Int32) -> div_t = div
        let divideLong: @convention(c) (Int, Int) -> ldiv_t = ldiv
        let invocation = try Invocation(function: divide, signature: Signature("{div_t=ii}ii"))
        #expect(invocation.callPath == .libffi)
        for (numerator, denominator) in [(7, 2), (-7, 2), (100, 7), (Int32.min + 1, -1)] as [(Int32, Int32)] {
            try invocation.setArgument(.int32(numerator), at: 0)
            try invocation.setArgument(.int32(denominator), at: 1)
            let direct = div(numerator, denominator)
            let invoked = try invocation.invoke().structure(as: div_t.self)
            #expect(invoked.quot == direct.quot && invoked.rem == direct.rem, "div(\(numerator), \(denominator))")
            let called = try Invocation.call(
                divide, signature: invocation.signature, arguments: [.int32(numerator), .int32(denominator)])
            #expect(called == Value(struct: direct))
        }
        for (numerator, denominator) in [(1 << 40, 3), (-(1 << 50) - 1, 1 << 20)] as [(Int, Int)] {
            let direct = ldiv(numerator, denominator)
            let called = try Invocation.call(
                divideLong, signature: Signature("{ldiv_t=qq}qq"), arguments: [.int64(Int64(numerator)), .int64(Int64(denominator))])
            let result = try called.structure(as: ldiv_t.self)
            #expect(result.quot == direct.quot && result.rem == direct.rem)
        }
    }

    @Test("A returned struct is the caller's own copy: the next invoke leaves it as it was")
    func returnedStructIsACopy() throws {
        let divide: @convention(c) (Int32, Int32) -> div_t = div
        let invocation = try Invocation(function: divide, signature: Signature("{div_t=ii}ii"))
        try invocation.setArgument(.int32(7), at: 0)
        try invocation.setArgument(.int32(2), at: 1)
        let first = try invocation.invoke()
        try invocation.setArgument(.int32(100), at: 0)
        try invocation.invoke()
        #expect(try first.structure(as: div_t.self).quot == 3)
        #expect(try invocation.returnValue().structure(as: div_t.self).quot == 50)
    }

    @Test("A struct argument reaches the function by value and its struct return comes back, nested and in memory")
    func outerRoundTrip() throws {
        let signature = try Signature("{test_outer=c{test_inner=sd}[3i]}{test_outer=c{test_inner=sd}[3i]}i")
        #expect(signature.parameterTypes == [.structure, .int32])
        #expect(signature.callPath == .libffi)
        let original = test_outer(tag: 65, nested: test_inner(small: 3, value: 1.25), counts: (1, 2, 3))
        let invocation = try Invocation(function: scaleOuter, signature: signature)
        try invocation.setArgument(Value(struct: original), at: 0)
        try invocation.setArgument(.int32(10), at: 1)
        let scaled = try invocation.invoke().structure(as: test_outer.self)
        #expect(scaled.tag == 66)
        #expect(scaled.nested.small == 30 && scaled.nested.value == 12.5)
        #expect(scaled.counts == (10, 20, 30))

        let readBack = try invocation.argument(at: 0)
        #expect(readBack == Value(struct: original))
        guard case .structure(let argument) = readBack else {
            Issue.record("expected a struct, got \(readBack)")
            return
        }
        #expect(argument.encoding == "{test_outer=c{test_inner=sd}[3i]}")

        let called = try Invocation.call(scaleOuter, signature: signature, arguments: [Value(struct: original), 2])
        #expect(try called.structure(as: test_outer.self).counts == (2, 4, 6))
        expectDispatchError(DispatchError.unsupported) {
            try invocation.setCallPath(.stub)
        }
    }

    @Test("A timespec and a struct of floats cross by value, in integer and vector registers")
    func registerStructs() throws {
        let nanoseconds: @convention(c) (timespec) -> Int64 = { Int64($0.tv_sec) * 1_000_000_000 + Int64($0.tv_nsec) }
        let total = try Invocation.call(
            nanoseconds, signature: Signature("q{timespec=qq}"),
            arguments: [Value(struct: timespec(tv_sec: 2, tv_nsec: 5))])
        #expect(total == .int64(2_000_000_005))

        let swap: @convention(c) (test_floats, Float) -> test_floats = { floats, add in
            test_floats(first: floats.second + add, second: floats.first + add)
        }
        let swapped = try Invocation.call(
            swap, signature: Signature("{test_floats=ff}{test_floats=ff}f"),
            arguments: [Value(struct: test_floats(first: 1.5, second: -4)), .float(0.25)])
        let floats = try swapped.structure(as: test_floats.self)
        #expect(floats.first == -3.75 && floats.second == 1.75)
    }

    @Test("A struct returned by one call is an argument of the next, its encoding checked")
    func returnedStructAsArgument() throws {
        let divide: @convention(c) (Int32, Int32) -> div_t = div
        let sum: @convention(c) (div_t) -> Int32 = { $0.quot + $0.rem }
        let quotient = try Invocation.call(divide, signature: Signature("{div_t=ii}ii"), arguments: [.int32(7), .int32(2)])
        // Another name, the same fields: it fits.
        #expect(try Invocation.call(sum, signature: Signature("i{quotient=ii}"), arguments: [quotient]) == .int32(4))
        // The same size, other fields: it does not, and nothing is called.
        let invocation = try Invocation(function: sum, signature: Signature("i{mixed=if}"))
        let message = expectDispatchError(DispatchError.typeMismatch) {
            try invocation.setArgument(quotient, at: 0)
        }
        #expect(message.contains("{mixed=if}") && message.contains("{ii}"), "\(message)")
        expectDispatchError(DispatchError.typeMismatch) {
            try Invocation.call(sum, signature: Signature("i{mixed=if}"), arguments: [quotient])
        }
    }

    @Test("A struct argument of the wrong size throws typeMismatch and the argument keeps its value")
    func wrongSizeArgumentThrows() throws {
        let nanoseconds: @convention(c) (timespec) -> Int64 = { Int64($0.tv_sec) * 1_000_000_000 + Int64($0.tv_nsec) }
        let signature = try Signature("q{timespec=qq}")
        let invocation = try Invocation(function: nanoseconds, signature: signature)
        try invocation.setArgument(Value(struct: timespec(tv_sec: 1, tv_nsec: 2)), at: 0)
        let message = expectDispatchError(DispatchError.typeMismatch) {
            try invocation.setArgument(Value(struct: div_t(quot: 1, rem: 2)), at: 0)
        }
        #expect(message.contains("argument 0"), "\(message)")
        #expect(message.contains("16 bytes") && message.contains("8 bytes"), "\(message)")
        #expect(try invocation.argument(at: 0) == Value(struct: timespec(tv_sec: 1, tv_nsec: 2)))
        #expect(try invocation.invoke() == .int64(1_000_000_002))

        expectDispatchError(DispatchError.typeMismatch) {
            try Invocation.call(nanoseconds, signature: signature, arguments: [.structure(StructValue(bytes: [1]))])
        }
        expectDispatchError(DispatchError.arity) {
            try Invocation.call(nanoseconds, signature: signature, arguments: [.structure(StructValue(bytes: [1])), 2])
        }
    }

    @Test("A struct and any other type never fit each other")
    func structsAndScalarsDoNotMix() throws {
        let nanoseconds: @convention(c) (timespec) -> Int64 = { Int64($0.tv_sec) * 1_000_000_000 + Int64($0.tv_nsec) }
        expectDispatchError(DispatchError.typeMismatch) {
            try Invocation.call(nanoseconds, signature: Signature("q{timespec=qq}"), arguments: [5])
        }
        expectDispatchError(DispatchError.typeMismatch) {
            try Invocation.call(nanoseconds, signature: Signature("q{timespec=qq}"), arguments: [nil])
        }
        let absolute: @convention(c) (Int) -> Int = labs
        expectDispatchError(DispatchError.typeMismatch) {
            try Invocation.call(absolute, signature: Signature("qq"), arguments: [Value(struct: Int64(-3))])
        }
    }

    @Test("A callback hands a struct back to its C caller by value")
    func callbackReturnsAStruct() throws {
        let callback = try CCallback(signature: Signature("{div_t=ii}ii")) { arguments in
            guard case .int32(let numerator) = arguments[0], case .int32(let denominator) = arguments[1] else {
                return .void
            }
            return Value(struct: div(numerator, denominator))
        }
        let divide = try callback.function(as: (@convention(c) (Int32, Int32) -> div_t).self)
        let quotient = divide(17, 5)
        #expect(quotient.quot == 3 && quotient.rem == 2)
        #expect(try Invocation.call(divide, signature: callback.signature, arguments: [.int32(9), .int32(4)])
            == Value(struct: div_t(quot: 2, rem: 1)))
    }

    // MARK: Encodings refused

    @Test("A struct type cannot be named without its fields")
    func structTypeNeedsAnEncoding() {
        let returning = expectDispatchError(DispatchError.badSignature) {
            _ = try Signature(returning: .structure, parameters: [])
        }
        #expect(returning.contains("return type"), "\(returning)")
        let parameter = expectDispatchError(DispatchError.badSignature) {
            _ = try Signature(returning: .void, parameters: [.int32, .structure])
        }
        #expect(parameter.contains("parameter 1"), "\(parameter)")
    }

    @Test(
        "Unions and bit-fields throw unsupported naming their position",
        arguments: [
            ("v(Either=id)", 1), ("vi{flags=b4b4}", 9), ("{outer=i(either=if)}", 8),
            ("v{s=i{t=b1}}", 8), ("vb4", 1),
        ]
    )
    func unsupportedEncodingsThrow(encoding: String, position: Int) {
        let message = expectDispatchError(DispatchError.unsupported) {
            _ = try Signature(encoding)
        }
        #expect(message.contains("at position \(position) "), "\(message)")
    }

    @Test(
        "Malformed struct encodings throw badSignature naming the position",
        arguments: [
            ("v{Point=dd", 10), ("v{Point=}", 1), ("v{Point}", 1), ("v{", 1), ("v[4i]", 1), ("v{a=[4i}", 7),
            ("v{a=[i]}", 4), ("v{a=[0i]}", 4), ("v{a=i}}", 6), ("v{a=v}", 4),
        ]
    )
    func malformedStructsThrow(encoding: String, position: Int) {
        let message = expectDispatchError(DispatchError.badSignature) {
            _ = try Signature(encoding)
        }
        #expect(message.contains("at position \(position) "), "\(message)")
    }

    @Test("Structs nested too deeply or holding too many scalars throw badSignature")
    func structLimits() throws {
        let depth = 40
        let deep = "v" + String(repeating: "{a=", count: depth) + "i" + String(repeating: "}", count: depth)
        expectDispatchError(DispatchError.badSignature) {
            _ = try Signature(deep)
        }
        expectDispatchError(DispatchError.badSignature) {
            _ = try Signature("v{big=[5000i]}")
        }
        #expect(try Signature("v{big=[4096c]}").parameterLayouts[0].size == 4096)
    }
}

/// The bytes in hexadecimal, four to a group, as a struct describes them.
private func hex(_ bytes: [UInt8]) -> String {
    stride(from: 0, to: bytes.count, by: 4).map { start in
        bytes[start..<min(start + 4, bytes.count)].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }.joined(separator: " ")
}

/// The address of a C function, so that functions of different types go
/// through one helper.
private func address<Function>(of function: Function) -> UnsafeRawPointer {
    unsafeBitCast(function, to: UnsafeRawPointer.self)
}
