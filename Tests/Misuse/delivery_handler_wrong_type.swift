// error: cannot convert value of type '@Sendable (Int) -> ()' to expected argument type '@MainActor @Sendable (Bool) -> Void'
table.on(.toggle, on: .mainActor) { (on: Int) in print(on) }.cancel()
