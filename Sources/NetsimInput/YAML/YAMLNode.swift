import NetsimCore
import Yams

/// A YAML node together with what it is in its file ("link 'up' of network 'lte'") and the
/// file it came from, so that every reading error names the file, line and column of the
/// offending node and says in words where it was. netsim's one YAML reader: profiles and the
/// workload, client and server-policy files (`SettingsMapping`) are all read through it.
package struct YAMLNode {
    package let node: Node
    /// What the node is, for messages: "'delay' in link 'up' of network 'lte'".
    package let place: String
    package let file: String
    /// Shared by every node of one file: how many more mappings merge keys may expand.
    let mergeBudget: MergeBudget

    init(node: Node, place: String, file: String, mergeBudget: MergeBudget) {
        self.node = node
        self.place = place
        self.file = file
        self.mergeBudget = mergeBudget
    }

    /// Parses a whole file: its root node, described in messages as `place` ("the profile"),
    /// with a fresh merge budget; nil for an empty document. A syntax error is located where
    /// libyaml found it.
    package static func compose(yaml: String, file: String, describedAs place: String) throws(InputFileError) -> YAMLNode? {
        let root: Node?
        do {
            root = try Yams.compose(yaml: yaml)
        } catch {
            throw syntaxError(error, source: file, yaml: yaml)
        }
        return root.map { YAMLNode(node: $0, place: place, file: file, mergeBudget: MergeBudget()) }
    }

    /// A node under this one.
    private func child(_ node: Node, place: String) -> YAMLNode {
        YAMLNode(node: node, place: place, file: file, mergeBudget: mergeBudget)
    }

    /// An error located at this node.
    package func error(_ message: String) -> InputFileError {
        InputFileError(file: file, line: node.mark?.line ?? 1, column: node.mark?.column ?? 1, message: message)
    }

    /// The same node under another description (a network's mapping is "network 'lte'").
    func named(_ place: String) -> YAMLNode {
        child(node, place: place)
    }

    /// An empty value (`key:` with nothing after it), `~` or `null`.
    package var isNull: Bool {
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

    package func mismatch(expected: String) -> InputFileError {
        error("\(place) must be \(expected), not \(shape)")
    }

    /// The node as a mapping whose keys are all among `keys`; an unknown key is reported at
    /// the key with the valid keys and the nearest one.
    package func mapping(keys: [String]) throws(InputFileError) -> YAMLMapping {
        let mapping = try mapping()
        try mapping.requireKnownKeys(keys)
        return mapping
    }

    /// The node as a mapping, keys not checked yet (for mappings whose valid keys depend on
    /// one of their values, such as a radio's `model`).
    ///
    /// YAML merge keys are applied (`<<: *common`, or a list of aliases): a profile can define
    /// a link once and share it between networks. Keys given explicitly win, as in YAML 1.1.
    package func mapping() throws(InputFileError) -> YAMLMapping {
        guard case .mapping(let mapping) = node else { throw mismatch(expected: "a mapping") }
        var entries: [YAMLMapping.Entry] = []
        var merged: [YAMLMapping.Entry] = []
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
        return YAMLMapping(node: self, entries: entries)
    }

    func sequence() throws(InputFileError) -> [YAMLNode] {
        guard case .sequence(let sequence) = node else { throw mismatch(expected: "a list") }
        return sequence.enumerated().map { child($1, place: "item \($0 + 1) of \(place)") }
    }

    /// A non-empty scalar's text.
    package func string() throws(InputFileError) -> String {
        guard case .scalar(let scalar) = node, !isNull, !scalar.string.isEmpty else { throw mismatch(expected: "a text") }
        return scalar.string
    }

    /// `true` or `false`.
    func flag() throws(InputFileError) -> Bool {
        guard case .scalar = node, let flag = node.bool else { throw mismatch(expected: "true or false") }
        return flag
    }

    /// A value with a unit, parsed by one of the `Quantity` parsers. A bare number is refused
    /// with a hint (`unitExample` is a unit suffix such as "ms"): a profile always says its
    /// units, so `delay: 20` cannot silently mean 20 seconds.
    func quantity<Value>(
        _ parse: (String) throws(Quantity.ParseError) -> Value, unitExample: String
    ) throws(InputFileError) -> Value {
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
    ) throws(InputFileError) -> Choice where Choice.RawValue == String {
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

    func spend(at source: YAMLNode) throws(InputFileError) {
        guard remaining > 0 else {
            throw source.error(
                "\(source.place): merge keys ('<<') in this profile expand more than \(Self.limit) mappings;"
                    + " nest or repeat fewer merges")
        }
        remaining -= 1
    }
}

/// A YAML mapping read in file order, with its keys as text.
package struct YAMLMapping {
    package struct Entry {
        package let key: String
        package let keyNode: YAMLNode
        package let value: YAMLNode
    }

    package let node: YAMLNode
    package let entries: [Entry]

    var keys: [String] { entries.map(\.key) }

    package func value(_ key: String) -> YAMLNode? {
        entries.first { $0.key == key }?.value
    }

    /// A key that must be there; its absence is reported at the mapping itself.
    func required(_ key: String) throws(InputFileError) -> YAMLNode {
        guard let value = value(key) else { throw node.error("\(node.place) needs '\(key)'") }
        return value
    }

    func requireKnownKeys(_ validKeys: [String]) throws(InputFileError) {
        for entry in entries where !validKeys.contains(entry.key) {
            throw entry.keyNode.error(
                "unknown key '\(entry.key)' in \(node.place)\(NameSuggestion.hint(for: entry.key, among: validKeys))"
                    + " (valid keys: \(validKeys.joined(separator: ", ")))")
        }
    }
}

extension YAMLNode {
    /// A Yams error as a located `InputFileError`, keeping libyaml's own wording of the problem.
    private static func syntaxError(_ error: any Error, source: String, yaml: String) -> InputFileError {
        func located(_ mark: Mark, _ message: String) -> InputFileError {
            InputFileError(file: source, line: mark.line, column: mark.column, message: message)
        }
        guard let yamlError = error as? YamlError else {
            return InputFileError(file: source, line: 1, column: 1, message: "cannot read the YAML: \(error)")
        }
        switch yamlError {
        case .scanner(let context, let problem, let mark, _),
            .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            let contextNote = context.map { " (\($0.text) at line \($0.mark.line), column \($0.mark.column))" } ?? ""
            return located(mark, "YAML syntax error: \(problem)\(contextNote)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            let keys = duplicates.map { "'\($0)'" }.joined(separator: ", ")
            return located(context.mark, "duplicate key \(keys): each key may appear only once in a mapping")
        case .reader(let problem, let offset, _, _):
            let (line, column) = lineAndColumn(ofCharacterOffset: offset ?? 0, in: yaml)
            return InputFileError(file: source, line: line, column: column, message: "cannot read the YAML: \(problem)")
        default:
            return InputFileError(file: source, line: 1, column: 1, message: "cannot read the YAML: \(yamlError)")
        }
    }

    private static func lineAndColumn(ofCharacterOffset offset: Int, in text: String) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        for character in text.prefix(offset) {
            if character.isNewline {
                line += 1
                column = 1
            } else {
                column += character.unicodeScalars.count
            }
        }
        return (line, column)
    }
}
