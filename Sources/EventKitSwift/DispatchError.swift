internal import CDispatchCore
// LocalizedError is in FoundationEssentials, which is small; Foundation, which
// gives every error its localizedDescription, is the caller's to import.
import FoundationEssentials

/// An error reported by the dispatch core: one case per failure status of the
/// C library (`dc_status`), each carrying the detail message the core wrote for
/// the failing call, and ``unrecognizedSelector(_:)``, which only the Swift
/// layer raises and which has no `dc_status`.
///
/// The message names what was wrong: the position in a malformed encoding, the
/// argument index, the expected and the actual type. ``statusName`` gives the C
/// enumerator (`"DC_ERR_TYPE"`) for logs and for C programmers reading along.
///
/// ```swift
/// do {
///     try invocation.setArgument("seven", at: 1)
/// } catch DispatchError.typeMismatch(let message) {
///     print(message)
/// }
/// ```
///
/// The corresponding C functions are `dc_status_name`, `dc_status_string` and
/// `dc_last_error_message`. Replaces the `NSInvalidArgumentException` that
/// `NSMethodSignature` and `NSInvocation` raise: here a bad call is an error
/// you catch, never a crash.
///
/// With Foundation imported, `error.localizedDescription` is the same text as
/// ``description``, for any `Error` holding a `DispatchError`.
public enum DispatchError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// A required argument was missing (a NULL function pointer). `DC_ERR_NULL_ARGUMENT`.
    case nullArgument(String)
    /// An argument was outside its documented range, such as a Swift value
    /// that is not a C function. `DC_ERR_INVALID_ARGUMENT`.
    case invalidArgument(String)
    /// The core could not allocate memory. `DC_ERR_NO_MEMORY`.
    case outOfMemory(String)
    /// A type encoding or a list of types does not describe a callable C
    /// function; the message names the offending position. `DC_ERR_BAD_SIGNATURE`.
    case badSignature(String)
    /// A value does not fit the parameter it was given for; nothing was
    /// stored or called. `DC_ERR_TYPE`.
    case typeMismatch(String)
    /// The number of arguments differs from the signature's parameter
    /// count; nothing was called. `DC_ERR_ARITY`.
    case arity(String)
    /// An argument index is not a parameter of the signature. `DC_ERR_INDEX`.
    case indexOutOfRange(String)
    /// A return value was asked for before the first invoke. `DC_ERR_NOT_INVOKED`.
    case notInvoked(String)
    /// The request is not supported on this platform or call path.
    /// `DC_ERR_UNSUPPORTED`; also what a status unknown to this version of the
    /// Swift layer becomes, with the C status name in the message.
    case unsupported(String)
    /// libffi could not prepare the call. `DC_ERR_FFI`.
    case ffi(String)
    /// No event, handler or target by that name or id. `DC_ERR_NOT_FOUND`.
    case notFound(String)
    /// An execute that required a handler found none. `DC_ERR_NO_HANDLER`.
    case noHandler(String)
    /// The operation does not apply now, such as unblocking a handler that
    /// is not blocked. `DC_ERR_STATE`.
    case invalidState(String)
    /// Executes nested deeper than the core allows on one thread.
    /// `DC_ERR_DEPTH`.
    case nestedTooDeeply(String)
    /// ``CommandTable/perform(_:with:)`` found nothing that handles the key
    /// it carries, as `-[NSObject doesNotRecognizeSelector:]` reports. Raised
    /// by the Swift layer alone: no `dc_status` stands for it, so
    /// ``statusName`` is `"unrecognizedSelector"` and ``message`` is the key.
    case unrecognizedSelector(String)

    /// The detail message: what was wrong, naming position, index and types.
    public var message: String {
        switch self {
        case .nullArgument(let message), .invalidArgument(let message),
            .outOfMemory(let message), .badSignature(let message),
            .typeMismatch(let message), .arity(let message),
            .indexOutOfRange(let message), .notInvoked(let message),
            .unsupported(let message), .ffi(let message), .notFound(let message),
            .noHandler(let message), .invalidState(let message), .nestedTooDeeply(let message),
            .unrecognizedSelector(let message):
            return message
        }
    }

    /// The name of the C status this error stands for, such as `"DC_ERR_TYPE"`;
    /// for ``unrecognizedSelector(_:)``, which has none, `"unrecognizedSelector"`.
    ///
    /// The corresponding C function is `dc_status_name`.
    public var statusName: String {
        guard let status else { return "unrecognizedSelector" }
        return String(cString: dc_status_name(status))
    }

    /// A short, fixed description of the kind of failure, such as
    /// `"argument type mismatch"`.
    ///
    /// The corresponding C function is `dc_status_string`.
    public var statusDescription: String {
        guard let status else { return "unrecognized selector" }
        return String(cString: dc_status_string(status))
    }

    /// The kind of failure followed by the detail message, such as
    /// `"argument type mismatch: argument 1 ..."`.
    public var description: String {
        message.isEmpty ? statusDescription : "\(statusDescription): \(message)"
    }

    /// ``description``: what Foundation's `localizedDescription` shows.
    public var errorDescription: String? { description }
}

