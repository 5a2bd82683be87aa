import EventKitSwift
import Testing

// A scroll-view-like component that takes one delegate, as UIScrollView does
// in the Objective-C multi-delegate articles and tests.

protocol ScrollViewDelegate: AnyObject {
    func scrollViewDidScroll(_ scrollView: ScrollView)
    func scrollViewShouldScrollToTop(_ scrollView: ScrollView) -> Bool
}

/// Stands for the Objective-C `@optional` methods of the scroll view's
/// delegate protocol.
protocol ScrollViewZoomingDelegate: AnyObject {
    func viewForZooming(in scrollView: ScrollView) -> String?
}

final class ScrollView {
    weak var delegate: (any ScrollViewDelegate)?
    private(set) var offset = 0.0

    func scroll(to offset: Double) {
        self.offset = offset
        delegate?.scrollViewDidScroll(self)
    }

    /// Scrolls to the top unless the delegate says no, as a tap on the status bar does.
    func tapStatusBar() {
        if delegate?.scrollViewShouldScrollToTop(self) ?? true {
            scroll(to: 0)
        }
    }
}

/// The multicast delegate as the scroll view's one delegate.
extension MulticastDelegate: ScrollViewDelegate where P == any ScrollViewDelegate {
    func scrollViewDidScroll(_ scrollView: ScrollView) {
        invoke { $0.scrollViewDidScroll(scrollView) }
    }

    func scrollViewShouldScrollToTop(_ scrollView: ScrollView) -> Bool {
        invoke { $0.scrollViewShouldScrollToTop(scrollView) } ?? true
    }
}

/// A delegate that logs each call under its name.
class ScrollListener: ScrollViewDelegate {
    let name: String
    let log: Log
    var shouldScrollToTop: Bool
    /// Runs inside `scrollViewDidScroll`, for re-entrancy tests.
    var onScroll: () -> Void = {}

    init(_ name: String, log: Log, shouldScrollToTop: Bool = true) {
        self.name = name
        self.log = log
        self.shouldScrollToTop = shouldScrollToTop
    }

    func scrollViewDidScroll(_ scrollView: ScrollView) {
        log.append("\(name) scrolled to \(scrollView.offset)")
        onScroll()
    }

    func scrollViewShouldScrollToTop(_ scrollView: ScrollView) -> Bool {
        log.append("\(name) asked")
        return shouldScrollToTop
    }
}

/// A delegate that also implements the optional zooming method.
final class ZoomingListener: ScrollListener, ScrollViewZoomingDelegate {
    let zoomedView: String?

    init(_ name: String, log: Log, zoomedView: String?) {
        self.zoomedView = zoomedView
        super.init(name, log: log)
    }

    func viewForZooming(in scrollView: ScrollView) -> String? {
        log.append("\(name) zoom")
        return zoomedView
    }
}

/// Implements only the optional method.
final class ZoomOnlyListener: ScrollViewZoomingDelegate {
    func viewForZooming(in scrollView: ScrollView) -> String? { "zoom only" }
}

/// Conforms to none of the delegate protocols.
final class Stranger {}

/// Adds a listener that nothing else keeps alive, and returns a weak view of it.
private func addShortLivedListener(
    to delegates: MulticastDelegate<any ScrollViewDelegate>, log: Log
) -> () -> ScrollListener? {
    let listener = ScrollListener("short-lived", log: log)
    delegates.add(listener)
    return { [weak listener] in listener }
}

@Suite("MulticastDelegate")
struct MulticastDelegateTests {
    let log = Log()
    let scrollView = ScrollView()

    // MARK: Adding, inserting and removing

    @Test("add appends in order, and adding a delegate already present keeps its place")
    func addAppends() {
        let delegates = MulticastDelegate<any ScrollViewDelegate>()
        let first = ScrollListener("first", log: log)
        let second = ScrollListener("second", log: log)
        delegates.add(first)
        delegates.add(second)
        delegates.add(first)

        #expect(delegates.count == 2)
        #expect(delegates.delegates.map(ObjectIdentifier.init) == [first, second].map(ObjectIdentifier.init))
        #expect(delegates.contains(first))
        #expect(delegates.contains(second))
        #expect(!delegates.contains(ScrollListener("other", log: log)))
    }

