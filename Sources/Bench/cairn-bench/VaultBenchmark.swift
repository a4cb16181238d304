import CairnApp
import CairnCore
import Encryption
import Foundation
import Imaging
import Regimen
import Storage

/// `cairn-bench vault [--days N] [--runs N]`: the same Regimen history (see `RegimenBenchmark.fill`) in a plain
/// vault and in one whose lock was turned on (the database and photo files encrypted at rest), built and measured
/// in one run, side by side: Today, Ledger pages, a year of exposure, a check-in's write transaction and a skin log
/// of one photo (the photo and its thumbnail written encrypted, read back and decrypted). Target: encrypted within
/// 1.25x of plain.
enum VaultBenchmark {
    /// Encrypted time over plain time may be at most this.
    static let targetRatio = 1.25

    static func run(arguments: [String]) throws -> Bool {
        let (days, runs) = RegimenBenchmark.daysAndRuns(arguments, minimumRuns: 3)
        let zone = TimeZone(identifier: "Europe/Berlin")!
        let lastDay = LocalDay(year: 2026, month: 11, day: 30)!
        let firstDay = lastDay.adding(days: -(days - 1))
        let clock = FixedClock(WallClock.instant(of: lastDay, at: TimeSlot(hour: 21, minute: 30)!, in: zone), timeZone: zone)

        struct Side {
            let name: String
            let directory: URL
            let database: Database
            let service: RegimenService
            let products: [StoredProduct]
            /// `cairn skin log` of one photo into an area of this vault.
            let logSkinPhoto: () throws -> Void
        }
        // Distinct photos at distinct instants, so no log is refused as a repeat of another.
        let pipeline = ImagePipeline()
        let skinPhotos = try (0..<100).map { try pipeline.encodeJPEG(SkinDemo.photo(index: $0, count: 100, seed: 1), quality: 90) }
        final class Counter { var next = 0 }
        let passphrase = try Passphrase("a bench passphrase")
        var sides: [Side] = []
        defer {
            for side in sides {
                side.database.close()
                try? FileManager.default.removeItem(at: side.directory)
            }
        }
        for (name, locked) in [("plain", false), ("encrypted", true)] {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-bench-vault-\(name)-\(UUID().uuidString)")
            // The encrypted vault is one whose lock was turned on (the path `cairn settings lock on` takes; the
            // cheapest key derivation, which costs nothing measured here), opened as the app opens it.
            let vault = try Vault(directory: directory)
            if locked {
                let cheap = KeyDerivation(operations: 1, memoryBytes: 8192, salt: SecretKey.randomBytes(16))!
                try vault.turnLockOn(
                    database: try vault.openDatabase(clock: clock), passphrase: passphrase,
                    keyDerivation: cheap, clock: clock
                ).close()
            }
            let app = try CairnApplication(vault: vault, clock: clock, housekeeping: .none, passphrase: { passphrase })
            let database = app.database
            let service = app.regimen
            let start = ContinuousClock.now
            let products = try RegimenBenchmark.fill(service, days: days, firstDay: firstDay, zone: zone)
            let elapsed = ContinuousClock.now - start
            guard database.isEncrypted == locked else { throw BenchmarkFailure(message: "\(name) vault opened wrongly") }
            let area = try app.skin.addArea(name: "Left cheek")
            let counter = Counter()
            let logSkinPhoto = {
                let n = counter.next
                counter.next += 1
                _ = try app.skin.log(
                    photo: skinPhotos[n % skinPhotos.count], in: area.id,
                    capturedAt: Date(timeIntervalSince1970: 1_760_000_000 + Double(n) * 3_600))
            }
            try logSkinPhoto()
            sides.append(
                Side(
                    name: name, directory: directory, database: database, service: service, products: products,
                    logSkinPhoto: logSkinPhoto))
            let size = (try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("cairn.sqlite").path)[.size] as? Int) ?? 0
            print(
                String(
                    format: "vault (%@): %d days of doses written through RegimenService in %.1f s, database %.1f MB",
                    name, days, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
                    Double(size) / 1e6))
        }
        guard try sides[0].service.todayView().doses.count == sides[1].service.todayView().doses.count else {
            throw BenchmarkFailure(message: "the two vaults differ")
        }

        var extraMinute = 0
        let operations: [(String, (Side) throws -> Void)] = [
            ("Today (15 doses, batch and next)", { _ = try $0.service.todayView() }),
            (
                "Ledger page: 50 newest, one product",
                {
                    _ = try $0.service.ledger(LedgerQuery(productID: $0.products[2].product.id, limit: 50))
                }
            ),
            (
                "Ledger page: 50, one product, 5 years back",
                {
                    _ = try $0.service.ledger(LedgerQuery(productID: $0.products[2].product.id, limit: 50, offset: min(5_400, days * 3 / 2)))
                }
            ),
            ("Exposure: one year, all products", { _ = try $0.service.exposure(in: lastDay.adding(days: -364)...lastDay) }),
            ("Skin log: one photo into an area", { try $0.logSkinPhoto() }),
            (
                "Write: log an extra dose (one transaction)",
                { side in
                    extraMinute += 1
                    _ = try side.service.logExtra(
                        side.products[0].product.id,
                        at: WallClock.instant(
                            of: lastDay.adding(days: -(extraMinute % 300)),
                            at: TimeSlot(hour: 10, minute: extraMinute % 60)!, in: zone))
                }
            ),
        ]
        var load = [Double](repeating: 0, count: 3)
        _ = getloadavg(&load, 3)
        print(String(format: "  (medians over %d runs, plain and encrypted measured alternately; load average %.1f)", runs, load[0]))
        print("  (each vault as it ships: encrypted connections keep 16 MiB of decrypted pages, plain ones SQLite's 2 MiB)")
        var met = true
        for (name, operation) in operations {
            // Alternating halves, so a burst of load from another process falls on both sides alike.
            var plain: [Double] = []
            var encrypted: [Double] = []
            for _ in 0..<3 {
                plain.append(try RegimenBenchmark.median(runs) { try operation(sides[0]) }.wall)
                encrypted.append(try RegimenBenchmark.median(runs) { try operation(sides[1]) }.wall)
            }
            let p = plain.sorted()[1]
            let e = encrypted.sorted()[1]
            let ratio = e / p
            let pass = ratio <= targetRatio
            met = met && pass
            print(
                "  " + name.padding(toLength: 44, withPad: " ", startingAt: 0)
                    + String(
                        format: "plain %7.2f ms   encrypted %7.2f ms   %.2fx   target <= %.2fx   %@", p, e, ratio, targetRatio,
                        pass ? "pass" : "FAIL"))
        }
        return met
    }
}
