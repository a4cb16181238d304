internal import CMicroHTTPD
import CairnCore
internal import NativeLoader

/// The native library the web shell uses, as `cairn doctor` reports it.
public enum WebLibraries {
    /// libmicrohttpd with the version that loaded (it is opened here: `cairn` opens it on first use).
    public static func statuses() -> [ComponentStatus] {
        let version = cairn_microhttpd_available() != 0 ? MHD_get_version().map { String(cString: $0) } : nil
        return [ComponentStatus(name: "libmicrohttpd", role: "the local web app", present: version != nil, version: version)]
    }
}
