// error: cannot convert value of type '@Sendable (String) -> ()' to expected argument type '@Sendable (Bool) -> Void'
table.on(.toggle) { (on: String) in print(on) }.cancel()
