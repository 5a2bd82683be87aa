import EventKitSwift
import Synchronization
import Testing

@Suite("EventStream")
struct EventStreamTests {
    @Test("A stream yields a snapshot of each execute's arguments, in execute order")
    func yieldsSnapshotsInOrder() async throws {
        let table = CommandTable()
        let stream = table.events(for: "tick")
        for tick in 0..<100 {
            let result = try table.execute("tick", .int64(Int64(tick)), .string("t\(tick)"))
            #expect(result.handled == 1)
        }

        let received = await collect(stream.prefix(100))
        let expected = (0..<100).map {
            EventSnapshot(event: "tick", arguments: [.int64(Int64($0)), .string("t\($0)")])
        }
        #expect(received == expected)
    }

    @Test("A typed key's stream yields its argument typed, with the same buffering, and ends with its handler")
    func typedStreams() async throws {
        let table = CommandTable()
        let progress = EventKey<Double>("progress")
        let fractions = table.events(for: progress, bufferingPolicy: .bufferingNewest(2))
        let resets = table.events(for: .reset)
        for step in 1...4 { try table.execute(progress, Double(step) / 4) }
        try table.execute("progress", .float(0.5))
        try table.execute(.reset)
        // The stream's handler is typed: a value that is not a Double runs nothing.
        expectDispatchError(DispatchError.typeMismatch) { try table.execute("progress", .string("half")) }
        #expect(table.handlerCount(for: progress) == 1)
        table.removeAll(for: progress)
        var received: [Double] = []
        for await fraction in fractions { received.append(fraction) }
        #expect(received == [1, 0.5])
        var resetCount = 0
        for await _ in resets.prefix(1) { resetCount += 1 }
        #expect(resetCount == 1)
    }

    @Test("A stream of a key with 2, 4 and 8 arguments yields them as a typed tuple, buffered and ended the same way")
    func typedStreamsOfManyArguments() async throws {
        let table = CommandTable()
        let renames = table.events(for: .rename, bufferingPolicy: .bufferingOldest(2))
        let fours = table.events(for: .four)
        let eights = table.events(for: .eight)
        try table.execute(.rename, "intro", 1)
        try table.execute(.rename, "verse", 2)
        try table.execute(.rename, "chorus", 3)
        try table.execute(.four, 1, 2, 3, 4)
        try table.execute(.eight, true, -8, 16, -32, 64, 1.5, 2.5, 7)
        try table.execute("four", 5, 6, 7, 8)
        expectDispatchError(DispatchError.typeMismatch) { try table.execute("rename", 1, "one") }
        #expect(table.handlerCount(for: .rename) == 1)
        table.removeAll()

        var received: [String] = []
        for await (title, index) in renames { received.append("\(title) \(index)") }
        #expect(received == ["intro 1", "verse 2"])
        var sums: [Int] = []
        for await (a, b, c, d) in fours { sums.append(a + b + c + d) }
        #expect(sums == [10, 26])
        var eight: [String] = []
        for await (a, b, c, d, e, f, g, h) in eights { eight.append("\(a) \(b) \(c) \(d) \(e) \(f) \(g) \(h)") }
        #expect(eight == ["true -8 16 -32 64 1.5 2.5 7"])
    }

    @Test("bufferingNewest keeps the newest elements and drops the older ones")
    func bufferingNewestKeepsNewest() async throws {
        let table = CommandTable()
        let stream = table.events(for: "tick", bufferingPolicy: .bufferingNewest(3))
        for tick in 0..<10 {
            try table.execute("tick", .int64(Int64(tick)))
        }
        table.removeAll(for: "tick")

        #expect(await ticks(of: stream) == [7, 8, 9])
    }

    @Test("bufferingOldest keeps the oldest elements and drops the newer ones")
    func bufferingOldestKeepsOldest() async throws {
        let table = CommandTable()
        let stream = table.events(for: "tick", bufferingPolicy: .bufferingOldest(3))
        for tick in 0..<10 {
            try table.execute("tick", .int64(Int64(tick)))
        }
        table.removeAll(for: "tick")

        #expect(await ticks(of: stream) == [0, 1, 2])
    }

    @Test("An unbounded stream keeps everything until it is taken")
    func unboundedKeepsEverything() async throws {
        let table = CommandTable()
        let stream = table.events(for: "tick", bufferingPolicy: .unbounded)
        for tick in 0..<1000 {
            try table.execute("tick", .int64(Int64(tick)))
        }
        table.removeAll(for: "tick")

        #expect(await ticks(of: stream) == Array(0..<1000))
    }

