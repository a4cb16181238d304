import CairnCore
import Foundation
import Imaging
import Landmarks
import Storage

/// What `cairn doctor` reports: the native parts and models, and where the vault is.
public struct DiagnosticsReport: Sendable, Encodable {
    /// Where the vault is and whether it exists yet.
    public struct VaultLocation: Sendable, Encodable {
        public let path: String
        public let exists: Bool
    }
    public let components: [ComponentStatus]
    public let vault: VaultLocation
}

/// Gathers the state of every native library and model without changing anything (it never creates the vault).
public enum Diagnostics {
    /// The report for the vault `dataDirectory` or the environment names. `extra` adds components that only an
    /// outer layer knows (the web server's library).
    public static func report(dataDirectory: String?, environment: [String: String],
                              extra: [ComponentStatus] = []) -> DiagnosticsReport {
        let components = StorageLibraries.statuses() + ImagingLibraries.statuses() + [landmarkLibrary(), landmarkModel()] + extra
        let path = (try? Vault.resolveDirectory(dataDir: dataDirectory, environment: environment).path) ?? "(no home folder)"
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
        return DiagnosticsReport(components: components, vault: .init(path: path, exists: exists))
    }

    /// dlib, which finds faces and their landmarks: opened here (it is not linked: `cairn` opens it on first use).
    static func landmarkLibrary() -> ComponentStatus {
        let present = DlibLandmarkDetector.isLibraryAvailable
        return ComponentStatus(name: "dlib", role: "finding faces in Smile photos", present: present,
                               version: present ? DlibLandmarkDetector.libraryVersion : nil)
    }

    /// The face landmark model: optional, and under a non-commercial licence.
    static func landmarkModel(at path: String = DlibLandmarkDetector.defaultModelPath) -> ComponentStatus {
        let present = DlibLandmarkDetector.isModelAvailable(at: path)
        return ComponentStatus(
            name: "Face landmark model", role: "finding the mouth in Smile photos", present: present,
            version: present ? "dlib 68-point" : nil,
            note: (present ? path + ". " : "Install Debian's libdlib-data to add it. ")
                + "Trained on iBUG 300-W, whose terms exclude commercial use. Without it, Smile finds the mouth "
                + "by colour or lets you place the square yourself.")
    }
}
