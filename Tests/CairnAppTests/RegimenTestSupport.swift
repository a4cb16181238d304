import CairnApp
import CairnCore
import Foundation
import Regimen
import Storage

/// A clock the test moves: the instant and the person's zone (a trip changes the zone).
final class TravelClock: Clock, @unchecked Sendable {
    private let lock = NSLock()
    private var instant: Date
    private var zone: TimeZone

    init(_ text: String, zone: String) {
        instant = utc(text)
        self.zone = TimeZone(identifier: zone)!
    }

    func now() -> Date { lock.withLock { instant } }
    var timeZone: TimeZone { lock.withLock { zone } }

    func set(_ text: String, zone: String? = nil) {
        lock.withLock {
            instant = utc(text)
            if let zone { self.zone = TimeZone(identifier: zone)! }
        }
    }
}

func utc(_ text: String) -> Date {
    let f = ISO8601DateFormatter()
    f.formatOptions = [.withInternetDateTime]
    return f.date(from: text)!
}

func day(_ text: String) -> LocalDay { LocalDay(parsing: text)! }
func slots(_ texts: String...) -> [TimeSlot] { texts.map { TimeSlot(parsing: $0)! } }
func amount(_ text: String, _ unit: DoseUnit) -> Amount { try! Amount(text, unit) }

/// A fresh vault in a temporary folder with a Regimen service on the given clock; removed by `remove()`.
final class RegimenFixture {
    let directory: URL
    let vault: Vault
    let database: Database
    let service: RegimenService
    let clock: TravelClock

    init(now: String = "2026-03-10T12:00:00Z", zone: String = "UTC") throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-regimen-\(UUID().uuidString)")
        vault = try Vault(directory: directory)
        clock = TravelClock(now, zone: zone)
        database = try vault.openDatabase(clock: clock)
        service = RegimenService(database: database, clock: clock)
    }

    func remove() {
        database.close()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Vitamin D3 softgels: 25 mcg per softgel, one softgel per serving.
    func vitaminD(name: String = "Vitamin D3", mcg: String = "25", unit: DoseUnit = .mcg) throws -> StoredProduct {
        try service.addProduct(
            Product(
                name: name, form: .softgel, servingSize: amount("1", .count),
                ingredients: [
                    ProductIngredient(catalogueID: "vitamin-d", nameOnLabel: "Vitamin D3", amount: amount(mcg, unit), form: "Vitamin D3")
                ]))
    }

    /// Magnesium capsules: two capsules per serving, 200 mg magnesium and an ingredient the catalogue lacks.
    func magnesium() throws -> StoredProduct {
        let product = try Product(
            name: "Magnesium", form: .capsule, servingSize: amount("2", .count),
            ingredients: [
                ProductIngredient(catalogueID: "magnesium", nameOnLabel: "Magnesium", amount: amount("200", .mg)),
                ProductIngredient(catalogueID: nil, nameOnLabel: "Zeolite blend", amount: amount("5", .count)),
            ])
        // The second row is flagged (not in the catalogue): accepted, as the person would after checking it.
        return try service.addProduct(product, decisions: RowDecisions(accepted: [2]))
    }

    func daily(
        _ product: StoredProduct, _ times: String..., start: String = "2026-03-01", end: String? = nil,
        servings: Decimal = 1
    ) throws -> ScheduleRevision {
        try service.addSchedule(
            SchedulePlan(
                productID: product.product.id, servings: servings, times: times.map { TimeSlot(parsing: $0)! },
                recurrence: .daily, startDay: day(start), endDay: end.map(day)))
    }

    func count(_ table: String) throws -> Int {
        try database.read { try $0.scalar("SELECT count(*) FROM \(table)") ?? -1 }
    }
}
