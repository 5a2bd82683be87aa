internal import CDispatchCore

/// The bytes of a C struct passed or returned by value, as
/// ``Value/structure(_:)`` carries them.
///
/// Make one from a Swift value of a struct type imported from C (`div_t`,
/// `timespec`, a struct declared in a C header) or from raw bytes, and read a
/// struct a function returned back as its C type:
///
/// ```swift
/// let divide: @convention(c) (Int32, Int32) -> div_t = div
/// let signature = try Signature("{div_t=ii}ii")           // div_t div(int, int)
/// let quotient = try Invocation.call(divide, signature: signature, arguments: [.int32(7), .int32(2)])
/// let result = try quotient.structure(as: div_t.self)     // div_t(quot: 3, rem: 1)
///
/// let delay = StructValue(timespec(tv_sec: 1, tv_nsec: 500))
/// ```
///
/// The bytes are the struct's as C lays it out, padding included, and are
/// immutable once made: a `StructValue` owns its own copy, so a struct read
/// from an ``Invocation`` stays valid after the next invoke. C's
/// `sizeof(T)` is Swift's `MemoryLayout<T>.stride`, the size a struct made
/// from a `T` has.
///
/// Wherever a struct argument meets a parameter's ``Signature/Layout`` (a
/// call, an invocation, an execute reaching a C handler), the C core checks
/// it before anything runs. A struct that came from C knows its layout and
/// fits only a parameter of the same fields, whatever the structs' names. A
/// struct made from a Swift value or from raw bytes knows only its size, so,
/// as with `-[NSInvocation setArgument:atIndex:]`, its bytes are trusted to
/// have the parameter's layout once the size fits.
///
/// Two struct values are equal when their bytes are, padding included; the
/// ``encoding`` is not compared.
///
/// The corresponding C type is a `dc_value` of type `DC_TYPE_STRUCT`, made
/// with `dc_struct_with_layout` or `dc_struct_of`. Replaces the
/// `NSValue` (`valueWithBytes:objCType:`) and the untyped buffers an
/// `NSInvocation` takes and fills for a struct.
public struct StructValue: Sendable {
    /// The bytes and the encoding, never written once the value is shared.
    /// One reference, so that a ``Value`` holding a struct is no larger than
    /// one holding a string.
    let storage: StructStorage

    /// The struct's canonical encoding, such as `"{div_t=ii}"`, when it came
    /// from C; `nil` for a struct made from a Swift value or from raw bytes.
    ///
    /// The corresponding C field is `dc_layout.encoding`.
    public var encoding: String? { storage.encoding }

    /// A struct holding the bytes of `value`, a value of a C struct type such
    /// as `div_t` or `timespec` (or any other type whose bytes C may copy).
    ///
    /// Its size is `MemoryLayout<T>.stride`, C's `sizeof(T)`; padding after
    /// the last field is zero.
    ///
    /// - Parameter value: The struct whose bytes are copied.
    public init<T: BitwiseCopyable>(_ value: T) {
        storage = StructStorage(size: MemoryLayout<T>.stride)
        storage.address.storeBytes(of: value, as: T.self)
    }

    /// A struct holding a copy of `bytes`, which are laid out as C lays out
    /// the struct they stand for.
    ///
    /// An `UnsafeRawBufferPointer` is such a collection, as is `[UInt8]`.
    ///
    /// - Parameter bytes: The struct's bytes, padding included.
    public init(bytes: some Collection<UInt8>) {
        let storage = StructStorage(size: bytes.count)
        UnsafeMutableRawBufferPointer(start: storage.address, count: storage.size).copyBytes(from: bytes)
        self.init(storage: storage, encoding: nil)
    }

    /// A struct owning `storage`, which nothing else writes from now on.
    init(storage: StructStorage, encoding: String?) {
        storage.encoding = encoding
        self.storage = storage
    }

    /// A struct owning `storage`, which C filled with a struct of `layout`
    /// and described as `cStructID`, and nothing writes from now on.
    init(storage: StructStorage, layout: dc_layout, cStructID: UInt32) {
        storage.cStructID = cStructID
        self.init(storage: storage, encoding: layout.encoding.map { String(cString: $0) })
    }

    /// A copy of the struct of `layout` at `address`, which C described as
    /// `cStructID`.
    init(copying address: UnsafeRawPointer, layout: dc_layout, cStructID: UInt32) {
        let storage = StructStorage(size: layout.size)
        storage.address.copyMemory(from: address, byteCount: layout.size)
        self.init(storage: storage, layout: layout, cStructID: cStructID)
    }

