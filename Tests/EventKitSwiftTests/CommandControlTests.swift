import EventKitSwift
import Testing

/// A handler for a control: each method logs under the handler's name.
final class ControlHandler {
    let name: String
    let log: Log
    let step: Int64
    init(_ name: String, log: Log, step: Int64 = 1) {
        self.name = name
        self.log = log
        self.step = step
    }

    func tap() { log.append("\(name) tap") }
    func doubleTap() { log.append("\(name) double tap") }
    func setLooping(_ on: Bool) { log.append("\(name) looping \(on)") }
    func drag(_ sender: AnyObject?, _ arguments: [Value]) { log.append("\(name) drag \(arguments)") }
    func rename(_ title: String, _ index: Int) { log.append("\(name) rename \(title) \(index)") }
    func sum(_ a: Int, _ b: Int, _ c: Int, _ d: Int) { log.append("\(name) sum \(a + b + c + d)") }
}

/// `value * handler.step`: a command taking the handler as parameter 0, on
/// the cast-function-pointer path.
let stepped: @convention(c) (UnsafeMutableRawPointer?, Int64) -> Int64 = { handler, value in
    value * Unmanaged<ControlHandler>.fromOpaque(handler!).takeUnretainedValue().step
}

/// The sum of seven numbers times `handler.step`: more parameters than the
/// stubs cover, so it takes the libffi path.
let steppedSum:
    @convention(c) (UnsafeMutableRawPointer?, Int64, Int64, Int64, Int64, Int64, Int64, Int64) -> Int64 = {
        handler, a, b, c, d, e, f, g in
        (a + b + c + d + e + f + g) * Unmanaged<ControlHandler>.fromOpaque(handler!).takeUnretainedValue().step
    }

@Suite("CommandControl")
struct CommandControlTests {
    @Test("Registering a command for a key replaces the key's previous command")
    func commandReplacesPerKey() throws {
        let log = Log()
        let handler = ControlHandler("a", log: log)
        let control = CommandControl(name: "button", handler: handler)
        try control.setCommand(ControlHandler.tap, for: "tap")
        try control.setCommand(ControlHandler.doubleTap, for: "tap")
        try control.setCommand(ControlHandler.setLooping, for: "hold")
        #expect(try control.execute("tap").handled == 1)
        try control.execute("hold", true)
        #expect(log.all == ["a double tap", "a looping true"])
        #expect(Set(control.commandKeys) == ["tap", "hold"])
    }

    @Test("Assigning a different handler clears every command; commands then run against the new handler")
    func newHandlerClearsCommands() throws {
        let log = Log()
        let first = ControlHandler("first", log: log)
        let second = ControlHandler("second", log: log)
        let control = CommandControl<ControlHandler>(handler: first)
        try control.setCommand(ControlHandler.tap, for: "tap")
        try control.setCommand(ControlHandler.setLooping, for: "hold")

        control.handler = second
        #expect(control.commandKeys.isEmpty)
        #expect(!control.hasCommand(for: "tap"))
        #expect(try control.execute("tap").handled == 0)

        try control.setCommand(ControlHandler.tap, for: "tap")
        try control.execute("tap")
        #expect(log.all == ["second tap"])
        #expect(control.handler === second)
    }

    @Test("Assigning the same handler again keeps its commands")
    func sameHandlerKeepsCommands() throws {
        let log = Log()
        let handler = ControlHandler("a", log: log)
        let control = CommandControl(handler: handler)
        try control.setCommand(ControlHandler.tap, for: "tap")
        control.handler = handler
        try control.execute("tap")
        #expect(log.all == ["a tap"])
        control.handler = nil
        #expect(try control.execute("tap").handled == 0)
        #expect(log.all == ["a tap"])
    }

