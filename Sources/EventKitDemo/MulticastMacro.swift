// 7. Chapter 6's forwarder, written by a macro: @Multicast on the delegate
// protocol writes MulticastSearchFieldDelegate, one method per requirement,
// and a component with one delegate slot reaches every listener through it.
// Objective-C needed forwardInvocation: for this, which Swift objects lack.

import EventKitMulticast

@Multicast
protocol SearchFieldDelegate: AnyObject {
    func searchField(_ field: SearchField, didChange text: String)
    @MulticastFallback(true)
    func searchFieldShouldSubmit(_ field: SearchField) -> Bool
    func suggestion(for text: String) -> String?
}

extension SearchFieldDelegate {
    /// By default a listener suggests nothing.
    func suggestion(for text: String) -> String? { nil }
}

/// A component with one delegate slot, held weakly.
final class SearchField {
    weak var delegate: (any SearchFieldDelegate)?
    private(set) var text = ""

    func type(_ text: String) {
        self.text = text
        delegate?.searchField(self, didChange: text)
    }

    func submit() -> Bool {
        delegate?.searchFieldShouldSubmit(self) ?? true
    }
}

/// Filters as the user types; takes the protocol's default suggestion.
final class ResultsList: SearchFieldDelegate {
    func searchField(_ field: SearchField, didChange text: String) {
        print("  results list filters by \"\(text)\"")
    }

    func searchFieldShouldSubmit(_ field: SearchField) -> Bool {
        print("  results list: submit \"\(field.text)\"? \(field.text.count >= 3 ? "yes" : "no, too short")")
        return field.text.count >= 3
    }
}

/// Remembers searches and suggests how to finish one.
final class SearchHistory: SearchFieldDelegate {
    func searchField(_ field: SearchField, didChange text: String) {
        print("  history remembers \"\(text)\"")
    }

    func searchFieldShouldSubmit(_ field: SearchField) -> Bool {
        print("  history: submit \"\(field.text)\"? yes")
        return true
    }

    func suggestion(for text: String) -> String? {
        ["monday", "month"].first { $0.hasPrefix(text) }
    }
}

func multicastMacro() {
    // `section` numbers chapters with whole numbers; this one continues 6.
    section(7, "The same forwarder, written by a macro (@Multicast)")
    let field = SearchField()
    let listeners = MulticastSearchFieldDelegate(name: "search")
    field.delegate = listeners
    let results = ResultsList()
    var history: SearchHistory? = SearchHistory()
    listeners.add(results)
    listeners.add(history!)

    // Held weakly, as in chapter 6: the history lives until `history = nil`.
    withExtendedLifetime(history) {
        print("type(\"mo\"):")
        field.type("mo")
        let suggestion = listeners.suggestion(for: "mo") ?? "none"
        print("suggestion: \(suggestion) (the results list gives the default, nil; the first other value wins)")
        print("submit():")
        print("the first listener's answer wins: \(field.submit())")
    }

    history = nil
    print("history released: \(listeners.delegates)")
    listeners.remove(results)
    print("no listener left: submit() → \(field.submit()), the @MulticastFallback value")
}
