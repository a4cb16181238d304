internal import CGnuTLS
import Foundation

/// The phone session's private key: ECDSA on P-256, made by GnuTLS, kept as PEM text. One key per vault, so that
/// the phone browser's exception for this computer's certificate (remembered per address and certificate) and the
/// key's pin stay the same when the certificate is made again for a new address.
public struct PhoneKey: Sendable, Equatable {
    /// The key in PEM ("EC PRIVATE KEY"). A secret: the vault keeps it sealed when its lock is on.
    public let pem: String

    /// A new key from GnuTLS (its own random source).
    public static func generate() throws -> PhoneKey {
        try withPrivateKey { key in
            try check(gnutls_x509_privkey_generate(key, GNUTLS_PK_ECDSA, cairn_gnutls_p256_bits(), 0), "generate the key")
            return PhoneKey(trusted: try exportPEM("export the key") { gnutls_x509_privkey_export(key, GNUTLS_X509_FMT_PEM, $0, $1) })
        }
    }

    /// A key read back from its PEM; throws when GnuTLS does not read it as a private key.
    public init(pem: String) throws {
        self.pem = pem
        _ = try keyID
    }

    private init(trusted pem: String) { self.pem = pem }

    /// GnuTLS's identifier of the key's public half (the same for every certificate made with it).
    var keyID: [UInt8] {
        get throws {
            try Self.withImported(pem) { key in
                try readBytes("read the key's identifier") { gnutls_x509_privkey_get_key_id(key, 0, $0, $1) }
            }
        }
    }

    static func withPrivateKey<T>(_ body: (gnutls_x509_privkey_t) throws -> T) throws -> T {
        var key: gnutls_x509_privkey_t?
        try check(gnutls_x509_privkey_init(&key), "start a key")
        guard let key else { throw PhoneLinkError.certificate("start a key") }
        defer { gnutls_x509_privkey_deinit(key) }
        return try body(key)
    }

    static func withImported<T>(_ pem: String, _ body: (gnutls_x509_privkey_t) throws -> T) throws -> T {
        try withPrivateKey { key in
            try withDatum(pem) { datum in try check(gnutls_x509_privkey_import(key, datum, GNUTLS_X509_FMT_PEM), "read the key") }
            return try body(key)
        }
    }
}

/// A self-signed certificate for one address (an IP subject alternative name) over the vault's `PhoneKey`, made by
/// GnuTLS (`gnutls_x509_crt_*`), with what the computer shows and the tests pin: its SHA-256 fingerprint and its
/// public key's SHA-256 (the "SPKI" hash Chromium's `--ignore-certificate-errors-spki-list` and curl's
/// `--pinnedpubkey` take).
public struct PhoneCertificate: Sendable, Equatable {
    /// The certificate in PEM.
    public let pem: String
    /// SHA-256 of the certificate (DER), as browsers show it: upper-case hex pairs joined by colons.
    public let fingerprint: String
    /// SHA-256 of the certificate's SubjectPublicKeyInfo, base64.
    public let publicKeyPin: String
    /// The IP addresses it names.
    public let addresses: [IPAddress]
    /// When it stops being valid.
    public let expires: Date
    let keyID: [UInt8]

    /// How long a certificate is made for.
    public static let validity: TimeInterval = 365 * 86400
    /// A certificate this close to its end is made again.
    public static let renewalMargin: TimeInterval = 30 * 86400

    /// A new certificate for `address`, signed by `key` itself, valid from an hour before `now` for `validity`.
    public static func make(for address: IPAddress, key: PhoneKey, now: Date) throws -> PhoneCertificate {
        let pem: String = try PhoneKey.withImported(key.pem) { key in
            var certificate: gnutls_x509_crt_t?
            try check(gnutls_x509_crt_init(&certificate), "start a certificate")
            guard let certificate else { throw PhoneLinkError.certificate("start a certificate") }
            defer { gnutls_x509_crt_deinit(certificate) }
            var serial = (0..<16).map { _ in UInt8.random(in: 0...255) }
            serial[0] &= 0x7F  // a positive serial number
            try check(gnutls_x509_crt_set_version(certificate, 3), "set the version")
            try check(gnutls_x509_crt_set_serial(certificate, serial, serial.count), "set the serial number")
            try check(gnutls_x509_crt_set_activation_time(certificate, time_t(now.timeIntervalSince1970 - 3600)), "set the start")
            try check(gnutls_x509_crt_set_expiration_time(certificate, time_t(now.timeIntervalSince1970 + validity)), "set the end")
            try check(gnutls_x509_crt_set_dn(certificate, "CN=Cairn on this computer", nil), "set the name")
            try check(gnutls_x509_crt_set_key(certificate, key), "set the key")
            try check(
                gnutls_x509_crt_set_subject_alt_name(
                    certificate, GNUTLS_SAN_IPADDRESS, address.bytes, UInt32(address.bytes.count), UInt32(GNUTLS_FSAN_SET)),
                "name the address")
            try check(gnutls_x509_crt_set_key_usage(certificate, UInt32(GNUTLS_KEY_DIGITAL_SIGNATURE)), "set the key usage")
            try check(gnutls_x509_crt_set_key_purpose_oid(certificate, "1.3.6.1.5.5.7.3.1", 0), "set the purpose")  // TLS server
            try check(gnutls_x509_crt_set_basic_constraints(certificate, 0, -1), "set the constraints")
            try check(gnutls_x509_crt_sign2(certificate, certificate, key, GNUTLS_DIG_SHA256, 0), "sign")
            return try exportPEM("export the certificate") { gnutls_x509_crt_export(certificate, GNUTLS_X509_FMT_PEM, $0, $1) }
        }
        return try PhoneCertificate(pem: pem)
    }

