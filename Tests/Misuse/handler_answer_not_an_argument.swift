// error: conform to 'EventArgument'
import EventKitSwift
struct Point { var x = 0.0 }
table.on(.toggle) { (on: Bool) -> Point in Point() }.cancel()
