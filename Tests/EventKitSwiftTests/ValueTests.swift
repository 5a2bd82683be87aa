import EventKitSwift
import Testing

@Suite("Value")
struct ValueTests {
    @Test("Each case is tagged with its value type")
    func casesReportTheirType() {
        var pairs: [(Value, ValueType)] = [
            (.void, .void), (.bool(true), .bool),
            (.int8(-1), .int8), (.uint8(1), .uint8),
            (.int16(-1), .int16), (.uint16(1), .uint16),
            (.int32(-1), .int32), (.uint32(1), .uint32),
            (.int64(-1), .int64), (.uint64(1), .uint64),
            (.float(1), .float), (.double(1), .double),
            (.object(nil), .object), (.pointer(nil), .pointer), (.string("s"), .string),
            (Value(struct: Int32(1)), .structure),
        ]
        #if arch(x86_64) || arch(i386)
        pairs.append((.longDouble(1), .longDouble))
        #endif
        pairs += [(.complexFloat(real: 1, imaginary: 2), .complexFloat), (.complexDouble(real: 1, imaginary: 2), .complexDouble)]
        #if arch(x86_64) || arch(i386)
        pairs.append((.complexLongDouble(real: 1, imaginary: 2), .complexLongDouble))
        #expect(pairs.map(\.1) == ValueType.allCases)
        #endif
        for (value, type) in pairs {
            #expect(value.type == type, "\(value)")
        }
    }

    @Test("Literals become bool, int64, double, string and a null pointer")
    func literals() {
        let values: [Value] = [true, 42, 0.5, "hi", nil]
        #expect(values == [.bool(true), .int64(42), .double(0.5), .string("hi"), .pointer(nil)])
    }

    @Test("Objects are equal only when they are the same instance")
    func objectEqualityIsIdentity() {
        let first = CallCounter()
        let second = CallCounter()
        #expect(Value.object(first) == .object(first))
        #expect(Value.object(first) != .object(second))
        #expect(Value.object(nil) == .object(nil))
        #expect(Value.object(first) != .object(nil))
    }

    @Test("Values of different types are never equal, even with equal numbers")
    func typesDistinguishValues() {
        #expect(Value.int64(1) != .int32(1))
        #expect(Value.float(0.5) != .double(0.5))
        #expect(Value.pointer(nil) != .object(nil))
        #expect(Value.pointer(nil) != .string(nil))
        #expect(Value.bool(false) != .int8(0))
    }

    @Test("Floating-point payloads compare as IEEE 754 numbers")
    func floatingPointEquality() {
        #expect(Value.double(.nan) != .double(.nan))
        #expect(Value.float(-0.0) == .float(0.0))
    }

    @Test("Pointers compare by address and strings by contents")
    func pointerAndStringEquality() {
        let address = UnsafeMutableRawPointer(bitPattern: 0x1000)
        #expect(Value.pointer(address) == .pointer(UnsafeMutableRawPointer(bitPattern: 0x1000)))
        #expect(Value.pointer(address) != .pointer(nil))
        #expect(Value.string("é") == .string("e\u{301}"))
        #expect(Value.string("a") != .string(nil))
    }

    @Test("Only null objects, pointers and strings are null")
    func nullness() {
        #expect(Value.object(nil).isNull)
        #expect(Value.pointer(nil).isNull)
        #expect(Value.string(nil).isNull)
        #expect(!Value.string("").isNull)
        #expect(!Value.object(CallCounter()).isNull)
        #expect(!Value.int64(0).isNull)
        #expect(!Value.void.isNull)
    }

    @Test("The description names the type and shows the payload")
    func description() {
        #expect(Value.int64(42).description == "int64(42)")
        #expect(Value.uint8(255).description == "uint8(255)")
        #expect(Value.double(3.5).description == "double(3.5)")
        #expect(Value.bool(true).description == "bool(true)")
        #expect(Value.string("a\"b").description == #"string("a\"b")"#)
        #expect(Value.pointer(nil).description == "pointer(nil)")
        #expect(Value.object(nil).description == "object(nil)")
        #expect(Value.void.description == "void")
        #expect(Value.object(CallCounter()).description.hasPrefix("object(CallCounter@0x"))
    }
}
