/// A point in image pixel coordinates: top-left origin, x to the right, y down.
public struct Point: Sendable, Equatable, Hashable {
    /// Horizontal position in pixels.
    public var x: Double
    /// Vertical position in pixels (down is positive).
    public var y: Double

    /// A point at (`x`, `y`).
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// The straight-line distance to `other`.
    public func distance(to other: Point) -> Double {
        ((x - other.x) * (x - other.x) + (y - other.y) * (y - other.y)).squareRoot()
    }
}

/// An axis-aligned rectangle in image pixel coordinates (top-left origin).
public struct PixelRect: Sendable, Equatable, Hashable {
    /// Left edge.
    public var x: Double
    /// Top edge.
    public var y: Double
    /// Width (never negative).
    public var width: Double
    /// Height (never negative).
    public var height: Double

    /// A rectangle with its top-left corner at (`x`, `y`).
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = max(0, width)
        self.height = max(0, height)
    }

    /// The smallest rectangle holding every point; `nil` for no points.
    public init?(bounding points: some Collection<Point>) {
        guard let first = points.first else { return nil }
        var minX = first.x
        var maxX = first.x
        var minY = first.y
        var maxY = first.y
        for p in points {
            minX = min(minX, p.x)
            maxX = max(maxX, p.x)
            minY = min(minY, p.y)
            maxY = max(maxY, p.y)
        }
        self.init(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }

    /// Right edge.
    public var maxX: Double { x + width }
    /// Bottom edge.
    public var maxY: Double { y + height }
    /// The centre point.
    public var centre: Point { Point(x: x + width / 2, y: y + height / 2) }
    /// Width times height.
    public var area: Double { width * height }

    /// The rectangle with every coordinate multiplied by `factor`.
    public func scaled(by factor: Double) -> PixelRect {
        PixelRect(x: x * factor, y: y * factor, width: width * factor, height: height * factor)
    }

    /// The overlap with `other`, or `nil` when they do not overlap.
    public func intersection(_ other: PixelRect) -> PixelRect? {
        let left = max(x, other.x)
        let top = max(y, other.y)
        let right = min(maxX, other.maxX)
        let bottom = min(maxY, other.maxY)
        guard right > left, bottom > top else { return nil }
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// Intersection over union with `other` (0 when disjoint, 1 when identical).
    public func intersectionOverUnion(_ other: PixelRect) -> Double {
        guard let overlap = intersection(other) else { return 0 }
        let union = area + other.area - overlap.area
        return union > 0 ? overlap.area / union : 0
    }
}

/// A square crop in the original photo's pixel coordinates: it covers columns `x ..< x + side` and rows
/// `y ..< y + side`, always inside the image it was made for.
public struct CropSquare: Sendable, Equatable, Hashable {
    /// Left column.
    public let x: Int
    /// Top row.
    public let y: Int
    /// Side length in pixels (at least 1).
    public let side: Int

    /// A square with its top-left corner at (`x`, `y`); no clamping is done.
    public init(x: Int, y: Int, side: Int) {
        self.x = x
        self.y = y
        self.side = side
    }

    /// A square of `side` centred on `centre`, then moved (and if needed shrunk) to lie inside a
    /// `imageWidth` x `imageHeight` image. When the image is narrower than `side`, the side becomes the
    /// image's shorter dimension, so the result is always a square inside the image.
    public static func clamped(centre: Point, side: Double, imageWidth: Int, imageHeight: Int) -> CropSquare {
        precondition(imageWidth > 0 && imageHeight > 0, "empty image")
        let wanted = max(1, Int(side.rounded()))
        let fitted = min(wanted, imageWidth, imageHeight)
        let left = Int((centre.x - Double(fitted) / 2).rounded())
        let top = Int((centre.y - Double(fitted) / 2).rounded())
        return CropSquare(
            x: min(max(0, left), imageWidth - fitted),
            y: min(max(0, top), imageHeight - fitted),
            side: fitted)
    }

    /// The square as a rectangle.
    public var rect: PixelRect { PixelRect(x: Double(x), y: Double(y), width: Double(side), height: Double(side)) }

    /// Whether `point` lies inside (left and top edges included, right and bottom excluded).
    public func contains(_ point: Point) -> Bool {
        point.x >= Double(x) && point.x < Double(x + side) && point.y >= Double(y) && point.y < Double(y + side)
    }

    /// Whether the square lies fully inside a `width` x `height` image.
    public func fits(width: Int, height: Int) -> Bool {
        x >= 0 && y >= 0 && side >= 1 && x + side <= width && y + side <= height
    }
}