    @Test("Releasing a stream removes its handler")
    func releasingStreamRemovesHandler() throws {
        let table = CommandTable()
        do {
            let stream = table.events(for: "tick")
            #expect(table.handlerCount(for: "tick") == 1)
            withExtendedLifetime(stream) {}
        }
        #expect(table.handlerCount(for: "tick") == 0)
        #expect(try table.execute("tick", 1).handled == 0)
    }

    @Test("Releasing the iterator, once the stream is gone, removes the handler")
    func releasingIteratorRemovesHandler() async throws {
        let table = CommandTable()
        var iterator: EventStream<EventSnapshot>.Iterator? = table.events(for: "tick").makeAsyncIterator()
        try table.execute("tick", 1)
        #expect(await iterator?.next() == EventSnapshot(event: "tick", arguments: [.int64(1)]))
        #expect(table.handlerCount(for: "tick") == 1)

        iterator = nil
        #expect(table.handlerCount(for: "tick") == 0)
    }

    @Test("Cancelling the consuming task ends the iteration and removes the handler")
    func cancellingConsumerEndsStream() async throws {
        let table = CommandTable()
        let stream = table.events(for: "tick")
        let taken = Arrivals<Int64>()
        let consumer = Task {
            for await snapshot in stream {
                if case .int64(let tick)? = snapshot.arguments.first { taken.append(tick) }
            }
            return taken.count
        }
        try table.execute("tick", 1)
        try await waitUntil { taken.count == 1 }

        consumer.cancel()
        #expect(await consumer.value == 1, "the loop ended after the one element")
        #expect(table.handlerCount(for: "tick") == 0)
        #expect(try table.execute("tick", 2).handled == 0)
    }

    @Test("A stream finishes, after what it buffered, when its table is released")
    func releasingTableFinishesStream() async throws {
        var table: CommandTable? = CommandTable()
        let stream = table!.events(for: "tick")
        try table!.execute("tick", 1)
        try table!.execute("tick", 2)

        table = nil
        #expect(await ticks(of: stream) == [1, 2])
    }

    @Test("An object argument arrives as its identity; a transform receives the object itself")
    func objectsBecomeIdentitiesOrTransforms() async throws {
        let table = CommandTable()
        let snapshots = table.events(for: "select")
        let names = table.events(for: "select", bufferingPolicy: .bufferingNewest(4)) { values -> String in
            guard case .object(let parcel as Parcel)? = values.first else { return "none" }
            return parcel.name
        }
        let parcel = Parcel(name: "parcel")
        try table.execute("select", .object(parcel))
        try table.execute("select", .object(nil), .pointer(nil))
        table.removeAll(for: "select")

        let received = await collect(snapshots)
        #expect(received.map(\.arguments) == [[.object(ObjectIdentifier(parcel))], [.object(nil), .pointer(nil)]])
        #expect(await collect(names) == ["parcel", "none"])
    }

    @Test("A sendable value keeps each case's payload and describes itself as a Value does")
    func sendableValuesMirrorValues() {
        let values: [Value] = [.void, .bool(true), .int8(-8), .uint16(16), .int64(64), .float(0.5), .string("hi")]
        let sendable = values.map(SendableValue.init)
        #expect(sendable == [.void, .bool(true), .int8(-8), .uint16(16), .int64(64), .float(0.5), .string("hi")])
        #expect(sendable.map(\.type) == values.map(\.type))
        #expect(sendable.map(\.description) == values.map(\.description))

        var byte: UInt8 = 0
        let address = withUnsafeMutablePointer(to: &byte) { UnsafeMutableRawPointer($0) }
        #expect(SendableValue(.pointer(address)) == .pointer(UInt(bitPattern: address)))
        #expect(SendableValue(.pointer(address)).description == "pointer(\(address))")
    }
}

/// Every tick (first argument, an int64) a finite stream yields.
private func ticks(of stream: EventStream<EventSnapshot>) async -> [Int64] {
    await collect(stream).compactMap { snapshot in
        guard case .int64(let tick)? = snapshot.arguments.first else { return nil }
        return tick
    }
}

/// Every element `sequence` yields until it ends, or until `timeout` passes:
/// then the consuming task is cancelled, so a stream that fails to finish
/// fails its test instead of hanging it.
private func collect<Element: Sendable>(
    _ sequence: some AsyncSequence<Element, Never> & Sendable, timeout: Duration = .seconds(2)
) async -> [Element] {
    let consumer = Task {
        var elements: [Element] = []
        for await element in sequence { elements.append(element) }
        return elements
    }
    let watchdog = Task {
        try await Task.sleep(for: timeout)
        consumer.cancel()
    }
    defer { watchdog.cancel() }
    return await consumer.value
}

/// Suspends until `condition` holds or `timeout` passes.
private func waitUntil(timeout: Duration = .seconds(2), _ condition: @Sendable () -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while !condition(), ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(1))
    }
}
