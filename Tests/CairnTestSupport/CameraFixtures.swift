import Foundation

/// Builds camera-style JPEG and PNG files at run time with vips and exiftool: EXIF (with DateTimeOriginal,
/// OffsetTimeOriginal, Orientation), GPS, XMP, IPTC, an ICC profile, Canon maker notes, an embedded thumbnail,
/// a comment and trailing bytes.
///
/// Maker notes: exiftool cannot invent a maker-note directory, but it writes one from a block
/// (`-MakerNoteCanon<=file`). The block is hand-built here: a one-entry Canon IFD (tag 0x0010 CanonModelID,
/// LONG 0x80000213 = "EOS 5D"), which exiftool then reads back as MakerNotes:Canon.
public enum CameraFixtures {
    /// The date the fixtures carry.
    public static let dateTimeOriginal = "2024:05:06 07:08:09"
    public static let offsetTimeOriginal = "+02:00"
    public static let orientation = 6
    public static let trailer = Data("TRAILING-BYTES-AFTER-THE-IMAGE".utf8)

    /// A JPEG with every kind of metadata above. Returns its URL inside `scratch`.
    public static func cameraJPEG(in scratch: Scratch) throws -> URL {
        // The original photo, with its JFIF header (vips would drop it).
        let url = scratch.file("camera.jpg")
        try Data(contentsOf: SharedData.photo).write(to: url)
        let profile = try iccProfile(in: scratch)
        try addCameraMetadata(to: url, in: scratch, extra: ["-icc_profile<=" + profile.path, "-Comment=A comment"])
        try appendTrailer(to: url)
        return url
    }

    /// A PNG with EXIF (GPS, maker notes, thumbnail), XMP, IPTC (a "Raw profile type iptc" zTXt), an iCCP
    /// profile, text, a tIME chunk and trailing bytes.
    public static func cameraPNG(in scratch: Scratch) throws -> URL {
        let url = scratch.file("camera.png")
        try Tools.run(tool: "vips", ["copy", SharedData.photo.path, url.path])
        let profile = try iccProfile(in: scratch)
        try addCameraMetadata(
            to: url, in: scratch,
            extra: [
                "-icc_profile<=" + profile.path, "-PNG:Comment=A comment", "-PNG:ModifyDate=2024:05:06 07:08:09",
            ])
        try appendTrailer(to: url)
        return url
    }

    /// The sRGB profile vips embeds (`vips icc_transform ... srgb`), extracted with exiftool.
    public static func iccProfile(in scratch: Scratch) throws -> URL {
        let withProfile = scratch.file("icc-source.jpg")
        try Tools.run(tool: "vips", ["icc_transform", SharedData.photo.path, withProfile.path, "srgb"])
        let profile = scratch.file("profile.icc")
        try Tools.run(tool: "exiftool", ["-b", "-ICC_Profile", withProfile.path]).write(to: profile)
        return profile
    }

    /// A small JPEG for the EXIF thumbnail.
    public static func thumbnail(in scratch: Scratch) throws -> URL {
        let url = scratch.file("thumb.jpg")
        if !FileManager.default.fileExists(atPath: url.path) {
            try Tools.run(tool: "vips", ["thumbnail", SharedData.photo.path, url.path, "64"])
        }
        return url
    }

    /// The hand-built Canon maker-note block (big-endian, as exiftool writes EXIF).
    public static func makerNoteBlock(in scratch: Scratch) throws -> URL {
        let url = scratch.file("makernote.bin")
        let bytes: [UInt8] = [
            0x00, 0x01, 0x00, 0x10, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01, 0x80, 0x00, 0x02, 0x13,
            0x00, 0x00, 0x00, 0x00,
        ]
        try Data(bytes).write(to: url)
        return url
    }

    public static func addCameraMetadata(to url: URL, in scratch: Scratch, extra: [String]) throws {
        let thumb = try thumbnail(in: scratch)
        let makerNote = try makerNoteBlock(in: scratch)
        try Tools.run(
            tool: "exiftool",
            [
                "-q", "-q", "-overwrite_original",
                "-EXIF:Make=Canon", "-EXIF:Model=Canon EOS 5D",
                "-EXIF:DateTimeOriginal=" + dateTimeOriginal, "-EXIF:OffsetTimeOriginal=" + offsetTimeOriginal,
                "-EXIF:Orientation#=\(orientation)",
                "-GPSLatitude=48.137", "-GPSLatitudeRef=N", "-GPSLongitude=11.575", "-GPSLongitudeRef=E",
                "-XMP-dc:Title=Holiday", "-IPTC:Keywords=beach",
                "-ThumbnailImage<=" + thumb.path,
                url.path,
            ] + extra)
        // Maker notes go in a second pass: exiftool needs Make=Canon to be in the file already.
        try Tools.run(tool: "exiftool", ["-q", "-q", "-overwrite_original", "-MakerNoteCanon<=" + makerNote.path, url.path])
    }

    public static func appendTrailer(to url: URL) throws {
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        try handle.write(contentsOf: trailer)
        try handle.close()
    }
}
