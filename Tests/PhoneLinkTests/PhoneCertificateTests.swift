import Foundation
import Testing

@testable import PhoneLink

@Suite struct PhoneCertificateTests {
    @Test func aCertificateNamesItsAddressAndShowsItsSHA256FingerprintInColonHex() throws {
        let key = try PhoneKey.generate()
        #expect(key.pem.hasPrefix("-----BEGIN EC PRIVATE KEY-----"))
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let address = IPAddress("127.0.0.2")!
        let certificate = try PhoneCertificate.make(for: address, key: key, now: now)
        #expect(certificate.pem.hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(certificate.addresses == [address])
        let pairs = certificate.fingerprint.split(separator: ":")
        #expect(pairs.count == 32 && pairs.allSatisfy { $0.count == 2 && $0.uppercased() == $0 })
        #expect(try PhoneCertificate(pem: certificate.pem) == certificate, "read back the same")
        #expect(certificate.serves(address, with: key, at: now))
        #expect(!certificate.serves(IPAddress("192.168.1.20")!, with: key, at: now), "another address needs another certificate")
        #expect(!certificate.serves(address, with: try PhoneKey.generate(), at: now), "another key")
        #expect(!certificate.serves(address, with: key, at: now.addingTimeInterval(PhoneCertificate.validity)), "expiring")
    }

    @Test func aNewCertificateForAnotherAddressKeepsTheKeysPin() throws {
        let key = try PhoneKey(pem: try PhoneKey.generate().pem)
        let now = Date()
        let first = try PhoneCertificate.make(for: IPAddress("127.0.0.2")!, key: key, now: now)
        let second = try PhoneCertificate.make(for: IPAddress("fd12::5")!, key: key, now: now)
        #expect(first.publicKeyPin == second.publicKeyPin)
        #expect(first.fingerprint != second.fingerprint)
        #expect(throws: PhoneLinkError.self) { try PhoneKey(pem: "not a key") }
    }
}
