// error: no exact matches in call to instance method 'on'
import EventKitSwift
struct Point: Sendable { var x = 0.0 }
extension EventKey where Arguments == Point { static let moved: EventKey<Point> = "moved" }
table.on(.moved) { point in print(point) }.cancel()
