internal import CGnuTLS
internal import CQREncode
import CairnCore
internal import NativeLoader

/// The native libraries of the phone session, as `cairn doctor` reports them (each opened here: `cairn` opens them
/// on first use).
public enum PhoneLinkLibraries {
    /// GnuTLS and libqrencode with the versions that loaded.
    public static func statuses() -> [ComponentStatus] {
        let gnutls = cairn_gnutls_available() != 0 ? gnutls_check_version(nil).map { String(cString: $0) } : nil
        let qrencode = cairn_qrencode_available() != 0 ? String(cString: QRcode_APIVersionString()) : nil
        return [
            ComponentStatus(name: "GnuTLS", role: "the phone session's certificate", present: gnutls != nil, version: gnutls),
            ComponentStatus(name: "libqrencode", role: "the phone session's QR code", present: qrencode != nil, version: qrencode),
        ]
    }
}
