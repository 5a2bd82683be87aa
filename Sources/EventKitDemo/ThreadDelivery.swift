// 5. Delivery on another thread: an event handler list raised from a worker
// delivers, in order, on the thread that owns its queue; and a table's event
// as an async stream.

import Dispatch
import EventKitSwift

/// Downloads on a worker thread and reports its progress as an event.
final class Downloader: Sendable {
    let file: String
    private let progressSource = EventSource<Downloader, Int>("progress")
    /// The percentage done; only the downloader raises it.
    var progress: Event<Downloader, Int> { progressSource.event }

    init(file: String) { self.file = file }

    func download() {
        for percent in [25, 50, 100] {
            progressSource.raise(sender: self, args: percent)
        }
    }
}

/// Runs `work` on a thread of its own and waits for it, at most five seconds:
/// the tour never hangs.
private func onWorkerThread(_ work: @escaping @Sendable () throws -> Void) {
    let done = DispatchSemaphore(value: 0)
    DispatchQueue(label: "tour.worker").async {
        do {
            try work()
        } catch {
            print("worker failed: \(error)")
        }
        done.signal()
    }
    if done.wait(timeout: .now() + .seconds(5)) == .timedOut {
        print("the worker did not finish in 5 s")
    }
}

@MainActor
func threadDelivery() async throws {
    section(5, "Delivery on another thread, in order (Event, EventQueue)")
    let mainQueue = try EventQueue()   // owned by this, the main thread
    let downloader = Downloader(file: "intro.ogg")
    let bar = downloader.progress.add(on: .queue(mainQueue)) { sender, percent in
        print("  \(sender.file): \(percent)%, on the queue's owner: \(mainQueue.isOwner)")
    }
    print("a worker thread raises \(downloader.progress): 25, 50, 100")
    onWorkerThread { downloader.download() }
    print("main thread drains \(mainQueue.pending) pending deliveries:")
    mainQueue.drain()
    withExtendedLifetime(bar) {}

    try await eventStream()
}

/// The executes of a table's event, from a worker, taken as an async stream.
@MainActor
private func eventStream() async throws {
    let table = CommandTable(name: "download")
    let stream = table.events(for: "progress")
    onWorkerThread {
        for percent: Int64 in [25, 50, 100] {
            try table.execute("progress", .int64(percent))
        }
    }
    // Removing the handler finishes the stream after what it buffered.
    table.removeAll(for: "progress")
    var received: [String] = []
    for await snapshot in stream {
        received.append(snapshot.description)
    }
    print("a table's event as an async stream, events(for: \"progress\"):")
    print("  \(received.joined(separator: ", ")), finished")
}
