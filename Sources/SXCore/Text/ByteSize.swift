/// Sizes as users type them, with coreutils' conventions: a bare number is bytes; `K`, `M`, `G`, `T`
/// (and `KiB`…`TiB`) are powers of 1024; `KB`, `MB`, `GB`, `TB` are powers of 1000.
public enum ByteSize {
    public static func parse(_ text: String) -> Int64? {
        let trimmed = text.trimmingSpaces()
        let digits = trimmed.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        guard !digits.isEmpty, let number = Double(digits), number >= 0 else { return nil }
        let unit = trimmed.dropFirst(digits.count).trimmingSpaces().lowercased()
        let multiplier: Double
        switch unit {
        case "", "b": multiplier = 1
        case "k", "kib": multiplier = 1024
        case "m", "mib": multiplier = 1024 * 1024
        case "g", "gib": multiplier = 1024 * 1024 * 1024
        case "t", "tib": multiplier = 1024 * 1024 * 1024 * 1024
        case "kb": multiplier = 1e3
        case "mb": multiplier = 1e6
        case "gb": multiplier = 1e9
        case "tb": multiplier = 1e12
        default: return nil
        }
        let bytes = (number * multiplier).rounded()
        guard bytes < 9.2e18 else { return nil }
        return Int64(bytes)
    }
}

extension StringProtocol {
    fileprivate func trimmingSpaces() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
