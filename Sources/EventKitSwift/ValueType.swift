internal import CDispatchCore

/// The type of a parameter or return value of a dynamically called C function.
///
/// Each type has the Objective-C type encoding character that spells it in a
/// ``Signature`` encoding: `"q@qd"` returns ``int64`` and takes ``object``,
/// ``int64`` and ``double``. A ``structure`` is spelled by its fields,
/// `{name=fields}`, and its size and fields are in the signature's
/// ``Signature/Layout``.
///
/// The corresponding C type is `dc_type`. Replaces the `const char *` type
/// codes returned by `-[NSMethodSignature getArgumentTypeAtIndex:]` and
/// `methodReturnType`.
public enum ValueType: CaseIterable, Hashable, Sendable, CustomStringConvertible {
    /// No value; allowed only as a return type. Encoding `v`.
    case void
    /// C `bool`. Encoding `B`.
    case bool
    /// `int8_t` (`signed char`). Encoding `c`.
    case int8
    /// `uint8_t`. Encoding `C`.
    case uint8
    /// `int16_t`. Encoding `s`.
    case int16
    /// `uint16_t`. Encoding `S`.
    case uint16
    /// `int32_t`. Encoding `i` (and `l`).
    case int32
    /// `uint32_t`. Encoding `I` (and `L`).
    case uint32
    /// `int64_t`. Encoding `q`.
    case int64
    /// `uint64_t`. Encoding `Q`.
    case uint64
    /// `float`. Encoding `f`.
    case float
    /// `double`. Encoding `d`.
    case double
    /// A pointer to a reference-counted object; from Swift, a class instance.
    /// Encoding `@` (and `#`).
    case object
    /// Any other pointer. Encoding `^` followed by the pointee, canonically `^v`.
    case pointer
    /// A NUL-terminated `char *`. Encoding `*` (and `:` for a selector, which
    /// is passed as its name).
    case string
    /// A C struct passed by value. Encoding `{` followed by the struct's name
    /// and fields, such as `{div_t=ii}`; the ``Signature/Layout`` of the
    /// parameter or return value gives its size, alignment and fields.
    case structure
    /// C `long double`, as the platform ABI has it (Swift's `Float80` on
    /// x86). Encoding `D`.
    case longDouble
    /// `float _Complex`. Encoding `jf`.
    case complexFloat
    /// `double _Complex`. Encoding `jd`.
    case complexDouble
    /// `long double _Complex`. Encoding `jD`.
    case complexLongDouble

    /// The canonical encoding character, such as `"q"` for ``int64``.
    ///
    /// A ``pointer`` is `"^"`; in a full encoding it is followed by its
    /// pointee (`"^v"`). A ``structure`` is `"{"`; in a full encoding it is
    /// followed by its name and fields (`"{div_t=ii}"`). The complex types
    /// are `"j"`, followed by their part's code (`"jd"`).
    ///
    /// The corresponding C function is `dc_type_encoding`.
    public var encoding: Character {
        Character(Unicode.Scalar(UInt8(bitPattern: dc_type_encoding(cType))))
    }

    /// The type's name, such as `"int64"`, `"object"` or `"struct"`.
    ///
    /// The corresponding C function is `dc_type_name`.
    public var name: String {
        String(cString: dc_type_name(cType))
    }

    /// The type's name; see ``name``.
    public var description: String { name }
}
