import NetsimCore

extension ProfileDecoder {
    /// `radio: lte` (a technology with its published defaults), `radio: verizon-lte` (a named,
    /// measured radio: `RadioCatalog`), or a mapping with `model` (either kind) and overrides of
    /// that model's parameters, each in its field's unit: `{model: lte, promotionTime: 400ms}`.
    func radio(_ node: YAMLNode, allowingNamedRadios: Bool = true) throws(InputFileError) -> RadioParameters {
        guard case .mapping = node.node else {
            return try base(node, allowingNamedRadios: allowingNamedRadios)
        }
        let mapping = try node.mapping()
        switch try base(mapping.required("model"), allowingNamedRadios: allowingNamedRadios) {
        case .lte(let defaults): return .lte(try overriding(defaults, from: mapping))
        case .umts(let defaults): return .umts(try overriding(defaults, from: mapping))
        case .nr(let defaults): return .nr(try overriding(defaults, from: mapping))
        case .wifi(let defaults): return .wifi(try overriding(defaults, from: mapping))
        case .none:
            try mapping.requireKnownKeys(["model"])
            return .none
        }
    }

    /// The parameters a model name starts from: a technology's published defaults, or a named
    /// radio's fitted ones.
    private func base(_ node: YAMLNode, allowingNamedRadios: Bool) throws(InputFileError) -> RadioParameters {
        let name = try node.string()
        if let technology = RadioTechnology(rawValue: name) { return RadioParameters.defaults(for: technology) }
        let technologies = RadioTechnology.allCases.map(\.rawValue)
        if allowingNamedRadios, let named = try RadioCatalog.builtin(named: name) { return named.parameters }
        let names = technologies + (allowingNamedRadios ? RadioCatalog.builtinNames : [])
        throw node.error(
            "\(node.place): unknown radio '\(name)'\(NameSuggestion.hint(for: name, among: names))"
                + " (expected one of: \(names.joined(separator: ", ")))")
    }

    /// The parameters with every field the mapping gives replaced. Any duration field named
    /// `...Cycle` must be above zero: a zero DRX or paging cycle has no next occasion. NR's
    /// `drxCycle` is the exception: zero there means no connected DRX.
    private func overriding<Parameters: OverridableParameters>(
        _ defaults: Parameters, from mapping: YAMLMapping
    ) throws(InputFileError) -> Parameters {
        let fields = defaults.fields
        try mapping.requireKnownKeys(["model"] + fields.map(\.key))
        var parameters = defaults
        for field in fields {
            guard let node = mapping.value(field.key) else { continue }
            let value = try node.quantity(field.unit.parse, unitExample: field.unit.exampleSuffix)
            if field.unit == .duration, field.key.hasSuffix("Cycle"), field.key != "drxCycle", value == 0 {
                throw node.error("\(node.place) must be longer than zero")
            }
            parameters[keyPath: field.keyPath] = value
        }
        return parameters
    }
}

extension ParameterField.Unit {
    /// A unit to suggest for a bare number.
    var exampleSuffix: String {
        switch self {
        case .duration: "ms"
        case .power: "mW"
        case .powerPerMbps: "mW/Mbps"
        case .powerPerDecibel: "mW/dB"
        case .signalStrength: "dBm"
        case .byteCount: "B"
        case .bitRate: "kbps"
        }
    }
}
