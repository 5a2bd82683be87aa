import EventKitSwift
import InMemoryTracing
import Testing
import Tracing

// A tracing span per execute is one emission hook away: the library depends
// on no tracing package, and a hook on every event gives a tracer one span
// per execute, whoever executes. The hook runs before the handlers, so its
// span marks the emission (the key, the event, the detail and how many
// arguments) rather than timing the handlers: timing them would need a call
// at the execute's end, which emission hooks, like GLib's, do not get.

@Suite("Emission hooks and tracing")
struct EmissionHookTracingTests {
    @Test("One hook gives one span per execute, named by the key, with the event and the detail as attributes")
    func oneSpanPerExecute() throws {
        let tracer = InMemoryTracer()
        let table = CommandTable(name: "widget")
        let tracing = try table.addEmissionHook { emission in
            tracer.withSpan("execute \(emission.key)", ofKind: .internal) { span in
                span.attributes["eventkit.table"] = table.name
                span.attributes["eventkit.event"] = emission.event
                if let detail = emission.detail { span.attributes["eventkit.detail"] = detail }
                span.attributes["eventkit.arguments"] = emission.arguments.count
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
        #expect(spans.map(\.operationName) == ["execute notify::size", "execute notify", "execute reset", "execute nobody"])
        #expect(spans.map { $0.attributes["eventkit.event"]?.toSpanAttribute() } == [
            .string("notify"), .string("notify"), .string("reset"), .string("nobody"),
        ])
        #expect(spans.map { $0.attributes["eventkit.detail"]?.toSpanAttribute() } == [.string("size"), nil, nil, nil])
        #expect(spans.map { $0.attributes["eventkit.arguments"]?.toSpanAttribute() } == [
            .int64(1), .int64(1), .int64(0), .int64(0),
        ])
        #expect(spans.allSatisfy { $0.attributes["eventkit.table"]?.toSpanAttribute() == .string("widget") })

        // Once the hook's subscription is cancelled, executes make no spans.
        tracing.cancel()
        try table.execute("reset")
        #expect(tracer.finishedSpans.count == 4)
        withExtendedLifetime(handlers) {}
    }

    @Test("Nested executes make nested spans: a handler's execute is traced inside the span current around it")
    func nestedExecutesAreTracedInContext() throws {
        let tracer = InMemoryTracer()
        let table = CommandTable(name: "widget")
        let tracing = try table.addEmissionHook { emission in
            tracer.withSpan("execute \(emission.key)") { _ in }
            return true
        }
        let handlers = [
            table.on("outer") {
                // A handler that works inside a span of its own: the
                // execute it makes is traced as that span's child.
                tracer.withSpan("handler work") { _ in _ = try? table.execute("inner") }
            },
            table.on("inner") {},
        ]
        try table.execute("outer")
        let spans = tracer.finishedSpans
        #expect(spans.map(\.operationName) == ["execute outer", "execute inner", "handler work"])
        let work = try #require(spans.first { $0.operationName == "handler work" })
        let inner = try #require(spans.first { $0.operationName == "execute inner" })
        #expect(inner.parentSpanID == work.spanID)
        #expect(inner.traceID == work.traceID)
        withExtendedLifetime((tracing, handlers)) {}
    }
}
