import Synchronization

// performSelector: on a table: call whatever handles a key, with arguments
// whose types are known only at run time, and get its return value back.

extension CommandTable {
    /// Executes `key` with `arguments`, converted to ``Value``s, and returns
    /// the value the first handler that returned one returned: the
    /// `performSelector:withObject:withObject:` of a table.
    ///
    /// ```swift
    /// table.on("area") { (values: [Value]) -> Value in … }
    /// let area = try table.perform("area", with: [3, 4.5])       // .double(13.5)
    /// try table.perform("reset", with: [self])                    // a () -> Void handler ignores self
    /// ```
    ///
    /// A handler receives `min(its parameter count, arguments.count)`
    /// arguments: extra arguments are dropped, and absent ones arrive as
    /// zero, `false` or `nil`, as they do for every execute (see
    /// <doc:Semantics>). A `[Value]` handler receives all of them. Every
    /// handler of `key` runs, in order; the result is the first value one
    /// returned, `nil` when they all return `Void`.
    ///
    /// Each argument becomes the ``Value`` of its dynamic type: a `Bool` is
    /// ``Value/bool(_:)``; an `Int` is ``Value/int64(_:)`` and a `UInt`
    /// ``Value/uint64(_:)``; the sized integers, `Float` and `Double` are the
    /// case of their own type; a `String` or `Substring` is
    /// ``Value/string(_:)``; a class instance is ``Value/object(_:)``; a raw
    /// pointer is ``Value/pointer(_:)``; a ``CCallback`` is its function
    /// pointer; any other ``EventArgument`` (an ``EventPayload``, an array,
    /// a set, a dictionary) is its ``EventArgument/eventValue``; a
    /// ``Value`` stays as it is; and `nil`
    /// is `.pointer(nil)`, which fits any object, pointer or string parameter.
    /// Foundation's `NSNull`, which stands for `nil` where an array cannot
    /// hold one, is `nil` too: it arrives as `NULL` at a C object parameter
    /// and as `nil` in an `AnyObject?` closure, as
    /// `performSelector:withObjects:` users expect.
    ///
    /// - Throws: ``DispatchError/unrecognizedSelector(_:)`` with `key` when no
    ///   handler ran, was queued or was dropped (nothing handles it);
    ///   ``DispatchError/typeMismatch(_:)`` when an argument has a type that is
    ///   none of the above, or does not fit a handler's parameter (then no
    ///   handler runs); or the error a handler threw.
    ///
    /// The corresponding C function is `dc_table_execute`. Replaces
    /// `-[NSObject performSelector:withObject:]` and the
    /// `doesNotRecognizeSelector:` exception it raises.
    @discardableResult
    public func perform(_ key: String, with arguments: [Any?] = []) throws -> Value? {
        var values: [Value] = []
        values.reserveCapacity(arguments.count)
        for (index, argument) in arguments.enumerated() {
            values.append(try Value(performArgument: argument, at: index, key: key, table: name))
        }
        let result = try execute(key, arguments: values)
        guard result.handled + result.queued + result.dropped > 0 else {
            throw DispatchError.unrecognizedSelector(key)
        }
        return result.returnValue
    }
}

extension Value {
    /// The value `perform(_:with:)` passes for `argument`, as its
    /// documentation lists.
    init(performArgument argument: Any?, at index: Int, key: String, table: String) throws(DispatchError) {
        guard let argument = unwrapped(argument), !isNSNull(argument) else {
            self = .pointer(nil)
            return
        }
        switch argument {
        case let value as Value: self = value
        case let value as Bool: self = .bool(value)
        case let value as Int: self = .int64(Int64(value))
        case let value as UInt: self = .uint64(UInt64(value))
        case let value as Int8: self = .int8(value)
        case let value as UInt8: self = .uint8(value)
        case let value as Int16: self = .int16(value)
        case let value as UInt16: self = .uint16(value)
        case let value as Int32: self = .int32(value)
        case let value as UInt32: self = .uint32(value)
        case let value as Int64: self = .int64(value)
        case let value as UInt64: self = .uint64(value)
        case let value as Float: self = .float(value)
        case let value as Double: self = .double(value)
        case let value as String: self = .string(value)
        case let value as Substring: self = .string(String(value))
        case let value as UnsafeMutableRawPointer: self = .pointer(value)
        case let value as UnsafeRawPointer: self = .pointer(UnsafeMutableRawPointer(mutating: value))
        case let value as OpaquePointer: self = .pointer(UnsafeMutableRawPointer(value))
        // A payload (a struct, an enum, a collection) as its box; a
        // CCallback as its function pointer.
        case let value as any EventArgument: self = value.eventValue
        default:
            // Checked on the type, not with `as? AnyObject`, which on Linux
            // boxes any value into an object.
            guard Swift.type(of: argument) is AnyClass else {
                throw DispatchError.typeMismatch(
                    "table \(table), perform \"\(key)\": argument \(index) is a \(Swift.type(of: argument)), "
                        + "which has no Value (expected a Bool, number, String, class instance, pointer or nil)")
            }
            self = .object(argument as AnyObject)
        }
    }
}

/// Whether `value` is Foundation's `NSNull`, found by name: this module does
/// not link Foundation, and where nothing has loaded it no value is one.
private func isNSNull(_ value: Any) -> Bool {
    guard let type = Swift.type(of: value) as? AnyClass else { return false }
    if let null = FoundNSNull.found.load() { return ObjectIdentifier(type) == null.identifier }
    // Looked up until found: Foundation may be loaded after a first call.
    guard let null = _typeByName("10Foundation6NSNullC") as? AnyClass else { return false }
    return ObjectIdentifier(type) == FoundNSNull.found.storeIfNil(FoundNSNull(null)).identifier
}

/// `NSNull`'s class, once found.
private final class FoundNSNull: Sendable {
    static let found = AtomicLazyReference<FoundNSNull>()
    let identifier: ObjectIdentifier
    init(_ type: AnyClass) { identifier = ObjectIdentifier(type) }
}

/// What `value` holds once every optional layer is taken off: an `Int?`
/// put in an `Any` is its `Int`, or `nil`.
private func unwrapped(_ value: Any?) -> Any? {
    guard var current = value else { return nil }
    while let layer = current as? any OptionalLayer {
        guard let inner = layer.wrappedValue else { return nil }
        current = inner
    }
    return current
}

private protocol OptionalLayer {
    var wrappedValue: Any? { get }
}

extension Optional: OptionalLayer {
    var wrappedValue: Any? { self.map { $0 as Any } }
}
