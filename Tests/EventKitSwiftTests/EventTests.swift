import Foundation
import Dispatch
import EventKitSwift
import Logging
import Synchronization
import Testing

/// The arguments of a click.
struct ClickInfo: Sendable {
    let count: Int
}

/// A control that declares its events, one line each, and alone raises them.
final class ClickButton {
    let title: String
    @EventSource("clicked") var clicked: Event<ClickButton, ClickInfo>
    @EventSource("pressed") var pressed: Event<ClickButton, Void>
    @EventSource("reset") var reset: Event<Void, Void>

    init(title: String) {
        self.title = title
    }

    func click(count: Int) {
        _clicked.raise(sender: self, args: ClickInfo(count: count))
    }

    func press() {
        _pressed.raise(sender: self)
    }

    func resetAll() {
        _reset.raise()
    }

    @discardableResult
    func removeAllClickHandlers() -> Int {
        _clicked.removeAll()
    }
}

/// A listener whose methods are the actions, each logging what it received.
final class ClickListener {
    let name: String
    let log: Log

    init(_ name: String, log: Log) {
        self.name = name
        self.log = log
    }

    func noticeClick() { log.append("\(name) clicked") }
    func clicked(by button: ClickButton) { log.append("\(name) clicked by \(button.title)") }
    func clicked(by button: ClickButton, info: ClickInfo) {
        log.append("\(name) clicked by \(button.title) \(info.count)x")
    }
}

/// A Sendable owner, whose events can be delivered on other threads; it keeps
/// its source in a `let`, as a Sendable class cannot hold a property wrapper.
final class Downloader: Sendable {
    let name: String
    private let progressSource: EventSource<Downloader, Int>
    var progress: Event<Downloader, Int> { progressSource.event }

    init(name: String, logger: Logger? = nil) {
        self.name = name
        self.progressSource = EventSource("progress", logger: logger)
    }

    func report(_ percent: Int) {
        progressSource.raise(sender: self, args: percent)
    }
}

@Suite("Event")
struct EventTests {
    let log = Log()

    // MARK: Arity

    @Test("Each handler receives as many values as it takes: none, the sender, or the sender and arguments")
    func handlersTakeWhatTheyWant() {
        let button = ClickButton(title: "OK")
        let subscriptions = [
            button.clicked.add { log.append("nothing") },
            button.clicked.add { sender, _ in log.append("sender \(sender.title)") },
            button.clicked.add { sender, info in log.append("sender \(sender.title) count \(info.count)") },
        ]
        button.click(count: 2)

        #expect(log.all == ["nothing", "sender OK", "sender OK count 2"])
        withExtendedLifetime(subscriptions) {}
    }

    @Test("An event whose arguments are a tuple of 4 or 8 reaches handlers taking them one by one or whole, here and on a queue")
    func tupleArgumentsArriveOneByOne() async {
        let mixer = Mixer()
        let delivered = DispatchSemaphore(value: 0)
        let subscriptions = [
            mixer.levels.add { _, left, right, low, high in log.append("levels \(left + right + low + high)") },
            mixer.levels.add { _, levels in log.append("whole \(levels.0)") },
            mixer.changed.add { _, a, b, c, d, e, f, g, h in log.append("eight \(a) \(b) \(c) \(d) \(e) \(f) \(g) \(h)") },
            mixer.changed.add(on: .dispatchQueue(DispatchQueue(label: "mixer"))) { _, a, _, _, _, _, _, _, h in
                log.append("queued \(a) \(h)")
                delivered.signal()
            },
        ]
        mixer.raise()
        #expect(delivered.wait(timeout: .now() + 10) == .success)
        #expect(log.all == ["levels 10", "whole 1", "eight true 2 3 4 5 6.5 7.5 x", "queued true x"])
        withExtendedLifetime(subscriptions) {}
    }

    @Test("An event raised with a sender only reaches handlers taking nothing, the sender, or both")
    func raiseWithSender() {
        let button = ClickButton(title: "Hold")
        let subscriptions = [
            button.pressed.add { sender, _ in log.append("both \(sender.title)") },
            button.pressed.add { sender in log.append("sender \(sender.title)") },
            button.pressed.add { log.append("nothing") },
        ]
        button.press()

        #expect(log.all == ["both Hold", "sender Hold", "nothing"])
        withExtendedLifetime(subscriptions) {}
    }

