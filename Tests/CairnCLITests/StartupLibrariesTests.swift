import Foundation
import NativeLoader
import Testing

/// The libraries only some commands use are opened on first use (Sources/Native/NativeLoader), so a command starts
/// without them: about 100 shared libraries fewer for every `cairn` process (PLATFORM.md: a process that loads
/// all 141 spends about 57 ms of CPU in the dynamic loader before main; 33 cost 10 ms).
@Suite struct StartupLibrariesTests {
    /// The `cairn` executable beside the test bundle (`swift build --build-tests` builds it there).
    static var executable: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("cairn")
    }

    /// What the dynamic loader maps for `cairn` before its main runs (`LD_TRACE_LOADED_OBJECTS`: ldd's own way).
    static func librariesLoadedAtStart() throws -> [String] {
        let process = Process()
        process.executableURL = executable
        process.environment = ["LD_TRACE_LOADED_OBJECTS": "1"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text.split(separator: "\n").compactMap { $0.split(separator: " ").first.map { String($0.trimmingCharacters(in: .whitespaces)) } }
    }

    @Test func cairnStartsWithoutTheLibrariesOnlySomeCommandsUse() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable.path), "build cairn first (swift build --build-tests)")
        let loaded = try Self.librariesLoadedAtStart()
        #expect(loaded.contains { $0.hasPrefix("libsqlite3.so") }, "the trace lists what is linked")
        for lazy in [
            "libvips", "libheif", "libtesseract", "libpango", "libcairo", "libxml2", "libarchive", "libnotify",
            "libglib-2.0", "libgobject-2.0", "libmicrohttpd", "libgnutls", "libqrencode", "libdlib", "liblapack", "libblas",
            "libgfortran",
        ] {
            #expect(!loaded.contains { $0.hasPrefix(lazy) }, "\(lazy) is opened on first use, not at start")
        }
        #expect(loaded.count < 60, "\(loaded.count) libraries at start")
    }

    @Test func aLibraryIsOpenedOnceAndAMissingOneIsReportedAsAbsent() {
        #expect(cairn_native_available("libcairn-no-such-library.so.0") == 0)
        let first = cairn_native_open("libvips.so.42")
        let second = cairn_native_open("libvips.so.42")
        #expect(first != nil && first == second)
        #expect(cairn_tesseract_available() == 1)
        #expect(cairn_notify_available() == 1)
        #expect(cairn_microhttpd_available() == 1)
    }
}
