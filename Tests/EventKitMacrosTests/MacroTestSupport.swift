import EventKitMacros
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// The macros under test, by the names a source file uses.
var multicastMacros: [String: MacroSpec] {
    [
        "Multicast": MacroSpec(type: MulticastMacro.self),
        "MulticastFallback": MacroSpec(type: MulticastFallbackMacro.self),
    ]
}

/// swift-syntax's `assertMacroExpansion`, failing the swift-testing test
/// that calls it. (SwiftSyntaxMacrosTestSupport's version of it reports
/// through `XCTFail`, which a swift-testing test does not see: it passes.)
func assertExpansion(
    _ source: String,
    expandedSource: String,
    diagnostics: [DiagnosticSpec] = [],
    applyFixIts: [String]? = nil,
    fixedSource: String? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) {
    assertMacroExpansion(
        source,
        expandedSource: expandedSource,
        diagnostics: diagnostics,
        macroSpecs: multicastMacros,
        applyFixIts: applyFixIts,
        fixedSource: fixedSource,
        failureHandler: { failure in
            Issue.record(
                Comment(rawValue: failure.message),
                sourceLocation: SourceLocation(
                    fileID: failure.location.fileID, filePath: failure.location.filePath,
                    line: failure.location.line, column: failure.location.column))
        },
        fileID: fileID,
        filePath: filePath,
        line: line,
        column: column)
}
