// error: invalid conversion from throwing function
import EventKitSwift
struct Refused: Error {}
table.on(.toggle, on: .dispatchQueue(.global())) { (on: Bool) throws in if on { throw Refused() } }.cancel()
