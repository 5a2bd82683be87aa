// @Multicast on real protocols, compiled by the compiler through the plugin:
// what the written classes do when called. Only EventKitMulticast is
// imported, so this also checks that it brings MulticastDelegate with it.
import EventKitMulticast
import Testing

/// What the delegates did, in order.
final class CallLog {
    private(set) var entries: [String] = []
    func record(_ entry: String) { entries.append(entry) }
}

// MARK: - A delegate protocol with every shape of requirement

struct Page: Equatable {
    let number: Int
}

@Multicast
protocol ReaderDelegate: AnyObject {
    func readerDidTurn(to page: Page)
    @MulticastFallback(true)
    func readerShouldTurn(from page: Page) -> Bool
    func title(for page: Page) -> String?
    @MulticastFallback(0)
    var bookmarkCount: Int { get }
    var highlightedWord: String? { get }
    subscript(note index: Int) -> String? { get }
    func adjust(_ zoom: inout Double)
    func move(from start: Int, to end: Int, _ animated: Bool)
    func note(_ message: @autoclosure () -> String)
    func schedule(_ work: @escaping () -> Void)
    func decode<Value>(_ key: String, as type: Value.Type) -> Value?
    func describe(_ value: some CustomStringConvertible) -> String?
    func `default`(`for` key: String) -> Optional<String>
    func readerDidSkip(_: Int, count _: Int)
    #if compiler(>=6.0)
    func readerDidClose()
    #endif
}

final class Reader: ReaderDelegate {
    let name: String
    let log: CallLog
    var allowsTurning = true
    var title: String?
    var bookmarkCount = 0
    var highlightedWord: String?
    var scheduled: [() -> Void] = []
    var evaluatesNotes = true
    var decodedValues: [String: Any] = [:]

    init(_ name: String, log: CallLog) {
        self.name = name
        self.log = log
    }

    func readerDidTurn(to page: Page) { log.record("\(name) turned to \(page.number)") }

    func readerShouldTurn(from page: Page) -> Bool {
        log.record("\(name) asked about \(page.number)")
        return allowsTurning
    }

    func title(for page: Page) -> String? {
        log.record("\(name) titled \(page.number)")
        return title
    }

    subscript(note index: Int) -> String? { index == 0 ? nil : "\(name) note \(index)" }

    func adjust(_ zoom: inout Double) {
        zoom = zoom * 2 + 1
        log.record("\(name) zoomed to \(zoom)")
    }

    func move(from start: Int, to end: Int, _ animated: Bool) {
        log.record("\(name) moved \(start)-\(end)\(animated ? " animated" : "")")
    }

    func note(_ message: @autoclosure () -> String) {
        log.record(evaluatesNotes ? "\(name) noted \(message())" : "\(name) ignored a note")
    }

    func schedule(_ work: @escaping () -> Void) { scheduled.append(work) }

    func decode<Value>(_ key: String, as type: Value.Type) -> Value? { decodedValues[key] as? Value }

    func describe(_ value: some CustomStringConvertible) -> String? { "\(name) sees \(value)" }

    func `default`(`for` key: String) -> String? { key == name ? "\(name) default" : nil }

    func readerDidSkip(_ page: Int, count: Int) { log.record("\(name) skipped \(count) from \(page)") }

    func readerDidClose() { log.record("\(name) closed") }
}

@Suite("@Multicast: forwarding to every delegate")
struct MulticastForwardingTests {
    @Test func voidMethodCallsEveryDelegateInOrder() {
        let log = CallLog()
        let first = Reader("first", log: log), second = Reader("second", log: log)
        let readers = MulticastReaderDelegate()
        readers.add(first)
        readers.add(second)
        readers.readerDidTurn(to: Page(number: 3))
        #expect(log.entries == ["first turned to 3", "second turned to 3"])
        withExtendedLifetime((first, second)) {}
    }

    @Test func resultIsTheFirstDelegatesAndEveryDelegateIsAsked() {
        let log = CallLog()
        let first = Reader("first", log: log), second = Reader("second", log: log)
        first.allowsTurning = false
        let readers = MulticastReaderDelegate()
        readers.add(first)
        readers.add(second)
        #expect(readers.readerShouldTurn(from: Page(number: 1)) == false)
        #expect(log.entries == ["first asked about 1", "second asked about 1"])
        withExtendedLifetime((first, second)) {}
    }

    @Test func fallbackAnswersWhenThereIsNoDelegate() {
        let readers = MulticastReaderDelegate()
        #expect(readers.readerShouldTurn(from: Page(number: 1)) == true)
        #expect(readers.bookmarkCount == 0)
    }