    @Test("insert before and after another delegate puts it next to that one, and moves one already present")
    func insertBeforeAndAfter() {
        let delegates = MulticastDelegate<any ScrollViewDelegate>()
        let a = ScrollListener("a", log: log)
        let b = ScrollListener("b", log: log)
        let c = ScrollListener("c", log: log)
        delegates.add(a)
        delegates.insert(b, before: a)
        #expect(names(delegates) == ["b", "a"])
        delegates.insert(c, after: b)
        #expect(names(delegates) == ["b", "c", "a"])

        delegates.insert(a, before: b)
        #expect(names(delegates) == ["a", "b", "c"])
        delegates.insert(a, after: c)
        #expect(names(delegates) == ["b", "c", "a"])
        delegates.insert(c, before: c)
        #expect(names(delegates) == ["b", "c", "a"], "inserting a delegate next to itself leaves it in place")
        #expect(delegates.count == 3)
    }

    @Test("Before a missing anchor is the end, after a missing anchor the front, as in AIMultiDelegate")
    func insertAroundMissingAnchor() {
        let delegates = MulticastDelegate<any ScrollViewDelegate>()
        let a = ScrollListener("a", log: log)
        let b = ScrollListener("b", log: log)
        let c = ScrollListener("c", log: log)
        delegates.insert(a, after: nil)
        #expect(names(delegates) == ["a"])
        delegates.removeAll()
        delegates.insert(a, before: nil)
        #expect(names(delegates) == ["a"])

        delegates.insert(b, before: Stranger())
        #expect(names(delegates) == ["a", "b"])
        delegates.insert(c, after: Stranger())
        #expect(names(delegates) == ["c", "a", "b"])
        delegates.insert(c, before: nil)
        #expect(names(delegates) == ["a", "b", "c"], "a delegate already present moves to the end")
    }

    @Test("insert at an index puts the delegate there, moving it if present; an index out of range throws")
    func insertAtIndex() throws {
        let delegates = MulticastDelegate<any ScrollViewDelegate>(name: "scroll")
        let a = ScrollListener("a", log: log)
        let b = ScrollListener("b", log: log)
        let c = ScrollListener("c", log: log)
        try delegates.insert(a, at: 0)
        try delegates.insert(c, at: 1)
        try delegates.insert(b, at: 1)
        #expect(names(delegates) == ["a", "b", "c"])
        try delegates.insert(c, at: 0)
        #expect(names(delegates) == ["c", "a", "b"])
        try delegates.insert(c, at: 2)
        #expect(names(delegates) == ["a", "b", "c"])

        let message = expectDispatchError(DispatchError.indexOutOfRange) {
            try delegates.insert(ScrollListener("d", log: log), at: 4)
        }
        #expect(message == "multicast delegate \"scroll\": index 4 is out of range for 3 delegates")
        expectDispatchError(DispatchError.indexOutOfRange) { try delegates.insert(a, at: 3) }
        expectDispatchError(DispatchError.indexOutOfRange) { try delegates.insert(a, at: -1) }
        #expect(names(delegates) == ["a", "b", "c"])
    }

    @Test("remove takes one delegate out and says whether it was there; removeAll empties the list")
    func remove() {
        let delegates = MulticastDelegate<any ScrollViewDelegate>()
        let first = ScrollListener("first", log: log)
        let second = ScrollListener("second", log: log)
        delegates.add(first)
        delegates.add(second)

        #expect(delegates.remove(first))
        #expect(!delegates.contains(first))
        #expect(names(delegates) == ["second"])
        #expect(!delegates.remove(first))
        #expect(!delegates.remove(Stranger()))

        delegates.removeAll()
        #expect(delegates.count == 0)
        #expect(delegates.isEmpty)
        delegates.invoke { $0.scrollViewDidScroll(scrollView) }
        #expect(log.all.isEmpty)
    }

    // MARK: Responding

    @Test("responds(to:) is false with no delegate, true when one implements the protocol, false when none does")
    func respondsTo() {
        let delegates = MulticastDelegate<any ScrollViewDelegate>()
        #expect(!delegates.responds(to: (any ScrollViewDelegate).self))
        #expect(!delegates.responds(to: (any ScrollViewZoomingDelegate).self))

        let plain = ScrollListener("plain", log: log)
        delegates.add(plain)
        #expect(delegates.responds(to: (any ScrollViewDelegate).self))
        #expect(!delegates.responds(to: (any ScrollViewZoomingDelegate).self))

        let zooming = ZoomingListener("zooming", log: log, zoomedView: "map")
        delegates.add(zooming)
        #expect(delegates.responds(to: (any ScrollViewZoomingDelegate).self))
        delegates.remove(zooming)
        #expect(!delegates.responds(to: (any ScrollViewZoomingDelegate).self))
    }

    // MARK: Calling

