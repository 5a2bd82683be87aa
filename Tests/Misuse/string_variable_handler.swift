// error: a name in a variable becomes a key with EventKey(name)
import EventKitSwift
let name = "toggle"
table.on(name) { (on: Bool) in print(on) }.cancel()
