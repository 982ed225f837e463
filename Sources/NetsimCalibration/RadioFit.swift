import Foundation
import NetsimCore

/// A radio model fitted to measurements: a technology's parameters with the timers from a
/// probe file (`ProbeFit`) and the powers from power logs (`PowerFit`) put in; what the
/// measurements cannot show stays at the technology's published default, and `notes` says
/// which.
public struct RadioFit: Sendable {
    public let technology: RadioTechnology
    public let probe: ProbeFit?
    public let power: PowerFit?
    public let parameters: RadioParameters
    /// What was fitted, what was assumed, in the words the radio's YAML comments use.
    public let notes: [String]

    public init(technology: RadioTechnology, probe: ProbeFit?, power: PowerFit?) {
        self.technology = technology
        self.probe = probe
        self.power = power
        var values: [String: Double] = [:]
        var notes: [String] = []
        if let probe {
            values["promotionTime"] = probe.promotion
            values["pagingCycle"] = probe.pagingCycle
            switch technology {
            case .lte:
                let defaults = LTERadioParameters()
                values["longDRXCycle"] = probe.drxCycle
                values["longDRXTime"] = max(0, probe.tail - defaults.inactivityTimer - defaults.shortDRXTime)
            case .nrNSA, .nrSA:
                values["connectedTail"] = probe.tail
                values["drxCycle"] = probe.drxCycle
                if technology == .nrSA {
                    if let inactive = probe.inactive {
                        values["inactiveTail"] = max(0, inactive.until - probe.tail)
                        values["resumeTime"] = inactive.resume
                    } else {
                        notes.append("no RRC_INACTIVE stretch found in the probes: inactiveTail and resumeTime are the defaults")
                    }
                }
            default:
                notes.append("probes fit only LTE and NR radios: timers are the \(technology.rawValue) defaults")
            }
        } else {
            notes.append("no probes: timers, promotion and paging are the \(technology.rawValue) defaults")
        }
        if let power {
            values["beta"] = power.beta
            values["alphaDown"] = power.alphaDown
            values["alphaUp"] = power.alphaUp
            if technology == .nrNSA || technology == .nrSA {
                values["rsrpSlope"] = power.rsrpSlope
            } else if power.rsrpSlope != 0 {
                notes.append("rsrpSlope: netsim's signal term is NR's; the \(technology.rawValue) radio is priced without it")
            }
            values["tailPower"] = power.tailPower
            // Neither the DRX on-durations' power nor the promotion's can be told apart in a
            // power meter's one-second readings: both are taken at the connected power.
            values["drxOnPower"] = power.beta
            values["promotionPower"] = power.beta
            if !power.tailPowerMeasured {
                notes.append(
                    "tailPower: fewer than \(PowerFit.minimumIdleSamples) idle seconds measured; \(PowerFit.fallbackTailRatio) x beta")
            }
            notes.append("drxOnPower and promotionPower: not separable in one-second readings; set to beta")
        } else {
            notes.append("no power log: powers are the \(technology.rawValue) defaults")
        }
        notes.append("pagingOnTime, pagingPower, idlePower: not measured by the study; the published defaults")
        self.notes = notes
        let rounded = values.mapValues(Self.rounded)
        switch RadioParameters.defaults(for: technology) {
        case .lte(let defaults): parameters = .lte(Self.setting(defaults, rounded))
        case .umts(let defaults): parameters = .umts(Self.setting(defaults, rounded))
        case .nr(let defaults): parameters = .nr(Self.setting(defaults, rounded))
        case .wifi(let defaults): parameters = .wifi(Self.setting(defaults, rounded))
        case .none: parameters = .none
        }
    }

    /// A fitted figure to the precision a YAML file states it to: a millisecond, a milliwatt,
    /// a tenth of a milliwatt per Mbit/s.
    static func rounded(_ value: Double) -> Double {
        (value * 10_000).rounded() / 10_000
    }

    static func setting<Parameters: OverridableParameters>(_ defaults: Parameters, _ values: [String: Double]) -> Parameters {
        var parameters = defaults
        for field in defaults.fields {
            if let value = values[field.key] { parameters[keyPath: field.keyPath] = value }
        }
        return parameters
    }

    /// The radio as netsim's YAML (`profiles/radios/NAME.yaml`): every parameter written out,
    /// so a later change of a default does not change a fitted radio; `comments` above it.
    public static func yaml(name: String, description: String, parameters: RadioParameters, comments: [String]) -> String {
        var lines = comments.map { $0.isEmpty ? "#" : "# " + $0 }
        lines.append("name: \(name)")
        lines.append("description: >-")
        lines += wrapped(description, width: 94).map { "  " + $0 }
        lines.append("radio:")
        lines.append("  model: \(parameters.technology.rawValue)")
        for (key, value) in parameters.formattedFields { lines.append("  \(key): \(value)") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Text in lines of at most `width` characters, broken at spaces.
    static func wrapped(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
