import Foundation

/// The source of "now". Injected everywhere so tests and demo data are reproducible.
public protocol Clock: Sendable {
    /// The current instant.
    func now() -> Date
    /// The person's current IANA time zone.
    var timeZone: TimeZone { get }
}

/// The real clock: the system time and the machine's current time zone.
public struct SystemClock: Clock {
    public init() {}
    public func now() -> Date { Date() }
    public var timeZone: TimeZone { TimeZone.current }
}

/// A clock that always says the same instant; for tests and generated data.
public struct FixedClock: Clock {
    public let instant: Date
    public let timeZone: TimeZone
    public init(_ instant: Date, timeZone: TimeZone = TimeZone(identifier: "UTC")!) {
        self.instant = instant
        self.timeZone = timeZone
    }
    public func now() -> Date { instant }
}
