import Foundation
import NetsimCore
import NetsimInput

/// Scores netsim against every measurement file under a directory laid out as the study's
/// slice is: `RRC-Probe/*.csv` (probes), `MN-Wild/*.csv` (walking loops; `baseline_power.csv`
/// is the study's table of phone baselines, not a run) and `MN-Transfer/*.csv` (transfers).
/// Each file is played with the radio its own columns name (`StudyRadios`), or with `forced`
/// for every file, through the same radio model as `run`, `bench` and `analyze`.
public struct Fidelity {
    /// A radio by name: a built-in named radio or a technology with its published defaults.
    public typealias RadioLookup = (String) throws -> RadioStages

    public let directory: String
    public let forced: String?
    public let seed: UInt64
    let lookup: RadioLookup

    public init(directory: String, forcedRadio: String?, seed: UInt64, radios: @escaping RadioLookup = Fidelity.builtinRadio) {
        self.directory = directory
        self.forced = forcedRadio
        self.seed = seed
        self.lookup = radios
    }

    public enum Failure: Error, CustomStringConvertible {
        case noMeasurements(String)
        case unknownRadio(file: String, what: String)
        public var description: String {
            switch self {
            case .noMeasurements(let directory):
                "\(directory): no RRC-Probe/, MN-Wild/ or MN-Transfer/ folder with .csv files (the study's layout)"
            case .unknownRadio(let file, let what): "\(file): no built-in radio for \(what): give --radio"
            }
        }
    }

    /// A built-in radio by name: a named radio, else a technology's published defaults.
    public static func builtinRadio(_ name: String) throws -> RadioStages {
        if let named = try RadioCatalog.builtin(named: name), let stages = RadioStages(named.parameters) { return stages }
        if let technology = RadioTechnology(rawValue: name), let stages = RadioStages(.defaults(for: technology)) { return stages }
        throw ValidationFailure(
            "no radio named '\(name)' (radios: \((RadioCatalog.builtinNames + RadioTechnology.allCases.filter { $0 != .none }.map(\.rawValue)).joined(separator: ", ")))"
        )
    }

    /// The report, and each probe file's round trips as measured and as netsim played them
    /// (for the HTML report's charts), by file.
    public func score() throws -> (report: FidelityReport, probePlays: [String: (measured: [Probe], netsim: [Probe])]) {
        let probeFiles = files(in: "RRC-Probe")
        let runFiles = files(in: "MN-Wild").filter { !($0 as NSString).lastPathComponent.hasPrefix("baseline_power") }
        let transferFiles = files(in: "MN-Transfer")
        guard !(probeFiles.isEmpty && runFiles.isEmpty && transferFiles.isEmpty) else { throw Failure.noMeasurements(directory) }
        var cache: [String: RadioStages] = [:]
        func radio(_ name: String) throws -> RadioStages {
            if let stages = cache[name] { return stages }
            let stages = try lookup(name)
            cache[name] = stages
            return stages
        }
        var plays: [String: (measured: [Probe], netsim: [Probe])] = [:]
        let probes = try probeFiles.enumerated().map { index, path in
            let (score, measured, netsim) = try scoreProbes(path, seed: seed &+ UInt64(index), radio: radio)
            plays[score.file] = (measured, netsim)
            return score
        }
        let runs = try runFiles.map { path in try scoreRun(path, radio: radio) }
        let transfers = try transferFiles.flatMap { path in try scoreTransfers(path, radio: radio) }
        let report = FidelityReport(
            netsimVersion: NetsimVersion.current, forcedRadio: forced, seed: seed,
            summary: Self.summary(probes: probes, runs: runs, transfers: transfers), probes: probes, runs: runs, transfers: transfers)
        return (report, plays)
    }

    /// The .csv files directly in DIR/folder, sorted; a folder that is absent has none.
    /// Only regular files: a link or a device there is not followed.
    private func files(in folder: String) -> [String] {
        let path = directory + "/" + folder
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.filter { $0.hasSuffix(".csv") }.sorted().map { path + "/" + $0 }.filter { file in
            let type = (try? FileManager.default.attributesOfItem(atPath: file))?[.type] as? FileAttributeType
            return type == .typeRegular
        }
    }

    private func display(_ path: String) -> String {
        String(path.dropFirst(directory.count + 1))
    }

    private func scoreProbes(
        _ path: String, seed: UInt64, radio: (String) throws -> RadioStages
    ) throws -> (FidelityReport.ProbeScore, measured: [Probe], netsim: [Probe]) {
        let file = try ProbeFile(MeasurementTable.read(path: path, displayedAs: display(path)))
        guard let name = forced ?? StudyRadios.probeRadio(carrier: file.carrier, access: file.access) else {
            throw Failure.unknownRadio(file: file.file, what: "carrier '\(file.carrier ?? "?")', access '\(file.access ?? "?")'")
        }
        let measured = ProbeAnalysis(file.probes)
        let played = ProbePlayer.play(file.probes, radio: try radio(name), networkRoundTrip: measured.connectedRoundTrip, seed: seed)
        let netsim = ProbeAnalysis(played)
        let tailError = both(netsim.tail, measured.tail).map { pair in abs(pair.0 - pair.1) }
        let idleError = both(netsim.idleRoundTrip, measured.idleRoundTrip).map { pair in pair.0.largestRelativeError(against: pair.1) }
        let score = FidelityReport.ProbeScore(
            file: file.file, carrier: file.carrier ?? "", radio: name, probes: file.probes.count,
            tailSeconds: .init(measured: measured.tail, netsim: netsim.tail),
            idleRttMs: .init(measured: measured.idleRoundTrip?.scaled(by: 1000), netsim: netsim.idleRoundTrip?.scaled(by: 1000)),
            connectedRttMs: measured.connectedRoundTrip * 1000, tailError: tailError, idleRttError: idleError)
        return (score, file.probes, played)
    }

