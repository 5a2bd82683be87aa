// error: stored property 'cart' of 'Sendable'-conforming struct 'Basket' has non-Sendable type 'Cart'
import EventKitSwift
final class Cart { var items: [String] = [] }
struct Basket: EventPayload { var cart: Cart }
