import SXCore
import SXSample
import SXStorage

extension DemoSteps {
    /// Is the sample whole (as `sxkit check --deep --read-data`)? It is not, on purpose: the chat DB
    /// references two files that were never on disk, and the check must name exactly those.
    func runCheckStep(_ sample: SampleDataDirectory, passphrase: SecretBytes) throws {
        step("31. Is the sample profile whole? (sxkit check --deep --read-data)")
        let report = try ProfileCheck(directory: sample.directory, passphrase: passphrase, deep: true, readData: true).run()
        for line in CheckText.render(report, quiet: false, verbose: false).split(separator: "\n") { say(String(line)) }
        guard !report.whole, report.files?.missing == SampleDataDirectory.missingFiles.sorted(),
              report.databases.allSatisfy(\.isOK), report.cryptoFiles?.failed.isEmpty == true
        else { throw DemoFailure("check did not find exactly the sample's missing files") }
        say("the two missing files are the sample's on purpose; `sxkit check` exits 3 for it")
    }
}
