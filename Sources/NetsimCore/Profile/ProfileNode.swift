import Yams

/// A YAML node together with what it is in the profile ("link 'up' of network 'lte'") and
/// the file it came from, so that every reading error names the file, line and column of the
/// offending node and says in words where it was.
struct ProfileNode {
    let node: Node
    /// What the node is, for messages: "'delay' in link 'up' of network 'lte'".
    let place: String
    let file: String
    /// Shared by every node of one profile: how many more mappings merge keys may expand.
    let mergeBudget: MergeBudget

    init(node: Node, place: String, file: String, mergeBudget: MergeBudget) {
        self.node = node
        self.place = place
        self.file = file
        self.mergeBudget = mergeBudget
    }

    /// The root node of a profile, with a fresh merge budget.
    init(root: Node, file: String) {
        self.init(node: root, place: "the profile", file: file, mergeBudget: MergeBudget())
    }

    /// A node under this one.
    private func child(_ node: Node, place: String) -> ProfileNode {
        ProfileNode(node: node, place: place, file: file, mergeBudget: mergeBudget)
    }

    /// An error located at this node.
    func error(_ message: String) -> ProfileError {
        ProfileError(file: file, line: node.mark?.line ?? 1, column: node.mark?.column ?? 1, message: message)
    }

    /// The same node under another description (a network's mapping is "network 'lte'").
    func named(_ place: String) -> ProfileNode {
        child(node, place: place)
    }

    /// An empty value (`key:` with nothing after it), `~` or `null`.
    var isNull: Bool {
        node.null != nil
    }

    /// How the node looks, for "must be X, not Y" messages.
    private var shape: String {
        switch node {
        case .mapping: "a mapping"
        case .sequence: "a list"
        case .scalar(let scalar): isNull ? "an empty value" : "'\(scalar.string)'"
        case .alias: "an alias"
        }
    }

    func mismatch(expected: String) -> ProfileError {
        error("\(place) must be \(expected), not \(shape)")
    }

    /// The node as a mapping whose keys are all among `keys`; an unknown key is reported at
    /// the key with the valid keys and the nearest one.
    func mapping(keys: [String]) throws(ProfileError) -> ProfileMapping {
        let mapping = try mapping()
        try mapping.requireKnownKeys(keys)
        return mapping
    }

    /// The node as a mapping, keys not checked yet (for mappings whose valid keys depend on
    /// one of their values, such as a radio's `model`).
    ///
    /// YAML merge keys are applied (`<<: *common`, or a list of aliases): a profile can define
    /// a link once and share it between networks. Keys given explicitly win, as in YAML 1.1.
    func mapping() throws(ProfileError) -> ProfileMapping {
        guard case .mapping(let mapping) = node else { throw mismatch(expected: "a mapping") }
        var entries: [ProfileMapping.Entry] = []
        var merged: [ProfileMapping.Entry] = []
        for (keyNode, valueNode) in mapping {
            let key = child(keyNode, place: "a key in \(place)")
            guard case .scalar(let scalar) = keyNode, !key.isNull, !scalar.string.isEmpty else {
                throw key.mismatch(expected: "a name")
            }
            let value = child(valueNode, place: "'\(scalar.string)' in \(place)")
            if scalar.string == "<<", scalar.style == .plain {
                let sources = if case .sequence = valueNode { try value.sequence() } else { [value] }
                for source in sources {
                    guard case .mapping = source.node else { throw source.mismatch(expected: "a mapping to merge") }
                    try mergeBudget.spend(at: source)
                    merged += try source.named(place).mapping().entries
                }
            } else {
                entries.append(.init(key: scalar.string, keyNode: key, value: value))
            }
        }
        for entry in merged where !entries.contains(where: { $0.key == entry.key }) { entries.append(entry) }
        return ProfileMapping(node: self, entries: entries)
    }

    func sequence() throws(ProfileError) -> [ProfileNode] {
        guard case .sequence(let sequence) = node else { throw mismatch(expected: "a list") }
        return sequence.enumerated().map { child($1, place: "item \($0 + 1) of \(place)") }
    }

    /// A non-empty scalar's text.
    func string() throws(ProfileError) -> String {
        guard case .scalar(let scalar) = node, !isNull, !scalar.string.isEmpty else { throw mismatch(expected: "a text") }
        return scalar.string
    }

    /// A value with a unit, parsed by one of the `Quantity` parsers. A bare number is refused
    /// with a hint (`unitExample` is a unit suffix such as "ms"): a profile always says its
    /// units, so `delay: 20` cannot silently mean 20 seconds.
    func quantity<Value>(
        _ parse: (String) throws(Quantity.ParseError) -> Value, unitExample: String
    ) throws(ProfileError) -> Value {
        let text = try string()
        if Double(text.trimmingWhitespace()) != nil {
            throw error("\(place): '\(text)' has no unit; add a unit, e.g. \(text.trimmingWhitespace())\(unitExample)")
        }
        do {
            return try parse(text)
        } catch {
            throw self.error("\(place): \(error)")
        }
    }

    /// One of an enumeration's profile names, with the nearest one suggested for a typo.
    func choice<Choice: RawRepresentable & CaseIterable>(
        _: Choice.Type
    ) throws(ProfileError) -> Choice where Choice.RawValue == String {
        let text = try string()
        if let value = Choice(rawValue: text) { return value }
        let names = Choice.allCases.map(\.rawValue)
        throw error(
            "\(place): unknown value '\(text)'\(NameSuggestion.hint(for: text, among: names))"
                + " (expected one of: \(names.joined(separator: ", ")))")
    }
}

/// A bound on the work YAML merge keys may cause. Each alias costs nothing to compose, but a
/// merge copies what it names, merges inside it included: 40 levels of `<<: [*a, *a]` in a
/// 2 KB file would take 2^40 merges. No real profile comes near `limit`.
final class MergeBudget {
    /// How many mappings merge keys may expand in one profile, nested merges counted each time.
    static let limit = 1000
    private var remaining = limit

    func spend(at source: ProfileNode) throws(ProfileError) {
        guard remaining > 0 else {
            throw source.error(
                "\(source.place): merge keys ('<<') in this profile expand more than \(Self.limit) mappings;"
                    + " nest or repeat fewer merges")
        }
        remaining -= 1
    }
}

/// A YAML mapping read in profile order, with its keys as text.
struct ProfileMapping {
    struct Entry {
        let key: String
        let keyNode: ProfileNode
        let value: ProfileNode
    }

    let node: ProfileNode
    let entries: [Entry]

    var keys: [String] { entries.map(\.key) }

    func value(_ key: String) -> ProfileNode? {
        entries.first { $0.key == key }?.value
    }

    /// A key that must be there; its absence is reported at the mapping itself.
    func required(_ key: String) throws(ProfileError) -> ProfileNode {
        guard let value = value(key) else { throw node.error("\(node.place) needs '\(key)'") }
        return value
    }

    func requireKnownKeys(_ validKeys: [String]) throws(ProfileError) {
        for entry in entries where !validKeys.contains(entry.key) {
            throw entry.keyNode.error(
                "unknown key '\(entry.key)' in \(node.place)\(NameSuggestion.hint(for: entry.key, among: validKeys))"
                    + " (valid keys: \(validKeys.joined(separator: ", ")))")
        }
    }
}
