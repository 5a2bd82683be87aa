import EventKitSwift
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// These tests are synchronous on purpose: a synchronous test runs on one
// thread from start to end, so the thread that creates a queue stays its owner.

@Suite("EventQueue")
struct EventQueueTests {
    @Test("Deliveries posted from another thread wait, then the owner drains them in FIFO order")
    func postedDeliveriesDrainInOrderOnOwner() throws {
        let table = CommandTable(name: "queued")
        let queue = try EventQueue()
        let owner = pthread_self()
        let ticks = Arrivals<Int64>()
        let ranOnOwner = Arrivals<Bool>()
        let subscription = table.on("tick", on: .queue(queue)) { (values: [Value]) in
            guard case .int64(let tick)? = values.first else { return }
            ticks.append(tick)
            ranOnOwner.append(pthread_equal(pthread_self(), owner) != 0)
        }
        let queuedCounts = Arrivals<Int>()
        runOnSeparateThread {
            for tick in 0..<20 {
                queuedCounts.append((try? table.execute("tick", .int64(Int64(tick))))?.queued ?? -1)
            }
        }

        #expect(queuedCounts.all == Array(repeating: 1, count: 20))
        #expect(ticks.all.isEmpty)
        #expect(queue.pending == 20)
        #expect(isReadable(queue.fileDescriptor))

        #expect(queue.drain() == 20)
        #expect(ticks.all == Array(0..<20))
        #expect(ranOnOwner.all == Array(repeating: true, count: 20))
        #expect(queue.pending == 0)
        #expect(!isReadable(queue.fileDescriptor))
        #expect(queue.drain() == 0)
        withExtendedLifetime(subscription) {}
    }

    @Test("A handler runs at once when its event is executed on the owner thread")
    func ownerRunsHandlerAtOnce() throws {
        let table = CommandTable()
        let queue = try EventQueue()
        let flags = Arrivals<Bool>()
        let subscription = table.on("toggle", on: .queue(queue)) { (on: Bool) in flags.append(on) }

        #expect(queue.isOwner)
        let result = try table.execute("toggle", true)
        #expect(flags.all == [true])
        #expect(result.handled == 1)
        #expect(result.queued == 0)
        #expect(queue.pending == 0)
        #expect(!isReadable(queue.fileDescriptor))
        withExtendedLifetime(subscription) {}
    }

    @Test("Binding to another thread makes that thread the owner and this one a poster")
    func bindingMovesOwnership() throws {
        let table = CommandTable()
        let queue = try EventQueue()
        let calls = Arrivals<String>()
        let subscription = table.on("reset", on: .queue(queue)) { calls.append("reset") }
        let ownerAfterBinding = Arrivals<Bool>()
        runOnSeparateThread {
            queue.bindToCurrentThread()
            ownerAfterBinding.append(queue.isOwner)
        }

        #expect(ownerAfterBinding.all == [true])
        #expect(!queue.isOwner)
        let result = try table.execute("reset")
        #expect(result.queued == 1)
        #expect(calls.all.isEmpty)
        #expect(queue.pending == 1)

        queue.bindToCurrentThread()
        #expect(queue.isOwner)
        #expect(queue.drain() == 1)
        #expect(calls.all == ["reset"])
        withExtendedLifetime(subscription) {}
    }

    @Test("Cancelling a subscription drops its pending deliveries")
    func cancellingDropsPendingDeliveries() throws {
        let table = CommandTable()
        let queue = try EventQueue()
        let calls = Arrivals<String>()
        let subscription = table.on("reset", on: .queue(queue)) { calls.append("reset") }
        runOnSeparateThread {
            for _ in 0..<3 { _ = try? table.execute("reset") }
        }
        #expect(queue.pending == 3)

        subscription.cancel()
        #expect(queue.pending == 0)
        #expect(!isReadable(queue.fileDescriptor))
        #expect(queue.drain() == 0)
        #expect(calls.all.isEmpty)
        #expect(table.handlerCount(for: "reset") == 0)
    }

