import CDispatchCore
import EventKitSwift
import Logging
import Synchronization
import Testing

/// A log handler that keeps every record, for reading back in a test.
struct RecordingLogHandler: LogHandler {
    final class Records: Sendable {
        let entries = Mutex<[(level: Logger.Level, message: String, metadata: Logger.Metadata)]>([])
    }

    let records: Records
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        records.entries.withLock { $0.append((event.level, "\(event.message)", merged)) }
    }
}

@Suite("CommandTable logging")
struct CommandTableLoggingTests {
    // The log comes from an emission hook, which runs before the handlers:
    // it says how many handlers the execute considers ("handlers"), since
    // how many ran is not known yet.
    @Test("Each execute logs at trace level the table's name, the event and how many handlers it considers")
    func executeLogsAtTrace() throws {
        let records = RecordingLogHandler.Records()
        let logger = Logger(label: "test") { _ in RecordingLogHandler(records: records) }
        let table = CommandTable(name: "player", logger: logger)
        let subscriptions = [table.on("reset") {}, table.on("reset") {}]
        try table.execute("reset")
        try table.execute("unknown")

        let entries = records.entries.withLock { $0 }
        #expect(entries.count == 2)
        #expect(entries.allSatisfy { $0.level == .trace })
        #expect(entries.first?.metadata["table"] == "player")
        #expect(entries.first?.metadata["event"] == "reset")
        #expect(entries.first?.metadata["handlers"] == "2")
        #expect(entries.last?.metadata["event"] == "unknown")
        #expect(entries.last?.metadata["handlers"] == "0")
        withExtendedLifetime(subscriptions) {}
    }

    @Test("A logger above trace level records nothing for executes")
    func quietLoggerRecordsNothing() throws {
        let records = RecordingLogHandler.Records()
        var logger = Logger(label: "test") { _ in RecordingLogHandler(records: records) }
        logger.logLevel = .info
        let table = CommandTable(name: "quiet", logger: logger)
        let subscription = table.on("reset") {}
        try table.execute("reset")
        #expect(records.entries.withLock { $0.isEmpty })
        withExtendedLifetime(subscription) {}
    }

    @Test("Typed, detailed and C executes are logged once each, with the key executed")
    func everyKindOfExecuteIsLogged() throws {
        let records = RecordingLogHandler.Records()
        let logger = Logger(label: "test") { _ in RecordingLogHandler(records: records) }
        let table = CommandTable(name: "widget", logger: logger)
        let notify = EventKey<Int>("notify")
        let subscriptions = [table.on(notify) { _ in }, table.on(notify.detail("size")) { _ in }]
        try table.execute(notify, 1)
        try table.execute(notify.detail("size"), 2)
        var argument = dc_int64(3)
        #expect(dc_table_execute(table.unsafeCTable, "notify::title", &argument, 1, nil) == DC_OK)

        let entries = records.entries.withLock { $0 }
        #expect(entries.map { $0.metadata["event"] } == ["notify", "notify::size", "notify::title"])
        #expect(entries.map { $0.metadata["handlers"] } == ["1", "2", "1"])
        withExtendedLifetime(subscriptions) {}
    }

    @Test("A failing execute logs nothing: its arguments did not fit")
    func failingExecuteLogsNothing() throws {
        let records = RecordingLogHandler.Records()
        let logger = Logger(label: "test") { _ in RecordingLogHandler(records: records) }
        let table = CommandTable(name: "strict", logger: logger)
        let subscription = table.on("toggle") { (_: Bool) in }
        #expect(throws: DispatchError.self) { try table.execute("toggle", "yes") }
        #expect(records.entries.withLock { $0.isEmpty })
        withExtendedLifetime(subscription) {}
    }
}