    /// A certificate read back from its PEM.
    public init(pem: String) throws {
        var certificate: gnutls_x509_crt_t?
        try check(gnutls_x509_crt_init(&certificate), "start a certificate")
        guard let certificate else { throw PhoneLinkError.certificate("start a certificate") }
        defer { gnutls_x509_crt_deinit(certificate) }
        try withDatum(pem) { try check(gnutls_x509_crt_import(certificate, $0, GNUTLS_X509_FMT_PEM), "read the certificate") }
        self.pem = pem
        let digest = try readBytes("read the fingerprint") { gnutls_x509_crt_get_fingerprint(certificate, GNUTLS_DIG_SHA256, $0, $1) }
        fingerprint = digest.map { String(format: "%02X", $0) }.joined(separator: ":")
        keyID = try readBytes("read the key's identifier") { gnutls_x509_crt_get_key_id(certificate, 0, $0, $1) }
        expires = Date(timeIntervalSince1970: TimeInterval(gnutls_x509_crt_get_expiration_time(certificate)))
        var names: [IPAddress] = []
        for sequence in 0..<16 {
            var buffer = [UInt8](repeating: 0, count: 256)
            var size = buffer.count
            var critical: UInt32 = 0
            let type = gnutls_x509_crt_get_subject_alt_name(certificate, UInt32(sequence), &buffer, &size, &critical)
            if type < 0 { break }
            if type == Int32(GNUTLS_SAN_IPADDRESS.rawValue), let address = IPAddress(bytes: Array(buffer.prefix(size))) { names.append(address) }
        }
        addresses = names
        var publicKey: gnutls_pubkey_t?
        try check(gnutls_pubkey_init(&publicKey), "start the public key")
        guard let publicKey else { throw PhoneLinkError.certificate("start the public key") }
        defer { gnutls_pubkey_deinit(publicKey) }
        try check(gnutls_pubkey_import_x509(publicKey, certificate, 0), "read the public key")
        let spki = try readBytes("export the public key") { gnutls_pubkey_export(publicKey, GNUTLS_X509_FMT_DER, $0, $1) }
        var hash = [UInt8](repeating: 0, count: 32)
        try check(gnutls_hash_fast(GNUTLS_DIG_SHA256, spki, spki.count, &hash), "hash the public key")
        publicKeyPin = Data(hash).base64EncodedString()
    }

    /// Whether this certificate may serve `address` with `key` at `now`: it names the address, is made over that
    /// key, and is not within `renewalMargin` of its end.
    public func serves(_ address: IPAddress, with key: PhoneKey, at now: Date) -> Bool {
        guard addresses == [address], now.addingTimeInterval(Self.renewalMargin) < expires, let id = try? key.keyID else { return false }
        return id == keyID
    }
}

// MARK: GnuTLS helpers

/// Throws for a negative GnuTLS result, naming the step and GnuTLS's own words.
private func check(_ result: Int32, _ step: String) throws {
    guard result >= 0 else { throw PhoneLinkError.certificate("\(step): \(String(cString: gnutls_strerror(result)))") }
}

/// Calls a GnuTLS function that writes into a buffer and its size, growing the buffer once when it says it is short.
private func readBytes(_ step: String, _ call: (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<Int>) -> Int32) throws -> [UInt8] {
    var buffer = [UInt8](repeating: 0, count: 4096)
    var size = buffer.count
    var result = call(&buffer, &size)
    if result == GNUTLS_E_SHORT_MEMORY_BUFFER {
        buffer = [UInt8](repeating: 0, count: size)
        result = call(&buffer, &size)
    }
    try check(result, step)
    return Array(buffer.prefix(size))
}

/// The PEM text a GnuTLS export writes.
private func exportPEM(_ step: String, _ call: (UnsafeMutableRawPointer, UnsafeMutablePointer<Int>) -> Int32) throws -> String {
    let bytes = try readBytes(step) { buffer, size in call(UnsafeMutableRawPointer(buffer), size) }
    return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
}

/// `text`'s bytes as a GnuTLS datum for the length of `body`.
private func withDatum<T>(_ text: String, _ body: (UnsafePointer<gnutls_datum_t>) throws -> T) throws -> T {
    var bytes = Array(text.utf8)
    return try bytes.withUnsafeMutableBufferPointer { buffer in
        var datum = gnutls_datum_t(data: buffer.baseAddress, size: UInt32(buffer.count))
        return try body(&datum)
    }
}
