import SXCore

/// Words a library error for the user: the library's sentence, then its `Remedy` in this CLI's own
/// flags and commands. The only place a remedy meets a flag name.
enum ErrorText {
    static func sentence(_ error: any SXError) -> String {
        guard let remedy = error.remedy else { return error.description }
        return error.description + " — " + words(remedy)
    }

    static func words(_ remedy: Remedy) -> String {
        switch remedy {
        case .replaceExisting:
            return "pass --force to replace it"
        case .chooseDataDirectory:
            return "check --data-dir (or $SXKIT_DATA_DIR)"
        case .chooseFilesFolder:
            return "check --data-dir, or give --files-dir"
        case .givePassphrase:
            return "give the passphrase with " + PassphraseText.ways(.current)
        case .giveNewPassphrase:
            return "give the new passphrase with " + PassphraseText.ways(.new)
        case .recover(let operation):
            return "run `\(recoveryCommand(operation))`"
        case .runAgain:
            return "run the same command again to settle it"
        case .allowAboveSoftSizeLimit:
            return "--above-soft-limit allows relay transfers up to MAX_FILE_SIZE_XFTP_HARD (\(SimpleXLimits.maxFileSizeXFTPHard) bytes)"
        case .raisePixelLimit:
            return "raise the limit with --max-pixels if the image is trusted"
        case .chooseListenAddress:
            return "choose another address or port with --listen"
        case .replaceProfile:
            return "use an empty data directory, or pass --force to import over this profile (its databases are kept as .bak)"
        case .decryptOneFile:
            return "--args-file decrypts exactly one file"
        case .setPassphraseOrAllowUnencrypted:
            return "set a passphrase with `sxkit db rekey` first, or pass --allow-unencrypted with --no-passphrase to send it as it is"
        }
    }

    /// The command that settles an interrupted operation.
    static func recoveryCommand(_ operation: InterruptedOperation) -> String {
        switch operation {
        case .passphraseChange: return ShellWord.command(["sxkit", "db", "recover"])
        case .archiveImport: return ShellWord.command(["sxkit", "archive", "recover"])
        }
    }
}
