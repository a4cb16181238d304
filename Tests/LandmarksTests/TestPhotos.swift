import CairnCore
import CairnTestSupport
import Foundation
import Imaging

/// Real photos from ../shared/data/faces, decoded upright by the Imaging adapter.
enum TestPhotos {
    static func load(_ name: String) throws -> RGBImage {
        try ImagePipeline().decodeRGB(Data(contentsOf: SharedData.faces.appendingPathComponent(name)))
    }
}
