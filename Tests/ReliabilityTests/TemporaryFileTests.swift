import CairnTestSupport
import Foundation
import Imaging
import Testing

/// A photo's pixels never reach a temporary file. libvips decodes an image it must read at random (one that has to
/// turn) to an unlinked file in the temporary folder once it holds more than 100 MB of pixels (about 33 MP),
/// unless told to keep it in memory; Cairn tells it to, and reads every other photo once, top to bottom. The real
/// `cairn` runs with TMPDIR naming a folder that does not exist, so any temporary file would fail the command.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: FileModeTests.binary.path), "build the cairn binary first"))
struct TemporaryFileTests {
    /// A 38 MP PNG whose EXIF orientation (6) asks for a turn: the path that reads at random.
    @Test func aLargePhotoThatMustTurnIsLoggedWithoutATemporaryFile() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let photo = try Self.sideways(megapixels: 38, name: "large.png", options: "strip,compression=1", in: scratch)
        let large = try ImagePipeline().probe(Data(contentsOf: photo))
        #expect(large.width * large.height * 3 > 100_000_000)
        let vault = try Self.logWithoutATemporaryFolder(photo, in: scratch)
        let added = try FileModeTests.cairn(
            ["smile", "add", photo.path, "--square", "100,100,600"], vault: vault,
            environment: Self.missingTemporaryFolder(in: scratch))
        #expect(added.status == 0, "\(added.output)")
    }

    /// A 20 MP 4:4:4 JPEG stored sideways (60 MB of planes, over `ImagePipeline.turnLimit`): turned in bands, each
    /// decoded again from the photo in memory.
    @Test func aLargeJPEGTurnedInBandsIsLoggedWithoutATemporaryFile() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let photo = try Self.sideways(megapixels: 20, name: "large.jpg", options: "strip,Q=90,subsample-mode=off", in: scratch)
        let large = try ImagePipeline().probe(Data(contentsOf: photo))
        #expect(large.width * large.height * 3 > ImagePipeline.turnLimit)
        _ = try Self.logWithoutATemporaryFolder(photo, in: scratch)
    }

    /// The shared photo resized to about `megapixels` MP, saved with libvips `options`, tagged EXIF orientation 6.
    static func sideways(megapixels: Double, name: String, options: String, in scratch: Scratch) throws -> URL {
        let info = try ImagePipeline().probe(Data(contentsOf: SharedData.photo))
        let factor = (megapixels * 1_000_000 / Double(info.width * info.height)).squareRoot()
        let photo = scratch.file(name)
        try Tools.run(tool: "vips", ["resize", SharedData.photo.path, photo.path + "[\(options)]", String(format: "%.4f", factor)])
        try Tools.run(tool: "exiftool", ["-q", "-q", "-overwrite_original", "-EXIF:Orientation#=6", photo.path])
        #expect(try ImagePipeline().probe(Data(contentsOf: photo)).orientation == 6)
        return photo
    }

    static func missingTemporaryFolder(in scratch: Scratch) -> [String: String] {
        ["TMPDIR": scratch.file("no-such-folder").path]
    }

    /// `cairn skin log` of `photo` into a new vault with TMPDIR naming a folder that does not exist; the vault.
    static func logWithoutATemporaryFolder(_ photo: URL, in scratch: Scratch) throws -> URL {
        let vault = scratch.file("vault")
        #expect(try FileModeTests.cairn(["skin", "add-area", "Arm"], vault: vault).status == 0)
        let logged = try FileModeTests.cairn(
            ["skin", "log", "Arm", photo.path], vault: vault,
            environment: missingTemporaryFolder(in: scratch))
        #expect(logged.status == 0, "\(logged.output)")
        #expect(logged.output.contains("first photo"), "\(logged.output)")
        return vault
    }
}
