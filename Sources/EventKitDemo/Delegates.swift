// 6. One delegate slot, many delegates: a component that takes a single
// delegate reaches two listeners through a MulticastDelegate installed as
// that delegate, the forwarder of the Objective-C multi-delegate articles.

import EventKitSwift

protocol ScrollViewDelegate: AnyObject {
    func scrollViewDidScroll(_ scrollView: ScrollView)
    func scrollViewShouldScrollToTop(_ scrollView: ScrollView) -> Bool
}

/// A component with one delegate slot, held weakly as UIKit holds it.
final class ScrollView {
    weak var delegate: (any ScrollViewDelegate)?
    private(set) var offset = 0.0

    func scroll(to offset: Double) {
        self.offset = offset
        delegate?.scrollViewDidScroll(self)
    }

    /// Asks the delegate, as a status-bar tap would; scrolls when allowed.
    func tapStatusBar() -> Bool {
        let allowed = delegate?.scrollViewShouldScrollToTop(self) ?? true
        if allowed { scroll(to: 0) }
        return allowed
    }
}

/// The forwarder: each delegate method is one call to every listener.
extension MulticastDelegate: ScrollViewDelegate where P == any ScrollViewDelegate {
    func scrollViewDidScroll(_ scrollView: ScrollView) {
        invoke { $0.scrollViewDidScroll(scrollView) }
    }

    func scrollViewShouldScrollToTop(_ scrollView: ScrollView) -> Bool {
        invoke { $0.scrollViewShouldScrollToTop(scrollView) } ?? true
    }
}

final class Header: ScrollViewDelegate {
    func scrollViewDidScroll(_ scrollView: ScrollView) {
        print("  header \(scrollView.offset > 50 ? "collapses" : "expands") at \(scrollView.offset)")
    }

    func scrollViewShouldScrollToTop(_ scrollView: ScrollView) -> Bool { false }
}

final class Analytics: ScrollViewDelegate {
    func scrollViewDidScroll(_ scrollView: ScrollView) {
        print("  analytics records offset \(scrollView.offset)")
    }

    func scrollViewShouldScrollToTop(_ scrollView: ScrollView) -> Bool { true }
}

func delegates() {
    section(6, "One delegate slot, two listeners (MulticastDelegate)")
    let scrollView = ScrollView()
    let listeners = MulticastDelegate<any ScrollViewDelegate>(name: "scroll")
    scrollView.delegate = listeners
    let header = Header()
    var analytics: Analytics? = Analytics()
    listeners.add(header)
    listeners.add(analytics!)

    // Delegates are held weakly: both listeners live until `analytics = nil`.
    withExtendedLifetime(analytics) {
        print("scrollView.delegate = \(listeners)")
        print("scroll(to: 120):")
        scrollView.scroll(to: 120)
        let answers = listeners.allResults { $0.scrollViewShouldScrollToTop(scrollView) }
        print("should scroll to top? answers \(answers); the first wins: \(scrollView.tapStatusBar())")
    }

    analytics = nil
    print("analytics released: \(listeners.count) delegate left; scroll(to: 10):")
    scrollView.scroll(to: 10)
    do {
        try listeners.add(dynamic: Mixer())
    } catch {
        print("add(dynamic: Mixer()) → \(error.statusName): \(error.message)")
    }
    withExtendedLifetime(header) {}
}
