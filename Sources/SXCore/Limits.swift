/// SimpleX Chat's size limits (FORMATS §1), in bytes unless the name says otherwise.
public enum SimpleXLimits {
    /// Inline limit: a compressed image must fit in it.
    public static let maxImageSize: Int64 = 261_120
    public static let maxImageSizeAutoReceive: Int64 = 522_240
    public static let maxVoiceSizeAutoReceive: Int64 = 522_240
    public static let maxVideoSizeAutoReceive: Int64 = 1_047_552
    /// Soft limit of a relay transfer.
    public static let maxFileSizeXFTP: Int64 = 1_073_741_824
    /// Above this no chunk plan is made at all.
    public static let maxFileSizeXFTPHard: Int64 = 5 * 1_073_741_824
    /// Legacy in-channel transfer limit.
    public static let maxFileSizeSMP: Int64 = 8_000_000
    /// Local files have no limit.
    public static let maxFileSizeLocal: Int64 = .max
    public static let maxVoiceMessageSeconds = 300
}
