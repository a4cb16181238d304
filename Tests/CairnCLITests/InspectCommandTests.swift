import CairnCLI
import Foundation
import Testing

private let sharedPhoto = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("shared/data/faces/2008_001009.jpg").path

@Test func inspectListsAPhotosMetadata() {
    let run = cairn("inspect", sharedPhoto)
    #expect(run.status == 0)
    #expect(run.out.first == "JPEG image")
    #expect(run.out.contains { $0.contains("jfif") })
}

@Test func inspectJSONSaysWhetherOnlyAllowedMetadataIsPresent() throws {
    let run = cairn("inspect", "--json", sharedPhoto)
    let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    #expect(json["container"] as? String == "jpeg")
    #expect(json["carriesOnlyAllowedMetadata"] != nil)
}

@Test func inspectOfAMissingFileIsAUserErrorThatDoesNotRepeatThePath() {
    let run = cairn("inspect", "/no/such/secret-name.jpg")
    #expect(run.status == 1)
    #expect(run.err == ["cairn: The file does not exist."])
}

@Test func inspectOfATextFileSaysItIsNotAnImage() throws {
    try withTemporaryDirectory { dir in
        let file = dir.appendingPathComponent("notes.jpg")
        try Data("not a picture".utf8).write(to: file)
        let run = cairn("inspect", file.path)
        #expect(run.status == 1)
        #expect(run.err == ["cairn: The file is not a JPEG or PNG image."])
    }
}
