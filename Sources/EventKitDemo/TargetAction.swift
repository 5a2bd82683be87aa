// 3. Target-action with a weak target: the table holds the target weakly, as
// a Cocoa control does; once it is gone its action is skipped and pruned.
// An action's name is its identity, as a selector is: adding the same one
// again keeps one handler.

import EventKitSwift

final class Player {
    let name: String
    init(name: String) { self.name = name }
    func stop() { print("  \(name).stop()") }
}

func targetAction() throws {
    section(3, "Target-action with a weak target")
    let table = CommandTable(name: "transport")
    var player: Player? = Player(name: "player")
    table.addTarget(player!, action: Player.stop, named: "stop", for: "stop")
    // The same target and action again: kept once, as UIControl does.
    table.addTarget(player!, action: Player.stop, named: "stop", for: "stop")
    let logger = table.on("stop") { print("  closure: stop logged") }

    print("\"stop\" has \(table.handlerCount(for: "stop")) handlers: Player.stop (weak target), a closure")
    // Swift may end a lifetime at its last use; the target lives until here.
    _ = try withExtendedLifetime(player) { try table.execute("stop") }
    player = nil
    print("player released; \"stop\" still lists \(table.handlerCount(for: "stop")) handlers")
    try table.execute("stop")
    print("that execute skipped and pruned the dead target's action: \(table.handlerCount(for: "stop")) left")
    withExtendedLifetime(logger) {}
}
