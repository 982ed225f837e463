import NetsimCore

/// A profile that could not be found or read, before any of its YAML was looked at.
public enum ProfileLookupError: Error, CustomStringConvertible, Equatable {
    case unreadable(path: String, reason: String)
    /// A name that is neither a path, nor in `./profiles`, nor built in.
    case unknownName(String, suggestion: String?, builtinNames: [String])

    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            return "\(path): \(reason)"
        case .unknownName(let name, let suggestion, let builtinNames):
            let hint = suggestion.map { "; did you mean '\($0)'?" } ?? ""
            return "no profile named '\(name)': no profiles/\(name).yaml here and no built-in of that name\(hint)"
                + " (built-in profiles: \(builtinNames.joined(separator: ", ")))"
        }
    }
}
