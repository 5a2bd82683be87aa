// error: requires that 'Point' conform to 'EventArgument'
import EventKitSwift
struct Point: Sendable { var x = 0.0 }
extension EventKey where Arguments == Point { static let moved: EventKey<Point> = "moved" }
table.on(.moved) { point in print(point) }.cancel()
