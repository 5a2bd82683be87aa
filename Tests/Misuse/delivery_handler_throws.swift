// error: invalid conversion of thrown error type 'any Error' to 'Never'
import EventKitSwift
struct Refused: Error {}
table.on(.toggle, on: .dispatchQueue(.global())) { (on: Bool) throws in if on { throw Refused() } }.cancel()
