// 4. Responder routing: a route goes up the chain from the responder it
// starts at; each responder may handle it, add to its info and pass it on, or
// stop it, as UIKit's responder chain and its router-event category do.

import EventKitSwift

/// A row of a list: it knows its row number, and adds it to a "select".
final class Cell: Responder {
    weak var list: TrackList?
    let row: Int
    init(row: Int, in list: TrackList?) {
        self.row = row
        self.list = list
    }

    var nextResponder: (any Responder)? { list }

    func respond(to selector: String, sender: Any?, info: inout [String: Any]) -> RouteDecision {
        guard selector == "select" else { return .forward }
        info["row"] = row
        print("  Cell adds row: \(row), passes it on")
        return .forward
    }
}

/// The list: it adds which list it is, and handles "copy:" itself.
final class TrackList: Responder {
    let controller: PlaylistController
    init(controller: PlaylistController) { self.controller = controller }

    var nextResponder: (any Responder)? { controller }

    func respond(to selector: String, sender: Any?, info: inout [String: Any]) -> RouteDecision {
        switch selector {
        case "select":
            info["list"] = "tracks"
            print("  TrackList adds list: tracks, passes it on")
            return .forward
        case "copy:":
            return .handled
        default:
            return .forward
        }
    }
}

/// The end of the chain: it handles "select" with what the route gathered.
final class PlaylistController: Responder {
    var nextResponder: (any Responder)? { nil }

    func respond(to selector: String, sender: Any?, info: inout [String: Any]) -> RouteDecision {
        guard selector == "select", let row = info["row"], let list = info["list"] else { return .forward }
        print("  PlaylistController opens row \(row) of \(list), and handles it")
        return .handled
    }
}

/// `info` with its keys sorted, so it prints the same every run.
private func sorted(_ info: [String: Any]) -> String {
    info.keys.sorted().map { "\($0): \(info[$0]!)" }.joined(separator: ", ")
}

func responderRouting() {
    section(4, "Responder routing (UIResponder chain)")
    let list = TrackList(controller: PlaylistController())
    let cell = Cell(row: 3, in: list)

    print("cell.route(\"select\", info: [source: tap]):")
    let selected = cell.route("select", sender: cell, info: ["source": "tap"])
    print("  → \(selected), info [\(sorted(selected.info))]")
    let copied = cell.sendAction("copy:", to: nil, from: cell)
    print("sendAction(\"copy:\", to: nil) finds the first responder that copies: \(copied)")
    let detached = Cell(row: 9, in: nil)
    print("a cell in no list, route(\"select\"):")
    print("  → \(detached.route("select"))")
    // The cell holds its list weakly: the list lives until here.
    withExtendedLifetime(list) {}
}
