import EventKitSwift
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// long double and the complex types (`D`, `jf`, `jd`, `jD`) from Swift:
/// the signature's types and the values that cross, on C library functions
/// found at run time.
@Suite("Long double and complex values")
struct LongDoubleAndComplexTests {
    /// A function of libm, found as a plugin host finds one.
    static func libm(_ name: String) -> UnsafeRawPointer? {
        let handle = dlopen("libm.so.6", RTLD_NOW)
        return dlsym(handle, name).map { UnsafeRawPointer($0) }
    }

    @Test("Signatures name the new types, with their encodings")
    func signatureTypes() throws {
        let signature = try Signature("DjfjdjD")
        #expect(signature.returnType == .longDouble)
        #expect(signature.parameterTypes == [.complexFloat, .complexDouble, .complexLongDouble])
        #expect(ValueType.longDouble.encoding == "D")
        #expect(ValueType.complexDouble.encoding == "j")
        #expect(ValueType.complexLongDouble.name == "complex long double")
        #expect(try Signature(returning: .complexDouble, parameters: [.complexDouble]) == Signature("jdjd"))
    }

    @Test("double complex values go to cabs and conj and come back")
    func complexDouble() throws {
        let cabs = try #require(Self.libm("cabs"))
        let magnitude = try Invocation.call(cabs, signature: Signature("djd"),
                                            arguments: [.complexDouble(real: 3, imaginary: 4)])
        #expect(magnitude == .double(5))
        let conj = try #require(Self.libm("conj"))
        let conjugate = try Invocation.call(conj, signature: Signature("jdjd"),
                                            arguments: [.complexDouble(real: 3, imaginary: 4)])
        #expect(conjugate == .complexDouble(real: 3, imaginary: -4))
        #expect(conjugate.type == .complexDouble)
        let invocation = try Invocation(function: conj, signature: Signature("jdjd"))
        try invocation.setArgument(.complexDouble(real: 1, imaginary: 2), at: 0)
        #expect(try invocation.invoke() == .complexDouble(real: 1, imaginary: -2))
    }

    @Test("A value of another type does not fit, with the usual error")
    func mismatch() throws {
        let conj = try #require(Self.libm("conj"))
        #expect(throws: DispatchError.self) {
            try Invocation.call(conj, signature: Signature("jdjd"), arguments: [.double(3)])
        }
    }

    #if arch(x86_64) || arch(i386)
    @Test("long double values are Float80 on x86: powl")
    func longDouble() throws {
        let powl = try #require(Self.libm("powl"))
        let power = try Invocation.call(powl, signature: Signature("DDD"), arguments: [.longDouble(2), .longDouble(70)])
        #expect(power == .longDouble(1_180_591_620_717_411_303_424))
        let cexpl = try #require(Self.libm("cexpl"))
        let one = try Invocation.call(cexpl, signature: Signature("jDjD"),
                                      arguments: [.complexLongDouble(real: 0, imaginary: 0)])
        #expect(one == .complexLongDouble(real: 1, imaginary: 0))
    }
    #endif
}
