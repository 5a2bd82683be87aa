import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Multicast`: beside a class-bound protocol `P`, a final class
/// `MulticastP` that conforms to `P` by passing every requirement on to the
/// delegates of an `EventKitSwift.MulticastDelegate<any P>`.
///
/// A requirement it cannot forward faithfully is refused with an error on
/// that requirement, and then nothing is written: a class that compiled but
/// forwarded wrongly, or left a requirement to a protocol extension's
/// default on the multicast object itself, would be worse than none.
public struct MulticastMacro: PeerMacro {
    /// The writer lays its text out itself, as a person would write it
    /// (`invoke { $0.f(x) }` on one line), and keeps the requirements' own
    /// line breaks.
    public static var formatMode: FormatMode { .disabled }

    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let protocolDecl = declaration.as(ProtocolDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: MulticastDiagnostic.notAProtocol))
            return []
        }
        var writer = MulticastWriter(protocolDecl: protocolDecl)
        let multicastType = writer.write()
        for diagnostic in writer.diagnostics {
            context.diagnose(diagnostic)
        }
        return multicastType.map { [$0] } ?? []
    }
}

/// Writes the multicast type of one protocol, collecting a diagnostic for
/// each requirement it refuses.
struct MulticastWriter {
    let protocolDecl: ProtocolDeclSyntax
    private(set) var diagnostics: [Diagnostic] = []

    init(protocolDecl: ProtocolDeclSyntax) {
        self.protocolDecl = protocolDecl
    }

    var protocolName: String { protocolDecl.name.text }
    var typeName: String { "Multicast" + protocolName }

    /// The protocol's access modifier, which the type repeats.
    var typeAccess: String? {
        protocolDecl.modifiers.first { Self.accessKeywords.contains($0.name.tokenKind) }?.name.text
    }

    /// What the members repeat: a `public` or `package` protocol's
    /// requirements must be as visible as the protocol; otherwise the
    /// members keep the default, which the type's own level bounds.
    var memberAccess: String {
        guard let typeAccess, typeAccess == "public" || typeAccess == "package" else { return "" }
        return typeAccess + " "
    }

    /// Whether the protocol inherits `Sendable`, which makes the delegate
    /// list `Sendable` too.
    var isSendable: Bool {
        (protocolDecl.inheritanceClause?.inheritedTypes ?? []).contains { inherited in
            Self.compositionElements(of: inherited.type).contains { Self.inheritedKind(of: $0) == .sendable }
        }
    }

    /// Whether the protocol has an attribute that may be a global actor
    /// (`@MainActor`): any but the attributes that a protocol may carry and
    /// that are known not to isolate it.
    var mayBeIsolatedToGlobalActor: Bool {
        protocolDecl.attributes.contains { element in
            guard case .attribute(let attribute) = element else { return false }
            let name = attribute.attributeName.trimmedDescription
            return !Self.nonIsolatingAttributes.contains(name) && !Self.isMacroAttribute(element, named: "Multicast")
        }
    }

    /// The protocol's attributes that the class repeats.
    private static let copiedProtocolAttributes: Set<String> = ["available", "_spi", "usableFromInline"]

    private static let nonIsolatingAttributes: Set<String> = [
        "available", "preconcurrency", "objc", "usableFromInline", "_spi", "_marker", "retroactive",
    ]

    private static let accessKeywords: [TokenKind] = [
        .keyword(.public), .keyword(.package), .keyword(.internal), .keyword(.fileprivate), .keyword(.private),
    ]

    /// The multicast type, or `nil` when anything was refused.
    mutating func write() -> DeclSyntax? {
        checkProtocol()
        let members = forwardingMembers(of: protocolDecl.memberBlock.members)
        guard !diagnostics.contains(where: { $0.diagMessage.severity == .error }) else { return nil }

        // A global actor needs no copying: a class conforming to an isolated
        // protocol in its own declaration is isolated to the same actor. Other
        // attributes may be macros, which must not apply to the class again.
        let attributes = protocolDecl.attributes
            .filter { element in
                guard case .attribute(let attribute) = element else { return false }
                return Self.copiedProtocolAttributes.contains(attribute.attributeName.trimmedDescription)
            }
            .map { $0.trimmedDescription + "\n" }
            .joined()
        let access = typeAccess.map { $0 + " " } ?? ""
        let existential = "any \(protocolName)"
        let text = """
            /// A `\(protocolName)` that passes each call on to its delegates, in
            /// order, holding them weakly. Written by `@Multicast`.
            \(attributes)\(access)final class \(typeName): \(protocolName) {
                /// The delegates, held weakly, in call order.
                \(memberAccess)let delegates: EventKitSwift.MulticastDelegate<\(existential)>

                /// Creates a multicast delegate with no delegates; `name` is for descriptions.
                \(memberAccess)init(name: Swift.String = "") {
                    self.delegates = EventKitSwift.MulticastDelegate(name: name)
                }

                /// Adds `delegate` at the end, unless it is already present. It is held
                /// weakly: keep a strong reference to it elsewhere.
                \(memberAccess)func add(_ delegate: \(existential)) {
                    self.delegates.add(delegate)
                }

                /// Removes `delegate` and returns whether it was present; once this
                /// returns, it is not called again.
                @discardableResult
                \(memberAccess)func remove(_ delegate: \(existential)) -> Swift.Bool {
                    self.delegates.remove(delegate)
                }
            \(members.map { "\n" + $0.indented() + "\n" }.joined())}
            """
        return DeclSyntax(stringLiteral: text)
    }

    // MARK: - The protocol

    /// Refuses a protocol whose conforming class the macro could not write
    /// completely: not class-bound, inheriting requirements it cannot see,
    /// constrained by a `where` clause, or with associated types.
    private mutating func checkProtocol() {
        var isClassBound = false
        for inherited in protocolDecl.inheritanceClause?.inheritedTypes ?? [] {
            for type in Self.compositionElements(of: inherited.type) {
                switch Self.inheritedKind(of: type) {
                case .classBound: isClassBound = true
                case .sendable: break
                case .other:
                    refuse(
                        type,
                        .inheritsUnseenProtocol(protocolName: protocolName, inherited: type.trimmedDescription))
                }
            }
        }
        if !isClassBound {
            diagnostics.append(
                Diagnostic(
                    node: protocolDecl.name,
                    message: MulticastDiagnostic.notClassBound(protocolName: protocolName),
                    fixIts: [addAnyObjectFixIt()]))
        }
        if let whereClause = protocolDecl.genericWhereClause {
            refuse(whereClause, .protocolWhereClause(protocolName: protocolName))
        }
        if let primary = protocolDecl.primaryAssociatedTypeClause {
            refuse(primary, .primaryAssociatedTypes(protocolName: protocolName))
        }
    }

    private enum InheritedKind { case classBound, sendable, other }

    private static func inheritedKind(of type: TypeSyntax) -> InheritedKind {
        if type.is(ClassRestrictionTypeSyntax.self) { return .classBound }
        switch type.trimmedDescription {
        case "AnyObject", "Swift.AnyObject": return .classBound
        case "Sendable", "Swift.Sendable": return .sendable
        default: return .other
        }
    }

    private static func compositionElements(of type: TypeSyntax) -> [TypeSyntax] {
        guard let composition = type.as(CompositionTypeSyntax.self) else { return [type] }
        return composition.elements.map(\.type)
    }

    /// `protocol P: AnyObject`, or `AnyObject` first among what it inherits.
    private func addAnyObjectFixIt() -> FixIt {
        var fixed = protocolDecl
        if var clause = fixed.inheritanceClause, let first = clause.inheritedTypes.first {
            let anyObject = InheritedTypeSyntax(
                leadingTrivia: first.leadingTrivia,
                type: TypeSyntax(IdentifierTypeSyntax(name: .identifier("AnyObject"))),
                trailingComma: .commaToken(trailingTrivia: .space))
            var types = Array(clause.inheritedTypes)
            types[0] = first.with(\.leadingTrivia, [])
            clause.inheritedTypes = InheritedTypeListSyntax([anyObject] + types)
            fixed.inheritanceClause = clause
        } else {
            let lastBeforeClause = fixed.primaryAssociatedTypeClause?.rightAngle ?? fixed.name
            let trailing = lastBeforeClause.trailingTrivia
            let clause = InheritanceClauseSyntax(
                colon: .colonToken(trailingTrivia: .space),
                inheritedTypes: [
                    InheritedTypeSyntax(
                        type: TypeSyntax(IdentifierTypeSyntax(name: .identifier("AnyObject", trailingTrivia: trailing))))
                ])
            if fixed.primaryAssociatedTypeClause != nil {
                fixed.primaryAssociatedTypeClause?.rightAngle.trailingTrivia = []
            } else {
                fixed.name.trailingTrivia = []
            }
            fixed.inheritanceClause = clause
        }
        return FixIt(
            message: MulticastFixIt.addAnyObject,
            changes: [.replace(oldNode: Syntax(protocolDecl), newNode: Syntax(fixed))])
    }

    // MARK: - Requirements

    /// One member of the multicast type per requirement, `#if` blocks
    /// mirrored.
    private mutating func forwardingMembers(of members: MemberBlockItemListSyntax) -> [String] {
        var written: [String] = []
        for member in members {
            let decl = member.decl
            if let function = decl.as(FunctionDeclSyntax.self) {
                written += forwardFunction(function).map { [$0] } ?? []
            } else if let variable = decl.as(VariableDeclSyntax.self) {
                written += forwardProperty(variable)
            } else if let subscriptDecl = decl.as(SubscriptDeclSyntax.self) {
                written += forwardSubscript(subscriptDecl).map { [$0] } ?? []
            } else if let associatedType = decl.as(AssociatedTypeDeclSyntax.self) {
                refuse(associatedType, .associatedType(name: associatedType.name.text))
            } else if let initializer = decl.as(InitializerDeclSyntax.self) {
                refuse(initializer.initKeyword, .initializer)
            } else if decl.is(TypeAliasDeclSyntax.self) {
                // A conforming type sees the protocol's type aliases.
            } else if let ifConfig = decl.as(IfConfigDeclSyntax.self) {
                written.append(mirror(ifConfig))
            } else {
                refuse(decl, .unsupportedMember)
            }
        }
        return written
    }

    private mutating func mirror(_ ifConfig: IfConfigDeclSyntax) -> String {
        var text = ""
        for clause in ifConfig.clauses {
            text += clause.poundKeyword.text
            if let condition = clause.condition {
                text += " " + condition.trimmedDescription
            }
            text += "\n"
            if case .decls(let members)? = clause.elements {
                text += forwardingMembers(of: members).map { $0 + "\n" }.joined(separator: "\n")
            }
        }
        return text + "#endif"
    }

    private mutating func forwardFunction(_ function: FunctionDeclSyntax) -> String? {
        let name = function.name.text
        let labels = function.signature.parameterClause.parameters.map { parameter in
            parameter.firstName.tokenKind == .wildcard ? "_:" : parameter.firstName.text + ":"
        }
        let description = "method '\(name)(\(labels.joined()))'"
        let errorsBefore = errorCount

        checkModifiers(function.modifiers, description: description)
        if let async = function.signature.effectSpecifiers?.asyncSpecifier {
            refuse(async, .asyncRequirement(description: description))
        }
        checkSelf(in: function, description: description)
        if name == "delegates" || (labels == ["_:"] && (name == "add" || name == "remove")) {
            refuse(function.name, .nameClash(description: description, typeName: typeName))
        }
        let parameters = forwardParameters(
            function.signature.parameterClause, isSubscript: false, description: description)
        let result = RequirementResult(function.signature.returnClause?.type)
        let fallback = Self.fallback(in: function.attributes)
        if result.shape == .value, fallback == nil, let resultType = result.type {
            refuseMissingFallback(on: function, resultType: resultType, description: description)
        }
        guard errorCount == errorsBefore else { return nil }

        let isGeneric =
            function.genericParameterClause != nil
            || function.signature.parameterClause.tokens(viewMode: .sourceAccurate).contains {
                $0.tokenKind == .keyword(.some)
            }
        let body = Self.forwardingBody(
            call: "$0.\(name)(\(parameters.arguments))", result: result, coerceResult: isGeneric,
            fallback: fallback, throwing: Throwing(function.signature.effectSpecifiers?.throwsClause))
        let signature = function.signature.with(\.parameterClause, parameters.clause)
        let header =
            declarationPrefix(function.attributes, function.modifiers)
            + "func \(name)\(function.genericParameterClause?.trimmedDescription ?? "")"
            + signature.trimmedDescription
            + (function.genericWhereClause.map { " " + $0.trimmedDescription } ?? "")
        return Self.outdented(header, by: function) + " {\n" + body.indented() + "\n}"
    }

    private mutating func forwardProperty(_ variable: VariableDeclSyntax) -> [String] {
        var written: [String] = []
        for binding in variable.bindings {
            let name = binding.pattern.trimmedDescription
            let description = "property '\(name)'"
            let errorsBefore = errorCount

            checkModifiers(variable.modifiers, description: description)
            checkSelf(in: variable, description: description)
            if name == "delegates" {
                refuse(binding.pattern, .nameClash(description: description, typeName: typeName))
            }
            let getter = checkAccessors(
                binding.accessorBlock, description: description,
                settable: .settableProperty(name: name))
            guard let type = binding.typeAnnotation?.type else { continue }
            let result = RequirementResult(type)
            let fallback = Self.fallback(in: variable.attributes)
            if result.shape == .value, fallback == nil {
                refuseMissingFallback(on: variable, resultType: type, description: description)
            }
            guard errorCount == errorsBefore else { continue }

            let body = Self.forwardingBody(
                call: "$0.\(name)", result: result, coerceResult: false, fallback: fallback,
                throwing: Throwing(getter?.effectSpecifiers?.throwsClause))
            let header =
                declarationPrefix(variable.attributes, variable.modifiers) + "var \(name): \(type.trimmedDescription)"
            written.append(
                Self.outdented(header, by: variable) + " {\n"
                    + Self.getter(body, effects: getter?.effectSpecifiers).indented() + "\n}")
        }
        return written
    }

    private mutating func forwardSubscript(_ subscriptDecl: SubscriptDeclSyntax) -> String? {
        let labels = subscriptDecl.parameterClause.parameters.map { parameter in
            parameter.secondName == nil || parameter.firstName.tokenKind == .wildcard
                ? "_:" : parameter.firstName.text + ":"
        }
        let description = "subscript 'subscript(\(labels.joined()))'"
        let errorsBefore = errorCount

        checkModifiers(subscriptDecl.modifiers, description: description)
        checkSelf(in: subscriptDecl, description: description)
        let getter = checkAccessors(
            subscriptDecl.accessorBlock, description: description, settable: .settableSubscript)
        let parameters = forwardParameters(
            subscriptDecl.parameterClause, isSubscript: true, description: description)
        let result = RequirementResult(subscriptDecl.returnClause.type)
        let fallback = Self.fallback(in: subscriptDecl.attributes)
        if result.shape == .value, fallback == nil {
            refuseMissingFallback(
                on: subscriptDecl, resultType: subscriptDecl.returnClause.type, description: description)
        }
        guard errorCount == errorsBefore else { return nil }

        let body = Self.forwardingBody(
            call: "$0[\(parameters.arguments)]", result: result,
            coerceResult: subscriptDecl.genericParameterClause != nil, fallback: fallback,
            throwing: Throwing(getter?.effectSpecifiers?.throwsClause))
        let header =
            declarationPrefix(subscriptDecl.attributes, subscriptDecl.modifiers)
            + "subscript\(subscriptDecl.genericParameterClause?.trimmedDescription ?? "")"
            + parameters.clause.trimmedDescription + " " + subscriptDecl.returnClause.trimmedDescription
            + (subscriptDecl.genericWhereClause.map { " " + $0.trimmedDescription } ?? "")
        return Self.outdented(header, by: subscriptDecl) + " {\n"
            + Self.getter(body, effects: getter?.effectSpecifiers).indented() + "\n}"
    }

    // MARK: - Checks shared by every kind of requirement

    private mutating func checkModifiers(_ modifiers: DeclModifierListSyntax, description: String) {
        for modifier in modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.static), .keyword(.class):
                refuse(modifier, .staticRequirement(description: description))
            case .keyword(.mutating):
                refuse(modifier, .mutatingRequirement(description: description))
            case .keyword(.nonisolated) where mayBeIsolatedToGlobalActor && !isSendable:
                refuse(modifier, .nonisolatedInIsolatedProtocol(description: description, protocolName: protocolName))
            default:
                break
            }
        }
    }

    private mutating func checkSelf(in requirement: some SyntaxProtocol, description: String) {
        if let selfToken = requirement.tokens(viewMode: .sourceAccurate).first(where: {
            $0.tokenKind == .keyword(.Self)
        }) {
            refuse(selfToken, .mentionsSelf(description: description))
        }
    }

    /// The getter of a property or subscript requirement, refusing a setter
    /// and any other accessor, and an async getter.
    private mutating func checkAccessors(
        _ block: AccessorBlockSyntax?, description: String, settable: MulticastDiagnostic
    ) -> AccessorDeclSyntax? {
        guard case .accessors(let accessors)? = block?.accessors else { return nil }
        var getter: AccessorDeclSyntax?
        for accessor in accessors {
            switch accessor.accessorSpecifier.tokenKind {
            case .keyword(.get):
                getter = accessor
                if let async = accessor.effectSpecifiers?.asyncSpecifier {
                    refuse(async, .asyncRequirement(description: description))
                }
            case .keyword(.set):
                refuse(accessor, settable)
            default:
                refuse(
                    accessor,
                    .unsupportedAccessor(description: description, accessor: accessor.accessorSpecifier.text))
            }
        }
        return getter
    }

    private mutating func refuseMissingFallback(
        on requirement: some WithAttributesSyntax, resultType: TypeSyntax, description: String
    ) {
        let placeholder: AttributeSyntax = "@MulticastFallback(<#value#>)"
        var marked = requirement.with(\.leadingTrivia, [])
        marked.attributes = AttributeListSyntax(
            [.attribute(placeholder.with(\.trailingTrivia, .space))] + Array(marked.attributes))
        marked.leadingTrivia = requirement.leadingTrivia
        diagnostics.append(
            Diagnostic(
                node: resultType,
                message: MulticastDiagnostic.missingFallback(
                    description: description, resultType: resultType.trimmedDescription),
                fixIts: [
                    FixIt(
                        message: MulticastFixIt.addFallback,
                        changes: [.replace(oldNode: Syntax(requirement), newNode: Syntax(marked))]),
                    FixIt(
                        message: MulticastFixIt.makeResultOptional,
                        changes: [.replace(oldNode: Syntax(resultType), newNode: Syntax(Self.optional(resultType)))]),
                ]))
    }

    /// `type?`, in parentheses where `?` would bind to a part of it.
    private static func optional(_ type: TypeSyntax) -> TypeSyntax {
        let plain = type.trimmed
        let wrapped: TypeSyntax
        if plain.is(IdentifierTypeSyntax.self) || plain.is(MemberTypeSyntax.self) || plain.is(ArrayTypeSyntax.self)
            || plain.is(DictionaryTypeSyntax.self) || plain.is(TupleTypeSyntax.self)
        {
            wrapped = plain
        } else {
            wrapped = TypeSyntax(TupleTypeSyntax(elements: [TupleTypeElementSyntax(type: plain)]))
        }
        return TypeSyntax(
            OptionalTypeSyntax(
                leadingTrivia: type.leadingTrivia, wrappedType: wrapped, trailingTrivia: type.trailingTrivia))
    }

    // MARK: - Parameters

    /// The parameter clause the forwarding member declares (every parameter
    /// named, so that it can be passed on) and the arguments it passes.
    private mutating func forwardParameters(
        _ clause: FunctionParameterClauseSyntax, isSubscript: Bool, description: String
    ) -> (clause: FunctionParameterClauseSyntax, arguments: String) {
        var usedNames = Set(
            clause.parameters.map { ($0.secondName ?? $0.firstName).text })
        var parameters: [FunctionParameterSyntax] = []
        var arguments: [String] = []
        for (index, parameter) in clause.parameters.enumerated() {
            var forwarded = parameter
            var name = parameter.secondName ?? parameter.firstName
            if name.tokenKind == .wildcard {
                var unique = "argument\(index + 1)"
                while usedNames.contains(unique) { unique += "_" }
                usedNames.insert(unique)
                name = .identifier(unique)
                forwarded.firstName = parameter.firstName.with(\.trailingTrivia, .space)
                forwarded.secondName = name
            }
            let hasLabel =
                parameter.firstName.tokenKind != .wildcard && (!isSubscript || parameter.secondName != nil)
            let parameterName = (parameter.secondName ?? parameter.firstName).trimmedDescription
            if parameter.ellipsis != nil {
                refuse(parameter, .variadicParameter(description: description, parameter: parameterName))
            }
            let specifiers = Self.specifiers(of: parameter.type)
            if specifiers.contains(.keyword(.sending)) {
                refuse(parameter, .sendingParameter(description: description, parameter: parameterName))
            }
            var argument = name.text
            if specifiers.contains(.keyword(.inout)) {
                argument = "&" + argument
            } else if Self.isAutoclosure(parameter.type) {
                // Each delegate's own autoclosure evaluates the caller's, when it wants to.
                argument += "()"
            }
            parameters.append(forwarded)
            arguments.append(hasLabel ? "\(Self.callLabel(parameter.firstName)): \(argument)" : argument)
        }
        return (
            clause.with(\.parameters, FunctionParameterListSyntax(parameters)),
            arguments.joined(separator: ", ")
        )
    }

    /// An argument label as a call writes it: a keyword needs no backticks
    /// there, except the three that a call cannot take bare.
    private static func callLabel(_ label: TokenSyntax) -> String {
        let text = label.text
        guard text.hasPrefix("`"), text.hasSuffix("`"), text.count > 2 else { return text }
        let bare = String(text.dropFirst().dropLast())
        return ["inout", "var", "let"].contains(bare) ? text : bare
    }

    private static func specifiers(of type: TypeSyntax) -> [TokenKind] {
        guard let attributed = type.as(AttributedTypeSyntax.self) else { return [] }
        return attributed.specifiers.compactMap { $0.firstToken(viewMode: .sourceAccurate)?.tokenKind }
    }

    private static func isAutoclosure(_ type: TypeSyntax) -> Bool {
        guard let attributed = type.as(AttributedTypeSyntax.self) else { return false }
        return attributed.attributes.contains { element in
            element.as(AttributeSyntax.self)?.attributeName.trimmedDescription == "autoclosure"
        }
    }

    // MARK: - Bodies

    /// What a requirement returns, as far as forwarding cares.
    struct RequirementResult {
        enum Shape { case void, optional, value }
        let type: TypeSyntax?
        let shape: Shape

        init(_ type: TypeSyntax?) {
            self.type = type
            self.shape = type.map(Self.shape(of:)) ?? .void
        }

        private static func shape(of type: TypeSyntax) -> Shape {
            if let attributed = type.as(AttributedTypeSyntax.self) {
                return shape(of: attributed.baseType)
            }
            if let tuple = type.as(TupleTypeSyntax.self) {
                if tuple.elements.isEmpty { return .void }
                if tuple.elements.count == 1, let only = tuple.elements.first, only.firstName == nil {
                    return shape(of: only.type)
                }
                return .value
            }
            if type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
                return .optional
            }
            let name: String
            if let identifier = type.as(IdentifierTypeSyntax.self) {
                name = identifier.name.text
            } else if let member = type.as(MemberTypeSyntax.self), member.baseType.trimmedDescription == "Swift" {
                name = member.name.text
            } else {
                return .value
            }
            switch name {
            case "Void": return .void
            case "Optional": return .optional
            default: return .value
            }
        }
    }

    /// How a requirement throws.
    enum Throwing: Equatable {
        case none
        /// `throws` or `rethrows`, which `MulticastDelegate.invoke` passes on.
        case untyped
        /// `throws(E)`: `invoke` rethrows `any Error`, which can only be an `E`.
        case typed(String)

        init(_ clause: ThrowsClauseSyntax?) {
            guard let clause else {
                self = .none
                return
            }
            guard let type = clause.type?.trimmedDescription else {
                self = .untyped
                return
            }
            switch type {
            case "Never", "Swift.Never": self = .none
            case "any Error", "Error", "any Swift.Error", "Swift.Error": self = .untyped
            default: self = .typed(type)
            }
        }
    }

    /// The statements that forward one call: every delegate in order, the
    /// first non-nil result, the fallback when there is none.
    static func forwardingBody(
        call: String, result: RequirementResult, coerceResult: Bool, fallback: ExprSyntax?, throwing: Throwing
    ) -> String {
        let tryMark = throwing == .none ? "" : "try "
        var delegateCall = tryMark + call
        if coerceResult, result.shape != .void, let type = result.type {
            // Pins a generic result to the requirement's own type.
            delegateCall += " as \(type.trimmedDescription)"
        }
        var expression = "\(tryMark)self.delegates.invoke { \(delegateCall) }"
        if let fallback, result.shape != .void {
            expression += " ?? " + Self.operand(fallback)
        }
        guard case .typed(let errorType) = throwing else { return expression }
        return """
            do {
                \(result.shape == .void ? "" : "return ")\(expression)
            } catch {
                throw error as! \(errorType)
            }
            """
    }

    /// `expression`, in parentheses unless it is one term.
    private static func operand(_ expression: ExprSyntax) -> String {
        let plain = expression.trimmed
        let isTerm =
            plain.is(BooleanLiteralExprSyntax.self) || plain.is(IntegerLiteralExprSyntax.self)
            || plain.is(FloatLiteralExprSyntax.self) || plain.is(StringLiteralExprSyntax.self)
            || plain.is(NilLiteralExprSyntax.self) || plain.is(DeclReferenceExprSyntax.self)
            || plain.is(MemberAccessExprSyntax.self) || plain.is(FunctionCallExprSyntax.self)
            || plain.is(ArrayExprSyntax.self) || plain.is(DictionaryExprSyntax.self)
            || plain.is(TupleExprSyntax.self)
        return isTerm ? plain.description : "(\(plain.description))"
    }

    /// A getter's body, with `get throws { … }` around it when it has effects.
    private static func getter(_ body: String, effects: AccessorEffectSpecifiersSyntax?) -> String {
        guard let effects, effects.throwsClause != nil else { return body }
        return "get \(effects.trimmedDescription) {\n" + body.indented() + "\n}"
    }

    /// The attributes (without `@MulticastFallback`) and modifiers a
    /// forwarding member repeats, after its access level.
    private func declarationPrefix(_ attributes: AttributeListSyntax, _ modifiers: DeclModifierListSyntax) -> String {
        let attributeLines = attributes
            .filter { !Self.isMacroAttribute($0, named: "MulticastFallback") }
            .map { $0.trimmedDescription + "\n" }
            .joined()
        let modifierWords = modifiers.map { $0.trimmedDescription + " " }.joined()
        return attributeLines + memberAccess + modifierWords
    }

    // MARK: - Helpers

    /// `text`, copied from `requirement`, with the requirement's own
    /// indentation taken off the lines after the first, so that a signature
    /// written over several lines keeps its shape in the multicast type.
    static func outdented(_ text: String, by requirement: some SyntaxProtocol) -> String {
        var indentation = ""
        for piece in requirement.leadingTrivia.pieces {
            switch piece {
            case .newlines, .carriageReturns, .carriageReturnLineFeeds: indentation = ""
            case .spaces(let count): indentation += String(repeating: " ", count: count)
            case .tabs(let count): indentation += String(repeating: "\t", count: count)
            default: break
            }
        }
        guard !indentation.isEmpty else { return text }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return ([String(lines[0])] + lines.dropFirst().map { line in
            line.hasPrefix(indentation) ? String(line.dropFirst(indentation.count)) : String(line)
        }).joined(separator: "\n")
    }

    static func isMacroAttribute(_ element: AttributeListSyntax.Element, named name: String) -> Bool {
        guard case .attribute(let attribute) = element else { return false }
        let written = attribute.attributeName.trimmedDescription
        return written == name || written == "EventKitMulticast." + name
    }

    /// The value of the requirement's `@MulticastFallback(value)`.
    static func fallback(in attributes: AttributeListSyntax) -> ExprSyntax? {
        for element in attributes where isMacroAttribute(element, named: "MulticastFallback") {
            if case .attribute(let attribute) = element,
                case .argumentList(let arguments)? = attribute.arguments,
                let value = arguments.first?.expression
            {
                return value
            }
        }
        return nil
    }

    private var errorCount: Int {
        diagnostics.count { $0.diagMessage.severity == .error }
    }

    private mutating func refuse(_ node: some SyntaxProtocol, _ message: MulticastDiagnostic) {
        diagnostics.append(Diagnostic(node: node, message: message))
    }
}

extension String {
    /// Every line but empty ones indented by four spaces.
    func indented() -> String {
        split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.isEmpty ? "" : "    " + $0 }
            .joined(separator: "\n")
    }
}
