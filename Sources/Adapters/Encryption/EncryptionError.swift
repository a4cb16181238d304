import CairnCore

/// Why an encrypted file could not be written or opened. Messages name no path and no content.
public enum EncryptionError: CairnError, Equatable {
    /// The file does not start with Cairn's encrypted-file header (another kind of file, or not a Cairn file).
    case notEncryptedFile
    /// The header names a format version this Cairn does not know (made by a newer Cairn).
    case unsupportedVersion(UInt8)
    /// The header's checksum does not match: its bytes were changed or damaged.
    case headerDamaged
    /// The header asks for a key derivation heavier than `KeyDerivation.readLimit` allows.
    case keyDerivationTooCostly
    /// The key derivation could not run (not enough memory for the parameters).
    case keyDerivationFailed
    /// The passphrase does not open the file (a wrong passphrase, or a wrapped key that was altered).
    case wrongPassphrase
    /// An encrypted chunk failed its authentication check: the file was changed or damaged.
    case damaged
    /// The file ends before its final chunk, or in a final chunk that fails its check: it was cut short.
    case truncated
    /// Bytes follow the last chunk: something was appended to the file.
    case trailingData
    /// A passphrase was empty.
    case emptyPassphrase
    /// The vault header file is not one (wrong magic or length).
    case notVaultHeader
    /// The vault header's checksum, reserved bytes or fields are wrong: it was changed or damaged.
    case vaultHeaderDamaged
    /// The passphrase does not unlock the vault (nothing says how it differs from the right one).
    case wrongVaultPassphrase
    /// The vault's lock is not on, so there is no key to unwrap.
    case vaultNotLocked

    public var userMessage: String {
        switch self {
        case .notEncryptedFile: return "This is not a Cairn encrypted file."
        case .unsupportedVersion:
            return "This file was made by a newer version of Cairn. Update Cairn to open it."
        case .headerDamaged: return "The file's header is damaged, so it cannot be opened. Nothing was changed."
        case .keyDerivationTooCostly:
            return
                "The file asks for more memory or time to check the passphrase than Cairn allows, so it was not opened. It was not made by Cairn, or it was altered."
        case .keyDerivationFailed:
            return "There is not enough free memory to check the passphrase. Close other programs and try again."
        case .wrongPassphrase: return "The passphrase is not right for this file."
        case .damaged: return "The file is damaged or was altered: a part of it failed its integrity check. Nothing was changed."
        case .truncated:
            return "The file is incomplete: it ends early, or its last part is damaged (an interrupted copy or download?). Nothing was changed."
        case .trailingData: return "The file has extra bytes after its end, so it was altered. Nothing was changed."
        case .emptyPassphrase: return "The passphrase is empty."
        case .notVaultHeader, .vaultHeaderDamaged:
            return "The vault's lock file (vault.header) is damaged, so the vault cannot be unlocked. Nothing was changed."
        case .wrongVaultPassphrase: return "That passphrase does not unlock this vault. Nothing was changed."
        case .vaultNotLocked: return "The vault has no passphrase: its lock is off."
        }
    }
}
