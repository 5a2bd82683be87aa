import Testing

/// What `@Multicast` writes for each shape of requirement. The first test
/// spells the whole class out; the others write its fixed part with
/// `classHead` and spell out the members.
@Suite("@Multicast: expansions")
struct MulticastExpansionTests {
    @Test func voidMethodCallsEveryDelegate() {
        assertExpansion(
            """
            @Multicast
            protocol ScrollViewDelegate: AnyObject {
                func scrollViewDidScroll(_ scrollView: ScrollView)
            }
            """,
            expandedSource: """
                protocol ScrollViewDelegate: AnyObject {
                    func scrollViewDidScroll(_ scrollView: ScrollView)
                }

                /// A `ScrollViewDelegate` that passes each call on to its delegates, in
                /// order, holding them weakly. Written by `@Multicast`.
                final class MulticastScrollViewDelegate: ScrollViewDelegate {
                    /// The delegates, held weakly, in call order.
                    let delegates: EventKitSwift.MulticastDelegate<any ScrollViewDelegate>

                    /// Creates a multicast delegate with no delegates; `name` is for descriptions.
                    init(name: Swift.String = "") {
                        self.delegates = EventKitSwift.MulticastDelegate(name: name)
                    }

                    /// Adds `delegate` at the end, unless it is already present. It is held
                    /// weakly: keep a strong reference to it elsewhere.
                    func add(_ delegate: any ScrollViewDelegate) {
                        self.delegates.add(delegate)
                    }

                    /// Removes `delegate` and returns whether it was present; once this
                    /// returns, it is not called again.
                    @discardableResult
                    func remove(_ delegate: any ScrollViewDelegate) -> Swift.Bool {
                        self.delegates.remove(delegate)
                    }

                    func scrollViewDidScroll(_ scrollView: ScrollView) {
                        self.delegates.invoke { $0.scrollViewDidScroll(scrollView) }
                    }
                }
                """)
    }

    @Test func resultWithFallbackIsTheFirstDelegatesOrTheFallback() {
        assertExpansion(
            """
            @Multicast
            protocol ScrollViewDelegate: AnyObject {
                @MulticastFallback(true)
                func scrollViewShouldScrollToTop(_ scrollView: ScrollView) -> Bool
                @MulticastFallback(Limits.lowest + 1)
                func zoomLevel(for scrollView: ScrollView) -> Int
            }
            """,
            expandedSource: """
                protocol ScrollViewDelegate: AnyObject {
                    func scrollViewShouldScrollToTop(_ scrollView: ScrollView) -> Bool
                    func zoomLevel(for scrollView: ScrollView) -> Int
                }

                \(classHead("ScrollViewDelegate"))
                    func scrollViewShouldScrollToTop(_ scrollView: ScrollView) -> Bool {
                        self.delegates.invoke { $0.scrollViewShouldScrollToTop(scrollView) } ?? true
                    }

                    func zoomLevel(for scrollView: ScrollView) -> Int {
                        self.delegates.invoke { $0.zoomLevel(for: scrollView) } ?? (Limits.lowest + 1)
                    }
                }
                """)
    }

    @Test func optionalResultIsTheFirstNonNilValueAndNeedsNoFallback() {
        assertExpansion(
            """
            @Multicast
            protocol ZoomDelegate: AnyObject {
                func viewForZooming(in scrollView: ScrollView) -> View?
                func anchor(for scrollView: ScrollView) -> Optional<Point>
                @MulticastFallback("untitled")
                func title(for scrollView: ScrollView) -> String?
            }
            """,
            expandedSource: """
                protocol ZoomDelegate: AnyObject {
                    func viewForZooming(in scrollView: ScrollView) -> View?
                    func anchor(for scrollView: ScrollView) -> Optional<Point>
                    func title(for scrollView: ScrollView) -> String?
                }

                \(classHead("ZoomDelegate"))
                    func viewForZooming(in scrollView: ScrollView) -> View? {
                        self.delegates.invoke { $0.viewForZooming(in: scrollView) }
                    }

                    func anchor(for scrollView: ScrollView) -> Optional<Point> {
                        self.delegates.invoke { $0.anchor(for: scrollView) }
                    }

                    func title(for scrollView: ScrollView) -> String? {
                        self.delegates.invoke { $0.title(for: scrollView) } ?? "untitled"
                    }
                }
                """)
    }

