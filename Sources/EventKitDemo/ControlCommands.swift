// 2. A control with a command table: the control knows only keys; its
// handler fills the table with C functions, methods and closures, and each
// execute takes the call path its command's signature picked.

import EventKitSwift

/// The handler of the mixing desk's control: commands run against it.
final class Mixer {
    let gain: Int64 = 10
    /// What the last Swift command did, for the tour to print.
    var state = ""
    func setMuted(_ muted: Bool) { state = "muted: \(muted)" }
    func solo(_ channel: Int) { state = "solo channel: \(channel)" }
    func resetLevels() { state = "levels reset" }
}

extension EventKey where Arguments == Int {
    /// The channel to solo; the compiler checks the argument is an `Int`.
    static let solo: EventKey<Int> = "solo"
}

/// `int64_t gain(Mixer *mixer, int64_t level)`, "q@q": a typed stub covers it.
typealias GainFunction = @convention(c) (UnsafeMutableRawPointer?, Int64) -> Int64

func applyGain(_ mixer: UnsafeMutableRawPointer?, _ level: Int64) -> Int64 {
    level * Unmanaged<Mixer>.fromOpaque(mixer!).takeUnretainedValue().gain
}

/// `double mix(Mixer *mixer, int64_t × 8)`, "d@qqqqqqqq": nine integer-class
/// parameters, more than the stubs' six registers, so libffi makes the call.
typealias MixFunction = @convention(c) (
    UnsafeMutableRawPointer?, Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64
) -> Double

func mixChannels(
    _ mixer: UnsafeMutableRawPointer?, _ c1: Int64, _ c2: Int64, _ c3: Int64, _ c4: Int64,
    _ c5: Int64, _ c6: Int64, _ c7: Int64, _ c8: Int64
) -> Double {
    Double(c1 + c2 + c3 + c4 + c5 + c6 + c7 + c8) / 8
}

func controlCommands() throws {
    section(2, "A control with a command table (CommandControl)")
    let mixer = Mixer()
    let desk = CommandControl<Mixer>(name: "desk", handler: mixer)

    let gainSignature = try Signature("q@q")
    let mixSignature = try Signature("d@" + String(repeating: "q", count: 8))
    try desk.setCommand(function: applyGain as GainFunction, signature: gainSignature, for: "gain")
    try desk.setCommand(function: mixChannels as MixFunction, signature: mixSignature, for: "mix")
    try desk.setCommand(Mixer.setMuted, for: "mute")
    try desk.setCommand(Mixer.solo, for: .solo)
    try desk.setCommand({ mixer in { mixer.resetLevels() } }, for: "reset")
    print("commands: \(desk.commandKeys.sorted().joined(separator: ", "))")

    let gained = try desk.execute("gain", 7).returnValue!
    row("gain 7", "C function \(gainSignature.encoding), \(gainSignature.callPath) path", "\(gained)")
    let mixed = try desk.execute("mix", arguments: (1...8).map { .int64($0) }).returnValue!
    row("mix 1…8", "C function \(mixSignature.encoding), \(mixSignature.callPath) path", "\(mixed)")
    try desk.execute("mute", true)
    row("mute true", "method Mixer.setMuted", mixer.state)
    try desk.execute(.solo, 3)
    row(".solo 3", "typed key, method Mixer.solo", mixer.state)
    try desk.execute("reset")
    row("reset", "closure", mixer.state)

    let spare = Mixer()
    desk.handler = spare
    print("a new handler drops the old one's commands: \(desk.commandKeys.count) left")
    withExtendedLifetime(spare) {}

    // performSelector:withObject:withObject: on a plain table, arguments as `Any?`.
    let table = CommandTable(name: "desk")
    try table.register("gain", function: applyGain as GainFunction, signature: gainSignature)
    print("table.perform(\"gain\", with: [mixer, 7]) → \(try table.perform("gain", with: [mixer, 7])!)")
}

/// One executed command: what was executed, what ran, what came of it.
private func row(_ execute: String, _ command: String, _ outcome: String) {
    print(padded(execute, to: 11) + padded(command, to: 36) + "→ " + outcome)
}

private func padded(_ text: String, to width: Int) -> String {
    text + String(repeating: " ", count: max(1, width - text.count))
}
