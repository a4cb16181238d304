/// Whether one native library or model that Cairn uses is present on this machine, for `cairn doctor`.
public struct ComponentStatus: Sendable, Equatable, Codable {
    /// The library or model, e.g. "SQLite".
    public let name: String
    /// What Cairn uses it for, e.g. "storage".
    public let role: String
    /// Whether it loaded (or, for a model file, exists and is readable).
    public let present: Bool
    /// Its version when known.
    public let version: String?
    /// Anything the person should know: a licence, what still works without it.
    public let note: String?

    public init(name: String, role: String, present: Bool, version: String? = nil, note: String? = nil) {
        self.name = name
        self.role = role
        self.present = present
        self.version = version
        self.note = note
    }
}