    @Test func readOnlyPropertiesAndSubscriptsForwardTheirGetters() {
        assertExpansion(
            """
            @Multicast
            protocol TableDataSource: AnyObject {
                @MulticastFallback(0)
                var numberOfRows: Int { get }
                var title: String? { get }
                subscript(row: Int) -> String? { get }
                subscript(_ section: Int, row row: Int) -> Cell? { get }
            }
            """,
            expandedSource: """
                protocol TableDataSource: AnyObject {
                    var numberOfRows: Int { get }
                    var title: String? { get }
                    subscript(row: Int) -> String? { get }
                    subscript(_ section: Int, row row: Int) -> Cell? { get }
                }

                \(classHead("TableDataSource"))
                    var numberOfRows: Int {
                        self.delegates.invoke { $0.numberOfRows } ?? 0
                    }

                    var title: String? {
                        self.delegates.invoke { $0.title }
                    }

                    subscript(row: Int) -> String? {
                        self.delegates.invoke { $0[row] }
                    }

                    subscript(_ section: Int, row row: Int) -> Cell? {
                        self.delegates.invoke { $0[section, row: row] }
                    }
                }
                """)
    }

    @Test func throwingRequirementsForwardWithTry() {
        assertExpansion(
            """
            @Multicast
            protocol DocumentDelegate: AnyObject {
                func documentWillSave(_ document: Document) throws
                func each(_ body: (Page) throws -> Void) rethrows
                func validate(_ document: Document) throws(ValidationError) -> Report?
                var summary: String? { get throws }
                func render(_ document: Document) throws(Never)
            }
            """,
            expandedSource: """
                protocol DocumentDelegate: AnyObject {
                    func documentWillSave(_ document: Document) throws
                    func each(_ body: (Page) throws -> Void) rethrows
                    func validate(_ document: Document) throws(ValidationError) -> Report?
                    var summary: String? { get throws }
                    func render(_ document: Document) throws(Never)
                }

                \(classHead("DocumentDelegate"))
                    func documentWillSave(_ document: Document) throws {
                        try self.delegates.invoke { try $0.documentWillSave(document) }
                    }

                    func each(_ body: (Page) throws -> Void) rethrows {
                        try self.delegates.invoke { try $0.each(body) }
                    }

                    func validate(_ document: Document) throws(ValidationError) -> Report? {
                        do {
                            return try self.delegates.invoke { try $0.validate(document) }
                        } catch {
                            throw error as! ValidationError
                        }
                    }

                    var summary: String? {
                        get throws {
                            try self.delegates.invoke { try $0.summary }
                        }
                    }

                    func render(_ document: Document) throws(Never) {
                        self.delegates.invoke { $0.render(document) }
                    }
                }
                """)
    }

    @Test func labelsNamesAndParameterKindsArePassedOn() {
        assertExpansion(
            """
            @Multicast
            protocol EditorDelegate: AnyObject {
                func editor(_ editor: Editor, didMoveFrom start: Int, to end: Int)
                func editorDidChange(_: Editor, count _: Int)
                func adjust(_ range: inout Range<Int>)
                func log(_ message: @autoclosure () -> String)
                func editor(_ editor: Editor, onSave completion: @escaping @Sendable (Bool) -> Void)
                func `default`(`for` key: String)
            }
            """,
            expandedSource: """
                protocol EditorDelegate: AnyObject {
                    func editor(_ editor: Editor, didMoveFrom start: Int, to end: Int)
                    func editorDidChange(_: Editor, count _: Int)
                    func adjust(_ range: inout Range<Int>)
                    func log(_ message: @autoclosure () -> String)
                    func editor(_ editor: Editor, onSave completion: @escaping @Sendable (Bool) -> Void)
                    func `default`(`for` key: String)
                }

                \(classHead("EditorDelegate"))
                    func editor(_ editor: Editor, didMoveFrom start: Int, to end: Int) {
                        self.delegates.invoke { $0.editor(editor, didMoveFrom: start, to: end) }
                    }

                    func editorDidChange(_ argument1: Editor, count argument2: Int) {
                        self.delegates.invoke { $0.editorDidChange(argument1, count: argument2) }
                    }

                    func adjust(_ range: inout Range<Int>) {
                        self.delegates.invoke { $0.adjust(&range) }
                    }

                    func log(_ message: @autoclosure () -> String) {
                        self.delegates.invoke { $0.log(message()) }
                    }

                    func editor(_ editor: Editor, onSave completion: @escaping @Sendable (Bool) -> Void) {
                        self.delegates.invoke { $0.editor(editor, onSave: completion) }
                    }

                    func `default`(`for` key: String) {
                        self.delegates.invoke { $0.`default`(for: key) }
                    }
                }
                """)
    }

