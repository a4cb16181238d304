import CairnCore
import Foundation
import PhoneLink
import Storage

/// What the phone listener serves TLS with: the vault's one key and a certificate for the session's address.
public struct PhoneIdentity: Sendable {
    /// The private key (PEM).
    public let key: PhoneKey
    /// The certificate over it for the session's address.
    public let certificate: PhoneCertificate
}

/// The phone session's TLS identity, kept in the vault (`phone.tls`: sealed under the vault key while the lock is on,
/// like a photo file; `Vault.readKeptFile`). The key is made once per vault and kept, so that the phone browser's
/// exception and the key's pin stay the same; the certificate is made again when the address changes or its end
/// is near.
public struct PhoneIdentityService: Sendable {
    let vault: Vault
    let database: Database
    let clock: any Clock

    /// The identity for `address`: the kept key (made and kept on first use) with a certificate that serves it.
    public func identity(for address: IPAddress) throws -> PhoneIdentity {
        let kept = try vault.readKeptFile(named: Vault.phoneIdentityFileName, database: database)
            .map { Self.split(String(decoding: $0, as: UTF8.self)) }
        let key = try kept.flatMap { try? PhoneKey(pem: $0.key) } ?? PhoneKey.generate()
        let now = clock.now()
        if let kept, kept.key == key.pem, let certificate = try? PhoneCertificate(pem: kept.certificate),
            certificate.serves(address, with: key, at: now)
        {
            return PhoneIdentity(key: key, certificate: certificate)
        }
        let certificate = try PhoneCertificate.make(for: address, key: key, now: now)
        try vault.writeKeptFile(Data((key.pem + certificate.pem).utf8), named: Vault.phoneIdentityFileName, database: database)
        return PhoneIdentity(key: key, certificate: certificate)
    }

    /// The key's and the certificate's PEM blocks of a kept file (the key first).
    static func split(_ text: String) -> (key: String, certificate: String) {
        guard let start = text.range(of: "-----BEGIN CERTIFICATE-----") else { return (text, "") }
        return (String(text[..<start.lowerBound]), String(text[start.lowerBound...]))
    }
}

extension CairnApplication {
    /// The phone session's TLS identity in this vault.
    public var phoneIdentity: PhoneIdentityService { PhoneIdentityService(vault: vault, database: database, clock: clock) }
}
