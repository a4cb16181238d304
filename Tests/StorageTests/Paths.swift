import Foundation

/// The repository root, found from this file's location.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
/// A real JPEG from the shared test data.
let sharedPhotoURL = repositoryRoot.appendingPathComponent("../shared/data/faces/2008_001322.jpg").standardizedFileURL
/// The database fixtures of every landed schema.
let fixturesDirectory = repositoryRoot.appendingPathComponent("Tests/StorageTests/Fixtures")
