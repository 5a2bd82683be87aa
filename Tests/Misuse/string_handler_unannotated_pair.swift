// error: give the handler's parameters types that conform to EventArgument
table.on("rename") { title, index in print(title, index) }.cancel()
