import EventKitSwift
import Foundation
import Testing

@Suite("DispatchError")
struct DispatchErrorTests {
    @Test("Every failure status of the C core has its own case with the C name")
    func everyStatusHasACase() {
        let rawValues = Array(DispatchError.cFailureStatusRawValues)
        #expect(rawValues.count == 14)
        var names: Set<String> = []
        for rawValue in rawValues {
            let error = DispatchError(statusRawValue: rawValue, message: "detail")
            #expect(error?.statusName == DispatchError.cStatusName(rawValue: rawValue))
            #expect(error?.message == "detail")
            names.insert(error?.statusName ?? "")
        }
        #expect(names.count == rawValues.count)
    }

    @Test("Success, and an existing registration kept, are not errors")
    func successIsNoError() {
        #expect(DispatchError(statusRawValue: 0, message: "") == nil)
        #expect(DispatchError(statusRawValue: 11, message: "") == nil)
        #expect(DispatchError.cStatusName(rawValue: 11) == "DC_EXISTS")
    }

    @Test("A status unknown to the Swift layer is reported as unsupported with its C name")
    func unknownStatusIsReported() {
        let error = DispatchError(statusRawValue: 999, message: "something new")
        #expect(error == .unsupported("DC_UNKNOWN (999): something new"))
    }

    @Test("Cases map to the C status names")
    func caseNames() {
        #expect(DispatchError.nullArgument("").statusName == "DC_ERR_NULL_ARGUMENT")
        #expect(DispatchError.invalidArgument("").statusName == "DC_ERR_INVALID_ARGUMENT")
        #expect(DispatchError.outOfMemory("").statusName == "DC_ERR_NO_MEMORY")
        #expect(DispatchError.badSignature("").statusName == "DC_ERR_BAD_SIGNATURE")
        #expect(DispatchError.typeMismatch("").statusName == "DC_ERR_TYPE")
        #expect(DispatchError.arity("").statusName == "DC_ERR_ARITY")
        #expect(DispatchError.indexOutOfRange("").statusName == "DC_ERR_INDEX")
        #expect(DispatchError.notInvoked("").statusName == "DC_ERR_NOT_INVOKED")
        #expect(DispatchError.unsupported("").statusName == "DC_ERR_UNSUPPORTED")
        #expect(DispatchError.ffi("").statusName == "DC_ERR_FFI")
        #expect(DispatchError.notFound("").statusName == "DC_ERR_NOT_FOUND")
        #expect(DispatchError.noHandler("").statusName == "DC_ERR_NO_HANDLER")
        #expect(DispatchError.invalidState("").statusName == "DC_ERR_STATE")
        #expect(DispatchError.nestedTooDeeply("").statusName == "DC_ERR_DEPTH")
    }

    @Test("An error from the C core carries the detail message of the failing call")
    func carriesDetailMessage() {
        let message = expectDispatchError(DispatchError.badSignature) {
            _ = try Signature("v@Z")
        }
        #expect(message.contains("v@Z"))
        #expect(message.contains("position 2"))
    }

    @Test("The description is the kind of failure followed by the message")
    func description() {
        let error = DispatchError.typeMismatch("expected int64, got string")
        #expect(error.statusDescription == "argument type mismatch")
        #expect(error.description == "argument type mismatch: expected int64, got string")
        #expect(DispatchError.notInvoked("").description == "the invocation has not been invoked yet")
    }

    @Test("localizedDescription is the message naming table, event and types, not an error number")
    func localizedDescription() throws {
        let table = CommandTable(name: "player")
        let subscription = table.on(.toggle) { (_: Bool) in }
        let error = #expect(throws: DispatchError.self) { try table.execute("toggle", "yes") }
        let thrown: any Error = try #require(error)
        #expect(thrown.localizedDescription == "\(try #require(error))")
        #expect(thrown.localizedDescription.contains("table player"))
        #expect(thrown.localizedDescription.contains("\"toggle\""))
        #expect(thrown.localizedDescription.contains("bool"))
        #expect(!thrown.localizedDescription.contains("error 4"))
        withExtendedLifetime(subscription) {}
    }

    @Test("Errors are equal only with the same case and the same message")
    func equality() {
        #expect(DispatchError.arity("a") == .arity("a"))
        #expect(DispatchError.arity("a") != .arity("b"))
        #expect(DispatchError.arity("a") != .typeMismatch("a"))
    }

    @Test("Each thread reads the message of its own last failure")
    func messagesArePerThread() async {
        await withTaskGroup(of: Bool.self) { group in
            for index in 0..<32 {
                group.addTask {
                    let encoding = "v" + String(repeating: "i", count: index % 8) + "Z"
                    do {
                        _ = try Signature(encoding)
                        return false
                    } catch let error as DispatchError {
                        return error.message.contains("\"\(encoding)\"")
                    } catch {
                        return false
                    }
                }
            }
            for await matched in group {
                #expect(matched)
            }
        }
    }
}
