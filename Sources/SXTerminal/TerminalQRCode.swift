import CQRencode

/// A QR code for the terminal, from libqrencode: two modules per character cell (upper and lower
/// half blocks), dark modules drawn as the terminal's background, so that it scans on a dark
/// terminal as on paper; a quiet zone of 4 modules around it, as ISO/IEC 18004 asks.
public enum TerminalQRCode {
    /// The modules, row by row (true = dark), without the quiet zone; nil when the text is too long
    /// for any QR code.
    public static func modules(_ text: String, level: QRecLevel = QR_ECLEVEL_L) -> [[Bool]]? {
        guard let code = QRcode_encodeString8bit(text, 0, level) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        let data = code.pointee.data!
        return (0..<width).map { y in (0..<width).map { x in data[y * width + x] & 1 == 1 } }
    }

    /// The lines to print: light modules as full blocks, dark ones as spaces.
    public static func lines(_ text: String) -> [String]? {
        guard let modules = modules(text) else { return nil }
        let quiet = 4
        let size = modules.count + 2 * quiet
        func dark(_ x: Int, _ y: Int) -> Bool {
            let (mx, my) = (x - quiet, y - quiet)
            guard mx >= 0, my >= 0, mx < modules.count, my < modules.count else { return false }
            return modules[my][mx]
        }
        return stride(from: 0, to: size, by: 2).map { y in
            String((0..<size).map { x -> Character in
                let top = !dark(x, y), bottom = y + 1 < size ? !dark(x, y + 1) : false
                switch (top, bottom) {
                case (true, true): return "█"
                case (true, false): return "▀"
                case (false, true): return "▄"
                case (false, false): return " "
                }
            })
        }
    }
}
