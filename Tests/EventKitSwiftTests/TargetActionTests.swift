import EventKitSwift
import Foundation
import Synchronization
import Testing

/// A target whose methods are the actions, each logging what it received.
final class PlayerController {
    let log: Log
    init(log: Log) { self.log = log }

    func reset() { log.append("reset") }
    func toggle(_ on: Bool) { log.append("toggle \(on)") }
    func select(_ item: AnyObject?) { log.append(item.map { "select \(type(of: $0))" } ?? "select nil") }
    func send(_ sender: AnyObject?, _ arguments: [Value]) {
        log.append("send \(sender.map { "\(type(of: $0))" } ?? "nil") \(arguments)")
    }
    func rename(_ title: String, _ index: Int) { log.append("rename \(title) \(index)") }
    func configure(_ level: Int8, _ gain: Double, _ label: String?) {
        log.append("configure \(level) \(gain) \(label ?? "nil")")
    }
    func play(_ track: Track) { log.append("play \(track.title)") }
    func open(_ album: Album) { log.append("open album") }
}

/// Registers `controller`'s `reset` for "reset" in a scope of its own, so no
/// strong reference outlives it but the returned weak one.
func registerShortLivedController(on table: CommandTable, log: Log) -> () -> PlayerController? {
    let controller = PlayerController(log: log)
    table.addTarget(controller, action: PlayerController.reset, named: "reset", for: "reset")
    table.addTarget(controller, action: PlayerController.toggle, named: "toggleByKey", for: .toggle)
    return { [weak controller] in controller }
}

/// A C function bound to a weak target: scales its argument by the target's factor.
final class Scaler {
    let factor: Int64
    init(factor: Int64) { self.factor = factor }
}

let scaleByTarget: @convention(c) (UnsafeMutableRawPointer?, Int64) -> Int64 = { target, value in
    value * Unmanaged<Scaler>.fromOpaque(target!).takeUnretainedValue().factor
}

@Suite("Target-action")
struct TargetActionTests {
    @Test("A dead target's handler is not called and is pruned from the table")
    func deadTargetIsSkippedAndPruned() throws {
        let table = CommandTable()
        let log = Log()
        let controller = registerShortLivedController(on: table, log: log)
        #expect(controller() == nil)
        #expect(table.handlerCount(for: "reset") == 1)
        #expect(table.handlerCount(for: .toggle) == 1)

        // A handler passed over because its target died did not run.
        #expect(try table.execute("reset").handled == 0)
        #expect(try table.execute(.toggle, true).handled == 0)
        #expect(log.all.isEmpty)
        #expect(table.handlerCount(for: "reset") == 0)
        #expect(table.handlerCount(for: .toggle) == 0)
        #expect(try table.execute("reset").handled == 0)
    }

