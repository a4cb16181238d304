import CairnCore
import DlibShim
import Foundation
import Smile

/// Why the landmark detector could not run.
public enum LandmarkError: CairnError, Equatable {
    /// The 68-point model file is not installed (Debian package libdlib-data).
    case modelMissing
    /// The model file exists but could not be loaded.
    case modelUnreadable
    /// dlib's library (Debian package libdlib19.1) is not installed.
    case libraryMissing
    /// dlib failed while searching an image.
    case detectionFailed

    /// Plain words for the person; never contains the model path.
    public var userMessage: String {
        switch self {
        case .modelMissing:
            return "The face landmark model is not installed, so mouths are found by colour only. Install the libdlib-data package to add it."
        case .modelUnreadable:
            return "The face landmark model could not be loaded; it may be damaged. Reinstall the libdlib-data package."
        case .libraryMissing:
            return "dlib, which finds faces, is not installed, so mouths are found by colour only. Install the libdlib19.1 package to add it."
        case .detectionFailed:
            return "Faces could not be searched in this photo."
        }
    }
}

/// Finds faces and their 68 landmark points with dlib (HOG frontal face detector + shape predictor).
///
/// The model is loaded once, lazily, on the first search; later searches reuse it. dlib's own loading costs about
/// 1.3 s of CPU (the detector's built-in model is decompressed, the 95 MB predictor read float by float), so the
/// first load also writes a cache of both in `cacheDirectory` (`dlib-landmarks.cache`, mode 0600, checked
/// against what dlib loaded before it is kept), which later processes read in tens of milliseconds. A cache made
/// from another model file (size or modification time), or damaged, is ignored and rewritten.
/// Safe to share between threads: loading and searching are serialised. The 68-point model was trained on
/// iBUG 300-W data whose terms exclude commercial use; it stays optional.
public final class DlibLandmarkDetector: FaceLandmarkDetecting, @unchecked Sendable {
    /// Where Debian's libdlib-data installs the model.
    public static let defaultModelPath = "/usr/share/dlib/shape_predictor_68_face_landmarks.dat"

    /// The model file this detector loads.
    public let modelPath: String
    /// Only the largest this-many faces get landmarks (about 4 ms each on an idle core); the rest are dropped.
    public let maximumFaces: Int
    /// Where the loaded model is cached (nil: no cache).
    public let cacheDirectory: URL?
    /// The cache file's name inside `cacheDirectory`.
    public static let cacheFileName = "dlib-landmarks.cache"
    private let lock = NSLock()
    private var handle: OpaquePointer?
    private var loadError: LandmarkError?
    private var readCache = false

    /// A detector over the model at `modelPath`, cached in `cacheDirectory`; nothing is read until the first search.
    public init(
        modelPath: String = DlibLandmarkDetector.defaultModelPath, maximumFaces: Int = 10,
        cacheDirectory: URL? = DlibLandmarkDetector.defaultCacheDirectory()
    ) {
        self.modelPath = modelPath
        self.maximumFaces = max(1, maximumFaces)
        self.cacheDirectory = cacheDirectory
    }