    @Test func optionalResultIsTheFirstValueThatIsNotNil() {
        let log = CallLog()
        let untitled = Reader("untitled", log: log), titled = Reader("titled", log: log)
        titled.title = "Chapter 2"
        let readers = MulticastReaderDelegate()
        #expect(readers.title(for: Page(number: 2)) == nil)
        readers.add(untitled)
        readers.add(titled)
        #expect(readers.title(for: Page(number: 2)) == "Chapter 2")
        #expect(log.entries == ["untitled titled 2", "titled titled 2"])
        withExtendedLifetime((untitled, titled)) {}
    }

    @Test func propertiesAndSubscriptsReadTheFirstDelegate() {
        let log = CallLog()
        let first = Reader("first", log: log), second = Reader("second", log: log)
        first.bookmarkCount = 4
        second.bookmarkCount = 9
        second.highlightedWord = "multicast"
        let readers = MulticastReaderDelegate()
        readers.add(first)
        readers.add(second)
        #expect(readers.bookmarkCount == 4)
        #expect(readers.highlightedWord == "multicast")
        #expect(readers[note: 2] == "first note 2")
        #expect(readers[note: 0] == nil)
        withExtendedLifetime((first, second)) {}
    }

    @Test func inoutArgumentPassesThroughEveryDelegateInTurn() {
        let log = CallLog()
        let first = Reader("first", log: log), second = Reader("second", log: log)
        let readers = MulticastReaderDelegate()
        readers.add(first)
        readers.add(second)
        var zoom = 1.0
        readers.adjust(&zoom)
        #expect(zoom == 7)
        #expect(log.entries == ["first zoomed to 3.0", "second zoomed to 7.0"])
        withExtendedLifetime((first, second)) {}
    }

    @Test func argumentLabelsAndUnlabelledArgumentsArrive() {
        let log = CallLog()
        let reader = Reader("reader", log: log)
        let readers = MulticastReaderDelegate()
        readers.add(reader)
        readers.move(from: 2, to: 5, true)
        #expect(log.entries == ["reader moved 2-5 animated"])
        withExtendedLifetime(reader) {}
    }

    @Test func autoclosureIsEvaluatedOnlyByDelegatesThatAsk() {
        let log = CallLog()
        let ignoring = Reader("ignoring", log: log), listening = Reader("listening", log: log)
        ignoring.evaluatesNotes = false
        let readers = MulticastReaderDelegate()
        readers.add(ignoring)
        readers.add(listening)
        var evaluations = 0
        readers.note({ evaluations += 1; return "page 4" }())
        #expect(evaluations == 1)
        #expect(log.entries == ["ignoring ignored a note", "listening noted page 4"])
        withExtendedLifetime((ignoring, listening)) {}
    }

    @Test func escapingClosureReachesEveryDelegate() {
        let log = CallLog()
        let first = Reader("first", log: log), second = Reader("second", log: log)
        let readers = MulticastReaderDelegate()
        readers.add(first)
        readers.add(second)
        var runs = 0
        readers.schedule { runs += 1 }
        for work in first.scheduled + second.scheduled { work() }
        #expect(runs == 2)
        withExtendedLifetime((first, second)) {}
    }

    @Test func genericMethodForwardsWithTheCallersType() {
        let log = CallLog()
        let first = Reader("first", log: log), second = Reader("second", log: log)
        first.decodedValues = ["size": "large"]
        second.decodedValues = ["size": 12]
        let readers = MulticastReaderDelegate()
        readers.add(first)
        readers.add(second)
        #expect(readers.decode("size", as: Int.self) == 12)
        #expect(readers.decode("size", as: String.self) == "large")
        #expect(readers.decode("size", as: Double.self) == nil)
        withExtendedLifetime((first, second)) {}
    }
}

@Suite("@Multicast: less common requirements")
struct MulticastUncommonRequirementTests {
    @Test func opaqueParameterKeywordNamesUnnamedParametersAndConditionalRequirementsForward() {
        let log = CallLog()
        let first = Reader("first", log: log), second = Reader("second", log: log)
        let readers = MulticastReaderDelegate()
        readers.add(first)
        readers.add(second)
        #expect(readers.describe(42) == "first sees 42")
        #expect(readers.default(for: "second") == "second default")
        readers.readerDidSkip(3, count: 2)
        readers.readerDidClose()
        #expect(log.entries == ["first skipped 2 from 3", "second skipped 2 from 3", "first closed", "second closed"])
        withExtendedLifetime((first, second)) {}
    }
}

@Suite("@Multicast: the delegate list")
struct MulticastDelegateListTests {
    @Test func removedDelegateIsNotCalledAgain() {
        let log = CallLog()
        let first = Reader("first", log: log), second = Reader("second", log: log)
        let readers = MulticastReaderDelegate()
        readers.add(first)
        readers.add(second)
        #expect(readers.remove(first))
        #expect(!readers.remove(first))
        readers.readerDidTurn(to: Page(number: 8))
        #expect(log.entries == ["second turned to 8"])
        withExtendedLifetime((first, second)) {}
    }

