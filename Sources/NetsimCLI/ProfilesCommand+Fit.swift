import ArgumentParser
import Foundation
import NetsimCalibration
import NetsimCore
import NetsimInput

extension ProfilesCommand {
    /// `netsim profiles fit`: a radio fitted to measurements, written as a named radio's YAML
    /// with the fit's residuals as comments. The built-in calibrated radios
    /// (profiles/radios/*.yaml) are this command's output on the SIGCOMM'21 study's slice
    /// (scripts/fit-radios.sh runs it).
    public struct Fit: ParsableCommand {
        public static let configuration = CommandConfiguration(
            abstract: "Fit a radio model to probe round trips and power logs.",
            discussion: """
                Probes (--probes: the study's RRC-Probe files, or gap_s,rtt_ms) give the CONNECTED \
                tail (where the round trip steps up), the paging cycle and the promotion (the spread \
                and median of round trips after 16 s idle), the connected-DRX cycle and, for nr-sa, \
                RRC_INACTIVE. Power logs (--power: the study's MN-Wild or MN-Transfer files, or \
                time_s,down_bytes,up_bytes,power_mw) give the powers: beta + alpha x Mbit/s per \
                direction, and the tail power from idle intervals. --where keeps the intervals with a \
                label (access=lte|nr-nsa|nr-sa, carrier=verizon, band=low|mmwave|lte, direction=uplink). \
                What the measurements cannot show stays at the model's published default; the \
                comments say which. The YAML goes to standard output or --out; name it in a profile \
                as `radio: {model: lte, ...}` by pasting its radio mapping, or install it as a built-in \
                under profiles/radios/.
                """
        )

        @Option(help: "The radio's name (letters, digits and '-').")
        var name: String

        @Option(help: "The technology fitted: lte, nr-nsa or nr-sa.")
        var model: String

        @Option(help: "A probe file (repeatable; each is fitted and the timers are the median over files).")
        var probes: [String] = []

        @Option(help: "A power log (repeatable).")
        var power: [String] = []

        @Option(
            name: .customLong("where"), help: ArgumentHelp("Keep power intervals with this label (repeatable).", valueName: "LABEL=VALUE"))
        var conditions: [String] = []

        @Option(
            help: "The phone's own draw that the transfer layout's whole-phone power includes (W or mW). Default: 2357.3mW, the study's.")
        var deviceBaseline: String?

        @Option(help: "The description written into the YAML.")
        var description: String?

        @Option(help: "Write the YAML here instead of standard output.")
        var out: String?

        public init() {}

        public func validate() throws {
            guard name.range(of: "^[a-z0-9][a-z0-9-]{0,62}$", options: .regularExpression) != nil else {
                throw ValidationError("--name: '\(name)' must be lower-case letters, digits and '-' (at most 63)")
            }
            guard let technology = RadioTechnology(rawValue: model), [.lte, .nrNSA, .nrSA].contains(technology) else {
                throw ValidationError("--model: '\(model)' is not lte, nr-nsa or nr-sa")
            }
            guard !probes.isEmpty || !power.isEmpty else { throw ValidationError("give --probes, --power or both") }
            _ = try selection()
            if let deviceBaseline { _ = try baselineWatts(deviceBaseline) }
        }

        func selection() throws -> [(label: String, value: String)] {
            try conditions.map { condition in
                let parts = condition.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, !parts[0].isEmpty else { throw ValidationError("--where: '\(condition)' is not LABEL=VALUE") }
                return (parts[0], parts[0] == "carrier" ? PowerLog.carrierLabel(parts[1]) : parts[1])
            }
        }

        func baselineWatts(_ text: String) throws -> Double {
            do { return try Quantity.power(text) } catch { throw ValidationError("--device-baseline: \(error)") }
        }

        public func run() throws {
            let technology = RadioTechnology(rawValue: model)!
            let fitted = try fit(technology: technology)
            let yaml = RadioFit.yaml(
                name: name, description: description ?? defaultDescription(technology), parameters: fitted.fit.parameters,
                comments: fitted.comments)
            if let out {
                try writeAtomically(Data(yaml.utf8), toPath: out)
                printError("wrote \(out)")
            } else {
                print(yaml, terminator: "")
            }
        }

        private func defaultDescription(_ technology: RadioTechnology) -> String {
            "\(technology.rawValue) fitted by netsim profiles fit from \((probes + power).map { ($0 as NSString).lastPathComponent }.joined(separator: ", "))."
        }

        /// The fit and its residuals, as comment lines.
        func fit(technology: RadioTechnology) throws -> (fit: RadioFit, comments: [String]) {
            var comments = ["Fitted by: netsim profiles fit " + commandLine(), ""]
            var probeFits: [(file: ProbeFile, fit: ProbeFit)] = []
            for path in probes {
                let file = try ProbeFile(MeasurementTable.read(path: path))
                do {
                    probeFits.append((file, try ProbeFit(ProbeAnalysis(file.probes), lookingForInactive: technology == .nrSA)))
                } catch {
                    throw ValidationFailure("\(path): \(error)")
                }
            }
            let probe = ProbeFit.median(of: probeFits.map(\.fit))
            let conditions = try selection()
            let baseline = try deviceBaseline.map(baselineWatts) ?? PowerLog.studyDeviceBaseline
            var logs: [PowerLog] = []
            for path in power {
                let log = try PowerLog(MeasurementTable.read(path: path), deviceBaseline: baseline)
                let kept = log.samples.filter { sample in conditions.allSatisfy { sample.labels[$0.label] == $0.value } }
                logs.append(PowerLog(file: log.file, layout: log.layout, samples: kept))
            }
            let allSamples = logs.flatMap(\.samples)
            var powerFit: PowerFit?
            if !power.isEmpty {
                do { powerFit = try PowerFit(allSamples) } catch { throw ValidationFailure("--power: \(error)") }
            }
            let fit = RadioFit(technology: technology, probe: probe, power: powerFit)
            guard let stages = RadioStages(fit.parameters) else { throw ValidationFailure("the fitted radio has no model") }
            comments += fit.notes.map { "Note: " + $0 }
            comments += FitResiduals.probes(probeFits.map { ($0.file, $0.fit) }, radio: stages)
            if let powerFit { comments += FitResiduals.power(powerFit, logs: logs, radio: stages, conditions: conditions) }
            return (fit, comments + [""])
        }

        /// The command line with paths as their file names: the same comments wherever the
        /// measurements are kept.
        private func commandLine() -> String {
            var words = ["--name \(name)", "--model \(model)"]
            words += probes.map { "--probes \(($0 as NSString).lastPathComponent)" }
            if power.count <= 3 {
                words += power.map { "--power \(($0 as NSString).lastPathComponent)" }
            } else {
                let folders = Set(power.map { (($0 as NSString).deletingLastPathComponent as NSString).lastPathComponent })
                words.append("--power (\(power.count) files in \(folders.sorted().joined(separator: ", ")))")
            }
            words += conditions.map { "--where \($0)" }
            if let deviceBaseline { words.append("--device-baseline \(deviceBaseline)") }
            return words.joined(separator: " ")
        }
    }
}