    @Test("An event raised with nothing reaches handlers of every arity")
    func raiseWithNothing() {
        let button = ClickButton(title: "Reset")
        let subscriptions = [
            button.reset.add { log.append("nothing") },
            button.reset.add { (_: Void) in log.append("void sender") },
            button.reset.add { (_: Void, _: Void) in log.append("void sender and arguments") },
        ]
        button.resetAll()
        button.resetAll()

        #expect(
            log.all == [
                "nothing", "void sender", "void sender and arguments",
                "nothing", "void sender", "void sender and arguments",
            ])
        withExtendedLifetime(subscriptions) {}
    }

    @Test("Target-actions take what they want too, and run in the order they were added, with closures")
    func targetActionArity() {
        let button = ClickButton(title: "OK")
        let listener = ClickListener("listener", log: log)
        button.clicked.addTarget(listener, action: ClickListener.clicked(by:info:), named: "clickedWithInfo")
        let subscription = button.clicked.add { log.append("closure") }
        button.clicked.addTarget(listener, action: ClickListener.noticeClick, named: "noticeClick")
        button.clicked.addTarget(listener, action: ClickListener.clicked(by:), named: "clickedBy")
        button.click(count: 3)

        #expect(log.all == ["listener clicked by OK 3x", "closure", "listener clicked", "listener clicked by OK"])
        withExtendedLifetime(subscription) {}
    }

    // MARK: Adding and removing

    @Test("Adding the same target and action twice keeps one handler; another action of the target is another")
    func sameTargetActionIsKeptOnce() {
        let button = ClickButton(title: "OK")
        let listener = ClickListener("listener", log: log)
        let first = button.clicked.addTarget(listener, action: ClickListener.clicked(by:), named: "clickedBy")
        let again = button.clicked.addTarget(listener, action: ClickListener.clicked(by:), named: "clickedBy")
        #expect(first === again)
        #expect(button.clicked.handlerCount == 1)

        button.clicked.addTarget(listener, action: ClickListener.clicked(by:info:), named: "clickedWithInfo")
        #expect(button.clicked.handlerCount == 2)
        button.click(count: 1)
        #expect(log.all == ["listener clicked by OK", "listener clicked by OK 1x"])

        let other = ClickListener("other", log: log)
        button.clicked.addTarget(other, action: ClickListener.clicked(by:), named: "clickedBy")
        #expect(button.clicked.handlerCount == 3, "the same action of another target is another pair")
    }

    @Test("An action added again after it was removed is registered anew")
    func readdingAfterRemoval() {
        let button = ClickButton(title: "OK")
        let listener = ClickListener("listener", log: log)
        let first = button.clicked.addTarget(listener, action: ClickListener.clicked(by:), named: "clickedBy")
        first.cancel()
        #expect(button.clicked.handlerCount == 0)
        let second = button.clicked.addTarget(listener, action: ClickListener.clicked(by:), named: "clickedBy")
        #expect(first !== second)
        button.click(count: 1)
        #expect(log.all == ["listener clicked by OK"])
    }

    @Test("removeTarget(_:named:) removes that pair only; removeTarget(_:) every handler of the target")
    func removeTargets() {
        let button = ClickButton(title: "OK")
        let listener = ClickListener("listener", log: log)
        let other = ClickListener("other", log: log)
        button.clicked.addTarget(listener, action: ClickListener.clicked(by:), named: "clickedBy")
        button.clicked.addTarget(listener, action: ClickListener.clicked(by:info:), named: "clickedWithInfo")
        button.clicked.addTarget(other, action: ClickListener.clicked(by:), named: "clickedBy")

        #expect(button.clicked.removeTarget(listener, named: "clickedBy"))
        #expect(!button.clicked.removeTarget(listener, named: "clickedBy"))
        #expect(!button.clicked.removeTarget(listener, named: "neverAdded"))
        button.click(count: 1)
        #expect(log.all == ["listener clicked by OK 1x", "other clicked by OK"])

        #expect(button.clicked.removeTarget(listener) == 1)
        button.click(count: 2)
        #expect(log.all.suffix(1) == ["other clicked by OK"])
        #expect(button.clicked.handlerCount == 1)
    }

    @Test("A closure lives as long as its subscription; cancelling removes it")
    func closureLifetime() {
        let button = ClickButton(title: "OK")
        var kept: Subscription? = button.clicked.add { log.append("kept") }
        let cancelled = button.clicked.add { log.append("cancelled") }
        _ = button.clicked.add { log.append("released at once") }
        cancelled.cancel()
        button.click(count: 1)
        #expect(log.all == ["kept"])

        kept = nil
        button.click(count: 1)
        #expect(log.all == ["kept"])
        #expect(button.clicked.handlerCount == 0)
        withExtendedLifetime(kept) {}
    }

    @Test("The owner removes every handler, closures and target-actions alike")
    func ownerRemovesAll() {
        let button = ClickButton(title: "OK")
        let listener = ClickListener("listener", log: log)
        let subscription = button.clicked.add { log.append("closure") }
        button.clicked.addTarget(listener, action: ClickListener.clicked(by:), named: "clickedBy")

        #expect(button.removeAllClickHandlers() == 2)
        button.click(count: 1)
        #expect(log.all.isEmpty)
        #expect(button.clicked.handlerCount == 0)

        button.clicked.addTarget(listener, action: ClickListener.clicked(by:), named: "clickedBy")
        #expect(button.clicked.handlerCount == 1, "the pair can be added again once removed")
        withExtendedLifetime(subscription) {}
    }

    @Test("A dead target's actions are skipped, never called, and pruned")
    func deadTargetIsSkipped() {
        let button = ClickButton(title: "OK")
        do {
            let listener = ClickListener("short-lived", log: log)
            button.clicked.addTarget(listener, action: ClickListener.clicked(by:), named: "clickedBy")
        }
        #expect(button.clicked.handlerCount == 1)
        button.click(count: 1)
        #expect(log.all.isEmpty)
        #expect(button.clicked.handlerCount == 0)
    }

    @Test("A handler added while the event is raised runs from the next raise; one removed runs no more")
    func reentrantChanges() {
        let button = ClickButton(title: "OK")
        let late = Mutex<Subscription?>(nil)
        let victim = Mutex<Subscription?>(nil)
        let first = button.clicked.add { sender, _ in
            log.append("first")
            late.withLock { subscription in
                if subscription == nil { subscription = sender.clicked.add { log.append("late") } }
            }
            victim.withLock { $0?.cancel() }
        }
        victim.withLock { $0 = button.clicked.add { log.append("victim") } }

        button.click(count: 1)
        #expect(log.all == ["first"])
        button.click(count: 1)
        #expect(log.all == ["first", "first", "late"])
        withExtendedLifetime(first) {}
    }

    // MARK: Delivery

    @Test("Handlers delivered on a serial queue run there, in the order of the raises")
    func deliveryOnQueueKeepsOrder() {
        let downloader = Downloader(name: "fetch")
        let queue = DispatchQueue(label: "event.delivery")
        let onQueue = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: onQueue, value: true)
        let percents = Arrivals<Int>()
        let senders = Arrivals<String>()
        let ranOnQueue = Arrivals<Bool>()
        let subscriptions = [
            downloader.progress.add(on: .dispatchQueue(queue)) { sender, percent in
                percents.append(percent)
                senders.append(sender.name)
                ranOnQueue.append(DispatchQueue.getSpecific(key: onQueue) == true)
            },
            downloader.progress.add(on: .dispatchQueue(queue)) { _, _ in
                ranOnQueue.append(DispatchQueue.getSpecific(key: onQueue) == true)
            },
        ]
        runOnSeparateThread {
            for percent in 0...100 {
                downloader.report(percent)
            }
        }
        queue.sync {}

        #expect(percents.all == Array(0...100))
        #expect(Set(senders.all) == ["fetch"])
        #expect(ranOnQueue.all == Array(repeating: true, count: 202))
        withExtendedLifetime(subscriptions) {}
    }

    @Test("Handlers delivered on an event queue wait for its owner's drain, then run in raise order")
    func deliveryOnEventQueueKeepsOrder() throws {
        let downloader = Downloader(name: "fetch")
        let queue = try EventQueue()
        let received = Arrivals<String>()
        let subscriptions = [
            downloader.progress.add(on: .queue(queue)) { sender, percent in
                received.append("\(sender.name) \(percent)")
            },
            downloader.progress.add(on: .queue(queue)) { sender, _ in received.append("sender \(sender.name)") },
        ]
        runOnSeparateThread {
            downloader.report(10)
            downloader.report(20)
        }
        #expect(received.all.isEmpty)
        #expect(queue.pending == 4)

        #expect(queue.drain() == 4)
        #expect(received.all == ["fetch 10", "sender fetch", "fetch 20", "sender fetch"])
        withExtendedLifetime(subscriptions) {}
    }

    @Test("Handlers delivered on the main actor run there in the order of the raises")
    @MainActor
    func deliveryOnMainActor() async throws {
        let downloader = Downloader(name: "fetch")
        var percents: [Int] = []
        let subscription = downloader.progress.add(on: .mainActor) { _, percent in
            percents.append(percent)
        }
        runOnSeparateThread {
            for percent in 1...5 {
                downloader.report(percent)
            }
        }
        try await waitOnMainActor { percents.count == 5 }
        #expect(percents == [1, 2, 3, 4, 5])
        withExtendedLifetime(subscription) {}
    }

    // MARK: Name

    @Test("The name is in the description and in the trace log of each raise")
    func nameInDescriptionAndLogs() {
        let records = RecordingLogHandler.Records()
        let logger = Logger(label: "test") { _ in RecordingLogHandler(records: records) }
        let downloader = Downloader(name: "fetch", logger: logger)
        let subscriptions = [downloader.progress.add {}, downloader.progress.add {}]
        downloader.report(50)

        #expect(downloader.progress.name == "progress")
        #expect(downloader.progress.description == "Event<Downloader, Int>(\"progress\", 2 handlers)")
        let entries = records.entries.withLock { $0 }
        #expect(entries.count == 1)
        #expect(entries.first?.level == .trace)
        #expect(entries.first?.metadata["table"] == "progress")
        // Logged by an emission hook, before the handlers: how many the raise
        // considers, not how many ran.
        #expect(entries.first?.metadata["handlers"] == "2")
        #expect(ClickButton(title: "").reset.description == "Event<(), ()>(\"reset\", 0 handlers)")
        withExtendedLifetime(subscriptions) {}
    }

    @Test("A raise nested too deeply in its own handlers runs no handler there and logs an error")
    func nestingTooDeeplyIsLogged() {
        let records = RecordingLogHandler.Records()
        var logger = Logger(label: "test") { _ in RecordingLogHandler(records: records) }
        logger.logLevel = .error
        let downloader = Downloader(name: "loop", logger: logger)
        let calls = Mutex(0)
        let subscription = downloader.progress.add { sender, percent in
            calls.withLock { $0 += 1 }
            sender.report(percent + 1)
        }
        downloader.report(0)

        #expect(calls.withLock { $0 } == 64)
        let entries = records.entries.withLock { $0 }
        #expect(entries.count == 1)
        #expect(entries.first?.level == .error)
        #expect(entries.first?.metadata["event"] == "progress")
        withExtendedLifetime(subscription) {}
    }
}

/// An event source whose arguments are tuples.
// @unchecked: its events are set once, at init, and only read after.
final class Mixer: @unchecked Sendable {
    @EventSource("levels") var levels: Event<Mixer, (Int, Int, Int, Int)>
    @EventSource("changed") var changed: Event<Mixer, (Bool, Int8, UInt16, Int32, UInt64, Float, Double, String)>

    func raise() {
        _levels.raise(sender: self, args: (1, 2, 3, 4))
        _changed.raise(sender: self, args: (true, 2, 3, 4, 5, 6.5, 7.5, "x"))
    }
}
