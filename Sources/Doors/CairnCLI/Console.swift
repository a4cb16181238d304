import CairnCore
import Foundation

/// Where a command writes: standard output for results, standard error for problems.
/// Tests pass a capturing console; the real one writes to the process's streams.
public final class Console: @unchecked Sendable {
    private let writeOut: (String) -> Void
    private let writeErr: (String) -> Void
    private let readAnswer: (() -> String?)?
    private let readSecret: (() -> String?)?
    /// True when standard output is a terminal (a person reads it; `cairn serve` prints the phone's QR code then).
    public let outputIsTerminal: Bool

    /// A console that sends each line to the given closures. `input` reads one answer typed by the person (nil
    /// when nobody can answer, e.g. standard input is not a terminal); `secret` reads one without showing it
    /// (a passphrase).
    public init(
        out: @escaping (String) -> Void, err: @escaping (String) -> Void, input: (() -> String?)? = nil,
        secret: (() -> String?)? = nil, outputIsTerminal: Bool = false
    ) {
        self.outputIsTerminal = outputIsTerminal
        writeOut = out
        writeErr = err
        readAnswer = input
        readSecret = secret
    }

    /// True when a person can type a passphrase (standard input is a terminal).
    public var canAskSecret: Bool { readSecret != nil }

    /// Writes `prompt` to standard error and reads one line without echoing it; nil when nobody can answer.
    public func askSecret(_ prompt: String) -> String? {
        guard let readSecret else { return nil }
        writeErr(prompt)
        return readSecret()
    }

    /// True when a person can answer questions (standard input is a terminal).
    public var canAsk: Bool { readAnswer != nil }

    /// Writes `question` to standard error (control characters escaped, see `escaped`) and reads one answer line;
    /// nil when nobody can answer or input ended.
    public func ask(_ question: String) -> String? {
        guard let readAnswer else { return nil }
        writeErr(Self.escaped(question))
        return readAnswer()
    }

    /// One line typed by the person, asked for without a prompt (a question forwarded by `cairn serve`, whose
    /// prompt came as a line of its own); nil when nobody can answer.
    func typedLine() -> String? { readAnswer?() }

    /// The same without echo (a passphrase asked by a command running in `cairn serve`).
    func typedSecret() -> String? { readSecret?() }

    /// The process's stdout and stderr, flushed after each line so a reader sees lines as they come.
    public static func standard() -> Console {
        Console(
            out: { line in
                FileHandle.standardOutput.write(Data((line + "\n").utf8))
            },
            err: { line in
                FileHandle.standardError.write(Data((line + "\n").utf8))
            }, input: isatty(STDIN_FILENO) == 1 ? { Swift.readLine(strippingNewline: true) } : nil,
            secret: isatty(STDIN_FILENO) == 1 ? { Console.readWithoutEcho() } : nil,
            outputIsTerminal: isatty(STDOUT_FILENO) == 1)
    }

    /// One line from the terminal with echo turned off (and back on, however the read ends).
    private static func readWithoutEcho() -> String? {
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { return Swift.readLine(strippingNewline: true) }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
        defer {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        return Swift.readLine(strippingNewline: true)
    }

    /// Writes one line of result to standard output (control characters escaped, see `escaped`).
    public func print(_ line: String = "") { writeOut(Self.escaped(line)) }
    /// Writes one line to standard error (control characters escaped, see `escaped`).
    public func error(_ line: String) { writeErr(Self.escaped(line)) }

    /// `text` with every control character but newline, tab and a carriage return ending a line (CSV's CR LF) shown
    /// as `\u{1B}`-style text, so what a note or a name holds (stored before such input was refused, or read from
    /// a file) can never drive the terminal: no escape code clears the screen or sets the window title. Format
    /// characters that could reorder or hide text (a right-to-left override in a note) are shown as `<U+202E>`
    /// (`TextInput.displayed`: an emoji sequence's or a script's joiners stay). The one place the CLI's output is
    /// neutralised.
    public static func escaped(_ text: String) -> String {
        let text = TextInput.displayed(text)
        let scalars = Array(text.unicodeScalars)
        func passes(_ i: Int) -> Bool {
            let s = scalars[i]
            return !TextInput.isControl(s) || s == "\n" || s == "\t" || (s == "\r" && i + 1 < scalars.count && scalars[i + 1] == "\n")
        }
        guard !scalars.indices.allSatisfy(passes) else { return text }
        var result = String.UnicodeScalarView()
        for i in scalars.indices {
            if passes(i) {
                result.append(scalars[i])
            } else {
                result.append(contentsOf: "\\u{\(String(scalars[i].value, radix: 16, uppercase: true))}".unicodeScalars)
            }
        }
        return String(result)
    }

    /// Writes `value` as pretty, key-sorted JSON on standard output. Format characters (category Cf) are written
    /// as JSON escapes (`\u202e`), which a JSON reader reads back as the stored text and a terminal shows as text.
    public func printJSON<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        print(Self.escapingFormatCharacters(json: String(decoding: try encoder.encode(value), as: UTF8.self)))
    }

    /// JSON text with each format character (only ever inside a string: JSON's own syntax is ASCII) written as its
    /// `\uXXXX` escape, a surrogate pair above U+FFFF.
    static func escapingFormatCharacters(json: String) -> String {
        guard json.unicodeScalars.contains(where: TextInput.isFormat) else { return json }
        var out = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            guard TextInput.isFormat(scalar) else {
                out.append(scalar)
                continue
            }
            for unit in String(scalar).utf16 {
                let hex = String(unit, radix: 16)
                out.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            }
        }
        return String(out)
    }
}
