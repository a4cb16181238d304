// swift-tools-version:6.0
// Cairn: a private health journal. Layers point inward (see docs/ARCHITECTURE.md), one folder each under Sources/:
// Doors (cairn, CairnCLI, WebApp) -> App (CairnApp) -> Adapters (Storage, Imaging, ...) -> Native (C shims and
// system libraries), and every layer -> Domain (CairnCore, Regimen, Skin, ...). Bench holds cairn-bench.
import Foundation
import PackageDescription

// Libraries only some commands use are opened on first use, not linked (Sources/Native/NativeLoader): their system
// library targets name no pkg-config package (which would add `-l` flags), so their headers' search paths
// come from pkg-config here and go to every target (a Swift module that imports one, or imports a module that
// does, must find them).
func headerSearchPaths(_ packages: [String]) -> [String] {
    let pkgConfig = Process()
    pkgConfig.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    pkgConfig.arguments = ["pkg-config", "--cflags-only-I"] + packages
    let output = Pipe()
    pkgConfig.standardOutput = output
    guard (try? pkgConfig.run()) != nil else { return [] }
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    pkgConfig.waitUntilExit()
    return text.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init).filter { $0.hasPrefix("-I") }
}
let openedOnFirstUse = headerSearchPaths(["vips", "libheif", "pangocairo", "libxml-2.0", "libnotify", "tesseract", "libarchive",
                                          "libmicrohttpd", "gnutls", "libqrencode", "zbar"])

