import NetsimCore
import NetsimModel

extension Impairments {
    /// Reads an impairments file (`netsim tune keepalive --impairments FILE.yaml`): what every
    /// scenario meets besides the NAT, each as a profile timeline's outage or a handover that
    /// keeps the phone on its network, with how often it comes. An empty list is a clean network.
    /// ```yaml
    /// impairments:
    ///   - outage: {duration: 30s, mode: blackhole}   # mode as in a profile; default stall
    ///     perHour: 0.5
    ///   - handover: {mode: reset, gap: 2s}           # mode and gap as in a profile
    ///     perHour: 0.4
    /// ```
    public static func load(yaml: String, source: String) throws(InputFileError) -> Impairments {
        guard let root = try YAMLNode.compose(yaml: yaml, file: source, describedAs: "the impairments file") else {
            throw InputFileError(file: source, line: 1, column: 1, message: "the impairments file is empty: give 'impairments: [...]'")
        }
        let top = try root.mapping(keys: ["impairments"])
        let decoder = ProfileDecoder { _ in throw NoTraces() }
        var list: [Impairment] = []
        for (index, item) in try top.required("impairments").named("'impairments'").sequence().enumerated() {
            let node = item.named("impairment \(index + 1)")
            list.append(try impairment(node, decoder: decoder))
        }
        let impairments = Impairments(name: source, list: list)
        if let problem = impairments.problem { throw root.error(problem) }
        return impairments
    }

    private static func impairment(_ node: YAMLNode, decoder: ProfileDecoder) throws(InputFileError) -> Impairment {
        let mapping = try node.mapping(keys: ["outage", "handover", "perHour"])
        let perHourNode = try mapping.required("perHour").named("the perHour of \(node.place)")
        guard let perHour = Double(try perHourNode.string()), perHour > 0, perHour <= maximumPerHour else {
            throw perHourNode.error(
                "\(perHourNode.place) must be a number above 0 and at most \(Int(maximumPerHour)) (times an hour), not '\(try perHourNode.string())'"
            )
        }
        switch (mapping.value("outage"), mapping.value("handover")) {
        case (let outage?, nil):
            let fields = try decoder.outage(outage.named("the outage of \(node.place)"))
            return Impairment(.outage(duration: fields.duration, mode: fields.mode), perHour: perHour)
        case (nil, let handover?):
            let fields = try handover.named("the handover of \(node.place)").mapping(keys: ["mode", "gap"])
            return Impairment(
                .handover(
                    mode: try fields.value("mode")?.choice(HandoverMode.self) ?? .reset,
                    gap: try fields.value("gap").map(decoder.duration) ?? 0),
                perHour: perHour)
        default:
            throw node.error("\(node.place) needs exactly one of 'outage' or 'handover' (a handover keeps the phone on its network)")
        }
    }

    private struct NoTraces: Error, CustomStringConvertible {
        var description: String { "an impairments file reads no traces" }
    }
}
