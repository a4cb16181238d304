import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An IPv4 or IPv6 address, and the one place that says which addresses a phone session may listen on.
///
/// Decisions (issue 38): the phone session listens on a private address of a home network (RFC 1918:
/// 10/8, 172.16/12, 192.168/16; IPv6 unique-local fc00::/7), a carrier-grade NAT address (100.64/10: what Tailscale
/// gives a device), or loopback (127/8, ::1: tests, and a phone emulator on this computer). A public, link-local,
/// multicast or unspecified address is refused: the session must never be reachable from the internet, and a
/// link-local address needs a zone a URL cannot carry.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address's bytes in network order: 4 for IPv4, 16 for IPv6.
    public let bytes: [UInt8]

    /// What kind of network an address belongs to.
    public enum Kind: Sendable, Equatable {
        /// 127.0.0.0/8 or ::1.
        case loopback
        /// RFC 1918 (10/8, 172.16/12, 192.168/16).
        case privateNetwork
        /// IPv6 unique-local, fc00::/7.
        case uniqueLocal
        /// Carrier-grade NAT, 100.64.0.0/10 (Tailscale and similar).
        case carrierGradeNAT
        /// Link-local (169.254/16, fe80::/10), multicast or unspecified: never served.
        case notRoutable
        /// Anything else: reachable from the internet.
        case publicAddress
    }

    /// The address `text` (dotted IPv4 or IPv6, optionally in brackets), or nil.
    public init?(_ text: String) {
        var literal = text
        if literal.hasPrefix("["), literal.hasSuffix("]") { literal = String(literal.dropFirst().dropLast()) }
        var v4 = in_addr()
        if inet_pton(AF_INET, literal, &v4) == 1 {
            bytes = withUnsafeBytes(of: v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, literal, &v6) == 1 {
            bytes = withUnsafeBytes(of: v6) { Array($0) }
            return
        }
        return nil
    }

    /// An address from its 4 or 16 bytes.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Whether it is an IPv4 address.
    public var isIPv4: Bool { bytes.count == 4 }

    /// The usual text: `192.168.1.20`, `fd12::5`.
    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = isIPv4 ? AF_INET : AF_INET6
        _ = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        return String(cString: buffer)
    }

    /// The address as a URL's host: IPv6 in brackets.
    public var urlHost: String { isIPv4 ? description : "[\(description)]" }

    /// Which kind of network it belongs to.
    public var kind: Kind {
        if isIPv4 {
            let (a, b) = (bytes[0], bytes[1])
            switch a {
            case 127: return .loopback
            case 10: return .privateNetwork
            case 172 where (16...31).contains(b): return .privateNetwork
            case 192 where b == 168: return .privateNetwork
            case 100 where (64...127).contains(b): return .carrierGradeNAT
            case 169 where b == 254: return .notRoutable
            case 0, 224...255: return .notRoutable
            default: return .publicAddress
            }
        }
        if bytes == [UInt8](repeating: 0, count: 15) + [1] { return .loopback }
        if bytes[0] & 0xFE == 0xFC { return .uniqueLocal }
        if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80 { return .notRoutable }
        if bytes[0] == 0xFF || bytes.allSatisfy({ $0 == 0 }) { return .notRoutable }
        return .publicAddress
    }

    /// Whether a phone session may listen on it (private, unique-local, carrier-grade NAT or loopback).
    public var mayServePhone: Bool {
        switch kind {
        case .loopback, .privateNetwork, .uniqueLocal, .carrierGradeNAT: return true
        case .notRoutable, .publicAddress: return false
        }
    }

    /// Whether `other` is in this address's network of `prefixLength` bits (same family, same first bits).
    public func sharesNetwork(with other: IPAddress, prefixLength: Int) -> Bool {
        guard other.bytes.count == bytes.count else { return false }
        var remaining = max(0, min(prefixLength, bytes.count * 8))
        for (mine, theirs) in zip(bytes, other.bytes) {
            guard remaining > 0 else { return true }
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            if mine & mask != theirs & mask { return false }
            remaining -= bits
        }
        return true
    }
}

/// Where a phone session listens: one address of this computer and the network (its interface's netmask) whose
/// clients may connect. Clients from outside that network are refused as they are accepted.
public struct PhoneNetwork: Sendable, Equatable {
    /// The address the listener binds and the certificate names.
    public let address: IPAddress
    /// The length of the network's prefix: the interface's netmask, 8 for 127.0.0.0/8, 128 for ::1.
    public let prefixLength: Int

    /// A network from its parts (tests); `PhoneNetwork.choose` finds the real one.
    public init(address: IPAddress, prefixLength: Int) {
        self.address = address
        self.prefixLength = prefixLength
    }

    /// Whether a client at `client` may connect: the same family and the same network.
    public func admits(_ client: IPAddress) -> Bool { address.sharesNetwork(with: client, prefixLength: prefixLength) }

