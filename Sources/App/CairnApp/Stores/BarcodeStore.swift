import CairnCore
import Foundation
import Regimen
import Storage

/// The SQL of the barcodes the person taught (`regimen_product_barcodes`): a GTIN-14 linked to one of their
/// products. No rule here: `LabelDatabaseService` decides and owns the transaction.
struct BarcodeStore {
    let db: Connection

    init(_ db: Connection) { self.db = db }

    /// Links `barcode` to `product` (replacing an earlier link of the same barcode).
    func teach(_ barcode: GTIN, product: ProductID, at now: Date) throws {
        try db.execute(
            "INSERT OR REPLACE INTO regimen_product_barcodes (gtin, product_id, taught_at) VALUES (?, ?, ?)", barcode.digits,
            product.rawValue, now)
    }

    /// The product `barcode` was taught to, if any.
    func product(for barcode: GTIN) throws -> ProductID? {
        let id: String? = try db.scalar("SELECT product_id FROM regimen_product_barcodes WHERE gtin = ?", barcode.digits)
        return id.map { ProductID($0) }
    }

    /// The barcodes taught to `product`.
    func barcodes(of product: ProductID) throws -> [GTIN] {
        try db.query("SELECT gtin FROM regimen_product_barcodes WHERE product_id = ? ORDER BY gtin", product.rawValue).compactMap {
            GTIN(try $0.get("gtin", as: String.self))
        }
    }
}
