/// A mistake in a YAML input (a profile, a workload, client or server-policy file), located at
/// the node that causes it, so an editor or a CI log can jump straight to it:
/// `lte.yaml:12:7: unknown key 'delai' in link 'up'; did you mean 'delay'?`
public struct InputFileError: Error, CustomStringConvertible, Equatable {
    /// The file's source name (its path, or `built-in/NAME.yaml` for a built-in profile).
    public var file: String
    /// Line and column start at 1, columns counted in Unicode scalars (as libyaml counts them).
    public var line: Int
    public var column: Int
    public var message: String

    public init(file: String, line: Int, column: Int, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String { "\(file):\(line):\(column): \(message)" }
}