// MARK: - The one crossing from dc_status

extension DispatchError {
    /// The C status of this case; `nil` for the case only Swift raises.
    var status: dc_status? {
        switch self {
        case .nullArgument: DC_ERR_NULL_ARGUMENT
        case .invalidArgument: DC_ERR_INVALID_ARGUMENT
        case .outOfMemory: DC_ERR_NO_MEMORY
        case .badSignature: DC_ERR_BAD_SIGNATURE
        case .typeMismatch: DC_ERR_TYPE
        case .arity: DC_ERR_ARITY
        case .indexOutOfRange: DC_ERR_INDEX
        case .notInvoked: DC_ERR_NOT_INVOKED
        case .unsupported: DC_ERR_UNSUPPORTED
        case .ffi: DC_ERR_FFI
        case .notFound: DC_ERR_NOT_FOUND
        case .noHandler: DC_ERR_NO_HANDLER
        case .invalidState: DC_ERR_STATE
        case .nestedTooDeeply: DC_ERR_DEPTH
        case .unrecognizedSelector: nil
        }
    }

    /// The error for a failing `status` with `message`; `nil` for `DC_OK` and
    /// `DC_EXISTS`, the two statuses that are not failures.
    ///
    /// Every `DispatchError` is built here. A status this version does not
    /// know (the C list only ever grows) becomes ``unsupported(_:)`` with the C
    /// name in front of the message, so it is reported rather than lost; the
    /// test suite checks that no C status falls through to that branch.
    init?(status: dc_status, message: String) {
        switch status {
        case DC_OK, DC_EXISTS: return nil
        case DC_ERR_NULL_ARGUMENT: self = .nullArgument(message)
        case DC_ERR_INVALID_ARGUMENT: self = .invalidArgument(message)
        case DC_ERR_NO_MEMORY: self = .outOfMemory(message)
        case DC_ERR_BAD_SIGNATURE: self = .badSignature(message)
        case DC_ERR_TYPE: self = .typeMismatch(message)
        case DC_ERR_ARITY: self = .arity(message)
        case DC_ERR_INDEX: self = .indexOutOfRange(message)
        case DC_ERR_NOT_INVOKED: self = .notInvoked(message)
        case DC_ERR_UNSUPPORTED: self = .unsupported(message)
        case DC_ERR_FFI: self = .ffi(message)
        case DC_ERR_NOT_FOUND: self = .notFound(message)
        case DC_ERR_NO_HANDLER: self = .noHandler(message)
        case DC_ERR_STATE: self = .invalidState(message)
        case DC_ERR_DEPTH: self = .nestedTooDeeply(message)
        default:
            let name = String(cString: dc_status_name(status))
            self = .unsupported("\(name) (\(status.rawValue)): \(message)")
        }
    }

    /// Throws the error for `status` with the calling thread's detail message,
    /// unless `status` is `DC_OK`.
    ///
    /// Call it directly on the status a `dc_` function returned: the message
    /// is per thread and the next failing C call replaces it.
    static func check(_ status: dc_status) throws(DispatchError) {
        guard status != DC_OK, status != DC_EXISTS else { return }
        let message = String(cString: dc_last_error_message())
        if let error = DispatchError(status: status, message: message) {
            throw error
        }
    }

    /// The raw values of every failure status the C core defines, for the
    /// test that proves each has its own case. `package`: tests reach it
    /// without `@testable`, users never see it.
    package static var cFailureStatusRawValues: [UInt32] {
        ((DC_OK.rawValue + 1)..<DC_STATUS_COUNT.rawValue).filter { $0 != DC_EXISTS.rawValue }
    }

    /// The C enumerator name of a raw status value, as the C core spells it.
    package static func cStatusName(rawValue: UInt32) -> String {
        String(cString: dc_status_name(dc_status(rawValue: rawValue)))
    }

    /// The error for a raw status value, as ``init(status:message:)`` builds it.
    package init?(statusRawValue: UInt32, message: String) {
        self.init(status: dc_status(rawValue: statusRawValue), message: message)
    }
}
