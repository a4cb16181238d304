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
        let info = try ImagePipeline().probe(Data(contentsOf: SharedData.photo))
        let factor = (38_000_000.0 / Double(info.width * info.height)).squareRoot()
        let photo = scratch.file("large.png")
        try Tools.run(tool: "vips", ["resize", SharedData.photo.path, photo.path + "[strip,compression=1]", String(format: "%.4f", factor)])
        try Tools.run(tool: "exiftool", ["-q", "-q", "-overwrite_original", "-EXIF:Orientation#=6", photo.path])
        let large = try ImagePipeline().probe(Data(contentsOf: photo))
        #expect(large.orientation == 6 && large.width * large.height * 3 > 100_000_000)

        let vault = scratch.file("vault")
        let missing = ["TMPDIR": scratch.file("no-such-folder").path]
        #expect(try FileModeTests.cairn(["skin", "add-area", "Arm"], vault: vault).status == 0)
        let logged = try FileModeTests.cairn(["skin", "log", "Arm", photo.path], vault: vault, environment: missing)
        #expect(logged.status == 0, "\(logged.output)")
        #expect(logged.output.contains("first photo"), "\(logged.output)")
        let added = try FileModeTests.cairn(["smile", "add", photo.path, "--square", "100,100,600"], vault: vault, environment: missing)
        #expect(added.status == 0, "\(added.output)")
    }
}