    /// The network to open a phone session on: `requested` (the text of `--phone-address`) when given, which must be
    /// an address a phone session may use (`IPAddress.mayServePhone`) and belong to this computer; else the private
    /// address of the interface the default route goes through (IPv4 first, then an IPv6 unique-local one).
    public static func choose(requested: String?, interfaces: [InterfaceAddress] = InterfaceAddress.all()) throws -> PhoneNetwork {
        if let requested {
            guard let address = IPAddress(requested.trimmingCharacters(in: .whitespaces)) else {
                throw PhoneLinkError.notAnAddress(requested)
            }
            guard address.mayServePhone else { throw PhoneLinkError.notPrivate(address.description) }
            if address.kind == .loopback {
                // Every 127.x.y.z is this computer's without any set-up; the loopback network is 127.0.0.0/8.
                return PhoneNetwork(address: address, prefixLength: address.isIPv4 ? 8 : 128)
            }
            guard let match = interfaces.first(where: { $0.address == address }) else {
                throw PhoneLinkError.notThisComputer(address.description)
            }
            return PhoneNetwork(address: address, prefixLength: match.prefixLength)
        }
        let routes = DefaultRoute.interfaces()
        for name in routes.ipv4 {
            if let found = interfaces.first(where: { $0.interface == name && $0.address.isIPv4 && $0.address.kind == .privateNetwork }) {
                return PhoneNetwork(address: found.address, prefixLength: found.prefixLength)
            }
        }
        for name in routes.ipv6 {
            if let found = interfaces.first(where: { $0.interface == name && $0.address.kind == .uniqueLocal }) {
                return PhoneNetwork(address: found.address, prefixLength: found.prefixLength)
            }
        }
        throw PhoneLinkError.noPrivateAddress
    }
}

/// One address of one network interface of this computer, with its netmask's prefix length (`getifaddrs`).
public struct InterfaceAddress: Sendable, Equatable {
    /// The interface's name, e.g. `wlan0`.
    public let interface: String
    /// The address.
    public let address: IPAddress
    /// The netmask as a prefix length.
    public let prefixLength: Int

    /// An interface address from its parts (tests).
    public init(interface: String, address: IPAddress, prefixLength: Int) {
        self.interface = interface
        self.address = address
        self.prefixLength = prefixLength
    }

    /// Every IPv4 and IPv6 address of this computer's interfaces.
    public static func all() -> [InterfaceAddress] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var found: [InterfaceAddress] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let socketAddress = entry.pointee.ifa_addr, let name = entry.pointee.ifa_name,
                let address = IPAddress(socketAddress: socketAddress)
            else { continue }
            let mask = entry.pointee.ifa_netmask.flatMap { IPAddress(socketAddress: $0) }
            let prefix = mask.map { $0.bytes.reduce(0) { $0 + $1.nonzeroBitCount } } ?? address.bytes.count * 8
            found.append(InterfaceAddress(interface: String(cString: name), address: address, prefixLength: prefix))
        }
        return found
    }
}

extension IPAddress {
    /// The address in a `sockaddr_in` or `sockaddr_in6`, or nil for another family.
    public init?(socketAddress: UnsafePointer<sockaddr>) {
        switch Int32(socketAddress.pointee.sa_family) {
        case AF_INET:
            let v4 = UnsafeRawPointer(socketAddress).load(as: sockaddr_in.self)
            self.init(bytes: withUnsafeBytes(of: v4.sin_addr) { Array($0) })
        case AF_INET6:
            let v6 = UnsafeRawPointer(socketAddress).load(as: sockaddr_in6.self)
            self.init(bytes: withUnsafeBytes(of: v6.sin6_addr) { Array($0) })
        default:
            return nil
        }
    }
}

/// The interfaces the kernel's default routes go through, read from `/proc/net/route` and `/proc/net/ipv6_route`
/// (no process is started and nothing is sent).
enum DefaultRoute {
    static func interfaces(
        ipv4Table: String? = try? String(contentsOfFile: "/proc/net/route", encoding: .utf8),
        ipv6Table: String? = try? String(contentsOfFile: "/proc/net/ipv6_route", encoding: .utf8)
    ) -> (ipv4: [String], ipv6: [String]) {
        // /proc/net/route: Iface Destination Gateway Flags ...; the default route's destination is 00000000, and
        // RTF_UP (1) is set in its flags.
        let ipv4 = (ipv4Table ?? "").split(separator: "\n").dropFirst().compactMap { line -> String? in
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count > 3, fields[1] == "00000000", let flags = Int(fields[3], radix: 16), flags & 1 == 1 else { return nil }
            return String(fields[0])
        }
        // /proc/net/ipv6_route: destination, its prefix length, ..., the interface last; the default is ::/0.
        let ipv6 = (ipv6Table ?? "").split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 10, fields[0] == String(repeating: "0", count: 32), fields[1] == "00", fields[9] != "lo" else { return nil }
            return String(fields[9])
        }
        return (ipv4, ipv6)
    }
}
