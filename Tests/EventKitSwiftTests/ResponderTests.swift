import EventKitSwift
import Testing

// A small view hierarchy: a cell in a list, in a controller, in a window. A
// route of "select" from the cell collects the row and the section on its way
// to the controller, which opens the item: the responder-chain routing of the
// Objective-C `-routerEventWithName:userInfo:` pattern.

/// Appends `name` to the route's "path" information.
private func appendPath(_ name: String, to info: inout [String: Any]) {
    info["path"] = (info["path"] as? [String] ?? []) + [name]
}

private final class Window: Responder {
    let log: Log
    init(log: Log) { self.log = log }

    var nextResponder: (any Responder)? { nil }

    func respond(to selector: String, sender: Any?, info: inout [String: Any]) -> RouteDecision {
        log.append("window \(selector)")
        return .forward
    }
}

private final class Controller: Responder {
    let log: Log
    let window: Window
    init(log: Log, window: Window) {
        self.log = log
        self.window = window
    }

    var nextResponder: (any Responder)? { window }

    func respond(to selector: String, sender: Any?, info: inout [String: Any]) -> RouteDecision {
        log.append("controller \(selector)")
        switch selector {
        case "select":
            appendPath("controller", to: &info)
            log.append("open section \(info["section"] ?? "none") row \(info["row"] ?? "none")")
            return .handled
        case "copy:", "paste:":
            return .handled
        default:
            return .forward
        }
    }
}

private final class ListView: Responder {
    let log: Log
    weak var controller: Controller?
    let section: Int
    var isEnabled = true
    init(log: Log, controller: Controller?, section: Int) {
        self.log = log
        self.controller = controller
        self.section = section
    }

    var nextResponder: (any Responder)? { controller }

    func respond(to selector: String, sender: Any?, info: inout [String: Any]) -> RouteDecision {
        log.append("list \(selector)")
        if !isEnabled { return .stop }
        switch selector {
        case "select":
            appendPath("list", to: &info)
            info["section"] = section
            return .forward
        case "copy:":
            return .handled
        default:
            return .forward
        }
    }
}

private final class Cell: Responder {
    let log: Log
    weak var list: ListView?
    let row: Int
    init(log: Log, list: ListView?, row: Int) {
        self.log = log
        self.list = list
        self.row = row
    }

    var nextResponder: (any Responder)? { list }

    func respond(to selector: String, sender: Any?, info: inout [String: Any]) -> RouteDecision {
        log.append("cell \(selector) from \(sender.map { "\(type(of: $0))" } ?? "nobody")")
        if selector == "select" {
            appendPath("cell", to: &info)
            info["row"] = row
        }
        return .forward
    }
}

/// A responder that keeps the default: it passes everything on.
private final class Spacer: Responder {
    var next: (any Responder)?
    init(next: (any Responder)?) { self.next = next }
    var nextResponder: (any Responder)? { next }
}

/// What sends actions in the tests.
private final class Button {}

@Suite("Responder")
struct ResponderTests {
    let log = Log()

    @Test("Info added by each responder reaches those after it, in chain order, and the result")
    func infoIsAugmentedInChainOrder() {
        let window = Window(log: log)
        let controller = Controller(log: log, window: window)
        let list = ListView(log: log, controller: controller, section: 2)
        let cell = Cell(log: log, list: list, row: 7)

        let result = cell.route("select", sender: cell, info: ["path": ["tap"]])

        #expect(result.isHandled)
        #expect(result.handler === controller)
        #expect(result.responder === controller)
        #expect(result.info["path"] as? [String] == ["tap", "cell", "list", "controller"])
        #expect(result.info["row"] as? Int == 7)
        #expect(result.info["section"] as? Int == 2)
        #expect(log.all == ["cell select from Cell", "list select", "controller select", "open section 2 row 7"])
        #expect(result.description == "handled by Controller")
    }

    @Test("A responder that keeps the default passes every route on to its next responder")
    func defaultForwards() {
        let window = Window(log: log)
        let controller = Controller(log: log, window: window)
        let spacer = Spacer(next: Spacer(next: controller))

        let result = spacer.route("paste:")
        #expect(result.handler === controller)
        #expect(log.all == ["controller paste:"])
    }

