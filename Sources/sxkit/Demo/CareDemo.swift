import Foundation
import SXStorage
import SXFileEncryption
import SXCore
import SXSample

extension DemoSteps {
    /// Issue 6's part of the demo: the storage report, encrypting the profile's files in step with
    /// the chat DB, then cleaning temp and orphans (a dry run first), with the report between steps.
    func runCareSteps(_ sample: SampleDataDirectory, passphrase: SecretBytes) throws {
        // The sample's own layout, without the desktop UI's /tmp/simplex: the demo must never clean a
        // folder the user's real app uses.
        let data = DataDirectory(root: sample.directory.root, layout: .desktop, environment: ["TMPDIR": Path.join(root, "no-ui-temp")])
        let care = DataDirectoryCare(directory: data, passphrase: passphrase)

        step("23. Where the space goes (sxkit storage)")
        let before = try care.storageReport()
        sayFiles(before)

        step("24. Encrypt the profile's plaintext files, keys into the chat DB (sxkit files encrypt --data-dir)")
        let (encrypted, seconds) = try timed { try ChatFilesWork(directory: data).encrypt(passphrase: passphrase) }
        say("encrypted \(encrypted.count(.done)) file(s) (\(ByteCount.format(encrypted.bytesDone))) in \(String(format: "%.2f", seconds)) s; "
            + "\(encrypted.count(.alreadyDone)) already encrypted, \(encrypted.count(.missing)) referenced but missing, \(encrypted.failures) failed")
        guard encrypted.failures == 0 else { throw DemoFailure("files encrypt --data-dir failed for \(encrypted.failures) file(s)") }

        step("25. The report again: every referenced file present is a CryptoFile now")
        let afterEncrypt = try care.storageReport()
        sayFiles(afterEncrypt)
        guard afterEncrypt.files?.referencedPlaintext?.count == 0 else { throw DemoFailure("plaintext files are left after encrypting") }

        step("26. Clean the temp folder and the orphans: a dry run first (sxkit clean --temp --orphans --dry-run)")
        let plan = try care.plan(CleanTargets(temp: true, orphans: true))
        for total in plan.totals {
            say("would remove " + total.category.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)
                + "\(total.usage.count) file(s), \(ByteCount.format(total.usage.bytes))")
        }
        for item in plan.items where item.kind != .directory { say("  " + item.path) }

        step("27. Now for real (sxkit clean --temp --orphans --yes)")
        let cleaned = try care.execute(plan)
        for removed in cleaned.removed {
            say("removed " + removed.category.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)
                + "\(removed.usage.count) file(s), \(ByteCount.format(removed.usage.bytes))")
        }
        guard cleaned.failures.isEmpty, cleaned.total == plan.total else { throw DemoFailure("clean did not remove what it planned") }

        step("28. The report again: nothing left to reclaim from temp and orphans")
        let afterClean = try care.storageReport()
        sayFiles(afterClean)
        let left = afterClean.reclaimable.filter { $0.target.hasSuffix("--temp") || $0.target.hasSuffix("--orphans") }
        for target in left { say(target.target.padding(toLength: 26, withPad: " ", startingAt: 0) + "would reclaim \(target.usage.count) file(s)") }
        guard left.allSatisfy({ $0.usage.count == 0 }) else { throw DemoFailure("temp or orphan files are left after cleaning") }
    }

    private func sayFiles(_ report: StorageReport) {
        guard let files = report.files else { return say("no files folder") }
        func part(_ label: String, _ usage: Usage?) -> String { "\(usage?.count ?? 0) \(label)" }
        say("files folder: \(files.total.count) file(s), \(ByteCount.format(files.total.bytes)): "
            + [part("encrypted", files.referencedEncrypted), part("plaintext", files.referencedPlaintext),
               part("missing", files.referencedMissing), part("orphan(s)", files.orphans)].joined(separator: ", "))
        let temp = report.tempFolders.reduce(Usage()) { $0 + $1.files }
        say("temp folders: \(temp.count) file(s), \(ByteCount.format(temp.bytes)); total \(ByteCount.format(report.total.bytes))")
    }
}
