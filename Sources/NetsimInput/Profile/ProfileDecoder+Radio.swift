import NetsimCore

extension ProfileDecoder {
    /// `radio: lte`, or a mapping with `model` and overrides of that model's parameters, each
    /// in its field's unit: `{model: lte, promotionTime: 400ms}`.
    func radio(_ node: YAMLNode) throws(InputFileError) -> RadioParameters {
        guard case .mapping = node.node else {
            return RadioParameters.defaults(for: try node.choice(RadioTechnology.self))
        }
        let mapping = try node.mapping()
        let model = try mapping.required("model").choice(RadioTechnology.self)
        switch RadioParameters.defaults(for: model) {
        case .lte(let defaults): return .lte(try overriding(defaults, from: mapping))
        case .umts(let defaults): return .umts(try overriding(defaults, from: mapping))
        case .nr(let defaults): return .nr(try overriding(defaults, from: mapping))
        case .wifi(let defaults): return .wifi(try overriding(defaults, from: mapping))
        case .none:
            try mapping.requireKnownKeys(["model"])
            return .none
        }
    }

    /// The parameters with every field the mapping gives replaced. Any duration field named
    /// `...Cycle` must be above zero: a zero DRX or paging cycle has no next occasion.
    private func overriding<Parameters: OverridableParameters>(
        _ defaults: Parameters, from mapping: YAMLMapping
    ) throws(InputFileError) -> Parameters {
        let fields = defaults.fields
        try mapping.requireKnownKeys(["model"] + fields.map(\.key))
        var parameters = defaults
        for field in fields {
            guard let node = mapping.value(field.key) else { continue }
            let value = try node.quantity(field.unit.parse, unitExample: field.unit.exampleSuffix)
            if field.unit == .duration, field.key.hasSuffix("Cycle"), value == 0 {
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
        case .byteCount: "B"
        case .bitRate: "kbps"
        }
    }
}
