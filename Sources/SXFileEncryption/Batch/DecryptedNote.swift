import SXCrypto

extension CryptoFile.Decrypted {
    /// What a batch says about the file: a file from an earlier sxkit is named as such.
    public var transformed: StagedWrites.Transformed {
        StagedWrites.Transformed(bytes: size, note: schedule == .earlierSxkit
            ? "encrypted by an earlier sxkit with a non-SimpleX key schedule (the SimpleX apps cannot open it); decrypted with that schedule"
            : nil)
    }
}
