internal import CTurboJPEG
import CairnCore
internal import VipsShim

/// The native libraries Imaging links, as `cairn doctor` reports them.
public enum ImagingLibraries {
    /// libvips (with the formats it can load), libheif and libjpeg-turbo.
    public static func statuses() -> [ComponentStatus] {
        let vipsReady = cairn_vips_init() == 0
        let heif = cairn_heif_version_string().map { String(cString: $0) }
        guard vipsReady else {
            return [
                ComponentStatus(name: "libvips", role: "image files", present: false, version: nil),
                ComponentStatus(name: "libheif", role: "HEIC photos", present: heif != nil, version: heif),
                ComponentStatus(
                    name: "libjpeg-turbo", role: "lossless JPEG copies",
                    present: tjInitTransform().map {
                        tjDestroy($0)
                        return true
                    } ?? false),
            ]
        }
        let loaders = [
            ("JPEG", "jpegload_buffer"), ("PNG", "pngload_buffer"), ("WebP", "webpload_buffer"),
            ("HEIC", "heifload_buffer"),
        ]
        let missing = loaders.filter { cairn_vips_has_operation($0.1) == 0 }.map(\.0)
        let formats = loaders.map(\.0).filter { !missing.contains($0) }.joined(separator: ", ")
        return [
            ComponentStatus(
                name: "libvips", role: "image files", present: vipsReady,
                version: String(cString: cairn_vips_version_string()),
                note: missing.isEmpty ? "reads \(formats)" : "reads \(formats); cannot read \(missing.joined(separator: ", "))"),
            ComponentStatus(name: "libheif", role: "HEIC photos", present: heif != nil, version: heif),
            ComponentStatus(
                name: "libjpeg-turbo", role: "lossless JPEG copies",
                present: tjInitTransform().map {
                    tjDestroy($0)
                    return true
                } ?? false),
        ]
    }
}
