// The EventKitSwift tour: each system of the Objective-C event articles,
// working on Linux. Run it with `make demo` or `swift run EventKitDemo`.

import EventKitSwift

/// Prints a section's title.
func section(_ number: Int, _ title: String) {
    print("\n\(number). \(title)")
}

try dynamicCalls()
try controlCommands()
try targetAction()
responderRouting()
try await threadDelivery()
delegates()
multicastMacro()
try errors()
try callbacks()
