import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Reads what is left of an open file into one buffer sized from `fstat` (one byte over, so its end is seen without
/// growing the buffer): a regular file takes one `read` call and no copy. A buffer grows only for a file that grows
/// while it is read, or one whose size `fstat` does not know (a pipe).
public enum WholeFile {
    /// Why the read failed: the `errno` of the failed `read`.
    public struct ReadFailure: Error, Equatable {
        public let code: Int32

        public init(code: Int32) { self.code = code }
    }

    /// The bytes from the file's offset to its end, or the first `limit + 1` of them when there are more (so a
    /// caller with a ceiling sees that it was passed). Throws `ReadFailure`.
    public static func read(descriptor: Int32, limit: Int = Int.max / 2) throws(ReadFailure) -> Data {
        let ceiling = max(limit, 0) + 1
        var info = stat()
        let known = fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : 0
        var capacity = min(max(known, 0) + 1, ceiling)
        guard var buffer = malloc(capacity) else { throw ReadFailure(code: ENOMEM) }
        var count = 0
        while count < ceiling {
            if count == capacity {
                capacity = min(max(capacity * 2, 1 << 16), ceiling)
                guard let grown = realloc(buffer, capacity) else {
                    free(buffer)
                    throw ReadFailure(code: ENOMEM)
                }
                buffer = grown
            }
            let n = Glibc.read(descriptor, buffer + count, capacity - count)
            if n < 0 {
                if errno == EINTR { continue }
                let code = errno
                free(buffer)
                throw ReadFailure(code: code)
            }
            if n == 0 { break }
            count += n
        }
        return Data(bytesNoCopy: buffer, count: count, deallocator: .free)
    }
}
