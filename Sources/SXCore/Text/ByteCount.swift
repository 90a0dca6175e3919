import Foundation

/// Human-readable byte counts in binary units ("1.5 GiB"): in reports, in progress lines, and in the
/// sentences of domain errors (an archive's limits, free space, a transfer's size limit).
public enum ByteCount {
    public static func format(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while abs(value) >= 1024, unit < units.count - 1 { value /= 1024; unit += 1 }
        return unit == 0 ? "\(bytes) B" : String(format: value < 10 ? "%.2f" : "%.1f", value) + " " + units[unit]
    }
}
