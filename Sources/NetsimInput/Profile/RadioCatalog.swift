import NetsimCore

/// The named radios: a radio model with every parameter fitted to one carrier's network as a
/// measured phone saw it (profiles/radios/NAME.yaml, written by `netsim profiles fit` and
/// compiled in by scripts/embed-profiles.py). A profile names one where it would name a
/// technology: `radio: verizon-lte`, or `radio: {model: verizon-lte, promotionTime: 300ms}`
/// to start from it and override some parameters.
///
/// A named radio's file has `name`, `description` and `radio` (a technology and its
/// parameters, as a profile's network writes it); the fit's residuals are comments in it.
public enum RadioCatalog {
    /// The built-in named radios, sorted.
    public static let builtinNames: [String] = ProfileCatalog.embeddedFiles.keys
        .filter { $0.hasPrefix(directory) && $0.hasSuffix(".yaml") }
        .map { String($0.dropFirst(directory.count).dropLast(".yaml".count)) }
        .sorted()

    /// A built-in named radio's YAML, as written by `netsim profiles fit`.
    public static func builtinSource(named name: String) -> String? {
        ProfileCatalog.embeddedFiles[directory + name + ".yaml"]
    }

    /// A built-in named radio, or nil when there is none of that name.
    public static func builtin(named name: String) throws(InputFileError) -> NamedRadio? {
        guard let yaml = builtinSource(named: name) else { return nil }
        return try load(yaml: yaml, source: "built-in/radios/\(name).yaml")
    }

    /// Parses a named radio's YAML. Its `radio` must name a technology, not another named
    /// radio, so that no chain of names can loop.
    public static func load(yaml: String, source: String) throws(InputFileError) -> NamedRadio {
        guard let root = try YAMLNode.compose(yaml: yaml, file: source, describedAs: "the radio") else {
            throw InputFileError(file: source, line: 1, column: 1, message: "the radio file is empty")
        }
        let top = try root.mapping(keys: ["name", "description", "radio"])
        let name = try top.required("name").string()
        let description = try top.required("description").string()
        let decoder = ProfileDecoder { path in throw ProfileLookupError.unreadable(path: path, reason: "a radio file reads no traces") }
        let parameters = try decoder.radio(top.required("radio").named("'radio'"), allowingNamedRadios: false)
        return NamedRadio(name: name, description: description, parameters: parameters)
    }

    private static let directory = "radios/"
}

/// A radio model fitted to a measured network: what `RadioCatalog` holds.
public struct NamedRadio: Sendable, Equatable {
    public let name: String
    public let description: String
    public let parameters: RadioParameters

    public init(name: String, description: String, parameters: RadioParameters) {
        self.name = name
        self.description = description
        self.parameters = parameters
    }
}
