import Foundation
import Testing

@testable import Imaging

@Test func everyErrorHasAPlainMessageWithoutLibraryText() {
    let kinds: [ImagingError.Kind] = [
        .emptyFile, .notAnImage, .corrupt, .tooManyPixels(width: 30000, height: 30000, limit: 100_000_000),
        .tooManyBytes(byteCount: 70_000_000, limit: 67_108_864), .noImageInContainer, .unsupportedFormat, .writeFailed,
    ]
    for kind in kinds {
        let error = ImagingError(kind, libraryDetail: "/home/someone/private/holiday.jpg: premature end")
        #expect(!error.userMessage.isEmpty)
        #expect(!error.userMessage.contains("/home"))
        #expect(!error.userMessage.contains("holiday"))
        #expect(error.description == error.userMessage)
    }
}

@Test func tooManyPixelsSaysTheSizeAndTheLimit() {
    let message = ImagingError(.tooManyPixels(width: 12000, height: 9000, limit: 100_000_000)).userMessage
    #expect(message.contains("12000 x 9000"))
    #expect(message.contains("108 MP"))
    #expect(message.contains("100 MP"))
}

@Test func emptyLibraryDetailIsDropped() {
    #expect(ImagingError(.corrupt, libraryDetail: " \n").libraryDetail == nil)
    #expect(ImagingError(.corrupt).libraryDetail == nil)
}
