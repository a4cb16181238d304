import CairnCore
import Foundation
import Imaging
import Skin
import Storage

/// Reproducible synthetic skin photos for demos and tests: a skin tone with soft shading and pores, and
/// freckle-like speckles that drift gradually (and darken slightly) across the series. The same seed
/// gives the same series, pixel for pixel.
public enum SkinDemo {
    /// Width and height of each generated photo.
    public static let width = 480, height = 360

    /// Photo `index` (0-based) of a series of `count` made from `seed`.
    public static func photo(index: Int, count: Int, seed: UInt64) -> RGBImage {
        var rng = Random(seed: seed)
        let tone = (0.78 + 0.12 * rng.next(), 0.58 + 0.1 * rng.next(), 0.47 + 0.08 * rng.next())
        let fx = 0.01 + 0.02 * rng.next()
        let fy = 0.01 + 0.02 * rng.next()
        var red = [Double](repeating: 0, count: width * height)
        var green = red
        var blue = red
        for y in 0..<height {
            for x in 0..<width {
                let shade = 1 + 0.07 * sin(Double(x) * fx) * cos(Double(y) * fy)
                let i = y * width + x
                red[i] = tone.0 * shade
                green[i] = tone.1 * shade
                blue[i] = tone.2 * shade
            }
        }
        // Pores: fixed over the series, so alignment has texture to hold on to.
        for _ in 0..<(width * height / 60) {
            disc(
                &red, &green, &blue, cx: rng.next() * Double(width), cy: rng.next() * Double(height),
                radius: 0.7 + rng.next(), factor: 0.82 + 0.1 * rng.next())
        }
        // Speckles: each moves along its own direction, a little further in each photo of the series.
        let progress = count > 1 ? Double(index) / Double(count - 1) : 0
        for _ in 0..<28 {
            let cx = rng.next() * Double(width)
            let cy = rng.next() * Double(height)
            let angle = rng.next() * 2 * Double.pi
            let distance = 2 + 5 * rng.next()
            let radius = 2.5 + 4 * rng.next()
            let factor = 0.55 + 0.2 * rng.next()
            disc(
                &red, &green, &blue, cx: cx + cos(angle) * distance * progress, cy: cy + sin(angle) * distance * progress,
                radius: radius * (1 + 0.12 * progress), factor: factor - 0.05 * progress)
        }
        // A small seeded lighting change per photo, as between real sessions.
        var session = Random(seed: seed &+ UInt64(index + 1) &* 0x9E37_79B9)
        let gain = 0.97 + 0.06 * session.next()
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for i in 0..<(width * height) {
            let noise = (session.next() - 0.5) * 0.02
            pixels[3 * i] = byte(red[i] * gain + noise)
            pixels[3 * i + 1] = byte(green[i] * gain + noise)
            pixels[3 * i + 2] = byte(blue[i] * gain + noise)
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    /// Photo `index` of the series as JPEG bytes.
    public static func jpeg(index: Int, count: Int, seed: UInt64, pipeline: ImagePipeline = ImagePipeline()) throws -> Data {
        try pipeline.encodeJPEG(photo(index: index, count: count, seed: seed), quality: 92)
    }

    /// Logs a series of `count` photos to `area` through the ordinary log path, one a day ending today.
    @discardableResult
    public static func generate(count: Int, seed: UInt64, into area: AreaID, service: SkinService, now: Date) throws -> [TrackingEntry] {
        let pipeline = ImagePipeline()
        return try (0..<count).map { index in
            let day = Double(count - 1 - index) * 86_400
            return try service.log(
                photo: jpeg(index: index, count: count, seed: seed, pipeline: pipeline), in: area,
                note: "Demo photo \(index + 1) of \(count)", capturedAt: now.addingTimeInterval(-day),
                timeZone: TimeZone(identifier: "UTC"))
        }
    }

    /// Fills `area` with `count` entries (at least 2) quickly, for scale measurements: logs two demo photos
    /// through the ordinary log path (so the second has a real stored comparison with the baseline), then
    /// copies the second entry's stored rows, one an hour after it, each with its comparison row (a seeded
    /// similarity of 40 to 99). The copies share the second entry's photo files and their identifiers differ
    /// from it only in the last 12 digits. Returns the two logged entries.
    @discardableResult
    public static func generateStoredCopies(
        count: Int, seed: UInt64, into area: AreaID, service: SkinService,
        database: Database, now: Date
    ) throws -> [TrackingEntry] {
        let entries = try generate(count: 2, seed: seed, into: area, service: service, now: now)
        try storeCopies(of: entries[1], count: count - 2, seed: seed, database: database)
        return entries
    }

    /// Adds `count` copies of `entry`'s stored rows to its area, one an hour after it, each with a copy of its
    /// comparison row (a seeded similarity of 40 to 99); the copies share the entry's photo files.
    public static func storeCopies(of entry: TrackingEntry, count copies: Int, seed: UInt64, database: Database) throws {
        guard copies > 0 else { return }
        try database.write { db in try SkinStore(db).storeCopies(of: entry, count: copies, step: Int(seed % 997) * 2 + 37) }
    }

    static func byte(_ v: Double) -> UInt8 { UInt8(min(max(v, 0), 1) * 255 + 0.5) }

    static func disc(
        _ r: inout [Double], _ g: inout [Double], _ b: inout [Double], cx: Double, cy: Double, radius: Double,
        factor: Double
    ) {
        let x0 = max(0, Int(cx - radius - 2))
        let x1 = min(width - 1, Int(cx + radius + 2))
        let y0 = max(0, Int(cy - radius - 2))
        let y1 = min(height - 1, Int(cy + radius + 2))
        guard x0 <= x1, y0 <= y1 else { return }
        for y in y0...y1 {
            for x in x0...x1 {
                let d = ((Double(x) - cx) * (Double(x) - cx) + (Double(y) - cy) * (Double(y) - cy)).squareRoot()
                let w = min(max(radius + 0.5 - d, 0), 1)
                guard w > 0 else { continue }
                let k = 1 - (1 - factor) * w
                let i = y * width + x
                r[i] *= k
                g[i] *= k * 0.97
                b[i] *= k * 0.95
            }
        }
    }

    /// Unit-interval draws from the shared seeded generator.
    struct Random {
        private var generator: SeededGenerator
        init(seed: UInt64) { generator = SeededGenerator(seed: seed) }
        mutating func next() -> Double { generator.unit() }
    }
}
