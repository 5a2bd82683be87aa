// error: give the handler's parameters types that conform to EventArgument
table.on("toggle") { on in print(on) }.cancel()