    /// A copy of the `size` bytes at `address`, a struct whose encoding is
    /// not known (a struct value that knew its size, or its layout as
    /// `cStructID`).
    init(copying address: UnsafeRawPointer, size: Int, cStructID: UInt32) {
        storage = StructStorage(size: size)
        storage.address.copyMemory(from: address, byteCount: size)
        storage.cStructID = cStructID
    }

    /// The number of bytes, C's `sizeof` of the struct.
    ///
    /// The corresponding C field is `dc_layout.size`.
    public var size: Int { storage.size }

    /// A copy of the bytes.
    public var bytes: [UInt8] {
        withUnsafeBytes { Array($0) }
    }

    /// Calls `body` with the bytes, valid only for the call.
    ///
    /// - Parameter body: A closure reading the bytes; what it returns is
    ///   returned, what it throws is thrown.
    /// - Returns: What `body` returned.
    public func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try withExtendedLifetime(storage) { () throws(Failure) -> Result in
            try body(UnsafeRawBufferPointer(start: storage.address, count: storage.size))
        }
    }

    /// The struct as a value of `type`, such as `div_t.self`.
    ///
    /// - Parameter type: The C struct type (or any type whose bytes C may
    ///   copy) to read the bytes as; its `MemoryLayout<T>.stride` (C's
    ///   `sizeof`) or its `MemoryLayout<T>.size` must be ``size``.
    /// - Returns: The value the bytes make.
    /// - Throws: ``DispatchError/typeMismatch(_:)`` naming both sizes when
    ///   they differ.
    public func load<T: BitwiseCopyable>(as type: T.Type) throws(DispatchError) -> T {
        guard size == MemoryLayout<T>.stride || size == MemoryLayout<T>.size else {
            throw DispatchError(
                status: DC_ERR_TYPE,
                message: "expected a struct of \(MemoryLayout<T>.stride) bytes (\(T.self)), "
                    + "got \(self)")!
        }
        return storage.address.loadUnaligned(as: T.self)
    }
}

extension StructValue: Hashable {
    /// Whether both hold the same bytes, padding included; the encodings are
    /// not compared.
    ///
    /// - Parameters:
    ///   - lhs: A struct value.
    ///   - rhs: Another struct value.
    public static func == (lhs: StructValue, rhs: StructValue) -> Bool {
        lhs.withUnsafeBytes { left in rhs.withUnsafeBytes { right in left.elementsEqual(right) } }
    }

    /// Hashes the bytes, consistent with `==`.
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}

extension StructValue: CustomStringConvertible {
    /// The encoding, or the size when the encoding is not known, and the
    /// bytes in hexadecimal, four to a group: `{div_t=ii} 03000000 01000000`,
    /// `8 bytes 03000000 01000000`. Bytes past the 64th are shown as `…`.
    public var description: String {
        let shownCount = 64
        let groups = withUnsafeBytes { bytes in
            stride(from: 0, to: min(bytes.count, shownCount), by: 4).map { start in
                bytes[start..<min(start + 4, bytes.count, shownCount)]
                    .map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
            }
        }
        let head = encoding ?? "\(size) bytes"
        return ([head] + groups + (size > shownCount ? ["…"] : [])).joined(separator: " ")
    }
}

// MARK: - Storage

/// The bytes of a ``StructValue``, aligned for any C struct.
final class StructStorage: @unchecked Sendable {
    // @unchecked: the bytes are written only while one owner holds the
    // storage (its initializer, or a C call returning into it), before it is
    // wrapped in a StructValue; from then on they are only read.

    /// The alignment of every struct's bytes: the most any C scalar the core
    /// passes needs (long double and its complex need 16 on x86-64 and AArch64).
    static let alignment = 16

    /// The first byte.
    let address: UnsafeMutableRawPointer
    /// How many bytes.
    let size: Int
    /// The struct's canonical encoding when known; set with the bytes.
    var encoding: String?
    /// What the C value the bytes came from knew of their layout
    /// (`dc_value.struct_id`), handed back to C with them; 0 for bytes made
    /// in Swift, which cross with their size.
    var cStructID: UInt32 = 0

    /// `size` zero bytes.
    init(size: Int) {
        self.size = size
        address = .allocate(byteCount: max(size, 1), alignment: Self.alignment)
        address.initializeMemory(as: UInt8.self, repeating: 0, count: max(size, 1))
    }

    deinit {
        address.deallocate()
    }
}
