import SwiftDiagnostics
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// What `@Multicast` refuses: an error on the requirement it cannot forward,
/// and then no class at all.
@Suite("@Multicast: refusals")
struct MulticastDiagnosticsTests {
    @Test func declarationThatIsNotAProtocolIsRefused() {
        assertExpansion(
            """
            @Multicast
            final class ScrollView {}
            """,
            expandedSource: """
                final class ScrollView {}
                """,
            diagnostics: [
                DiagnosticSpec(message: "@Multicast applies to a protocol", line: 1, column: 1)
            ])
    }

    @Test func protocolThatIsNotClassBoundIsRefusedWithAFixIt() {
        assertExpansion(
            """
            @Multicast
            protocol ScrollViewDelegate {
                func scrollViewDidScroll()
            }
            """,
            expandedSource: """
                protocol ScrollViewDelegate {
                    func scrollViewDidScroll()
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@Multicast needs a class-bound protocol: a multicast delegate holds its delegates "
                        + "weakly, and only objects can be held weakly; declare 'ScrollViewDelegate: AnyObject'",
                    line: 2, column: 10, fixIts: [FixItSpec(message: "add 'AnyObject'")])
            ],
            fixedSource: """
                @Multicast
                protocol ScrollViewDelegate: AnyObject {
                    func scrollViewDidScroll()
                }
                """)
    }

    @Test func sendableAloneIsNotClassBoundAndTheFixItAddsAnyObjectFirst() {
        assertExpansion(
            """
            @Multicast
            protocol ScrollViewDelegate: Sendable {}
            """,
            expandedSource: """
                protocol ScrollViewDelegate: Sendable {}
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@Multicast needs a class-bound protocol: a multicast delegate holds its delegates "
                        + "weakly, and only objects can be held weakly; declare 'ScrollViewDelegate: AnyObject'",
                    line: 2, column: 10, fixIts: [FixItSpec(message: "add 'AnyObject'")])
            ],
            fixedSource: """
                @Multicast
                protocol ScrollViewDelegate: AnyObject, Sendable {}
                """)
    }

    @Test func inheritedProtocolIsRefusedBecauseItsRequirementsAreUnseen() {
        assertExpansion(
            """
            @Multicast
            protocol TableViewDelegate: ScrollViewDelegate, AnyObject {}
            """,
            expandedSource: """
                protocol TableViewDelegate: ScrollViewDelegate, AnyObject {}
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'TableViewDelegate' inherits from 'ScrollViewDelegate', whose requirements "
                        + "@Multicast cannot see, so it cannot forward them; a multicast protocol may inherit "
                        + "only AnyObject and Sendable",
                    line: 2, column: 29)
            ])
    }

    @Test func whereClauseAndAssociatedTypesAreRefused() {
        assertExpansion(
            """
            @Multicast
            protocol ListDelegate<Item>: AnyObject where Self: Sendable {
                associatedtype Item
                func list(didSelect item: Item)
            }
            """,
            expandedSource: """
                protocol ListDelegate<Item>: AnyObject where Self: Sendable {
                    associatedtype Item
                    func list(didSelect item: Item)
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'ListDelegate' has a 'where' clause, which @Multicast cannot make its type satisfy; "
                        + "a multicast protocol may inherit only AnyObject and Sendable",
                    line: 2, column: 40),
                DiagnosticSpec(
                    message: "'ListDelegate' has primary associated types; @Multicast forwards to delegates "
                        + "of one existential type, which cannot name them",
                    line: 2, column: 22),
                DiagnosticSpec(
                    message: "associated type 'Item' cannot be forwarded: each delegate may choose its own, "
                        + "so no single type can conform for all of them",
                    line: 3, column: 5),
            ])
    }

    @Test func staticRequirementsAndInitializersAreRefused() {
        assertExpansion(
            """
            @Multicast
            protocol FactoryDelegate: AnyObject {
                static func makeDefault() -> Int
                static var shared: Int { get }
                init(name: String)
            }
            """,
            expandedSource: """
                protocol FactoryDelegate: AnyObject {
                    static func makeDefault() -> Int
                    static var shared: Int { get }
                    init(name: String)
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "method 'makeDefault()' is static and cannot be forwarded: the delegates are instances",
                    line: 3, column: 5),
                DiagnosticSpec(
                    message: "method 'makeDefault()' returns 'Int', which needs a value when there is no "
                        + "delegate: mark it '@MulticastFallback(value)' or make the result optional",
                    line: 3, column: 34,
                    fixIts: [FixItSpec(message: "add '@MulticastFallback'"), FixItSpec(message: "make the result optional")]),
                DiagnosticSpec(
                    message: "property 'shared' is static and cannot be forwarded: the delegates are instances",
                    line: 4, column: 5),
                DiagnosticSpec(
                    message: "property 'shared' returns 'Int', which needs a value when there is no "
                        + "delegate: mark it '@MulticastFallback(value)' or make the result optional",
                    line: 4, column: 24,
                    fixIts: [FixItSpec(message: "add '@MulticastFallback'"), FixItSpec(message: "make the result optional")]),
                DiagnosticSpec(
                    message: "an initializer cannot be forwarded: it makes an object rather than asking the delegates",
                    line: 5, column: 5),
            ])
    }

    @Test func settablePropertyAndSubscriptAreRefused() {
        assertExpansion(
            """
            @Multicast
            protocol FormDelegate: AnyObject {
                var draft: String? { get set }
                subscript(field: String) -> String? { get set }
                var status: String? { get _modify }
            }
            """,
            expandedSource: """
                protocol FormDelegate: AnyObject {
                    var draft: String? { get set }
                    subscript(field: String) -> String? { get set }
                    var status: String? { get _modify }
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "property 'draft' has a setter, which cannot be forwarded: setting every delegate "
                        + "and reading the first one's value has no single meaning; declare it '{ get }'",
                    line: 3, column: 30),
                DiagnosticSpec(
                    message: "a subscript with a setter cannot be forwarded: setting every delegate and reading "
                        + "the first one's value has no single meaning; declare it '{ get }'",
                    line: 4, column: 47),
                DiagnosticSpec(
                    message: "property 'status' has a '_modify' accessor, which cannot be forwarded; declare it '{ get }'",
                    line: 5, column: 31),
            ])
    }

    @Test func asyncRequirementsAreRefused() {
        assertExpansion(
            """
            @Multicast
            protocol DownloadDelegate: AnyObject {
                func downloadDidFinish() async
                var progress: Double? { get async }
            }
            """,
            expandedSource: """
                protocol DownloadDelegate: AnyObject {
                    func downloadDidFinish() async
                    var progress: Double? { get async }
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "method 'downloadDidFinish()' is async and cannot be forwarded: a multicast delegate "
                        + "calls its delegates synchronously, so that a removed delegate is never called once "
                        + "'remove' has returned",
                    line: 3, column: 30),
                DiagnosticSpec(
                    message: "property 'progress' is async and cannot be forwarded: a multicast delegate "
                        + "calls its delegates synchronously, so that a removed delegate is never called once "
                        + "'remove' has returned",
                    line: 4, column: 33),
            ])
    }

    @Test func mutatingAndSelfMentioningRequirementsAreRefused() {
        assertExpansion(
            """
            @Multicast
            protocol NodeDelegate: AnyObject {
                mutating func reset()
                func copy() -> Self?
                func isSame(as other: Self) -> Bool?
            }
            """,
            expandedSource: """
                protocol NodeDelegate: AnyObject {
                    mutating func reset()
                    func copy() -> Self?
                    func isSame(as other: Self) -> Bool?
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "method 'reset()' is 'mutating', which a class cannot implement", line: 3, column: 5),
                DiagnosticSpec(
                    message: "method 'copy()' mentions 'Self', which in the multicast type would be the multicast "
                        + "type itself, never a delegate's type",
                    line: 4, column: 20),
                DiagnosticSpec(
                    message: "method 'isSame(as:)' mentions 'Self', which in the multicast type would be the "
                        + "multicast type itself, never a delegate's type",
                    line: 5, column: 27),
            ])
    }

    @Test func nonisolatedRequirementOfANonSendableIsolatedProtocolIsRefused() {
        assertExpansion(
            """
            @MainActor
            @Multicast
            protocol CanvasDelegate: AnyObject {
                nonisolated func canvasName() -> String?
            }
            """,
            expandedSource: """
                @MainActor
                protocol CanvasDelegate: AnyObject {
                    nonisolated func canvasName() -> String?
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "method 'canvasName()' is 'nonisolated', but the multicast type keeps its delegates "
                        + "on the protocol's global actor, since 'CanvasDelegate' is not Sendable; make the "
                        + "protocol Sendable, or the requirement isolated",
                    line: 4, column: 5)
            ])
    }

    @Test func variadicAndSendingParametersAreRefused() {
        assertExpansion(
            """
            @Multicast
            protocol LogDelegate: AnyObject {
                func log(_ items: Any..., separator: String)
                func take(_ buffer: sending Buffer)
            }
            """,
            expandedSource: """
                protocol LogDelegate: AnyObject {
                    func log(_ items: Any..., separator: String)
                    func take(_ buffer: sending Buffer)
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "method 'log(_:separator:)' has the variadic parameter 'items', which cannot be "
                        + "passed on: Swift cannot pass an array as variadic arguments; take an array instead",
                    line: 3, column: 14),
                DiagnosticSpec(
                    message: "method 'take(_:)' takes 'buffer' as 'sending', which can be passed on to one "
                        + "delegate only",
                    line: 4, column: 15),
            ])
    }

    @Test func nonOptionalResultWithoutFallbackIsRefusedWithTwoFixIts() {
        let source = """
            @Multicast
            protocol ScrollViewDelegate: AnyObject {
                func scrollViewShouldScrollToTop(_ scrollView: ScrollView) -> Bool
            }
            """
        let diagnostic = DiagnosticSpec(
            message: "method 'scrollViewShouldScrollToTop(_:)' returns 'Bool', which needs a value when there "
                + "is no delegate: mark it '@MulticastFallback(value)' or make the result optional",
            line: 3, column: 67,
            fixIts: [FixItSpec(message: "add '@MulticastFallback'"), FixItSpec(message: "make the result optional")])
        let expanded = """
            protocol ScrollViewDelegate: AnyObject {
                func scrollViewShouldScrollToTop(_ scrollView: ScrollView) -> Bool
            }
            """
        assertExpansion(
            source, expandedSource: expanded, diagnostics: [diagnostic],
            applyFixIts: ["add '@MulticastFallback'"],
            fixedSource: """
                @Multicast
                protocol ScrollViewDelegate: AnyObject {
                    @MulticastFallback(<#value#>) func scrollViewShouldScrollToTop(_ scrollView: ScrollView) -> Bool
                }
                """)
        assertExpansion(
            source, expandedSource: expanded, diagnostics: [diagnostic],
            applyFixIts: ["make the result optional"],
            fixedSource: """
                @Multicast
                protocol ScrollViewDelegate: AnyObject {
                    func scrollViewShouldScrollToTop(_ scrollView: ScrollView) -> Bool?
                }
                """)
    }

    @Test func optionalFixItParenthesizesAFunctionType() {
        assertExpansion(
            """
            @Multicast
            protocol HandlerDelegate: AnyObject {
                var handler: () -> Void { get }
            }
            """,
            expandedSource: """
                protocol HandlerDelegate: AnyObject {
                    var handler: () -> Void { get }
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "property 'handler' returns '() -> Void', which needs a value when there is no "
                        + "delegate: mark it '@MulticastFallback(value)' or make the result optional",
                    line: 3, column: 18,
                    fixIts: [FixItSpec(message: "add '@MulticastFallback'"), FixItSpec(message: "make the result optional")])
            ],
            applyFixIts: ["make the result optional"],
            fixedSource: """
                @Multicast
                protocol HandlerDelegate: AnyObject {
                    var handler: (() -> Void)? { get }
                }
                """)
    }

    @Test func requirementNamedLikeTheClassesOwnMembersIsRefused() {
        assertExpansion(
            """
            @Multicast
            protocol PlaylistDelegate: AnyObject {
                var delegates: [String]? { get }
                func add(_ song: Song)
                func add(song: Song)
            }
            """,
            expandedSource: """
                protocol PlaylistDelegate: AnyObject {
                    var delegates: [String]? { get }
                    func add(_ song: Song)
                    func add(song: Song)
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "property 'delegates' has the name of a member 'MulticastPlaylistDelegate' declares "
                        + "to manage its delegates; rename the requirement",
                    line: 3, column: 9),
                DiagnosticSpec(
                    message: "method 'add(_:)' has the name of a member 'MulticastPlaylistDelegate' declares "
                        + "to manage its delegates; rename the requirement",
                    line: 4, column: 10),
            ])
    }

    @Test func declarationTheMacroCannotSeeIntoIsRefused() {
        assertExpansion(
            """
            @Multicast
            protocol GeneratedDelegate: AnyObject {
                #requirements(for: Model.self)
            }
            """,
            expandedSource: """
                protocol GeneratedDelegate: AnyObject {
                    #requirements(for: Model.self)
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@Multicast cannot see what this declaration adds to the protocol, so it cannot "
                        + "forward it",
                    line: 3, column: 5)
            ])
    }
}

/// `@MulticastFallback` says when it has no effect.
@Suite("@MulticastFallback: misplaced")
struct MulticastFallbackDiagnosticsTests {
    @Test func fallbackOnAMethodWithoutResultWarns() {
        assertExpansion(
            """
            @Multicast
            protocol ScrollViewDelegate: AnyObject {
                @MulticastFallback(true)
                func scrollViewDidScroll()
            }
            """,
            expandedSource: """
                protocol ScrollViewDelegate: AnyObject {
                    func scrollViewDidScroll()
                }

                \(classHead("ScrollViewDelegate"))
                    func scrollViewDidScroll() {
                        self.delegates.invoke { $0.scrollViewDidScroll() }
                    }
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "method 'scrollViewDidScroll' returns nothing, so @MulticastFallback has no effect on it",
                    line: 3, column: 5, severity: .warning)
            ])
    }

    @Test func fallbackOutsideAMulticastProtocolWarns() {
        assertExpansion(
            """
            protocol ScrollViewDelegate: AnyObject {
                @MulticastFallback(true)
                func scrollViewShouldScrollToTop() -> Bool
            }
            """,
            expandedSource: """
                protocol ScrollViewDelegate: AnyObject {
                    func scrollViewShouldScrollToTop() -> Bool
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@MulticastFallback has an effect only on a requirement of a @Multicast protocol",
                    line: 2, column: 5, severity: .warning)
            ])
    }

    @Test func fallbackOnATypeIsAnError() {
        assertExpansion(
            """
            @MulticastFallback(0)
            struct Page {}
            """,
            expandedSource: """
                struct Page {}
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@MulticastFallback applies to a method, read-only property or subscript requirement "
                        + "of a @Multicast protocol",
                    line: 1, column: 1)
            ])
    }
}