    @Test func genericMethodPinsItsResultToItsOwnType() {
        assertExpansion(
            """
            @Multicast
            protocol DecoderDelegate: AnyObject {
                func decode<Value: Decodable>(_ type: Value.Type, forKey key: String) -> Value?
                func encode(_ value: some Encodable) -> Data?
                func notify<Event>(_ event: Event) where Event: Sendable
            }
            """,
            expandedSource: """
                protocol DecoderDelegate: AnyObject {
                    func decode<Value: Decodable>(_ type: Value.Type, forKey key: String) -> Value?
                    func encode(_ value: some Encodable) -> Data?
                    func notify<Event>(_ event: Event) where Event: Sendable
                }

                \(classHead("DecoderDelegate"))
                    func decode<Value: Decodable>(_ type: Value.Type, forKey key: String) -> Value? {
                        self.delegates.invoke { $0.decode(type, forKey: key) as Value? }
                    }

                    func encode(_ value: some Encodable) -> Data? {
                        self.delegates.invoke { $0.encode(value) as Data? }
                    }

                    func notify<Event>(_ event: Event) where Event: Sendable {
                        self.delegates.invoke { $0.notify(event) }
                    }
                }
                """)
    }

    @Test func publicProtocolGivesAPublicClassAndMembers() {
        assertExpansion(
            """
            @Multicast
            public protocol PlayerDelegate: AnyObject {
                func playerDidStart(_ player: Player)
                var volume: Double? { get }
            }
            """,
            expandedSource: """
                public protocol PlayerDelegate: AnyObject {
                    func playerDidStart(_ player: Player)
                    var volume: Double? { get }
                }

                \(classHead("PlayerDelegate", access: "public"))
                    public func playerDidStart(_ player: Player) {
                        self.delegates.invoke { $0.playerDidStart(player) }
                    }

                    public var volume: Double? {
                        self.delegates.invoke { $0.volume }
                    }
                }
                """)
    }

    @Test func packageAndPrivateProtocolsGiveClassesOfTheirLevel() {
        assertExpansion(
            """
            @Multicast
            package protocol ShelfDelegate: AnyObject {
                func shelfDidFill()
            }
            @Multicast
            private protocol DrawerDelegate: AnyObject {
                func drawerDidOpen()
            }
            """,
            expandedSource: """
                package protocol ShelfDelegate: AnyObject {
                    func shelfDidFill()
                }

                \(classHead("ShelfDelegate", access: "package"))
                    package func shelfDidFill() {
                        self.delegates.invoke { $0.shelfDidFill() }
                    }
                }
                private protocol DrawerDelegate: AnyObject {
                    func drawerDidOpen()
                }

                \(classHead("DrawerDelegate", access: "private", memberAccess: ""))
                    func drawerDidOpen() {
                        self.delegates.invoke { $0.drawerDidOpen() }
                    }
                }
                """)
    }

    /// The class takes the protocol's availability; its global actor comes
    /// with the conformance, and other attributes may be macros of the
    /// protocol's own.
    @Test func availabilityModifiersAndRequirementAttributesAreKept() {
        assertExpansion(
            """
            @MainActor
            @Multicast
            @available(macOS 14, *)
            @Mockable
            protocol CanvasDelegate: AnyObject, Sendable {
                @discardableResult
                @MulticastFallback(false)
                func canvasDidDraw(_ canvas: Canvas) -> Bool
                nonisolated func canvasName() -> String?
            }
            """,
            expandedSource: """
                @MainActor
                @available(macOS 14, *)
                @Mockable
                protocol CanvasDelegate: AnyObject, Sendable {
                    @discardableResult
                    func canvasDidDraw(_ canvas: Canvas) -> Bool
                    nonisolated func canvasName() -> String?
                }

                \(classHead("CanvasDelegate", attributes: ["@available(macOS 14, *)"]))
                    @discardableResult
                    func canvasDidDraw(_ canvas: Canvas) -> Bool {
                        self.delegates.invoke { $0.canvasDidDraw(canvas) } ?? false
                    }

                    nonisolated func canvasName() -> String? {
                        self.delegates.invoke { $0.canvasName() }
                    }
                }
                """)
    }

