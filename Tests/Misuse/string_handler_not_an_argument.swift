// error: give the handler's parameters types that conform to EventArgument
struct Point { var x = 0.0 }
table.on("move") { (point: Point) in print(point) }.cancel()
