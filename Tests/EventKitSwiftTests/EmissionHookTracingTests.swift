import EventKitSwift
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// A tracing span per execute is one emission hook away: the library depends
// on no tracing package, and a hook on every event gives a tracer one span
// per execute, whoever executes. The tracer here is the smallest that
// records spans as swift-distributed-tracing's do (a name, string
// attributes, a parent taken from the span current on the thread), kept in
// this file: that package makes SwiftPM warn each time it loads the package
// graph (a file of it no target claims), and the build must stay free of
// warnings.
//
// The hook runs before the handlers, so its span marks the emission (the
// key, the event, the detail and how many arguments) rather than timing the
// handlers: timing them would need a call at the execute's end, which
// emission hooks, like GLib's, do not get.

/// A finished span: what a tracing backend would export.
private struct RecordedSpan: Sendable, Equatable {
    let id: Int
    let parent: Int?
    let name: String
    let attributes: [String: String]
}

/// Records spans; `withSpan` makes its span the current one on its thread
/// for the operation, so spans started inside it on that thread are its
/// children.
private final class RecordingTracer: Sendable {
    private struct State {
        var finished: [RecordedSpan] = []
        var lastID = 0
        /// The spans open on each thread, innermost last.
        var open: [UInt: [Int]] = [:]
    }
    private let state = Mutex(State())

    var finishedSpans: [RecordedSpan] { state.withLock { $0.finished } }

    func withSpan<R>(_ name: String, _ operation: (inout [String: String]) throws -> R) rethrows -> R {
        let thread = currentThread()
        let (id, parent) = state.withLock { state -> (Int, Int?) in
            state.lastID += 1
            let parent = state.open[thread]?.last
            state.open[thread, default: []].append(state.lastID)
            return (state.lastID, parent)
        }
        var attributes: [String: String] = [:]
        defer {
            state.withLock { state in
                state.open[thread]?.removeLast()
                state.finished.append(RecordedSpan(id: id, parent: parent, name: name, attributes: attributes))
            }
        }
        return try operation(&attributes)
    }

    private func currentThread() -> UInt {
        UInt(pthread_self())
    }
}

@Suite("Emission hooks and tracing")
struct EmissionHookTracingTests {
    @Test("One hook gives one span per execute, named by the key, with the event and the detail as attributes")
    func oneSpanPerExecute() throws {
        let tracer = RecordingTracer()
        let table = CommandTable(name: "widget")
        let tracing = try table.addEmissionHook { emission in
            tracer.withSpan("execute \(emission.key)") { attributes in
                attributes["eventkit.table"] = table.name
                attributes["eventkit.event"] = emission.event
                if let detail = emission.detail { attributes["eventkit.detail"] = detail }
                attributes["eventkit.arguments"] = "\(emission.arguments.count)"
            }
            return true
        }
        let handlers = [
            table.on("notify") { (_: Int) in },
            table.on("notify::size") { (_: Int) in },
            table.on("reset") {},
        ]
        try table.execute("notify::size", 10)
        try table.execute(EventKey<Int>("notify"), 11)
        try table.execute("reset")
        try table.execute("nobody")

        let spans = tracer.finishedSpans
        #expect(
            spans.map(\.name) == ["execute notify::size", "execute notify", "execute reset", "execute nobody"])
        #expect(spans.map { $0.attributes["eventkit.event"] } == ["notify", "notify", "reset", "nobody"])
        #expect(spans.map { $0.attributes["eventkit.detail"] } == ["size", nil, nil, nil])
        #expect(spans.map { $0.attributes["eventkit.arguments"] } == ["1", "1", "0", "0"])
        #expect(spans.allSatisfy { $0.attributes["eventkit.table"] == "widget" && $0.parent == nil })

        // Once the hook's subscription is cancelled, executes make no spans.
        tracing.cancel()
        try table.execute("reset")
        #expect(tracer.finishedSpans.count == 4)
        withExtendedLifetime(handlers) {}
    }

    @Test("A handler's execute inside a span of the handler's own is traced as that span's child")
    func nestedExecutesAreTracedInContext() throws {
        let tracer = RecordingTracer()
        let table = CommandTable(name: "widget")
        let tracing = try table.addEmissionHook { emission in
            tracer.withSpan("execute \(emission.key)") { _ in }
            return true
        }
        let handlers = [
            table.on("outer") {
                tracer.withSpan("handler work") { _ in _ = try? table.execute("inner") }
            },
            table.on("inner") {},
        ]
        try table.execute("outer")
        let spans = tracer.finishedSpans
        #expect(spans.map(\.name) == ["execute outer", "execute inner", "handler work"])
        let work = try #require(spans.first { $0.name == "handler work" })
        #expect(spans.first { $0.name == "execute inner" }?.parent == work.id)
        #expect(spans.first { $0.name == "execute outer" }?.parent == nil)
        withExtendedLifetime((tracing, handlers)) {}
    }
}