    @Test func delegatesAreHeldWeakly() {
        let log = CallLog()
        let readers = MulticastReaderDelegate()
        var reader: Reader? = Reader("short-lived", log: log)
        weak let released = reader
        readers.add(reader!)
        reader = nil
        #expect(released == nil)
        readers.readerDidTurn(to: Page(number: 1))
        #expect(log.entries.isEmpty)
        #expect(readers.delegates.isEmpty)
    }

    @Test func addingADelegateTwiceKeepsOne() {
        let log = CallLog()
        let reader = Reader("reader", log: log)
        let readers = MulticastReaderDelegate(name: "readers")
        readers.add(reader)
        readers.add(reader)
        readers.readerDidTurn(to: Page(number: 5))
        #expect(log.entries == ["reader turned to 5"])
        #expect(readers.delegates.name == "readers")
        withExtendedLifetime(reader) {}
    }

    /// The point of the pattern: a component with one weak delegate slot
    /// reaches every delegate through the multicast one.
    @Test func multicastFillsAComponentsSingleDelegateSlot() {
        final class Book {
            weak var delegate: (any ReaderDelegate)?
            func turn(to number: Int) -> Bool {
                guard delegate?.readerShouldTurn(from: Page(number: number - 1)) ?? true else { return false }
                delegate?.readerDidTurn(to: Page(number: number))
                return true
            }
        }
        let log = CallLog()
        let first = Reader("first", log: log), second = Reader("second", log: log)
        let readers = MulticastReaderDelegate()
        readers.add(first)
        readers.add(second)
        let book = Book()
        book.delegate = readers
        #expect(book.turn(to: 2))
        #expect(
            log.entries == [
                "first asked about 1", "second asked about 1", "first turned to 2", "second turned to 2",
            ])
        withExtendedLifetime((first, second, readers)) {}
    }
}

// MARK: - Default implementations

@Multicast
protocol GreetingDelegate: AnyObject {
    func greeting() -> String?
    func wave(_ log: CallLog)
}

extension GreetingDelegate {
    func greeting() -> String? { "default hello" }
    func wave(_ log: CallLog) { log.record("default wave") }
}

final class PoliteGreeter: GreetingDelegate {
    func greeting() -> String? { "good morning" }
    func wave(_ log: CallLog) { log.record("polite wave") }
}

/// Implements nothing: every requirement takes the protocol's default.
final class PlainGreeter: GreetingDelegate {}

@Suite("@Multicast: default implementations")
struct MulticastDefaultImplementationTests {
    @Test func eachDelegateRunsItsOwnImplementationOrTheDefault() {
        let log = CallLog()
        let polite = PoliteGreeter(), plain = PlainGreeter()
        let greeters = MulticastGreetingDelegate()
        greeters.add(plain)
        greeters.add(polite)
        greeters.wave(log)
        #expect(log.entries == ["default wave", "polite wave"])
        #expect(greeters.greeting() == "default hello")
        greeters.remove(plain)
        #expect(greeters.greeting() == "good morning")
        withExtendedLifetime((polite, plain)) {}
    }

    /// The multicast class implements each requirement itself: with no
    /// delegate it answers nothing, rather than the default on its own behalf.
    @Test func multicastNeverAnswersWithTheDefaultItself() {
        let log = CallLog()
        let greeters = MulticastGreetingDelegate()
        #expect(greeters.greeting() == nil)
        greeters.wave(log)
        #expect(log.entries.isEmpty)
        let asProtocol: any GreetingDelegate = greeters
        #expect(asProtocol.greeting() == nil)
    }
}

// MARK: - Throwing requirements

struct RefusedPage: Error, Equatable {
    let reason: String
}

@Multicast
protocol PageValidator: AnyObject {
    func validate(_ page: Page) throws
    func checkedNumber(of page: Page) throws(RefusedPage) -> Int?
    func each(_ body: (Page) throws -> Void) rethrows
    func pageCount() throws(Never) -> Int?
    var status: String? { get throws(RefusedPage) }
}

final class Validator: PageValidator {
    let name: String
    let log: CallLog
    var refusal: String?

    init(_ name: String, log: CallLog, refusal: String? = nil) {
        self.name = name
        self.log = log
        self.refusal = refusal
    }

    func validate(_ page: Page) throws {
        log.record("\(name) validated \(page.number)")
        if let refusal { throw RefusedPage(reason: refusal) }
    }

    func checkedNumber(of page: Page) throws(RefusedPage) -> Int? {
        log.record("\(name) checked \(page.number)")
        if let refusal { throw RefusedPage(reason: refusal) }
        return page.number
    }