    @Test("A void call reaches every delegate, in order")
    func voidCallReachesEveryDelegate() {
        let delegates = MulticastDelegate<any ScrollViewDelegate>()
        let listeners = ["first", "second", "third"].map { ScrollListener($0, log: log) }
        for listener in listeners { delegates.add(listener) }
        scrollView.scroll(to: 0)
        delegates.invoke { $0.scrollViewDidScroll(scrollView) }

        #expect(log.all == ["first scrolled to 0.0", "second scrolled to 0.0", "third scrolled to 0.0"])
    }

    @Test("One delegate's return value passes through")
    func returnValuePassesThrough() {
        let delegates = MulticastDelegate<any ScrollViewDelegate>()
        let listener = ScrollListener("only", log: log, shouldScrollToTop: false)
        delegates.add(listener)
        #expect(delegates.invoke { $0.scrollViewShouldScrollToTop(scrollView) } == false)
        listener.shouldScrollToTop = true
        #expect(delegates.invoke { $0.scrollViewShouldScrollToTop(scrollView) } == true)
        #expect(log.all == ["only asked", "only asked"])
    }

    @Test("Several delegates are all called in order and the first return value wins; last and all are there too")
    func firstReturnValueWins() {
        let delegates = MulticastDelegate<any ScrollViewDelegate>()
        let first = ScrollListener("first", log: log, shouldScrollToTop: false)
        let second = ScrollListener("second", log: log, shouldScrollToTop: true)
        delegates.add(first)
        delegates.add(second)

        #expect(delegates.invoke { $0.scrollViewShouldScrollToTop(scrollView) } == false)
        #expect(log.all == ["first asked", "second asked"])
        #expect(delegates.lastResult { $0.scrollViewShouldScrollToTop(scrollView) } == true)
        #expect(delegates.allResults { $0.scrollViewShouldScrollToTop(scrollView) } == [false, true])
    }

    @Test("Optional results: the first value that is not nil wins, and delegates without the method are skipped")
    func firstNonNilWins() {
        let delegates = MulticastDelegate<any ScrollViewDelegate>()
        let listeners = [
            ScrollListener("plain", log: log),
            ZoomingListener("empty", log: log, zoomedView: nil),
            ZoomingListener("map", log: log, zoomedView: "map"),
            ZoomingListener("photo", log: log, zoomedView: "photo"),
        ]
        for listener in listeners { delegates.add(listener) }

        let zoomed = delegates.invoke(as: (any ScrollViewZoomingDelegate).self) { $0.viewForZooming(in: scrollView) }
        #expect(zoomed == "map")
        #expect(log.all == ["empty zoom", "map zoom", "photo zoom"])
        let all = delegates.allResults { ($0 as? any ScrollViewZoomingDelegate)?.viewForZooming(in: scrollView) }
        #expect(all == ["map", "photo"])
        let last = delegates.lastResult { ($0 as? any ScrollViewZoomingDelegate)?.viewForZooming(in: scrollView) }
        #expect(last == "photo")
    }

    @Test("Calls on an empty multicast delegate are silent and return nil")
    func emptyIsSilent() {
        let delegates = MulticastDelegate<any ScrollViewDelegate>()
        #expect(delegates.invoke { $0.scrollViewDidScroll(scrollView) } == nil)
        #expect(delegates.invoke { $0.scrollViewShouldScrollToTop(scrollView) } == nil)
        #expect(delegates.lastResult { $0.scrollViewShouldScrollToTop(scrollView) } == nil)
        #expect(delegates.allResults { $0.scrollViewShouldScrollToTop(scrollView) }.isEmpty)
        #expect(log.all.isEmpty)
    }

    @Test("A deallocated delegate is skipped without a crash, and pruned")
    func deallocatedDelegateIsSkipped() {
        let delegates = MulticastDelegate<any ScrollViewDelegate>()
        let shortLived = addShortLivedListener(to: delegates, log: log)
        let survivor = ScrollListener("survivor", log: log)
        delegates.add(survivor)
        #expect(shortLived() == nil)

        delegates.invoke { $0.scrollViewDidScroll(scrollView) }
        #expect(log.all == ["survivor scrolled to 0.0"])
        #expect(delegates.count == 1)
        #expect(names(delegates) == ["survivor"])
    }

    @Test("A delegate removed during a call is not called later in it; one added is called from the next call")
    func changesDuringACall() {
        let delegates = MulticastDelegate<any ScrollViewDelegate>()
        let first = ScrollListener("first", log: log)
        let second = ScrollListener("second", log: log)
        let late = ScrollListener("late", log: log)
        delegates.add(first)
        delegates.add(second)
        first.onScroll = { [unowned delegates, unowned second, unowned late] in
            delegates.remove(second)
            delegates.add(late)
        }

        delegates.invoke { $0.scrollViewDidScroll(scrollView) }
        #expect(log.all == ["first scrolled to 0.0"])
        first.onScroll = {}
        delegates.invoke { $0.scrollViewDidScroll(scrollView) }
        #expect(log.all == ["first scrolled to 0.0", "first scrolled to 0.0", "late scrolled to 0.0"])
    }

