import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@MulticastFallback(value)`: a marker that `@Multicast` reads on a
/// requirement. It writes nothing itself; it only says when it is in a place
/// where it has no effect.
public struct MulticastFallbackMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        if let function = declaration.as(FunctionDeclSyntax.self) {
            if MulticastWriter.RequirementResult(function.signature.returnClause?.type).shape == .void {
                context.diagnose(
                    Diagnostic(
                        node: node,
                        message: MulticastDiagnostic.fallbackWithoutResult(
                            description: "method '\(function.name.text)'")))
                return []
            }
        } else if !declaration.is(VariableDeclSyntax.self), !declaration.is(SubscriptDeclSyntax.self) {
            context.diagnose(Diagnostic(node: node, message: MulticastDiagnostic.fallbackOnWrongDeclaration))
            return []
        }
        if !isInMulticastProtocol(context.lexicalContext) {
            context.diagnose(Diagnostic(node: node, message: MulticastDiagnostic.fallbackOutsideMulticastProtocol))
        }
        return []
    }

    /// Whether the innermost type around the requirement is a protocol
    /// marked `@Multicast`.
    private static func isInMulticastProtocol(_ lexicalContext: [Syntax]) -> Bool {
        for enclosing in lexicalContext {
            if let protocolDecl = enclosing.as(ProtocolDeclSyntax.self) {
                return protocolDecl.attributes.contains { MulticastWriter.isMacroAttribute($0, named: "Multicast") }
            }
            if enclosing.is(ClassDeclSyntax.self) || enclosing.is(StructDeclSyntax.self)
                || enclosing.is(EnumDeclSyntax.self) || enclosing.is(ActorDeclSyntax.self)
                || enclosing.is(ExtensionDeclSyntax.self)
            {
                return false
            }
        }
        return false
    }
}