    @Test func conditionalRequirementsAreMirroredAndTypeAliasesLeftToTheProtocol() {
        assertExpansion(
            """
            @Multicast
            protocol SyncDelegate: AnyObject & Sendable {
                typealias Progress = Double
                func syncDidProgress(_ progress: Progress)
                #if DEBUG
                func syncDidLog(_ line: String)
                #elseif os(Linux)
                func syncDidTrace()
                #endif
            }
            """,
            expandedSource: """
                protocol SyncDelegate: AnyObject & Sendable {
                    typealias Progress = Double
                    func syncDidProgress(_ progress: Progress)
                    #if DEBUG
                    func syncDidLog(_ line: String)
                    #elseif os(Linux)
                    func syncDidTrace()
                    #endif
                }

                \(classHead("SyncDelegate"))
                    func syncDidProgress(_ progress: Progress) {
                        self.delegates.invoke { $0.syncDidProgress(progress) }
                    }

                    #if DEBUG
                    func syncDidLog(_ line: String) {
                        self.delegates.invoke { $0.syncDidLog(line) }
                    }
                    #elseif os(Linux)
                    func syncDidTrace() {
                        self.delegates.invoke { $0.syncDidTrace() }
                    }
                    #endif
                }
                """)
    }

    @Test func signatureOverSeveralLinesKeepsItsShape() {
        assertExpansion(
            """
            enum Library {
                @Multicast
                protocol LoanDelegate: AnyObject {
                    func loan(
                        _ book: Book,
                        wasReturnedBy reader: Reader
                    )
                }
            }
            """,
            expandedSource: """
                enum Library {
                    protocol LoanDelegate: AnyObject {
                        func loan(
                            _ book: Book,
                            wasReturnedBy reader: Reader
                        )
                    }

                \(classHead("LoanDelegate", indentation: "    "))
                        func loan(
                            _ book: Book,
                            wasReturnedBy reader: Reader
                        ) {
                            self.delegates.invoke { $0.loan(book, wasReturnedBy: reader) }
                        }
                    }
                }
                """)
    }
}

/// The part of the class that does not depend on the requirements, up to
/// the first requirement's member.
func classHead(
    _ protocolName: String, access: String = "", memberAccess: String? = nil, attributes: [String] = [],
    indentation: String = ""
) -> String {
    let typeAccess = access.isEmpty ? "" : access + " "
    let member = memberAccess.map { $0.isEmpty ? "" : $0 + " " } ?? typeAccess
    let head = """
        /// A `\(protocolName)` that passes each call on to its delegates, in
        /// order, holding them weakly. Written by `@Multicast`.
        \(attributes.map { $0 + "\n" }.joined())\(typeAccess)final class Multicast\(protocolName): \(protocolName) {
            /// The delegates, held weakly, in call order.
            \(member)let delegates: EventKitSwift.MulticastDelegate<any \(protocolName)>

            /// Creates a multicast delegate with no delegates; `name` is for descriptions.
            \(member)init(name: Swift.String = "") {
                self.delegates = EventKitSwift.MulticastDelegate(name: name)
            }

            /// Adds `delegate` at the end, unless it is already present. It is held
            /// weakly: keep a strong reference to it elsewhere.
            \(member)func add(_ delegate: any \(protocolName)) {
                self.delegates.add(delegate)
            }

            /// Removes `delegate` and returns whether it was present; once this
            /// returns, it is not called again.
            @discardableResult
            \(member)func remove(_ delegate: any \(protocolName)) -> Swift.Bool {
                self.delegates.remove(delegate)
            }

        """
    return head.split(separator: "\n", omittingEmptySubsequences: false)
        .map { $0.isEmpty ? "" : indentation + $0 }
        .joined(separator: "\n")
}
