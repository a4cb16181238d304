internal import CMicroHTTPD
import CairnCore

/// The native library the web shell links, as `cairn doctor` reports it.
public enum WebLibraries {
    /// libmicrohttpd with the version that loaded.
    public static func statuses() -> [ComponentStatus] {
        let version = MHD_get_version().map { String(cString: $0) }
        return [ComponentStatus(name: "libmicrohttpd", role: "the local web app", present: version != nil, version: version)]
    }
}