    private func scoreRun(_ path: String, radio: (String) throws -> RadioStages) throws -> FidelityReport.RunScore {
        let log = try PowerLog(MeasurementTable.read(path: path, displayedAs: display(path)))
        let names = try log.samples.map { sample in
            guard let name = forced ?? StudyRadios.sampleRadio(sample.labels) else {
                throw Failure.unknownRadio(
                    file: log.file, what: "carrier '\(sample.labels["carrier"] ?? "?")', access '\(sample.labels["access"] ?? "?")'")
            }
            return name
        }
        let stages = try Dictionary(Set(names).map { ($0, try radio($0)) }, uniquingKeysWith: { first, _ in first })
        var index = 0
        let energies = IntervalPricer.energies(of: log.samples, startsConnected: true) { _ in
            defer { index += 1 }
            return (names[index], stages[names[index]]!)
        }
        let measured = log.samples.reduce(0) { $0 + ($1.measuredEnergy ?? 0) }
        let netsim = energies.reduce(0, +)
        var secondsByRadio: [String: Double] = [:]
        for (sample, name) in zip(log.samples, names) { secondsByRadio[name, default: 0] += sample.powerSeconds }
        let usage = secondsByRadio.sorted { $0.value > $1.value }.map { "\($0.key) \(Int($0.value.rounded())) s" }
        return FidelityReport.RunScore(
            file: log.file, provider: log.samples.first?.labels["carrier"] ?? "", radio: usage.joined(separator: ", "),
            direction: log.samples.first?.labels["direction"] ?? "", seconds: log.samples.reduce(0) { $0 + $1.powerSeconds },
            joules: .init(measured: measured, netsim: netsim), error: measured > 0 ? netsim / measured - 1 : 0)
    }

    /// Each test of a transfer file (its rows of one network type, direction and target rate)
    /// played on its own, starting connected as the iPerf test did.
    private func scoreTransfers(_ path: String, radio: (String) throws -> RadioStages) throws -> [FidelityReport.TransferScore] {
        let log = try PowerLog(MeasurementTable.read(path: path, displayedAs: display(path)))
        var groups: [(key: [String], samples: [PowerSample])] = []
        for sample in log.samples {
            let key = [sample.labels["band"] ?? "", sample.labels["direction"] ?? "", sample.labels["target"] ?? ""]
            if let last = groups.indices.last, groups[last].key == key {
                groups[last].samples.append(sample)
            } else {
                groups.append((key, [sample]))
            }
        }
        return try groups.map { group in
            guard let name = forced ?? StudyRadios.sampleRadio(group.samples[0].labels) else {
                throw Failure.unknownRadio(file: log.file, what: "network '\(group.key[0])'")
            }
            let stages = try radio(name)
            // A test's rows restart time_since_start; played on a clock of their own.
            let samples = group.samples.enumerated().map { index, sample in
                var sample = sample
                sample.end = Double(index + 1)
                return sample
            }
            let energies = IntervalPricer.energies(of: samples, startsConnected: true) { _ in (name, stages) }
            let seconds = samples.reduce(0) { $0 + $1.powerSeconds }
            let measured = samples.reduce(0) { $0 + ($1.measuredEnergy ?? 0) } / seconds + PowerLog.studyDeviceBaseline
            let netsim = energies.reduce(0, +) / seconds + PowerLog.studyDeviceBaseline
            return FidelityReport.TransferScore(
                file: log.file, networkType: group.key[0], direction: group.key[1], targetMbps: Double(group.key[2]) ?? 0, radio: name,
                seconds: seconds, powerMw: .init(measured: measured * 1000, netsim: netsim * 1000), error: netsim / measured - 1)
        }
    }

    static func summary(
        probes: [FidelityReport.ProbeScore], runs: [FidelityReport.RunScore], transfers: [FidelityReport.TransferScore]
    ) -> FidelityReport.Summary {
        let runErrors = runs.map { abs($0.error) }.sorted()
        return FidelityReport.Summary(
            runs: runs.count, runMedianError: runErrors.isEmpty ? 0 : Quantiles.quantile(runErrors, 0.5),
            runsWithin20Percent: runs.isEmpty ? 1 : Double(runErrors.filter { $0 <= 0.2 }.count) / Double(runs.count),
            runMaxError: runErrors.last ?? 0, probeFiles: probes.count,
            // A file where one side shows no step, or no idle round trips, scores as wrong by a
            // whole tail (the longest the study measured, 15 s) and by 100%.
            probeMaxTailError: probes.map { $0.tailError ?? 15 }.max() ?? 0,
            probeMaxIdleRttError: probes.map { $0.idleRttError ?? 1 }.max() ?? 0, transfers: transfers.count,
            transferMaxError: transfers.map { abs($0.error) }.max() ?? 0)
    }
}

/// A message for a bad name or value given on the command line.
public struct ValidationFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

private func both<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}
