import EventKitSwift
import Testing

@Suite("Signature")
struct SignatureTests {
    @Test("An encoding gives its return type and parameter types in order")
    func encodingGivesTypes() throws {
        let signature = try Signature("q@qd")
        #expect(signature.returnType == .int64)
        #expect(signature.parameterTypes == [.object, .int64, .double])
        #expect(signature.encoding == "q@qd")
    }

    @Test("A function taking nothing has no parameter types")
    func emptyParameterList() throws {
        let signature = try Signature("v")
        #expect(signature.returnType == .void)
        #expect(signature.parameterTypes.isEmpty)
        #expect(signature == (try Signature(returning: .void, parameters: [])))
    }

    @Test("A real method encoding equals its plain form and interns to the same signature")
    func methodEncodingEqualsPlainForm() throws {
        let method = try Signature("v24@0:8B16")
        let plain = try Signature("v@:B")
        #expect(method == plain)
        #expect(method.hashValue == plain.hashValue)
        #expect(method.encoding == "v@*B")
        #expect(method.parameterTypes == [.object, .string, .bool])
    }

    @Test("Qualifiers, class names, blocks and pointee types are skipped to the canonical form")
    func decorationsAreSkipped() throws {
        #expect(try Signature("Vv@\"NSString\"r*").encoding == "v@*")
        #expect(try Signature("v@?#").encoding == "v@@")
        #expect(try Signature("^i^^c^{Point=dd}^?").encoding == "^v^v^v^v")
        #expect(try Signature("ll") == Signature("ii"))
        #expect(try Signature("LL") == Signature("II"))
    }

    @Test("A signature built from types equals and interns with the encoded one")
    func typesEqualEncoding() throws {
        let fromTypes = try Signature(returning: .int64, parameters: [.object, .int64, .double])
        let fromEncoding = try Signature("q@qd")
        #expect(fromTypes == fromEncoding)
        #expect(Set([fromTypes, fromEncoding]).count == 1)
    }

    @Test("Every value type but struct round trips through a signature built from types")
    func everyTypeRoundTrips() throws {
        let parameters = ValueType.allCases.filter { $0 != .void && $0 != .structure }
        let signature = try Signature(returning: .void, parameters: parameters)
        #expect(signature.parameterTypes == parameters)
        #expect(try Signature(signature.encoding) == signature)
    }

    @Test("Different encodings are different signatures")
    func differentEncodingsDiffer() throws {
        #expect(try Signature("q@qd") != Signature("q@qf"))
        #expect(try Signature("vi") != Signature("vI"))
        #expect(try Signature("v*") != Signature("v^v"))
    }

    @Test(
        "A malformed encoding throws badSignature naming the offending position",
        arguments: [
            ("x", 0), ("vx", 1), ("v^", 1), ("vv", 1), ("iiv", 2),
            ("v{Point=}", 1), ("v{Point}", 1), ("v[4i]", 1),
        ]
    )
    func malformedEncodingThrows(encoding: String, position: Int) {
        let message = expectDispatchError(DispatchError.badSignature) {
            _ = try Signature(encoding)
        }
        #expect(message.contains("position \(position)"), "\(message)")
    }

    @Test("A NUL byte inside an encoding throws badSignature instead of cutting it short")
    func nulByteThrows() {
        let message = expectDispatchError(DispatchError.badSignature) {
            _ = try Signature("v\0q")
        }
        #expect(message.contains("position 1"))
    }

    @Test("An empty encoding throws badSignature")
    func emptyEncodingThrows() {
        let message = expectDispatchError(DispatchError.badSignature) {
            _ = try Signature("")
        }
        #expect(message.contains("empty"))
    }

    @Test("Void as a parameter type throws badSignature naming its index")
    func voidParameterThrows() {
        let message = expectDispatchError(DispatchError.badSignature) {
            _ = try Signature(returning: .int32, parameters: [.int32, .void])
        }
        #expect(message.contains("parameter 1"))
    }

    @Test("Up to the maximum parameter count is accepted, one more is rejected")
    func parameterLimit() throws {
        let maximum = Signature.maximumParameterCount
        #expect(maximum == 127) // C's guarantee
        let atLimit = try Signature("v" + String(repeating: "q", count: maximum))
        #expect(atLimit.parameterTypes.count == maximum)
        expectDispatchError(DispatchError.badSignature) {
            _ = try Signature("v" + String(repeating: "q", count: maximum + 1))
        }
        expectDispatchError(DispatchError.badSignature) {
            _ = try Signature(returning: .void, parameters: Array(repeating: .int64, count: maximum + 1))
        }
    }

    @Test("Small register-only signatures take the stub path, twelve parameters take libffi")
    func callPathChoice() throws {
        #expect(try Signature("q@qd").callPath == .stub)
        #expect(try Signature("v").callPath == .stub)
        #expect(try Signature("dffffffff").callPath == .stub)
        #expect(try Signature("Qqqqqqq").callPath == .stub)
        #expect(try Signature("q" + String(repeating: "q", count: 12)).callPath == .libffi)
    }

    @Test("The description shows the encoding and the C prototype")
    func description() throws {
        #expect(try Signature("q@qd").description == "q@qd (int64 (object, int64, double))")
        #expect(try Signature("v").description == "v (void (void))")
    }

    @Test("Signatures created concurrently from many tasks intern to one")
    func concurrentInterning() async throws {
        let reference = try Signature("d^vqf")
        let created = try await withThrowingTaskGroup(of: Signature.self) { group in
            for index in 0..<64 {
                group.addTask {
                    index.isMultiple(of: 2)
                        ? try Signature("d^vqf")
                        : try Signature(returning: .double, parameters: [.pointer, .int64, .float])
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(created.count == 64)
        #expect(created.allSatisfy { $0 == reference })
    }
}
