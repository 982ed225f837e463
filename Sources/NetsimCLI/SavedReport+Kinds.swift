import NetsimBench
import NetsimCore
import NetsimReport
import NetsimTune

extension SavedReport {
    /// The report at `path`, as a bench, run or tune report.
    init(_ path: String) throws {
        try self.init(path, kind: Self.schema(of:))
    }

    /// The kind of report `tree` is, by the keys only it has.
    static func schema(of tree: ReportTree) -> ReportSchema? {
        if tree["transports"] != nil { return .bench }
        if tree["configs"] != nil, tree["summaries"] != nil { return .tune }
        if tree["connections"] != nil, tree["radio"] != nil { return .run }
        return nil
    }
}
