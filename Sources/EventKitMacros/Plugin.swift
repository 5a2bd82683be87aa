import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin that carries EventKitMulticast's macros.
@main
struct EventKitMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [MulticastMacro.self, MulticastFallbackMacro.self]
}