    @Test("A posted delivery holds a copy of its string and a reference to its object until drained")
    func postedArgumentsAreCopiedAndRetained() throws {
        let table = CommandTable()
        let queue = try EventQueue()
        let received = Arrivals<String>()
        let objectIdentities = Arrivals<ObjectIdentifier>()
        let subscription = table.on("select", on: .queue(queue)) { (values: [Value]) in
            guard case .object(let object?)? = values.first, case .string(let text?)? = values.last else { return }
            objectIdentities.append(ObjectIdentifier(object))
            received.append(text)
        }
        let watcher = WeakWatcher()
        runOnSeparateThread {
            let item = Parcel()
            watcher.watch(item)
            // The C copy of "hello" made for the execute is freed when it
            // returns; the delivery must hold its own.
            _ = try? table.execute("select", .object(item), "hello")
        }

        #expect(watcher.isAlive, "the pending delivery keeps the object alive")
        #expect(queue.drain() == 1)
        #expect(received.all == ["hello"])
        #expect(objectIdentities.all.count == 1)
        #expect(!watcher.isAlive, "the delivery released the object once it ran")
        withExtendedLifetime(subscription) {}
    }

    @Test("Releasing the queue drops what is pending and the posts that come after")
    func releasingTheQueueDropsDeliveries() throws {
        let table = CommandTable()
        var queue: EventQueue? = try EventQueue()
        let calls = Arrivals<String>()
        let subscription = table.on("reset", on: .queue(queue!)) { calls.append("reset") }
        let watcher = WeakWatcher()
        let subscriptionWithObject = table.on("select", on: .queue(queue!)) { (_: [Value]) in
            calls.append("select")
        }
        runOnSeparateThread {
            let item = Parcel()
            watcher.watch(item)
            _ = try? table.execute("select", .object(item))
        }
        #expect(watcher.isAlive)

        queue = nil
        #expect(!watcher.isAlive, "dropping the pending delivery released its object")
        let droppedCounts = Arrivals<Int>()
        runOnSeparateThread {
            droppedCounts.append((try? table.execute("reset"))?.dropped ?? -1)
        }
        #expect(droppedCounts.all == [1])
        #expect(calls.all.isEmpty)
        withExtendedLifetime((subscription, subscriptionWithObject)) {}
    }
}

// MARK: - Helpers shared by the delivery, queue and stream tests

/// A thread-safe list of what handlers received, in arrival order.
final class Arrivals<Element: Sendable>: Sendable {
    private let elements = Mutex<[Element]>([])

    func append(_ element: Element) {
        elements.withLock { $0.append(element) }
    }

    var all: [Element] {
        elements.withLock { $0 }
    }

    var count: Int {
        elements.withLock { $0.count }
    }
}

/// A class whose instances tests pass as object arguments.
final class Parcel: NullableEventArgument {
    let name: String

    init(name: String = "item") {
        self.name = name
    }
}

/// Watches whether an object is still alive, without keeping it alive.
// @unchecked: the weak reference is only touched under the lock.
final class WeakWatcher: @unchecked Sendable {
    private let lock = Mutex(())
    private weak var object: AnyObject?

    func watch(_ object: AnyObject) {
        lock.withLock { _ in self.object = object }
    }

    var isAlive: Bool {
        lock.withLock { _ in object != nil }
    }
}

/// Runs `body` on a new thread (never the caller's, unlike `DispatchQueue.sync`)
/// and waits for it to end.
func runOnSeparateThread(_ body: @escaping @Sendable () -> Void) {
    final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
    let context = Unmanaged.passRetained(Body(body)).toOpaque()
    var thread = pthread_t()
    let status = pthread_create(
        &thread, nil,
        { context in
            Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
    precondition(status == 0, "pthread_create failed: \(status)")
    pthread_join(thread, nil)
}

/// Whether `fileDescriptor` is readable now (`poll` with a zero timeout).
func isReadable(_ fileDescriptor: Int32) -> Bool {
    var entry = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
    return poll(&entry, 1, 0) == 1 && entry.revents & Int16(POLLIN) != 0
}
