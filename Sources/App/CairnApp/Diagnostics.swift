import CairnCore
import Encryption
import Foundation
import HealthExport
import Imaging
import Landmarks
import Reports
import Storage
import TextRecognition

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
    public static func report(
        dataDirectory: String?, environment: [String: String],
        extra: [ComponentStatus] = []
    ) -> DiagnosticsReport {
        let components =
            StorageLibraries.statuses() + ImagingLibraries.statuses() + [landmarkLibrary(), landmarkModel()]
            + TextRecognitionLibraries.statuses() + ReportLibraries.statuses() + HealthExportLibraries.statuses() + extra
        let path = (try? Vault.resolveDirectory(dataDir: dataDirectory, environment: environment).path) ?? "(no home folder)"
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
        return DiagnosticsReport(components: components, vault: .init(path: path, exists: exists))
    }

    /// dlib, which finds faces and their landmarks: opened here (it is not linked: `cairn` opens it on first use).
    static func landmarkLibrary() -> ComponentStatus {
        let present = DlibLandmarkDetector.isLibraryAvailable
        return ComponentStatus(
            name: "dlib", role: "finding faces in Smile photos", present: present,
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

/// What `cairn doctor` found in the vault itself (issue 36), as `restic check --read-data` checks a repository: the
/// database's integrity, every photo read whole (decrypted where the vault is locked) and compared with its digest,
/// leftovers of processes that stopped, a stopped lock conversion, files no record names.
public struct VaultCheckReport: Sendable, Encodable {
    /// One finding: a problem of the vault (exit 1), or a line the person should know that is no problem.
    public struct Finding: Sendable, Encodable, Equatable {
        public enum Kind: String, Sendable, Encodable { case problem, repaired, note }
        public let kind: Kind
        public let message: String
    }
    /// Whether the vault folder exists (a vault not created yet has nothing to check).
    public let exists: Bool
    /// Whether the lock is on.
    public let locked: Bool
    /// Photos read and compared with their digests.
    public let photosChecked: Int
    public let findings: [Finding]
    /// How many problems the vault itself has (the command then exits 1).
    public var problemCount: Int { findings.filter { $0.kind == .problem }.count }
}

extension Diagnostics {
    /// Checks the vault at `dataDirectory` (never creating it, nor its database). A locked vault is opened with `passphrase()` (asked
    /// only then); opening it removes what stopped processes left and finishes a stopped conversion, as any command
    /// does, and the report says so. Nothing else is changed: files no record names are reported, not moved.
    public static func checkVault(
        dataDirectory: String?, environment: [String: String], clock: any Clock,
        passphrase: @escaping () throws -> Passphrase
    ) -> VaultCheckReport {
        guard let directory = try? Vault.resolveDirectory(dataDir: dataDirectory, environment: environment),
            FileManager.default.fileExists(atPath: directory.path)
        else {
            return VaultCheckReport(exists: false, locked: false, photosChecked: 0, findings: [])
        }
        var findings: [VaultCheckReport.Finding] = []
        func add(_ kind: VaultCheckReport.Finding.Kind, _ message: String) { findings.append(.init(kind: kind, message: message)) }
        let vault: Vault
        do {
            vault = try Vault(directory: directory)
            try vault.refuseLostDatabase()
        } catch {
            add(.problem, (error as? CairnError)?.userMessage ?? "The data folder cannot be used.")
            return VaultCheckReport(exists: true, locked: false, photosChecked: 0, findings: findings)
        }
        guard FileManager.default.fileExists(atPath: vault.databaseURL.path) else {
            add(.note, "No journal has been written yet: nothing to check.")
            return VaultCheckReport(exists: true, locked: false, photosChecked: 0, findings: findings)
        }
        let locked = (try? vault.lockSetting()) == .on
        let abandoned = TemporaryArtefacts(vault: vault).entries().filter { !$0.ownerRunning }
        let converting = vault.photoConversionPending
        let application: CairnApplication
        do {
            application = try CairnApplication(vault: vault, clock: clock, housekeeping: .none, passphrase: passphrase)
        } catch {
            add(.problem, (error as? CairnError)?.userMessage ?? "The vault's database could not be opened.")
            return VaultCheckReport(exists: true, locked: locked, photosChecked: 0, findings: findings)
        }
        defer { application.database.close() }
        if !abandoned.isEmpty {
            add(
                .repaired,
                "Removed \(CountText.counted(abandoned.count, "leftover")) of commands that were stopped (\(Set(abandoned.map(\.kind.rawValue)).sorted().joined(separator: ", ")))."
            )
        }
        if converting {
            if vault.photoConversionPending {
                add(
                    .problem,
                    "A lock change stopped while converting the photos and could not be finished here. Run 'cairn settings lock on' (or off) again.")
            } else {
                add(.repaired, "Finished the photo conversion of a lock change that was stopped.")
            }
        }
        let integrity = (try? application.database.read { try $0.scalar("PRAGMA integrity_check", as: String.self) }) ?? nil
        if integrity != "ok" {
            add(
                .problem,
                "The database failed SQLite's integrity check. Restore the vault from a backup into a new folder (cairn backup restore FILE --data-dir NEW-FOLDER)."
            )
        }
        var checked = 0
        do {
            let result = try application.photoStore.check()
            checked = result.checked
            for (photo, problem) in result.problems {
                add(
                    .problem,
                    "Photo \(photo.id.rawValue) (\(photo.purpose)) is \(problem == .missing ? "missing: its file is not in the data folder" : "damaged: its file is not the photo that was recorded")."
                )
            }
            if !result.unnamed.isEmpty {
                add(
                    .problem,
                    "\(CountText.counted(result.unnamed.count, "photo file")) in the data folder \(result.unnamed.count == 1 ? "is" : "are") named by no record; the next command that changes data moves \(result.unnamed.count == 1 ? "it" : "them") to lost+found (nothing is deleted)."
                )
            }
        } catch {
            add(.problem, (error as? CairnError)?.userMessage ?? "The photos could not be read.")
        }
        var keptAside = 0
        try? PhotoFileStore.forEachFile(under: vault.lostAndFoundURL.path) { _, _ in keptAside += 1 }
        if keptAside > 0 {
            add(
                .note,
                "\(CountText.counted(keptAside, "file")) kept aside in the lost+found folder of the data folder (photo files no record named). Look at them, then move or remove them yourself."
            )
        }
        if !findings.contains(where: { $0.kind == .problem }) {
            add(
                .note,
                "Database intact; \(CountText.counted(checked, "photo")) read whole and matching \(checked == 1 ? "its" : "their") recorded digest\(checked == 1 ? "" : "s")."
            )
        }
        return VaultCheckReport(exists: true, locked: locked, photosChecked: checked, findings: findings)
    }
}
