import Foundation
import SXDatabase

/// The `migrations` rows of the sample databases: SimpleX's real migration names, in order, as a
/// profile created late in 2022 and kept up to date would hold them. Each row is written as the core
/// writes it (`INSERT INTO migrations (name, down, ts)`, simplexmq `Agent/Store/SQLite/Migrations.hs:57`):
/// `ts` in sqlcipher-simple's UTCTime text (`YYYY-MM-DD HH:MM:SS.ffffff`, trailing zeros dropped) and
/// `down` non-NULL exactly where the core's list has a down query.
///
/// SimpleX's down SQL is SimpleX's and is not reproduced: a row that can go down holds an SQL comment
/// saying so (running it changes nothing; this sample schema is built at once, not by those migrations).
enum SampleMigrationRows {
    struct Row {
        var name: String
        var ts: String
        var down: String?
    }

    /// When the sample profile was created: every migration dated before it was applied then.
    static let profileCreated = date(year: 2022, month: 11, day: 5, hour: 14, minute: 3, second: 27)

    static func rows(for list: [Migration]) -> [Row] {
        var batchStart: Date?
        var inBatch = 0
        return list.map { migration in
            let applied = appliedAt(migration.name)
            if applied != batchStart {
                batchStart = applied
                inBatch = 0
            }
            // The core applies a batch one transaction after another: a few hundred microseconds apart.
            let ts = timestamp(applied, microseconds: 184_203 + inBatch * 611)
            inBatch += 1
            let down = migration.hasDown
                ? "-- sxkit sample: SimpleX's down SQL for \(migration.name) is not reproduced; this sample's schema has nothing of it to revert\n"
                : nil
            return Row(name: migration.name, ts: ts, down: down)
        }
    }

    /// When the app applied a migration: at the profile's creation for older ones, else at the first
    /// app update after it was written — updates on the 1st and the 15th of each month, a week at least
    /// after the date in the migration's name.
    static func appliedAt(_ name: String) -> Date {
        let digits = name.drop { $0 == "m" }.prefix(8)
        guard digits.count == 8, let value = Int(digits) else { return profileCreated }
        let written = date(year: value / 10000, month: value / 100 % 100, day: value % 100)
        let earliest = written.addingTimeInterval(7 * 86_400)
        guard earliest > profileCreated else { return profileCreated }
        var parts = calendar.dateComponents([.year, .month, .day], from: earliest)
        if parts.day! > 15 {
            parts.day = 1
            if parts.month == 12 {
                parts.month = 1
                parts.year! += 1
            } else {
                parts.month! += 1
            }
        } else if parts.day! > 1 {
            parts.day = 15
        }
        parts.hour = 10
        parts.minute = 41
        parts.second = 7
        return calendar.date(from: parts)!
    }

    static func timestamp(_ date: Date, microseconds: Int) -> String {
        MigrationsTable.timestamp(unixSeconds: Int64(date.timeIntervalSince1970), microseconds: microseconds)
    }

    private static let calendar: Calendar = {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: "UTC")!
        return c
    }()

    private static func date(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) -> Date {
        calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))!
    }
}