    @Test("Commands receive the event's arguments, by name and by typed key")
    func commandsReceiveArguments() throws {
        let log = Log()
        let handler = ControlHandler("a", log: log)
        let control = CommandControl(handler: handler)
        try control.setCommand(ControlHandler.drag, for: "drag")
        try control.setCommand(ControlHandler.setLooping, for: .toggle)
        try control.setCommand(ControlHandler.rename, for: .rename)
        try control.setCommand(ControlHandler.tap, for: .reset)
        try control.setCommand(ControlHandler.sum, for: .four)
        try control.execute("drag", arguments: [.object(handler), .double(2.5)])
        try control.execute(.toggle, false)
        try control.execute(.rename, "intro", 4)
        try control.execute(.reset)
        try control.execute(.four, 1, 2, 3, 4)
        #expect(
            log.all == ["a drag [double(2.5)]", "a looping false", "a rename intro 4", "a tap", "a sum 10"])
    }

    @Test("A wrong argument type throws before the command runs")
    func wrongArgumentThrows() throws {
        let log = Log()
        let handler = ControlHandler("a", log: log)
        let control = CommandControl(handler: handler)
        try control.setCommand(ControlHandler.setLooping, for: "hold")
        expectDispatchError(DispatchError.typeMismatch) { try control.execute("hold", "yes") }
        #expect(log.all.isEmpty)
    }

    @Test("Setting a command without a handler throws and registers nothing")
    func noHandlerThrows() throws {
        let control = CommandControl<ControlHandler>(name: "orphan")
        let message = expectDispatchError(DispatchError.invalidState) {
            try control.setCommand(ControlHandler.tap, for: "tap")
        }
        #expect(message.contains("orphan"))
        #expect(control.commandKeys.isEmpty)
    }

    @Test("C function commands take the handler as parameter 0 on both call paths")
    func cFunctionCommandsOnBothPaths() throws {
        let log = Log()
        let handler = ControlHandler("a", log: log, step: 2)
        let control = CommandControl(handler: handler)
        let stub = try Signature("q@q")
        let libffi = try Signature("q@qqqqqqq")
        #expect(stub.callPath == .stub)
        #expect(libffi.callPath == .libffi)
        try control.setCommand(function: stepped, signature: stub, for: "scale")
        try control.setCommand(function: steppedSum, signature: libffi, for: "sum")
        #expect(try control.execute("scale", 21).returnValue == .int64(42))
        #expect(try control.execute("sum", 1, 2, 3, 4, 5, 6, 7).returnValue == .int64(56))
        // Replacing a C command with a method, per key, as for any command.
        try control.setCommand(ControlHandler.tap, for: "scale")
        #expect(try control.execute("scale", 21).returnValue == nil)
        #expect(log.all == ["a tap"])
    }

    @Test("A dead handler's commands never run and the control reports none")
    func deadHandlerCommandsNeverRun() throws {
        let log = Log()
        let control = CommandControl<ControlHandler>()
        weak var probe: ControlHandler?
        do {
            let handler = ControlHandler("gone", log: log)
            probe = handler
            control.handler = handler
            try control.setCommand(ControlHandler.tap, for: "tap")
            #expect(control.hasCommand(for: "tap"))
        }
        #expect(probe == nil)
        #expect(control.handler == nil)
        #expect(!control.hasCommand(for: "tap"))
        #expect(control.commandKeys.isEmpty)
        #expect(try control.execute("tap").handled == 0, "a command whose handler died did not run")
        #expect(log.all.isEmpty)
    }

    @Test("Removing one command or all of them leaves the handler in place")
    func removeCommands() throws {
        let log = Log()
        let handler = ControlHandler("a", log: log)
        let control = CommandControl(handler: handler)
        try control.setCommand(ControlHandler.tap, for: "tap")
        try control.setCommand(ControlHandler.doubleTap, for: "double")
        #expect(control.removeCommand(for: "tap"))
        #expect(!control.removeCommand(for: "tap"))
        try control.execute("tap")
        try control.execute("double")
        control.removeAllCommands()
        try control.execute("double")
        #expect(log.all == ["a double tap"])
        #expect(control.handler === handler)
        #expect(control.commandKeys.isEmpty)
    }
}
