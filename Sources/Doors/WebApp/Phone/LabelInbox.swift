import CairnCore
import Foundation
import Synchronization

/// Label photos a phone sent for the computer's review, held in memory only (as a scan's photo is while its review
/// page is open): never written to disk, at most `capacity` at a time (the oldest goes first), each for at most
/// `lifetime`, and all dropped when the vault locks. The review itself stays on the computer's larger screen
/// (`UsePhonePage`), through the same label scan as a photo chosen there.
public final class LabelInbox: Sendable {
    /// One photo waiting.
    public struct Photo: Sendable, Equatable {
        /// Its identifier in the computer's review link.
        public let id: String
        /// The photo's bytes (memory only).
        public let data: Data
        /// When it arrived.
        public let received: Date
    }

    /// How many photos wait at most.
    public static let capacity = 5
    /// How long a photo waits before it is dropped.
    public static let lifetime: TimeInterval = 60 * 60

    private let photos = Mutex<[Photo]>([])
    private let clock: any Clock

    public init(clock: any Clock) { self.clock = clock }

    /// Keeps `data` for review; returns its identifier.
    @discardableResult
    public func add(_ data: Data) -> String {
        let photo = Photo(id: Self.randomID(), data: data, received: clock.now())
        photos.withLock { list in
            list = Self.fresh(list, at: clock.now())
            if list.count >= Self.capacity { list.removeFirst(list.count - Self.capacity + 1) }
            list.append(photo)
        }
        return photo.id
    }

    /// The photos waiting, oldest first.
    public var waiting: [Photo] {
        let now = clock.now()
        return photos.withLock { list in
            list = Self.fresh(list, at: now)
            return list
        }
    }

    /// Takes the photo `id` out of the inbox (its review begins), nil when it is gone.
    public func take(_ id: String) -> Photo? {
        let now = clock.now()
        return photos.withLock { list in
            list = Self.fresh(list, at: now)
            guard let index = list.firstIndex(where: { $0.id == id }) else { return nil }
            return list.remove(at: index)
        }
    }

    /// Drops every photo (the vault locked).
    public func removeAll() { photos.withLock { $0 = [] } }

    private static func fresh(_ list: [Photo], at now: Date) -> [Photo] {
        list.filter { now.timeIntervalSince($0.received) < lifetime }
    }

    private static func randomID() -> String { UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "") }
}
