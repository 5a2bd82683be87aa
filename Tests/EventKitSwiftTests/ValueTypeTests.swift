import EventKitSwift
import Testing

@Suite("ValueType")
struct ValueTypeTests {
    @Test("Each type has its Objective-C encoding character and its name")
    func encodingsAndNames() {
        let expected: [(ValueType, Character, String)] = [
            (.void, "v", "void"), (.bool, "B", "bool"),
            (.int8, "c", "int8"), (.uint8, "C", "uint8"),
            (.int16, "s", "int16"), (.uint16, "S", "uint16"),
            (.int32, "i", "int32"), (.uint32, "I", "uint32"),
            (.int64, "q", "int64"), (.uint64, "Q", "uint64"),
            (.float, "f", "float"), (.double, "d", "double"),
            (.object, "@", "object"), (.pointer, "^", "pointer"), (.string, "*", "string"),
            (.structure, "{", "struct"), (.longDouble, "D", "long double"),
            (.complexFloat, "j", "complex float"), (.complexDouble, "j", "complex double"),
            (.complexLongDouble, "j", "complex long double"),
        ]
        #expect(expected.map(\.0) == ValueType.allCases)
        for (type, encoding, name) in expected {
            #expect(type.encoding == encoding)
            #expect(type.name == name)
            #expect(type.description == name)
        }
    }

    @Test("Every C type has exactly one value type, and back")
    func everyCTypeIsMapped() {
        #expect(ValueType.allCases.count == ValueType.cTypeCount)
        for rawValue in 0..<UInt32(ValueType.cTypeCount) {
            let type = ValueType(cTypeRawValue: rawValue)
            #expect(type.cTypeRawValue == rawValue)
        }
    }
}