    func each(_ body: (Page) throws -> Void) rethrows {
        log.record("\(name) each")
        try body(Page(number: 1))
    }

    func pageCount() -> Int? { refusal == nil ? 10 : nil }

    var status: String? {
        get throws(RefusedPage) {
            if let refusal { throw RefusedPage(reason: refusal) }
            return "\(name) fine"
        }
    }
}

@Suite("@Multicast: throwing requirements")
struct MulticastThrowingTests {
    @Test func firstErrorStopsTheCallAndReachesTheCaller() {
        let log = CallLog()
        let first = Validator("first", log: log), strict = Validator("strict", log: log, refusal: "torn")
        let last = Validator("last", log: log)
        let validators = MulticastPageValidator()
        validators.add(first)
        validators.add(strict)
        validators.add(last)
        #expect(throws: RefusedPage(reason: "torn")) { try validators.validate(Page(number: 6)) }
        #expect(log.entries == ["first validated 6", "strict validated 6"])
        withExtendedLifetime((first, strict, last)) {}
    }

    @Test func typedThrowsKeepTheirErrorType() throws {
        let log = CallLog()
        let strict = Validator("strict", log: log, refusal: "blank")
        let validators = MulticastPageValidator()
        #expect(try validators.checkedNumber(of: Page(number: 2)) == nil)
        validators.add(strict)
        do {
            _ = try validators.checkedNumber(of: Page(number: 2))
            Issue.record("expected checkedNumber to throw")
        } catch {
            let typed: RefusedPage = error
            #expect(typed.reason == "blank")
        }
        strict.refusal = nil
        #expect(try validators.checkedNumber(of: Page(number: 2)) == 2)
        withExtendedLifetime(strict) {}
    }

    @Test func typedThrowingGetterAndNeverThrowingMethodForward() throws {
        let log = CallLog()
        let strict = Validator("strict", log: log, refusal: "smudged"), lenient = Validator("lenient", log: log)
        let validators = MulticastPageValidator()
        validators.add(strict)
        validators.add(lenient)
        #expect(validators.pageCount() == 10)
        #expect(throws: RefusedPage(reason: "smudged")) { try validators.status }
        validators.remove(strict)
        #expect(try validators.status == "lenient fine")
        withExtendedLifetime((strict, lenient)) {}
    }

    @Test func rethrowingRequirementThrowsOnlyWhatItsClosureThrows() {
        let log = CallLog()
        let first = Validator("first", log: log), second = Validator("second", log: log)
        let validators = MulticastPageValidator()
        validators.add(first)
        validators.add(second)
        var seen: [Int] = []
        validators.each { seen.append($0.number) }
        #expect(seen == [1, 1])
        #expect(throws: RefusedPage(reason: "stop")) {
            try validators.each { _ in throw RefusedPage(reason: "stop") }
        }
        #expect(log.entries == ["first each", "second each", "first each"])
        withExtendedLifetime((first, second)) {}
    }
}

// MARK: - Isolation and sendability

@MainActor
@Multicast
protocol CanvasDelegate: AnyObject, Sendable {
    func canvasDidDraw(_ strokes: Int)
    nonisolated func canvasName() -> String?
}

@MainActor
final class Canvas: CanvasDelegate {
    var strokes: [Int] = []
    func canvasDidDraw(_ strokes: Int) { self.strokes.append(strokes) }
    nonisolated func canvasName() -> String? { "canvas" }
}

@Multicast
protocol ProgressDelegate: AnyObject, Sendable {
    func progressDidChange(_ fraction: Double)
}

final class ProgressBar: ProgressDelegate {
    func progressDidChange(_ fraction: Double) {}
}

@Suite("@Multicast: isolation and sendability")
struct MulticastIsolationTests {
    @MainActor
    @Test func mainActorProtocolGivesAMainActorClass() {
        let canvas = Canvas()
        let canvases = MulticastCanvasDelegate()
        canvases.add(canvas)
        canvases.canvasDidDraw(3)
        #expect(canvas.strokes == [3])
        #expect(canvasName(of: canvases) == "canvas")
    }

    /// A nonisolated requirement of a Sendable main-actor protocol is
    /// nonisolated in the multicast class too.
    nonisolated func canvasName(of canvases: MulticastCanvasDelegate) -> String? {
        canvases.canvasName()
    }

    @Test func sendableProtocolGivesASendableClass() async {
        let bar = ProgressBar()
        let bars = MulticastProgressDelegate()
        bars.add(bar)
        let sent: any Sendable = bars
        await Task.detached { bars.progressDidChange(0.5) }.value
        #expect(sent is MulticastProgressDelegate)
        #expect(bars.delegates.count == 1)
        withExtendedLifetime(bar) {}
    }
}
