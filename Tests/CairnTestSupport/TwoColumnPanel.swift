import CairnCore
import Foundation

extension TextRenderer {
    /// A multivitamin's panel in two columns side by side: each row "Vitamin A 1050 mcg ..... 117%" (the amount
    /// right after the name, dot leaders, the %DV at the column's right edge), sub-lines in parentheses, "mcg DFE"
    /// and "mg NE" units, "**" markers with their footnote, headings across the panel above and below.
    public static func twoColumnPanel() -> RGBImage {
        func rows(_ items: [(String, String?)]) -> String {
            items.map { name, dv in
                guard let dv else { return name }
                let dots = String(repeating: ".", count: max(3, 30 - name.count - dv.count))
                return "\(name)\(dots)\(dv)"
            }.joined(separator: "\n")
        }
        let left = rows([
            ("Amount Per Tablet", "% DV"), ("Vitamin A 1050 mcg ", " 117%"), ("(29% as beta-carotene)", nil),
            ("Vitamin C 120 mg ", " 133%"), ("Vitamin D3 25 mcg ", " 125%"), ("(1,000 IU)", nil), ("Vitamin E 15 mg ", " 100%"),
            ("Vitamin K 80 mcg ", " 67%"), ("Thiamin 1.2 mg ", " 100%"), ("Riboflavin 1.3 mg ", " 100%"),
            ("Niacin 16 mg NE ", " 100%"), ("Vitamin B6 2 mg ", " 118%"), ("Folate 680 mcg DFE ", " 170%"),
            ("(400 mcg folic acid)", nil), ("Vitamin B12 6 mcg ", " 250%"),
        ])
        let right = rows([
            ("Amount Per Tablet", "% DV"), ("Biotin 30 mcg ", " 100%"), ("Calcium 200 mg ", " 15%"), ("Iron 18 mg ", " 100%"),
            ("Iodine 150 mcg ", " 100%"), ("Magnesium 50 mg ", " 12%"), ("Zinc 8 mg ", " 73%"), ("Selenium 55 mcg ", " 100%"),
            ("Copper 0.9 mg ", " 100%"), ("Manganese 1.8 mg ", " 78%"), ("Chromium 35 mcg ", " 100%"),
            ("Lutein 250 mcg ", " **"), ("Lycopene 300 mcg ", " **"),
        ])
        let font = "DejaVu Sans Mono 13"
        let head = render(
            "<b><span size=\"x-large\">Supplement Facts</span></b>\nServing Size 1 Tablet   Servings Per Container 30", font: "DejaVu Sans 13",
            width: 900)
        let a = render(left, font: font, width: 450, margin: 20)
        let b = render(right, font: font, width: 450, margin: 20)
        let foot = render(
            "** Daily Value not established.\nOther ingredients: Cellulose, Stearic Acid.", font: "DejaVu Sans 12", width: 900)
        let height = head.height + max(a.height, b.height) + foot.height
        var pixels = [UInt8](repeating: 255, count: 900 * height * 3)
        func paste(_ image: RGBImage, x: Int, y: Int) {
            for row in 0..<image.height {
                let from = row * image.width * 3
                let to = ((y + row) * 900 + x) * 3
                pixels.replaceSubrange(to..<(to + image.width * 3), with: image.pixels[from..<(from + image.width * 3)])
            }
        }
        paste(head, x: 0, y: 0)
        paste(a, x: 0, y: head.height)
        paste(b, x: 450, y: head.height)
        paste(foot, x: 0, y: head.height + max(a.height, b.height))
        return RGBImage(width: 900, height: height, pixels: pixels)
    }
}
