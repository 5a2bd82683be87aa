import EventKitSwift
import Foundation
import Synchronization
import Testing

// Typed handlers that answer and throw: the first answer wins (or the
// accumulator decides), an error stops the emission and reaches the caller,
// and the caller reads the answer typed.

private struct Order: EventPayload, Equatable {
    var id: Int
}

private struct Refused: Error, Equatable {
    let amount: Int
}

extension EventKey where Arguments == Int {
    fileprivate static let approve: EventKey<Int> = "approve"
}
extension EventKey where Arguments == (String, Int32) {
    fileprivate static let visit: EventKey<(String, Int32)> = "visit"
}
extension EventKey where Arguments == Void {
    fileprivate static let latest: EventKey<Void> = "latest"
    fileprivate static let save: EventKey<Void> = "save"
}

@Suite("Typed handlers that answer and throw")
struct TypedHandlerAnswerTests {
    @Test("A key's handler answers, and the caller reads the answer typed")
    func keyHandlerAnswers() throws {
        let table = CommandTable(name: "answers")
        let subscription = table.on(.approve) { (amount: Int) -> Bool in amount < 100 }
        #expect(try table.execute(.approve, 42).returnValue(as: Bool.self) == true)
        #expect(try table.execute(.approve, 420).returnValue(as: Bool.self) == false)
        #expect(try table.execute(.approve, 42).returnValue == .bool(true))
        withExtendedLifetime(subscription) {}
    }

    @Test("A string event's annotated handler answers, for Swift and by name")
    func stringHandlerAnswers() throws {
        let table = CommandTable(name: "answers")
        let subscription = table.on("visit") { (value: Int32) -> Int32 in value + 1 }
        #expect(try table.execute("visit", Int32(41)).returnValue(as: Int32.self) == 42)
        let byValues = try table.execute("visit", arguments: [.int32(1)])
        #expect(byValues.returnValue == .int32(2))
        withExtendedLifetime(subscription) {}
    }

    @Test("The first answer wins; the accumulator .last takes the last")
    func firstAnswerWinsOrAccumulatorDecides() throws {
        let table = CommandTable(name: "answers")
        let calls = Atomic<Int>(0)
        let subscriptions = [
            table.on(.visit) { (_: String, depth: Int32) -> Int32 in
                calls.add(1, ordering: .relaxed)
                return depth
            },
            table.on(.visit) { (_: String, depth: Int32) -> Int32 in
                calls.add(1, ordering: .relaxed)
                return depth * 10
            },
        ]
        #expect(try table.execute(.visit, "a", 3).returnValue(as: Int32.self) == 3)
        #expect(calls.load(ordering: .relaxed) == 2)
        let last = try table.execute("visit", arguments: [.string("a"), .int32(3)], accumulator: .last)
        #expect(last.returnValue(as: Int32.self) == 30)
        withExtendedLifetime(subscriptions) {}
    }

    @Test("A handler answers with a payload, which outlives the handler")
    func payloadAnswer() throws {
        let table = CommandTable(name: "answers")
        let subscription = table.on(.latest) { Order(id: 12) }
        for _ in 0..<300 {
            #expect(try table.execute(.latest).returnValue(as: Order.self) == Order(id: 12))
        }
        withExtendedLifetime(subscription) {}
    }

    @Test("A typed handler that throws stops the emission, and the caller gets its error")
    func throwingHandlerStopsEmission() throws {
        let table = CommandTable(name: "throws")
        let ran = Arrivals<String>()
        let subscriptions = [
            table.on(.approve) { amount in ran.append("first \(amount)") },
            table.on(.approve) { (amount: Int) throws(Refused) in
                if amount > 100 { throw Refused(amount: amount) }
                ran.append("second \(amount)")
            },
            table.on(.approve) { amount in ran.append("third \(amount)") },
        ]
        #expect(throws: Refused(amount: 500)) { try table.execute(.approve, 500) }
        #expect(ran.all == ["first 500"])
        #expect(throws: Refused(amount: 200)) { try table.execute("approve", 200) }
        try table.execute(.approve, 5)
        #expect(ran.all == ["first 500", "first 200", "first 5", "second 5", "third 5"])
        withExtendedLifetime(subscriptions) {}
    }

    @Test("Handlers without arguments throw and answer too")
    func voidKeyHandlersThrowAndAnswer() throws {
        let table = CommandTable(name: "throws")
        let failing = table.on(.save) { throw Refused(amount: 0) }
        #expect(throws: Refused(amount: 0)) { try table.execute(.save) }
        failing.cancel()
        let answering = table.on(.save) { () throws -> String in "saved" }
        #expect(try table.execute(.save).returnValue(as: String.self) == "saved")
        withExtendedLifetime(answering) {}
    }

    @Test("An answering handler that throws answers nothing and its error reaches the caller")
    func answeringHandlerThrows() throws {
        let table = CommandTable(name: "throws")
        let subscription = table.on(.approve) { (amount: Int) throws -> Bool in
            if amount < 0 { throw Refused(amount: amount) }
            return true
        }
        #expect(throws: Refused(amount: -1)) { try table.execute(.approve, -1) }
        #expect(try table.execute(.approve, 1).returnValue(as: Bool.self) == true)
        withExtendedLifetime(subscription) {}
    }

    @Test("Throwing and answering handlers raced by removal on another thread never run after removal returns")
    func throwingHandlersRacingRemoval() {
        let table = CommandTable(name: "race")
        let afterRemoval = Atomic<Int>(0)
        let removed = Atomic<Bool>(false)
        let unexpected = Atomic<Int>(0)
        let executesEach = 2_000
        withWatchdog(seconds: 60) {
            let done = DispatchGroup()
            let remover = Thread {
                for _ in 0..<200 {
                    removed.store(false, ordering: .sequentiallyConsistent)
                    let throwing = table.on(.approve) { (amount: Int) throws -> Bool in
                        if removed.load(ordering: .sequentiallyConsistent) { afterRemoval.add(1, ordering: .relaxed) }
                        if amount % 2 == 1 { throw Refused(amount: amount) }
                        return true
                    }
                    usleep(50)
                    throwing.cancel()
                    removed.store(true, ordering: .sequentiallyConsistent)
                }
                done.leave()
            }
            done.enter()
            remover.start()
            for _ in 0..<3 {
                done.enter()
                Thread {
                    for amount in 0..<executesEach {
                        do {
                            try table.execute(.approve, amount)
                        } catch let error as Refused {
                            if error.amount != amount { unexpected.add(1, ordering: .relaxed) }
                        } catch {
                            unexpected.add(1, ordering: .relaxed)
                        }
                    }
                    done.leave()
                }.start()
            }
            #expect(done.wait(timeout: .now() + 50) == .success)
        }
        #expect(unexpected.load(ordering: .relaxed) == 0)
        #expect(afterRemoval.load(ordering: .relaxed) == 0)
        #expect(table.handlerCount(for: .approve) == 0)
    }
}
