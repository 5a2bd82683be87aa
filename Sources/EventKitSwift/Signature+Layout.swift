internal import CDispatchCore

extension Signature {
    /// How a return value, a parameter or a field of a struct is laid out in
    /// memory: its size, alignment and, for a struct, its fields with their
    /// offsets, as C lays them out on this platform.
    ///
    /// ```swift
    /// let signature = try Signature("{div_t=ii}ii")
    /// signature.returnLayout.size                  // 8, methodReturnLength
    /// signature.returnLayout.fields.map(\.offset)  // [0, 4]
    /// ```
    ///
    /// An array field (`[4i]`) has the type of its elements, its ``count``,
    /// and the ``size`` of all its elements together; an array of structs
    /// lists its element struct's ``fields``.
    ///
    /// The corresponding C type is `dc_layout`. Replaces what
    /// `NSMethodSignature`'s `methodReturnLength` and
    /// `NSGetSizeAndAlignment()` tell.
    public struct Layout: Hashable, Sendable {
        /// The type: ``ValueType/structure`` for a struct, and an array
        /// field's element type for an array.
        ///
        /// The corresponding C field is `dc_layout.type`.
        public let type: ValueType

        /// The size in bytes, C's `sizeof`: every element of an array field
        /// included, 0 for `void`.
        ///
        /// The corresponding C field is `dc_layout.size`.
        public let size: Int

        /// The alignment in bytes, C's `_Alignof`: for a struct the largest of
        /// its fields'; 1 for `void`.
        ///
        /// The corresponding C field is `dc_layout.alignment`.
        public let alignment: Int

        /// The number of elements of an array field; 1 for anything else.
        ///
        /// The corresponding C field is `dc_layout.count`.
        public let count: Int

        /// A field's offset from the start of its struct, C's `offsetof`; 0
        /// for a return value or a parameter.
        ///
        /// The corresponding C field is `dc_layout.offset`.
        public let offset: Int

        /// The canonical encoding, such as `"q"`, `"[4i]"` or `"{div_t=ii}"`.
        ///
        /// The corresponding C field is `dc_layout.encoding`.
        public let encoding: String

        /// A struct's fields in order, each with its ``offset`` in the
        /// struct; for an array field of structs, the element struct's
        /// fields, their offsets from the element's start. Empty for a
        /// scalar.
        ///
        /// The corresponding C function is `dc_layout_field`.
        public let fields: [Layout]

        /// Whether this is an array field, such as `[4i]`.
        public var isArray: Bool { encoding.first == "[" }

        /// The layout `cLayout` describes, its fields read recursively.
        init(_ cLayout: dc_layout) {
            var cLayout = cLayout
            type = ValueType(cLayout.type)
            size = cLayout.size
            alignment = cLayout.alignment
            count = cLayout.count
            offset = cLayout.offset
            encoding = cLayout.encoding.map { String(cString: $0) } ?? ""
            fields = (0..<(cLayout.type == DC_TYPE_STRUCT ? cLayout.field_count : 0)).compactMap { index in
                var field = dc_layout()
                // Cannot fail: a struct layout's index below its field count.
                guard dc_layout_field(&cLayout, index, &field) == DC_OK else { return nil }
                return Layout(field)
            }
        }
    }

    /// The layout of the return value; its ``Layout/size`` is 0 for `void`.
    ///
    /// ```swift
    /// try Signature("{div_t=ii}ii").returnLayout.size   // 8
    /// ```
    ///
    /// The corresponding C function is `dc_signature_return_layout`. Replaces
    /// `-[NSMethodSignature methodReturnLength]` (its ``Layout/size``).
    public var returnLayout: Layout {
        Layout(cReturnLayout)
    }

    /// The layout of each parameter, in order.
    ///
    /// The corresponding C function is `dc_signature_parameter_layout`.
    /// Replaces `NSGetSizeAndAlignment()` of each
    /// `-[NSMethodSignature getArgumentTypeAtIndex:]`.
    public var parameterLayouts: [Layout] {
        parameterTypes.indices.compactMap { index in cParameterLayout(at: index).map(Layout.init) }
    }

    /// The bytes the parameters occupy in a frame, as Objective-C method
    /// encodings count them: each parameter at the next multiple of its
    /// alignment, taking a multiple of the pointer size.
    ///
    /// The corresponding C function is `dc_signature_frame_size`. Replaces
    /// `-[NSMethodSignature frameLength]`.
    public var frameSize: Int {
        dc_signature_frame_size(cSignature)
    }

    /// The C layout of the return value.
    var cReturnLayout: dc_layout {
        var layout = dc_layout()
        // Cannot fail: the signature is not NULL.
        _ = dc_signature_return_layout(cSignature, &layout)
        return layout
    }

    /// The C layout of parameter `index`; `nil` when it is not a parameter.
    func cParameterLayout(at index: Int) -> dc_layout? {
        guard parameterTypes.indices.contains(index) else { return nil }
        var layout = dc_layout()
        guard dc_signature_parameter_layout(cSignature, index, &layout) == DC_OK else { return nil }
        return layout
    }
}

extension Signature.Layout: CustomStringConvertible {
    /// The encoding, size and alignment, and a field's offset, such as
    /// `{div_t=ii}: 8 bytes, alignment 4` or `i at 4: 4 bytes, alignment 4`.
    public var description: String {
        let place = offset == 0 ? encoding : "\(encoding) at \(offset)"
        return "\(place): \(size) bytes, alignment \(alignment)"
    }
}
