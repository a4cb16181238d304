import CTesseract
import CairnCore
import NativeLoader

/// Tesseract as `cairn doctor` reports it: whether it opens, its version, and whether its English data loads.
public enum TextRecognitionLibraries {
    public static func statuses() -> [ComponentStatus] {
        guard TextRecognizer.openLibrary() else {
            return [
                ComponentStatus(
                    name: "Tesseract", role: "reading Supplement Facts labels", present: false,
                    note: "Install Debian's tesseract-ocr and tesseract-ocr-eng to read label photos; products can still be typed.")
            ]
        }
        let data = (try? TextRecognizer()) != nil
        return [
            ComponentStatus(
                name: "Tesseract", role: "reading Supplement Facts labels", present: data, version: TextRecognizer.version,
                note: data ? nil : "Its English data is missing: install Debian's tesseract-ocr-eng.")
        ]
    }
}