    @Test("Each target-action shape receives its arguments")
    func everyShapeReceivesItsArguments() throws {
        let table = CommandTable()
        let log = Log()
        let controller = PlayerController(log: log)
        table.addTarget(controller, action: PlayerController.reset, named: "reset", for: "reset")
        table.addTarget(controller, action: PlayerController.toggle, named: "toggle", for: "toggle")
        table.addTarget(controller, action: PlayerController.select, named: "select", for: "pick")
        table.addTarget(controller, action: PlayerController.send, named: "send", for: "send")
        table.addTarget(controller, action: PlayerController.reset, named: "resetByKey", for: .reset)
        table.addTarget(controller, action: PlayerController.toggle, named: "toggleByKey", for: .toggle)
        table.addTarget(controller, action: PlayerController.rename, named: "rename", for: .rename)
        table.addTarget(controller, action: PlayerController.configure, named: "configure", for: .configure)
        table.addTarget(controller, action: PlayerController.play, named: "play", for: .select)
        table.addTarget(controller, action: PlayerController.open, named: "open", for: .open)

        try table.execute("reset")
        try table.execute("toggle", false)
        try table.execute("pick", .object(Album()))
        try table.execute("send", .object(controller), .int64(7), "x")
        try table.execute("send", .int64(8))
        try table.execute(.rename, "intro", 2)
        try table.execute(.configure, 3, 1.5, "loud")
        try table.execute(.select, Track(title: "outro"))
        try table.execute(.open, Album())
        #expect(
            log.all == [
                "reset", "reset", "toggle false", "toggle false", "select Album",
                #"send PlayerController [int64(7), string("x")]"#, "send nil [int64(8)]",
                "rename intro 2", "configure 3 1.5 loud", "play outro", "open album",
            ])
    }

    @Test("Releasing a target-action subscription keeps the handler; cancelling removes it")
    func subscriptionDoesNotCancelOnRelease() throws {
        let table = CommandTable()
        let log = Log()
        let controller = PlayerController(log: log)
        var subscription: Registration? = table.addTarget(controller, action: PlayerController.reset, named: "reset", for: "reset")
        let kept = table.addTarget(controller, action: PlayerController.toggle, named: "toggle", for: "toggle")
        subscription = nil
        try table.execute("reset")
        #expect(log.all == ["reset"])
        kept.cancel()
        #expect(table.handlerCount(for: "toggle") == 0)
        try table.execute("toggle", true)
        #expect(log.all == ["reset"])
        _ = subscription
    }

    @Test("Removing a target removes its handlers on every event, or on one")
    func removeTarget() throws {
        let table = CommandTable()
        let log = Log()
        let controller = PlayerController(log: log)
        let other = PlayerController(log: log)
        table.addTarget(controller, action: PlayerController.reset, named: "reset", for: "reset")
        table.addTarget(controller, action: PlayerController.toggle, named: "toggle", for: "toggle")
        table.addTarget(controller, action: PlayerController.rename, named: "rename", for: .rename)
        table.addTarget(other, action: PlayerController.reset, named: "reset", for: "reset")

        #expect(table.removeTarget(controller, for: "toggle") == 1)
        #expect(table.removeTarget(controller, for: "toggle") == 0)
        #expect(table.removeTarget(controller, for: .rename) == 1)
        #expect(table.handlerCount(for: "reset") == 2)
        #expect(table.removeTarget(controller) == 1)
        #expect(table.removeTarget(controller) == 0)
        try table.execute("reset")
        try table.execute("toggle", true)
        #expect(log.all == ["reset"])
        #expect(table.handlerCount(for: "reset") == 1)
    }

    @Test("The same target, action name and event added twice keep one handler, as UIControl does; another name, event or target is another")
    func addingTheSameActionTwiceKeepsOne() throws {
        let table = CommandTable()
        let log = Log()
        let controller = PlayerController(log: log)
        let first = table.addTarget(controller, action: PlayerController.reset, named: "reset", for: "reset")
        let again = table.addTarget(controller, action: PlayerController.reset, named: "reset", for: "reset")
        #expect(first === again, "adding again returns the first registration")
        #expect(try table.execute("reset").handled == 1)
        #expect(log.all == ["reset"])

        // Asking for a duplicate: another name is another action.
        table.addTarget(controller, action: PlayerController.reset, named: "resetAgain", for: "reset")
        table.addTarget(controller, action: PlayerController.reset, named: "reset", for: "stop")
        let other = PlayerController(log: log)
        table.addTarget(other, action: PlayerController.reset, named: "reset", for: "reset")
        #expect(table.handlerCount(for: "reset") == 3)
        #expect(table.handlerCount(for: "stop") == 1)

        // Once removed, the same action adds anew.
        #expect(table.removeTarget(controller, named: "reset", for: "reset"))
        #expect(!table.removeTarget(controller, named: "reset", for: "reset"))
        #expect(first.isCancelled == false, "removing by name is not cancelling the registration")
        let renewed = table.addTarget(controller, action: PlayerController.reset, named: "reset", for: "reset")
        #expect(renewed !== first)
        #expect(table.handlerCount(for: "reset") == 3)
        first.cancel()
        #expect(table.handlerCount(for: "reset") == 3, "cancelling a removed registration removes nothing else")
        renewed.cancel()
        #expect(table.handlerCount(for: "reset") == 2)
        withExtendedLifetime(other) {}
    }

    @Test("Three threads adding the same target-action at once add it once and get one registration")
    func racingAddsOfOneActionAddOnce() throws {
        final class Target: Sendable {
            func tap() {}
        }
        let table = CommandTable()
        let target = Target()
        let finished = DispatchSemaphore(value: 0)
        let rounds = 300
        let outcomes = Mutex<[(registrations: Int, handlers: Int)]>([])
        Thread {
            for round in 0..<rounds {
                let event = "tap\(round)"
                let added = Mutex<Set<ObjectIdentifier>>([])
                DispatchQueue.concurrentPerform(iterations: 3) { _ in
                    let registration = table.addTarget(target, action: Target.tap, named: "tap", for: EventKey<Void>(event))
                    added.withLock { _ = $0.insert(ObjectIdentifier(registration)) }
                }
                let outcome = (added.withLock { $0.count }, table.handlerCount(for: event))
                outcomes.withLock { $0.append(outcome) }
            }
            finished.signal()
        }.start()
        #expect(finished.wait(timeout: .now() + 30) == .success, "adds hung")
        let seen = outcomes.withLock { $0 }
        #expect(seen.count == rounds)
        #expect(seen.allSatisfy { $0.registrations == 1 && $0.handlers == 1 })
        withExtendedLifetime(target) {}
    }

    @Test("A closure with an owner runs while the owner lives and is pruned once it has died")
    func ownerClosureLivesAsLongAsOwner() throws {
        let table = CommandTable()
        let log = Log()
        var owner: PlayerController? = PlayerController(log: log)
        weak let probe = owner
        table.on("reset", owner: owner!) { _ in log.append("owned reset") }
        table.on("toggle", owner: owner!) { (_, on: Bool) in log.append("owned toggle \(on)") }
        table.on(.rename, owner: owner!) { (_, title: String, index: Int) in log.append("owned rename \(title) \(index)") }
        try table.execute("reset")
        try table.execute("toggle", true)
        try table.execute(.rename, "a", 1)
        owner = nil
        #expect(probe == nil)
        try table.execute("reset")
        try table.execute("toggle", true)
        try table.execute(.rename, "b", 2)
        #expect(log.all == ["owned reset", "owned toggle true", "owned rename a 1"])
        #expect(table.events.isEmpty)
    }

    @Test("An ordinary class registers closures that receive it, executed from other threads, until it dies")
    func nonSendableOwnerReceivesItself() throws {
        /// Not Sendable: mutable state, no lock; the executes below run one
        /// at a time.
        final class Session {
            var resets = 0
            var renames: [String] = []
            init(table: CommandTable) {
                table.on("reset", owner: self) { session in session.resets += 1 }
                table.on(.rename, owner: self) { session, title, _ in session.renames.append(title) }
            }
        }
        let table = CommandTable()
        var session: Session? = Session(table: table)
        weak let probe = session
        withWatchdog(seconds: 30) {
            for round in 0..<3 {
                runOnSeparateThread {
                    _ = try? table.execute("reset")
                    _ = try? table.execute(.rename, "take \(round)", round)
                }
            }
        }
        #expect(session?.resets == 3)
        #expect(session?.renames == ["take 0", "take 1", "take 2"])
        session = nil
        #expect(probe == nil)
        #expect(try table.execute("reset").handled == 0)
    }

    @Test("Removing an owner removes the closures it owns")
    func removeOwner() throws {
        let table = CommandTable()
        let log = Log()
        let owner = PlayerController(log: log)
        table.on("reset", owner: owner) { _ in log.append("owned") }
        table.on(.reset, owner: owner) { _ in log.append("owned by key") }
        #expect(table.removeTarget(owner) == 2)
        #expect(try table.execute(.reset).handled == 0)
        #expect(log.all.isEmpty)
    }

    @Test("A C function bound to a weak target receives it as parameter 0 until it dies")
    func cFunctionWithWeakTarget() throws {
        let table = CommandTable()
        var scaler: Scaler? = Scaler(factor: 3)
        weak let probe = scaler
        let first = try table.addTarget(scaler!, function: scaleByTarget, signature: Signature("q@q"), for: "scale")
        let again = try table.addTarget(scaler!, function: scaleByTarget, signature: Signature("q@q"), for: "scale")
        #expect(first === again, "the same target and function for the same event are kept once")
        #expect(try table.execute("scale", .int64(14)).returnValue == .int64(42))
        #expect(try table.execute("scale", .int64(14)).handled == 1)
        scaler = nil
        #expect(probe == nil)
        // This execute finds the target dead: the function is not called (it
        // would read a freed Scaler) and the handler removes itself.
        try table.execute("scale", .int64(14))
        #expect(table.handlerCount(for: "scale") == 0)
        #expect(try table.execute("scale", .int64(14)).returnValue == nil)
    }

    @Test("A C function whose parameter 0 cannot take the target is rejected")
    func cFunctionWithoutTargetParameter() throws {
        let table = CommandTable()
        let scaler = Scaler(factor: 2)
        let message = expectDispatchError(DispatchError.typeMismatch) {
            try table.addTarget(scaler, function: scaleByTarget, signature: Signature("qq"), for: "scale")
        }
        #expect(message.contains("parameter 0"))
        #expect(table.handlerCount(for: "scale") == 0)
    }

    @Test("A target that dies while several threads execute is pruned once, without a crash")
    func targetDiesDuringConcurrentExecutes() async throws {
        let table = CommandTable()
        let log = Log()
        let controller = registerShortLivedController(on: table, log: log)
        // A live handler on the same event, so each execute has work besides
        // the dead target's.
        let live = PlayerController(log: Log())
        table.addTarget(live, action: PlayerController.reset, named: "reset", for: "reset")
        #expect(controller() == nil)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<500 { try table.execute("reset") }
                }
            }
            try await group.waitForAll()
        }
        #expect(log.all.isEmpty)
        #expect(table.handlerCount(for: "reset") == 1)
        #expect(try table.execute("reset").handled == 1)
        withExtendedLifetime(live) {}
    }

    @Test("A target-action's argument is checked before any handler runs")
    func targetActionArgumentsAreChecked() throws {
        let table = CommandTable()
        let log = Log()
        let controller = PlayerController(log: log)
        table.addTarget(controller, action: PlayerController.reset, named: "reset", for: "toggle")
        table.addTarget(controller, action: PlayerController.toggle, named: "toggle", for: "toggle")
        expectDispatchError(DispatchError.typeMismatch) { try table.execute("toggle", .int64(1)) }
        #expect(log.all.isEmpty)
    }
}
