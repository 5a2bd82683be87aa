// compiles: the correct uses of the keys, so that a failure of the other
// checks is the misuse's, not the build's.
import EventKitSwift
table.on(.toggle) { on in print(on) }.cancel()
table.on(.rename) { title, index in print(title, index) }.cancel()
table.on(.eight) { a, b, c, d, e, f, g, h in print(a, b, c, d, e, f, g, h) }.cancel()
try table.execute(.toggle, true)
try table.execute(.rename, "intro", 3)
try table.execute(.eight, true, 1, 2, 3, 4, 5, 6, 7)
// String events with annotated closures, of any arity and an object.
table.on("toggle") { (on: Bool) in print(on) }.cancel()
table.on("rename") { (title: String, index: Int) in print(title, index) }.cancel()
table.on("select") { (values: [Value]) -> Value in print(values); return .void }.cancel()
table.on("reset") { print("reset") }.cancel()
// A name in a variable, or interpolated, makes a key.
let name = "toggle"
table.on(EventKey(name)) { (on: Bool) in print(on) }.cancel()
table.on("toggle.\(name)") { (on: Bool) in print(on) }.cancel()
// Deliveries: a typed key's closures unannotated, a main-actor closure.
table.on(.rename, on: .dispatchQueue(.global())) { title, index in print(title, index) }.cancel()
table.on(.toggle, on: .mainActor) { on in print(on) }.cancel()
table.on(.rename, on: .queue(try EventQueue()), phase: .after) { title, index in print(title, index) }.cancel()
table.on("progress", on: .dispatchQueue(.global())) { values in print(values) }.cancel()
table.on("rename", on: .mainActor) { (title: String, index: Int) in print(title, index) }.cancel()
table.on(.placed) { order in print(order.items) }.cancel()
table.on("order.placed") { (order: Order) in print(order.id) }.cancel()
table.on(EventKey<[String: [Order]]>("stock")) { stock in print(stock.count) }.cancel()
// Handlers that answer and throw.
struct Refused: Error {}
table.on(.toggle) { on -> Bool in !on }.cancel()
table.on(.toggle) { (on: Bool) throws in if on { throw Refused() } }.cancel()
table.on(.rename) { (title: String, _: Int) throws(Refused) in if title.isEmpty { throw Refused() } }.cancel()
table.on(.rename) { title, index in index > 0 && !title.isEmpty }.cancel()
table.on("visit") { (value: Int32) -> Int32 in value + 1 }.cancel()
let approved: Bool? = try table.execute(.toggle, true).returnValue(as: Bool.self)
// Values from variables where arguments are passed.
let times: Int32 = 3
let lengthTimes: @convention(c) (UnsafePointer<CChar>?, Int32) -> Int32 = { _, times in times }
_ = try Invocation.call(lengthTimes, signature: Signature("i*i"), arguments: ["banana", times])
_ = try Invocation.call(lengthTimes, signature: Signature("i*i"), arguments: [.string("banana"), .int32(2)])
// An owner that is not Sendable receives itself: nothing to capture.
final class Session {
    var resets = 0
    init() {
        table.on("reset", owner: self) { session in session.resets += 1 }
        table.on(.toggle, owner: self, phase: .after) { (session, on: Bool) throws in
            if on { throw Refused() }
            session.resets += 1
        }
    }
}
