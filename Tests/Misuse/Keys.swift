// Shared by every check: the keys the misuses get wrong.
import EventKitSwift

extension EventKey where Arguments == Bool {
    static let toggle: EventKey<Bool> = "toggle"
}

extension EventKey where Arguments == (String, Int) {
    static let rename: EventKey<(String, Int)> = "rename"
}

extension EventKey where Arguments == (Bool, Int8, UInt16, Int32, UInt64, Float, Double, Int) {
    static let eight: EventKey<(Bool, Int8, UInt16, Int32, UInt64, Float, Double, Int)> = "eight"
}

let table = CommandTable()

struct Order: Sendable { var id: Int; var items: [String] }
extension Order: EventPayload {}

extension EventKey where Arguments == Order {
    static let placed: EventKey<Order> = "order.placed"
}