    /// The user's cache folder for Cairn: `$XDG_CACHE_HOME/cairn` (when absolute), else `$HOME/.cache/cairn`; nil
    /// when neither is set. It holds only what Cairn can rebuild from installed files, never vault data.
    public static func defaultCacheDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL? {
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("cairn")
        }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return URL(fileURLWithPath: home).appendingPathComponent(".cache/cairn")
    }

    /// Whether the loaded model came from the cache (false before the first load).
    public var loadedFromCache: Bool {
        lock.lock()
        defer { lock.unlock() }
        return readCache
    }

    deinit {
        cairn_landmarker_close(handle)
    }

    /// Closes the loaded model (about 65 MB of dlib's predictor) and hands its pages back to the system; the next
    /// search loads it again, from the cache in about 0.1 s.
    public func releaseModel() {
        lock.lock()
        defer { lock.unlock() }
        cairn_landmarker_close(handle)
        handle = nil
    }

    /// Whether a readable model file exists at `path` (for `cairn doctor`; does not load it).
    public static func isModelAvailable(at path: String = defaultModelPath) -> Bool {
        FileManager.default.isReadableFile(atPath: path)
    }

    /// Whether dlib's library can be opened (it is, as a side effect: `cairn doctor` opens it to report it). It is
    /// opened on first use rather than linked, so a process that finds no faces does not load it.
    public static var isLibraryAvailable: Bool { cairn_dlib_available() != 0 }

    /// The dlib version the detector was compiled with ("19.24.0").
    public static var libraryVersion: String { String(cString: cairn_dlib_version()) }

    /// Loads the model now if it is not loaded yet (to pay the load time up front); throws if it cannot.
    public func load() throws {
        lock.lock()
        defer { lock.unlock() }
        _ = try loadedHandle()
    }

    /// The faces in `image` (at most `maximumFaces`, the largest) with their 68 points in `image`'s pixels,
    /// largest first.
    public func faces(in image: RGBImage, upsampling: Int) throws -> [DetectedFace] {
        lock.lock()
        defer { lock.unlock() }
        let handle = try loadedHandle()
        let upsample = Int32(min(2, max(0, upsampling)))
        var err = [CChar](repeating: 0, count: 256)
        var faces = [cairn_face](repeating: cairn_face(), count: maximumFaces)
        let count = image.pixels.withUnsafeBufferPointer { pixels in
            cairn_landmarker_detect(
                handle, pixels.baseAddress, Int32(image.width), Int32(image.height), upsample,
                &faces, Int32(faces.count), &err, err.count)
        }
        if count < 0 { throw LandmarkError.detectionFailed }
        return faces.prefix(Int(min(count, Int32(faces.count)))).map(Self.face(from:))
    }

    private func loadedHandle() throws -> OpaquePointer {
        if let handle { return handle }
        if let loadError { throw loadError }
        guard Self.isModelAvailable(at: modelPath) else {
            // Not remembered: the person may install the package while the app runs.
            throw LandmarkError.modelMissing
        }
        guard Self.isLibraryAvailable else { throw LandmarkError.libraryMissing }
        var err = [CChar](repeating: 0, count: 256)
        var usedCache: Int32 = 0
        let cachePath = cacheDirectory.flatMap { directory -> String? in
            // A private folder (0700); without one, the model loads the slow way.
            do {
                try FileManager.default.createDirectory(
                    at: directory, withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700])
            } catch {
                return nil
            }
            return directory.appendingPathComponent(Self.cacheFileName).path
        }
        let count = err.count
        let loaded =
            if let cachePath {
                cairn_landmarker_open(modelPath, cachePath, &usedCache, &err, count)
            } else {
                cairn_landmarker_open(modelPath, nil, &usedCache, &err, count)
            }
        guard let opened = loaded else {
            loadError = .modelUnreadable
            throw LandmarkError.modelUnreadable
        }
        handle = opened
        readCache = usedCache != 0
        return opened
    }

    private static func face(from f: cairn_face) -> DetectedFace {
        var points = [Point]()
        points.reserveCapacity(FaceLandmarkIndex.count)
        withUnsafeBytes(of: f.x) { xs in
            withUnsafeBytes(of: f.y) { ys in
                let x = xs.bindMemory(to: Float.self)
                let y = ys.bindMemory(to: Float.self)
                for i in 0..<FaceLandmarkIndex.count { points.append(Point(x: Double(x[i]), y: Double(y[i]))) }
            }
        }
        return DetectedFace(
            bounds: PixelRect(x: Double(f.left), y: Double(f.top), width: Double(f.width), height: Double(f.height)),
            points: points, score: Double(f.score))
    }
}

extension LandmarkError {
    public var errorKind: ErrorKind { self == .detectionFailed ? .failure : .unavailable }
}