    // MARK: Strict and non-strict

    @Test("Strict mode rejects an object that does not conform, and accepts one that does")
    func strictRejectsNonConforming() throws {
        let delegates = MulticastDelegate<any ScrollViewDelegate>()
        #expect(delegates.isStrict)
        let message = expectDispatchError(DispatchError.typeMismatch) {
            try delegates.add(dynamic: Stranger())
        }
        #expect(message == "MulticastDelegate<ScrollViewDelegate>: Stranger is not a ScrollViewDelegate")
        #expect(delegates.isEmpty)
        expectDispatchError(DispatchError.typeMismatch) { try delegates.add(dynamic: ZoomOnlyListener()) }

        let listener: AnyObject = ScrollListener("dynamic", log: log)
        try delegates.add(dynamic: listener)
        try delegates.add(dynamic: listener)
        #expect(delegates.count == 1)
        delegates.invoke { $0.scrollViewDidScroll(scrollView) }
        #expect(log.all == ["dynamic scrolled to 0.0"])
    }

    @Test("Non-strict mode over several protocols accepts an object that conforms to any of them")
    func nonStrictAcceptsAny() throws {
        let delegates = MulticastDelegate<AnyObject>(
            name: "mixed", acceptingAnyOf: (any ScrollViewDelegate).self, (any ScrollViewZoomingDelegate).self)
        #expect(!delegates.isStrict)
        let scrolling = ScrollListener("scrolling", log: log)
        let zoomOnly = ZoomOnlyListener()
        try delegates.add(dynamic: scrolling)
        try delegates.add(dynamic: zoomOnly)
        let message = expectDispatchError(DispatchError.typeMismatch) {
            try delegates.add(dynamic: Stranger())
        }
        #expect(
            message
                == "multicast delegate \"mixed\": Stranger adopts none of ScrollViewDelegate, "
                + "ScrollViewZoomingDelegate")
        #expect(delegates.count == 2)

        delegates.invoke(as: (any ScrollViewDelegate).self) { $0.scrollViewDidScroll(scrollView) }
        #expect(log.all == ["scrolling scrolled to 0.0"])
        let zoomed = delegates.invoke(as: (any ScrollViewZoomingDelegate).self) { $0.viewForZooming(in: scrollView) }
        #expect(zoomed == "zoom only")
    }

    // MARK: One delegate slot

    @Test("As a scroll view's one delegate, the multicast delegate passes its callbacks to two listeners")
    func scrollViewDelegateReachesTwoListeners() {
        let delegates = MulticastDelegate<any ScrollViewDelegate>()
        let analytics = ScrollListener("analytics", log: log)
        let header = ScrollListener("header", log: log, shouldScrollToTop: false)
        scrollView.delegate = delegates
        delegates.add(analytics)
        delegates.add(header)

        scrollView.scroll(to: 120)
        #expect(log.all == ["analytics scrolled to 120.0", "header scrolled to 120.0"])
        scrollView.tapStatusBar()
        #expect(scrollView.offset == 0, "analytics, asked first, lets it scroll to the top")
        #expect(
            log.all.suffix(4) == [
                "analytics asked", "header asked", "analytics scrolled to 0.0", "header scrolled to 0.0",
            ])

        delegates.remove(analytics)
        scrollView.scroll(to: 50)
        scrollView.tapStatusBar()
        #expect(scrollView.offset == 50, "header alone says no")
    }

    @Test("The description names the protocol, the name and the number of live delegates")
    func description() {
        let named = MulticastDelegate<any ScrollViewDelegate>(name: "scroll")
        let listener = ScrollListener("one", log: log)
        named.add(listener)
        #expect(named.description == "MulticastDelegate<ScrollViewDelegate>(\"scroll\", 1 delegate)")
        let unnamed = MulticastDelegate<any ScrollViewDelegate>()
        #expect(unnamed.description == "MulticastDelegate<ScrollViewDelegate>(0 delegates)")
    }

    /// The names of the live delegates, in order.
    private func names(_ delegates: MulticastDelegate<any ScrollViewDelegate>) -> [String] {
        delegates.delegates.map { ($0 as? ScrollListener)?.name ?? "?" }
    }
}