    @Test("A route that nobody handles goes to the end of the chain and ends unhandled there")
    func nobodyHandles() {
        let window = Window(log: log)
        let controller = Controller(log: log, window: window)
        let list = ListView(log: log, controller: controller, section: 0)
        let cell = Cell(log: log, list: list, row: 0)

        let result = cell.route("zoom", sender: nil)
        #expect(!result.isHandled)
        #expect(result.handler == nil)
        guard case .unhandled(let endedAt, _) = result else {
            Issue.record("expected unhandled, got \(result)")
            return
        }
        #expect(endedAt === window)
        #expect(log.all == ["cell zoom from nobody", "list zoom", "controller zoom", "window zoom"])
    }

    @Test("A detached chain ends the route unhandled and reports the responder where it broke off")
    func detachedChainIsReported() {
        let window = Window(log: log)
        let controller = Controller(log: log, window: window)
        var list: ListView? = ListView(log: log, controller: controller, section: 1)
        let cell = Cell(log: log, list: list, row: 4)
        list = nil                                  // the list left the hierarchy; the cell's link is gone

        let result = cell.route("select", sender: cell)
        #expect(!result.isHandled)
        guard case .unhandled(let endedAt, let info) = result else {
            Issue.record("expected unhandled, got \(result)")
            return
        }
        #expect(endedAt === cell)
        #expect(info["path"] as? [String] == ["cell"])
        #expect(info["row"] as? Int == 4)
        #expect(log.all == ["cell select from Cell"], "nothing past the cell saw the route")
        #expect(result.description == "unhandled, chain ended at Cell")
        withExtendedLifetime(list) {}
    }

    @Test("A responder may stop a route: those after it never see it, and it is not handled")
    func responderStops() {
        let window = Window(log: log)
        let controller = Controller(log: log, window: window)
        let list = ListView(log: log, controller: controller, section: 0)
        let cell = Cell(log: log, list: list, row: 0)
        list.isEnabled = false

        let result = cell.route("select", sender: cell)
        #expect(!result.isHandled)
        guard case .stopped(let stoppedBy, _) = result else {
            Issue.record("expected stopped, got \(result)")
            return
        }
        #expect(stoppedBy === list)
        #expect(log.all == ["cell select from Cell", "list select"])
        #expect(result.description == "stopped by ListView")
    }

    @Test("A nil-target send finds the first responder that handles the action, as UIKit's sendAction does")
    func nilTargetFindsFirstHandler() {
        let window = Window(log: log)
        let controller = Controller(log: log, window: window)
        let list = ListView(log: log, controller: controller, section: 0)
        let cell = Cell(log: log, list: list, row: 0)

        let copied = cell.sendAction("copy:", to: nil, from: Button())
        #expect(copied.handler === list, "the list is the first that copies; the controller copies too")
        #expect(log.all == ["cell copy: from Button", "list copy:"])

        let pasted = cell.sendAction("paste:", to: nil, from: Button())
        #expect(pasted.handler === controller)
        #expect(log.all.suffix(3) == ["cell paste: from Button", "list paste:", "controller paste:"])

        let unknown = cell.sendAction("cut:", to: nil)
        #expect(!unknown.isHandled)
        #expect(unknown.responder === window)
    }

    @Test("A send to an explicit target asks that target alone")
    func explicitTargetIsAskedAlone() {
        let window = Window(log: log)
        let controller = Controller(log: log, window: window)
        let list = ListView(log: log, controller: controller, section: 0)
        let cell = Cell(log: log, list: list, row: 0)

        let copied = cell.sendAction("copy:", to: controller, from: Button())
        #expect(copied.handler === controller)
        #expect(log.all == ["controller copy:"])

        let forwarded = controller.sendAction("select", to: cell)
        #expect(!forwarded.isHandled)
        #expect(forwarded.responder === cell)
        #expect(log.all.last == "cell select from nobody")
        #expect(!log.all.contains("list select"), "an explicit target is not searched past")
    }

    @Test("A chain that comes back to a responder ends unhandled instead of looping")
    func loopingChainEnds() {
        let first = Spacer(next: nil)
        let second = Spacer(next: first)
        first.next = second

        let result = first.route("select")
        #expect(!result.isHandled)
        #expect(result.responder === second)
        first.next = nil                        // break the cycle so both can be freed
    }
}
