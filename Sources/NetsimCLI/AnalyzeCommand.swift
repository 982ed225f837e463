import ArgumentParser
import Foundation
import NetsimCore
import NetsimInput
import NetsimPcap
import NetsimProxy

/// `netsim analyze`: any capture through the radio model, with the energy charged to flows.
public struct AnalyzeCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "Run a capture of a phone's traffic through a radio model: wake time, energy, and which flows cost it.",
        discussion: """
            Reads pcap and pcapng (Ethernet, Linux cooked SLL/SLL2, raw IP, BSD loopback; IPv4 and \
            IPv6; TCP, UDP and other IP) one packet at a time. As Video Optimizer does, a packet \
            that finds the radio asleep is preceded by a promotion, and the timeline runs until the \
            last packet's tail has ended; a netsim capture (run --pcap, bench --pcap-dir) records where the run \
            started and ended, and the timeline covers exactly the run, as its report does. \
            --until stops any capture at a time of your choosing. Promotions and throughput energy are charged to the flow \
            whose packet needed them, the awake time after a packet to that packet's flow; flows \
            that repeat at a fixed period (keepalives, polling) are reported with their cost per \
            hour. Byte counts are transport payload, as netsim run counts them.

            Without --device-ip the device is inferred: per IP version, the address in the most \
            of the first 10,000 packets; ties go to a private address, then to the first sender.

            The radio: --radio names a model with its published defaults, --profile takes the \
            radio of a profile's starting network (its own parameters included); without either, \
            a netsim capture's start record names the radio the run played (profile, seed, every \
            parameter), and any other capture is run through LTE, with a warning. The report \
            says which radio and why.

            A capture that breaks off (truncated by a full disk or a stopped tcpdump, or corrupt) \
            is analyzed up to where it breaks; the report says where, the error is printed, and \
            the exit status is 1.

            With --counters, FILE is a CSV of traffic counters (docs/analyze.md): each interval's \
            bytes are spread evenly over the interval and priced by the same radio model and \
            charging; an access column can pick the radio per interval (--access-radio). A file \
            with a missing column, a non-numeric cell, a cumulative counter going down or an \
            impossible rate is an error naming the row and column, and nothing is priced.
            """
    )

    enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json, html
    }

    @Argument(help: "The capture (pcap or pcapng), or with --counters a traffic counter CSV.")
    var file: String

    @Option(
        help:
            "The radio: a technology with its published defaults, or a measured phone's named radio: \(Self.radioNames.joined(separator: ", ")). Default: the run's (see below), else lte."
    )
    var radio: String?

    @Option(
        help:
            "A profile (built-in name or file): the radio of the network it starts on, with the profile's own parameters. Default: none (the run's radio, see --radio)."
    )
    var profile: String?

    @Option(
        name: [.customLong("device"), .customLong("device-ip")],
        help: ArgumentHelp(
            "The device: an address, or ADDRESS:PORT ([IPv6]:PORT) for a capture on loopback where both ends share one address (repeatable: its IPv4 and IPv6, its ports). Default: inferred, the ephemeral port on loopback.",
            valueName: "host[:port]"),
        transform: { text in
            guard let device = DeviceEndpoint(text) else { throw ValidationError("--device: '\(text)' is not an address or ADDRESS:PORT") }
            return device
        })
    var devices: [DeviceEndpoint] = []

    @Option(help: "Output format: text, json (its radio object is netsim run's), html (one file, SVG timeline).")
    var format = OutputFormat.text

    @Option(help: "Write the output here. Default: standard output.")
    var out: String?

    @Option(
        help:
            "Stop here, e.g. 20s: seconds from the first packet in the file. Default: a netsim run's end record, or when the last packet's tail ends.",
        transform: { try parseDuration($0) })
    var until: Double?

    @OptionGroup(title: "Traffic counters") var counterOptions: CounterOptions

    public init() {}

    /// The technologies (their published defaults) and the named radios fitted to measured
    /// phones (profiles/radios).
    static let radioNames = RadioTechnology.allCases.filter { $0 != .none }.map(\.rawValue) + RadioCatalog.builtinNames

    public func validate() throws {
        if let radio, Self.radioParameters(named: radio) == nil {
            throw ValidationError("--radio: '\(radio)' is not one of \(Self.radioNames.joined(separator: ", "))")
        }
        if radio != nil, profile != nil { throw ValidationError("--radio and --profile both name the radio: give one") }
        if counterOptions.counters, !devices.isEmpty { throw ValidationError("--device picks a capture's device: counters have none") }
    }

    public func run() throws {
        let (parameters, source) = try chosenRadio()
        let analysis: CaptureAnalysis
        if counterOptions.counters {
            analysis = try priceCounters(parameters ?? .defaults(for: .lte), source: source)
        } else {
            var options = CaptureAnalysisOptions(
                radio: parameters.flatMap { RadioStages($0) }, radioSource: source, deviceAddresses: devices.map(\.address),
                until: until)
            options.devicePorts = Set(devices.compactMap(\.port))
            analysis = try CaptureAnalysis.analyze(file: file, options: options)
        }
        if analysis.capture.deviceEndGuesses > 0 {
            printError(
                "warning: \(analysis.capture.deviceEndGuesses) flows join two ports of the device's address: the higher port was taken "
                    + "as the device's (give --device HOST:PORT)")
        }
        if analysis.capture.radioAssumed || (counterOptions.counters && parameters == nil) {
            printError("warning: \(file) does not say which radio it was captured on: analyzed as lte (give --radio or --profile)")
        }
        let output: Data
        switch format {
        case .text: output = Data((analysis.textReport() + "\n").utf8)
        case .html: output = Data(analysis.htmlReport().utf8)
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            output = try encoder.encode(analysis) + Data("\n".utf8)
        }
        if let out {
            do {
                try writeAtomically(output, toPath: out)
            } catch {
                printError("\(error)")
                throw ExitCode(1)
            }
        } else {
            FileHandle.standardOutput.write(output)
        }
        if let readError = analysis.capture.readError {
            printError("\(file): \(readError): the report covers the \(analysis.capture.packets) packets before it")
            throw ExitCode(1)
        }
    }

    /// The radio given, and how the analysis names it; nil: the capture's own.
    private func chosenRadio() throws -> (RadioParameters?, String) {
        if let radio, let parameters = Self.radioParameters(named: radio) {
            return (
                parameters,
                RadioTechnology(rawValue: radio) != nil
                    ? "--radio \(radio), its published defaults" : "--radio \(radio), a measured phone's radio"
            )
        }
        guard let profile else { return (nil, "") }
        let resolved = try resolveProfile(profile)
        let network = resolved.network(named: resolved.start) ?? resolved.networks[0]
        guard RadioStages(network.radio) != nil else {
            printError("--profile \(profile): its starting network \(network.name) has no radio model to analyze with")
            throw ExitCode(2)
        }
        return (network.radio, "--profile \(resolved.name), network \(network.name)")
    }

    /// Reads the counter file whole, then prices it: `fallback` for access values
    /// `--access-radio` does not name. A bad file is its error and exit status 1.
    private func priceCounters(_ fallback: RadioParameters, source: String) throws -> CaptureAnalysis {
        var radios: [String: RadioParameters] = [:]
        var named: [String] = []
        for mapping in counterOptions.accessRadio {
            radios[mapping.value] = Self.radioParameters(named: mapping.radio)
            named.append("\(mapping.value)=\(mapping.radio)")
        }
        let fallbackName = source.isEmpty ? "lte (assumed)" : source
        let radioSource = named.isEmpty ? fallbackName : "--access-radio \(named.joined(separator: " ")), else \(fallbackName)"
        do {
            let series = try CounterSeries.read(file: file, format: counterOptions.format)
            return try CaptureAnalysis.price(
                series, radios: radios, fallback: fallback, options: CounterPricingOptions(radioSource: radioSource, until: until))
        } catch {
            printError("\(error)")
            throw ExitCode(1)
        }
    }

    /// A radio by the name `--radio` and `--access-radio` take: a model with its published
    /// defaults.
    static func radioParameters(named name: String) -> RadioParameters? {
        if let technology = RadioTechnology(rawValue: name) { return technology == .none ? nil : .defaults(for: technology) }
        return (try? RadioCatalog.builtin(named: name))?.parameters
    }
}

/// `--device`: the device's address, and optionally its port (`10.0.0.2`, `127.0.0.1:54321`,
/// `fd00::2`, `[::1]:54321`): an address alone, or a `HostPort` whose host is an address.
struct DeviceEndpoint: Equatable {
    var address: IPAddress
    var port: UInt16?

    init?(_ text: String) {
        if let address = IPAddress(text) {
            self.address = address
            return
        }
        guard let hostPort = HostPort(text), let address = IPAddress(hostPort.host), hostPort.port > 0 else { return nil }
        self.address = address
        self.port = UInt16(hostPort.port)
    }
}
