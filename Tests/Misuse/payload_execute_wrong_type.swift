// error: cannot convert value of type 'Invoice' to expected argument type 'Order'
import EventKitSwift
struct Invoice: Sendable, EventPayload { var total: Double }
try table.execute(.placed, Invoice(total: 1))