let package = Package(
    name: "Cairn",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "cairn", targets: ["cairn"]),
    ],
    targets: [
        // MARK: native targets (one per C library; only its adapter imports it)
        .systemLibrary(name: "CSQLite", path: "Sources/Native/CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The database's page cipher: an SQLite VFS in C, its cryptography passed in from Swift (Encryption).
        .target(name: "SQLiteCipherShim", dependencies: ["CSQLite"], path: "Sources/Native/SQLiteCipherShim"),
        // libvips and libheif: called only by VipsShim's C code, through NativeLoader (vips_lazy.h).
        .target(name: "VipsShim", dependencies: ["NativeLoader"], path: "Sources/Native/VipsShim"),
        // libjpeg's own API (opened on first use, as libvips is) for what TurboJPEG 2.1 cannot do: a JPEG turned
        // in bands (cairn_jpeg_bands.h); also the plane turns both JPEG paths use (cairn_orient.h).
        .target(name: "JPEGShim", dependencies: ["NativeLoader"], path: "Sources/Native/JPEGShim"),
        .systemLibrary(name: "CSodium", path: "Sources/Native/CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CTurboJPEG", path: "Sources/Native/CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        // Opened on first use (NativeLoader's stubs): headers only, no pkg-config package and no link line.
        .systemLibrary(name: "CMicroHTTPD", path: "Sources/Native/CMicroHTTPD", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CTesseract", path: "Sources/Native/CTesseract", providers: [.apt(["libtesseract-dev"])]),
        .systemLibrary(name: "CPangoCairo", path: "Sources/Native/CPangoCairo", providers: [.apt(["libpango1.0-dev", "libcairo2-dev"])]),
        .systemLibrary(name: "CLibXML2", path: "Sources/Native/CLibXML2", providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CArchive", path: "Sources/Native/CArchive", providers: [.apt(["libarchive-dev"])]),
        .systemLibrary(name: "CNotify", path: "Sources/Native/CNotify", providers: [.apt(["libnotify-dev"])]),
        // The phone session (PhoneLink): its certificate through GnuTLS, its QR code through libqrencode.
        .systemLibrary(name: "CGnuTLS", path: "Sources/Native/CGnuTLS", providers: [.apt(["libgnutls28-dev"])]),
        .systemLibrary(name: "CQREncode", path: "Sources/Native/CQREncode", providers: [.apt(["libqrencode-dev"])]),
        // Barcodes read from a photo (Barcodes): libzbar, opened on first use like the libraries above.
        .systemLibrary(name: "CZBar", path: "Sources/Native/CZBar", providers: [.apt(["libzbar-dev"])]),
        // dlopen on first use, and the stubs through which Swift calls the libraries above (native_loader.h).
        .target(name: "NativeLoader", path: "Sources/Native/NativeLoader", linkerSettings: [.linkedLibrary("dl")]),
        // dlib is C++ with templates: a C API shim, optimised even in debug (PLATFORM.md: 57x slower otherwise).
        // Its templates are compiled into the shim; the few compiled functions they call (dlib's own, LAPACK's and
        // BLAS's) are stubs that open libdlib on first use (dlib_stubs.cpp), so nothing is linked.
        .target(name: "DlibShim", dependencies: ["NativeLoader"], path: "Sources/Native/DlibShim",
                cxxSettings: [.unsafeFlags(["-O3", "-std=c++17"])]),

        // MARK: domain (pure Swift, no I/O, no C imports)
        .target(name: "CairnCore", path: "Sources/Domain/CairnCore"),
        .target(name: "PhotoMetadata", dependencies: ["CairnCore"], path: "Sources/Domain/PhotoMetadata"),
        .target(name: "Regimen", dependencies: ["CairnCore"], path: "Sources/Domain/Regimen", resources: [.copy("Resources")]),
        .target(name: "Skin", dependencies: ["CairnCore"], path: "Sources/Domain/Skin"),
        .target(name: "Smile", dependencies: ["CairnCore"], path: "Sources/Domain/Smile"),
        .target(name: "Insights", dependencies: ["CairnCore", "Regimen"], path: "Sources/Domain/Insights"),
        .target(name: "Outcomes", dependencies: ["CairnCore"], path: "Sources/Domain/Outcomes"),

        // MARK: adapters
        // Encryption is the one module over libsodium: keys, Argon2id, key wrapping, secretstream files, SHA-256.
        .target(name: "Encryption", dependencies: ["CairnCore", "CSodium"], path: "Sources/Adapters/Encryption"),
        .target(name: "Storage", dependencies: ["CairnCore", "CSQLite", "SQLiteCipherShim", "Encryption"], path: "Sources/Adapters/Storage"),
        .target(name: "Imaging", dependencies: ["CairnCore", "PhotoMetadata", "VipsShim", "JPEGShim", "CTurboJPEG"], path: "Sources/Adapters/Imaging"),
        .target(name: "Landmarks", dependencies: ["CairnCore", "Smile", "DlibShim"], path: "Sources/Adapters/Landmarks"),
        .target(name: "TextRecognition", dependencies: ["CairnCore", "Imaging", "CTesseract", "NativeLoader"], path: "Sources/Adapters/TextRecognition"),
        .target(name: "HealthExport", dependencies: ["CairnCore", "CLibXML2", "CArchive", "CSQLite", "NativeLoader"], path: "Sources/Adapters/HealthExport"),
        .target(name: "Reports", dependencies: ["CairnCore", "CPangoCairo", "NativeLoader"], path: "Sources/Adapters/Reports"),
        .target(name: "Notifications", dependencies: ["CairnCore", "Regimen", "CNotify", "NativeLoader"], path: "Sources/Adapters/Notifications"),
        // The phone session's address rules, TLS certificate (GnuTLS) and QR code (libqrencode).
        .target(name: "PhoneLink", dependencies: ["CairnCore", "CGnuTLS", "CQREncode", "NativeLoader"], path: "Sources/Adapters/PhoneLink"),
        // The label database (DSLD's bulk file, read through libarchive, into a plain SQLite file beside the vault).
        .target(name: "LabelDatabase", dependencies: ["CairnCore", "Regimen", "Storage", "CArchive", "NativeLoader"], path: "Sources/Adapters/LabelDatabase"),
        // A product's barcode read from a photo (zbar).
        .target(name: "Barcodes", dependencies: ["CairnCore", "Regimen", "Imaging", "CZBar", "NativeLoader"], path: "Sources/Adapters/Barcodes"),

        // MARK: application services (the only way data changes)
        .target(name: "CairnApp", dependencies: ["CairnCore", "PhotoMetadata", "Storage", "Encryption", "Imaging", "Regimen", "Skin", "Smile", "Landmarks", "TextRecognition", "Insights", "Outcomes", "HealthExport", "Reports", "PhoneLink", "LabelDatabase", "Barcodes"], path: "Sources/App/CairnApp"),

        // MARK: web + executables
        .target(name: "WebApp", dependencies: ["CairnCore", "CairnApp", "Storage", "Skin", "Smile", "Regimen", "CMicroHTTPD", "NativeLoader", "TextRecognition", "Insights", "Outcomes", "HealthExport", "Reports", "Encryption", "PhoneLink"], path: "Sources/Doors/WebApp", resources: [.copy("Assets")]),
        .target(name: "CairnCLI", dependencies: ["CairnCore", "CairnApp", "WebApp", "Imaging", "PhotoMetadata", "Encryption", "Skin", "Smile", "Regimen", "Insights", "Outcomes", "HealthExport", "Reports", "Notifications", "PhoneLink"], path: "Sources/Doors/CairnCLI"),
        .executableTarget(name: "cairn", dependencies: ["CairnCLI", "CairnApp"], path: "Sources/Doors/cairn"),
        .executableTarget(name: "cairn-bench", dependencies: ["CairnCore", "CairnApp", "Encryption", "Imaging", "PhotoMetadata", "Storage", "Regimen", "Skin", "Smile", "Landmarks", "TextRecognition", "CPangoCairo", "Insights", "HealthExport", "Outcomes", "CairnTestSupport", "WebApp", "LabelDatabase", "Barcodes"], path: "Sources/Bench/cairn-bench"),

        // MARK: tests (mirror the sources)
        .target(name: "CairnTestSupport", dependencies: ["PhotoMetadata", "CairnCore", "CPangoCairo", "CSQLite", "NativeLoader"], path: "Tests/CairnTestSupport"),
        .testTarget(name: "CairnCoreTests", dependencies: ["CairnCore"]),
        .testTarget(name: "PhotoMetadataTests", dependencies: ["PhotoMetadata", "CairnCore", "CairnTestSupport"]),
        .testTarget(name: "EncryptionTests", dependencies: ["Encryption", "CairnCore"]),
        .testTarget(name: "StorageTests", dependencies: ["Storage", "Encryption", "CairnCore"], resources: [.copy("Fixtures")]),
        .testTarget(name: "ImagingTests", dependencies: ["Imaging", "PhotoMetadata", "CairnCore", "CairnTestSupport"]),
        .testTarget(name: "RegimenTests", dependencies: ["Regimen", "CairnCore"]),
        .testTarget(name: "SkinTests", dependencies: ["Skin", "CairnCore"]),
        .testTarget(name: "SmileTests", dependencies: ["Smile", "CairnCore"]),
        .testTarget(name: "InsightsTests", dependencies: ["Insights", "Regimen", "CairnCore"]),
        .testTarget(name: "OutcomesTests", dependencies: ["Outcomes", "Regimen", "CairnCore"]),
        .testTarget(name: "LandmarksTests", dependencies: ["Landmarks", "Smile", "CairnCore", "Imaging", "CairnTestSupport"]),
        .testTarget(name: "CairnAppTests", dependencies: ["CairnApp", "CairnCore", "Storage", "Encryption", "Imaging", "PhotoMetadata", "Skin", "Smile", "Regimen", "TextRecognition", "CairnTestSupport", "Insights", "Outcomes", "HealthExport", "Reports"]),
        .testTarget(name: "TextRecognitionTests", dependencies: ["TextRecognition", "Imaging", "CairnCore", "CairnTestSupport"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "WebAppTests", dependencies: ["WebApp", "CairnCLI", "CairnApp", "CairnCore", "Imaging", "Skin", "Smile", "Regimen", "Storage", "TextRecognition", "CairnTestSupport", "Insights", "Outcomes", "HealthExport", "Encryption", "PhoneLink", "PhotoMetadata"]),
        .testTarget(name: "CairnCLITests", dependencies: ["CairnCLI", "CairnCore", "CairnApp", "Encryption", "Imaging", "Outcomes", "Regimen", "Insights", "CairnTestSupport", "NativeLoader", "Skin"], exclude: ["Fixtures"]),
        .testTarget(name: "BrowserTests", dependencies: ["CairnCore", "CairnApp", "WebApp", "Storage", "Encryption", "Imaging", "CairnTestSupport", "Insights", "Regimen", "Outcomes", "Skin"]),
        .testTarget(name: "PhoneLinkTests", dependencies: ["PhoneLink", "CairnCore", "CairnTestSupport"]),
        .testTarget(name: "LabelDatabaseTests", dependencies: ["LabelDatabase", "Regimen", "CairnCore", "CairnTestSupport"]),
        .testTarget(name: "BarcodesTests", dependencies: ["Barcodes", "Regimen", "CairnCore", "Imaging", "CairnTestSupport"]),
        .testTarget(name: "ReportsTests", dependencies: ["Reports", "CairnTestSupport"]),
        .testTarget(name: "NotificationsTests", dependencies: ["Notifications", "CairnApp", "CairnCore", "Regimen", "Storage"]),
        .testTarget(name: "HealthExportTests", dependencies: ["HealthExport", "CairnCore", "Regimen", "CairnTestSupport"]),
        .testTarget(name: "ReliabilityTests", dependencies: ["CairnCore", "CairnApp", "Encryption", "WebApp", "CairnCLI", "Imaging", "PhotoMetadata", "Storage", "HealthExport", "Regimen", "Outcomes", "CairnTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets where target.type != .system {
    target.cSettings = (target.cSettings ?? []) + [.unsafeFlags(openedOnFirstUse)]
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(openedOnFirstUse.flatMap { ["-Xcc", $0] })]
}
