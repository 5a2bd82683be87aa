import CCookieSupport
import CDispatchCore
import EventKitSwift
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A sink behind glibc's cookie interface: a Swift object, reached as the
/// context of plain C functions.
final class ByteSink {
    var bytes: [UInt8] = []
    var writes = 0
    var closes = 0

    static func from(_ cookie: UnsafeMutableRawPointer?) -> ByteSink {
        Unmanaged<ByteSink>.fromOpaque(cookie!).takeUnretainedValue()
    }
}

private let byteSinkWrite: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, Int) -> Int = {
    cookie, buffer, size in
    let sink = ByteSink.from(cookie)
    sink.bytes.append(contentsOf: UnsafeRawBufferPointer(start: buffer, count: size))
    sink.writes += 1
    return size
}

private let byteSinkClose: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { cookie in
    ByteSink.from(cookie).closes += 1
    return 0
}

@Suite("Forwarder")
struct ForwarderTests {
    @Test("One FILE teed through fopencookie into a Swift object and a delegate made of CCallbacks")
    func fopencookieTeesIntoSwiftSinks() throws {
        // cookie_io_functions_t: read, write, seek, close; each takes the cookie first.
        let slots = ["q^v^vQ", "q^v^vQ", "i^v^qi", "i^v"]
        var forwarder: OpaquePointer?
        let cSlots = slots.map { strdup($0) }
        defer { cSlots.forEach { free($0) } }
        let created = cSlots.map { UnsafePointer($0) }.withUnsafeBufferPointer { buffer in
            dc_forwarder_create(buffer.baseAddress, buffer.count, &forwarder)
        }
        #expect(created == DC_OK)
        defer { dc_forwarder_destroy(forwarder) }

        // The first delegate: a Swift object behind @convention(c) functions.
        let object = ByteSink()
        var objectVTable = [UInt8](repeating: 0, count: cookie_vtable_size)
        cookie_vtable_make(
            &objectVTable, nil, unsafeBitCast(byteSinkWrite, to: UnsafeMutableRawPointer.self), nil,
            unsafeBitCast(byteSinkClose, to: UnsafeMutableRawPointer.self))
        let objectContext = Unmanaged.passUnretained(object).toOpaque()

        // The second: functions made at run time from capturing closures.
        let captured = Mutex<(bytes: [UInt8], closes: Int)>(([], 0))
        let write = try CCallback { (_: UnsafeMutableRawPointer?, buffer: UnsafeRawPointer?, size: UInt64) -> Int64 in
            let bytes = Array(UnsafeRawBufferPointer(start: buffer, count: Int(size)))
            captured.withLock { $0.bytes += bytes }
            return Int64(size)
        }
        let close = try CCallback { (_: UnsafeMutableRawPointer?) -> Int32 in
            captured.withLock { $0.closes += 1 }
            return 0
        }
        var closureVTable = [UInt8](repeating: 0, count: cookie_vtable_size)
        cookie_vtable_make(
            &closureVTable, nil, UnsafeMutableRawPointer(mutating: write.address), nil,
            UnsafeMutableRawPointer(mutating: close.address))

        try objectVTable.withUnsafeBytes { objectInterface in
            try closureVTable.withUnsafeBytes { closureInterface in
                #expect(dc_forwarder_add(forwarder, objectInterface.baseAddress, objectContext) == DC_OK)
                #expect(dc_forwarder_add(forwarder, closureInterface.baseAddress, nil) == DC_OK)
                #expect(dc_forwarder_count(forwarder) == 2)

                let file = try #require(
                    cookie_file_open(dc_forwarder_vtable(forwarder), dc_forwarder_context(forwarder), "w"))
                var expected: [UInt8] = []
                for line in 0..<200 {
                    let text = "line \(line) of the tee\n"
                    expected += Array(text.utf8)
                    #expect(fputs(text, file) >= 0)
                }
                #expect(fclose(file) == 0)

                #expect(object.bytes == expected)
                #expect(captured.withLock { $0.bytes } == expected)
                #expect(object.writes >= 1)
                #expect(object.closes == 1)
                #expect(captured.withLock { $0.closes } == 1)
            }
        }
    }
}
