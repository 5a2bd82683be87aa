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
    @Test("Each execute logs at trace level the table's name, the event and how many handlers ran")
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
        #expect(entries.first?.metadata["handled"] == "2")
        #expect(entries.last?.metadata["event"] == "unknown")
        #expect(entries.last?.metadata["handled"] == "0")
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
}
