import CairnCore
import Foundation

extension ImagePipeline {
    /// The share of the display ceiling from which a change counts as clear enough to be outlined.
    public static let outlineLevel = 0.35

    /// What an overlay shows.
    public enum OverlayLayer: Sendable {
        /// The change, tinted amber in proportion (`outline`: only the edge of each region of clear change).
        case change(outline: Bool)
        /// The cells that were not compared, hatched in light grey.
        case notCompared
    }

    /// A map drawn as a picture for an overlay under the page's screen blend (black is transparent): `width` x `height`
    /// pixels, the map stretched over the whole picture (revision 11 compares the whole frame) and upscaled by libvips.
    /// `values` are `mapWidth * mapHeight` cells, row-major: 0 = no change, 1 = at or beyond the display ceiling, a
    /// negative value = not compared.
    ///
    /// `.change(outline: false)`: tinted amber in proportion to the change; below a tenth of the ceiling is drawn as no
    /// change, so JPEG noise does not outline the frame. `.change(outline: true)`: only the edge of each region of clear
    /// change (at least `outlineLevel` of the ceiling), 2 px wide, at full strength, so the spot itself stays visible
    /// inside its outline on the page. `.notCompared`: diagonal light-grey hatching over the cells not compared, so that
    /// what the figure does not cover shows on the photo.
    public func changeOverlay(
        _ values: [Float], mapWidth: Int, mapHeight: Int, width: Int, height: Int, layer: OverlayLayer
    ) throws -> RGBImage {
        precondition(values.count == mapWidth * mapHeight && width > 0 && height > 0, "changeOverlay size mismatch")
        var grey = [UInt8](repeating: 0, count: values.count * 3)
        for (i, value) in values.enumerated() {
            let byte: UInt8
            switch layer {
            case .change: byte = UInt8(min(max(value, 0), 1) * 255 + 0.5)
            case .notCompared: byte = value < 0 ? 255 : 0
            }
            grey[i * 3] = byte
            grey[i * 3 + 1] = byte
            grey[i * 3 + 2] = byte
        }
        let map = try resize(RGBImage(width: mapWidth, height: mapHeight, pixels: grey), width: width, height: height)
        var px = [UInt8](repeating: 0, count: width * height * 3)
        func level(_ x: Int, _ y: Int) -> Double { min(max((Double(map.pixels[(y * width + x) * 3]) / 255 - 0.1) / 0.9, 0), 1) }
        func clear(_ x: Int, _ y: Int) -> Bool { x >= 0 && y >= 0 && x < width && y < height && level(x, y) >= Self.outlineLevel }
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                switch layer {
                case .notCompared:
                    guard map.pixels[i] >= 128, (x + y) % 10 < 3 else { continue }
                    px[i] = 190
                    px[i + 1] = 190
                    px[i + 2] = 190
                case .change(let outline):
                    var t = level(x, y)
                    if outline {
                        // On the edge: clear change here, and not all around within 2 px.
                        let inside = clear(x, y)
                        let edge =
                            inside
                            && [(-2, 0), (2, 0), (0, -2), (0, 2), (-1, -1), (1, 1), (-1, 1), (1, -1)].contains { !clear(x + $0.0, y + $0.1) }
                        t = edge ? 1 : 0
                    }
                    px[i] = UInt8(255 * t)
                    px[i + 1] = UInt8(170 * t)
                    px[i + 2] = UInt8(40 * t)
                }
            }
        }
        return RGBImage(width: width, height: height, pixels: px)
    }
}
