import CairnCore

/// Why a phone session cannot start on an address, or its certificate or QR code cannot be made.
public enum PhoneLinkError: CairnError, Equatable {
    /// The text is not an IPv4 or IPv6 address.
    case notAnAddress(String)
    /// A public (or link-local, multicast, unspecified) address: the phone session never listens there.
    case notPrivate(String)
    /// A private address that no network interface of this computer has.
    case notThisComputer(String)
    /// `--phone-address` was not given and the default route's interface has no private address.
    case noPrivateAddress
    /// GnuTLS refused a step of making or reading the key or the certificate.
    case certificate(String)
    /// The text is too long for a QR code.
    case qrCode

    public var userMessage: String {
        switch self {
        case .notAnAddress(let text):
            return "'\(text)' is not an IP address. Give --phone-address an address such as 192.168.1.20."
        case .notPrivate(let text):
            return
                "Cairn never opens the phone session on \(text): only on a private address of a home network (192.168.x.x, 10.x.x.x, 172.16-31.x.x, fc00::/7), a carrier-grade NAT address such as a Tailscale one (100.64-127.x.x) or loopback."
        case .notThisComputer(let text):
            return "No network interface of this computer has the address \(text). Check it with 'ip address'."
        case .noPrivateAddress:
            return
                "This computer's network has no private address for the phone session. Give one with --phone-address ADDR (for example a Tailscale address)."
        case .certificate(let step):
            return "The phone session's certificate could not be made (\(step))."
        case .qrCode:
            return "The phone's address is too long for a QR code."
        }
    }

    public var errorKind: ErrorKind {
        switch self {
        case .notAnAddress, .notPrivate, .notThisComputer: return .refusedInput
        case .noPrivateAddress: return .unavailable
        case .certificate, .qrCode: return .failure
        }
    }
}
