import CairnCore
import Foundation

extension ImagePipeline {
    /// The share of the display ceiling from which a change counts as clear enough to be outlined.
    public static let outlineLevel = 0.35

    /// A map of change drawn as a picture for an overlay: `width` x `height` pixels, black outside the central
    /// square it covers (`squareFraction` of the shorter side); inside, the map upscaled by libvips and tinted
    /// amber in proportion to the change. `values` are `mapWidth * mapHeight` cells, row-major, 0 = no change and
    /// 1 = at or beyond the display ceiling. Below a tenth of the ceiling is drawn as no change, so JPEG noise
    /// does not outline the square.
    ///
    /// `outline`: only the edge of each region of clear change (at least `outlineLevel` of the ceiling) is drawn, 2 px
    /// wide, at full strength, so the spot itself stays visible inside its outline on the page.
    public func changeOverlay(
        _ values: [Float], mapWidth: Int, mapHeight: Int, width: Int, height: Int,
        squareFraction: Double, outline: Bool = false
    ) throws -> RGBImage {
        precondition(values.count == mapWidth * mapHeight && width > 0 && height > 0, "changeOverlay size mismatch")
        var grey = [UInt8](repeating: 0, count: values.count * 3)
        for (i, value) in values.enumerated() {
            let byte = UInt8(min(max(value, 0), 1) * 255 + 0.5)
            grey[i * 3] = byte
            grey[i * 3 + 1] = byte
            grey[i * 3 + 2] = byte
        }
        let side = max(1, Int((Double(min(width, height)) * squareFraction).rounded()))
        let square = try resize(RGBImage(width: mapWidth, height: mapHeight, pixels: grey), width: side, height: side)
        let x0 = (width - side) / 2
        let y0 = (height - side) / 2
        var px = [UInt8](repeating: 0, count: width * height * 3)
        func level(_ x: Int, _ y: Int) -> Double { min(max((Double(square.pixels[(y * side + x) * 3]) / 255 - 0.1) / 0.9, 0), 1) }
        func clear(_ x: Int, _ y: Int) -> Bool { x >= 0 && y >= 0 && x < side && y < side && level(x, y) >= Self.outlineLevel }
        for y in 0..<side {
            for x in 0..<side {
                var t = level(x, y)
                if outline {
                    // On the edge: clear change here, and not all around within 2 px.
                    let inside = clear(x, y)
                    let edge =
                        inside && [(-2, 0), (2, 0), (0, -2), (0, 2), (-1, -1), (1, 1), (-1, 1), (1, -1)].contains { !clear(x + $0.0, y + $0.1) }
                    t = edge ? 1 : 0
                }
                let i = ((y0 + y) * width + x0 + x) * 3
                px[i] = UInt8(255 * t)
                px[i + 1] = UInt8(170 * t)
                px[i + 2] = UInt8(40 * t)
            }
        }
        return RGBImage(width: width, height: height, pixels: px)
    }
}
