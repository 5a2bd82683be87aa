import SwiftDiagnostics

/// What `@Multicast` and `@MulticastFallback` say about a protocol they
/// cannot forward, each message naming the requirement and what to do.
enum MulticastDiagnostic: DiagnosticMessage {
    case notAProtocol
    case notClassBound(protocolName: String)
    case inheritsUnseenProtocol(protocolName: String, inherited: String)
    case protocolWhereClause(protocolName: String)
    case primaryAssociatedTypes(protocolName: String)
    case associatedType(name: String)
    case initializer
    case staticRequirement(description: String)
    case settableProperty(name: String)
    case settableSubscript
    case unsupportedAccessor(description: String, accessor: String)
    case asyncRequirement(description: String)
    case mutatingRequirement(description: String)
    case nonisolatedInIsolatedProtocol(description: String, protocolName: String)
    case mentionsSelf(description: String)
    case variadicParameter(description: String, parameter: String)
    case sendingParameter(description: String, parameter: String)
    case missingFallback(description: String, resultType: String)
    case nameClash(description: String, typeName: String)
    case unsupportedMember
    case fallbackWithoutResult(description: String)
    case fallbackOutsideMulticastProtocol
    case fallbackOnWrongDeclaration

    var message: String {
        switch self {
        case .notAProtocol:
            return "@Multicast applies to a protocol"
        case .notClassBound(let protocolName):
            return "@Multicast needs a class-bound protocol: a multicast delegate holds its delegates "
                + "weakly, and only objects can be held weakly; declare '\(protocolName): AnyObject'"
        case .inheritsUnseenProtocol(let protocolName, let inherited):
            return "'\(protocolName)' inherits from '\(inherited)', whose requirements @Multicast cannot "
                + "see, so it cannot forward them; a multicast protocol may inherit only AnyObject and Sendable"
        case .protocolWhereClause(let protocolName):
            return "'\(protocolName)' has a 'where' clause, which @Multicast cannot make its type satisfy; "
                + "a multicast protocol may inherit only AnyObject and Sendable"
        case .primaryAssociatedTypes(let protocolName):
            return "'\(protocolName)' has primary associated types; @Multicast forwards to delegates "
                + "of one existential type, which cannot name them"
        case .associatedType(let name):
            return "associated type '\(name)' cannot be forwarded: each delegate may choose its own, "
                + "so no single type can conform for all of them"
        case .initializer:
            return "an initializer cannot be forwarded: it makes an object rather than asking the delegates"
        case .staticRequirement(let description):
            return "\(description) is static and cannot be forwarded: the delegates are instances"
        case .settableProperty(let name):
            return "property '\(name)' has a setter, which cannot be forwarded: setting every delegate "
                + "and reading the first one's value has no single meaning; declare it '{ get }'"
        case .settableSubscript:
            return "a subscript with a setter cannot be forwarded: setting every delegate and reading "
                + "the first one's value has no single meaning; declare it '{ get }'"
        case .unsupportedAccessor(let description, let accessor):
            return "\(description) has a '\(accessor)' accessor, which cannot be forwarded; declare it '{ get }'"
        case .asyncRequirement(let description):
            return "\(description) is async and cannot be forwarded: a multicast delegate calls its "
                + "delegates synchronously, so that a removed delegate is never called once 'remove' has returned"
        case .mutatingRequirement(let description):
            return "\(description) is 'mutating', which a class cannot implement"
        case .nonisolatedInIsolatedProtocol(let description, let protocolName):
            return "\(description) is 'nonisolated', but the multicast type keeps its delegates on the "
                + "protocol's global actor, since '\(protocolName)' is not Sendable; make the protocol Sendable, "
                + "or the requirement isolated"
        case .mentionsSelf(let description):
            return "\(description) mentions 'Self', which in the multicast type would be the multicast "
                + "type itself, never a delegate's type"
        case .variadicParameter(let description, let parameter):
            return "\(description) has the variadic parameter '\(parameter)', which cannot be passed on: "
                + "Swift cannot pass an array as variadic arguments; take an array instead"
        case .sendingParameter(let description, let parameter):
            return "\(description) takes '\(parameter)' as 'sending', which can be passed on to one delegate only"
        case .missingFallback(let description, let resultType):
            return "\(description) returns '\(resultType)', which needs a value when there is no delegate: "
                + "mark it '@MulticastFallback(value)' or make the result optional"
        case .nameClash(let description, let typeName):
            return "\(description) has the name of a member '\(typeName)' declares to manage its delegates; "
                + "rename the requirement"
        case .unsupportedMember:
            return "@Multicast cannot see what this declaration adds to the protocol, so it cannot forward it"
        case .fallbackWithoutResult(let description):
            return "\(description) returns nothing, so @MulticastFallback has no effect on it"
        case .fallbackOutsideMulticastProtocol:
            return "@MulticastFallback has an effect only on a requirement of a @Multicast protocol"
        case .fallbackOnWrongDeclaration:
            return "@MulticastFallback applies to a method, read-only property or subscript requirement "
                + "of a @Multicast protocol"
        }
    }

    var severity: DiagnosticSeverity {
        switch self {
        case .fallbackWithoutResult, .fallbackOutsideMulticastProtocol: return .warning
        default: return .error
        }
    }

    var diagnosticID: MessageID {
        let name: String
        switch self {
        case .notAProtocol: name = "notAProtocol"
        case .notClassBound: name = "notClassBound"
        case .inheritsUnseenProtocol: name = "inheritsUnseenProtocol"
        case .protocolWhereClause: name = "protocolWhereClause"
        case .primaryAssociatedTypes: name = "primaryAssociatedTypes"
        case .associatedType: name = "associatedType"
        case .initializer: name = "initializer"
        case .staticRequirement: name = "staticRequirement"
        case .settableProperty: name = "settableProperty"
        case .settableSubscript: name = "settableSubscript"
        case .unsupportedAccessor: name = "unsupportedAccessor"
        case .asyncRequirement: name = "asyncRequirement"
        case .mutatingRequirement: name = "mutatingRequirement"
        case .nonisolatedInIsolatedProtocol: name = "nonisolatedInIsolatedProtocol"
        case .mentionsSelf: name = "mentionsSelf"
        case .variadicParameter: name = "variadicParameter"
        case .sendingParameter: name = "sendingParameter"
        case .missingFallback: name = "missingFallback"
        case .nameClash: name = "nameClash"
        case .unsupportedMember: name = "unsupportedMember"
        case .fallbackWithoutResult: name = "fallbackWithoutResult"
        case .fallbackOutsideMulticastProtocol: name = "fallbackOutsideMulticastProtocol"
        case .fallbackOnWrongDeclaration: name = "fallbackOnWrongDeclaration"
        }
        return MessageID(domain: "EventKitMacros", id: name)
    }
}

/// The text of a Fix-It.
struct MulticastFixIt: FixItMessage {
    let message: String
    let id: String

    var fixItID: MessageID { MessageID(domain: "EventKitMacros", id: id) }

    static let addAnyObject = MulticastFixIt(message: "add 'AnyObject'", id: "addAnyObject")
    static let makeResultOptional = MulticastFixIt(message: "make the result optional", id: "makeResultOptional")
    static let addFallback = MulticastFixIt(message: "add '@MulticastFallback'", id: "addFallback")
}
