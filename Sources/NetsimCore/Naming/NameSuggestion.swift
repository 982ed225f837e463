/// "Did you mean" hints: the candidate nearest to a misspelt name by edit distance.
package enum NameSuggestion {
    /// The nearest candidate, ignoring case, or nil when none is close enough to be a plausible
    /// typo (more than a third of the name's letters, and at least two, would have to change).
    package static func nearest(to name: String, among candidates: some Sequence<String>) -> String? {
        let limit = max(2, name.count / 3)
        let scored = candidates.map { (candidate: $0, distance: editDistance(name.lowercased(), $0.lowercased())) }
        guard let best = scored.min(by: { $0.distance < $1.distance }), best.distance <= limit else { return nil }
        return best.candidate
    }

    /// Levenshtein distance over characters.
    static func editDistance(_ source: String, _ target: String) -> Int {
        let source = Array(source)
        let target = Array(target)
        var previousRow = Array(0...target.count)
        for (sourceIndex, sourceCharacter) in source.enumerated() {
            var row = [sourceIndex + 1]
            for (targetIndex, targetCharacter) in target.enumerated() {
                let substitution = previousRow[targetIndex] + (sourceCharacter == targetCharacter ? 0 : 1)
                row.append(min(substitution, previousRow[targetIndex + 1] + 1, row[targetIndex] + 1))
            }
            previousRow = row
        }
        return previousRow[target.count]
    }

    /// "; did you mean 'x'?" or nothing, to append to a message about an unknown name.
    package static func hint(for name: String, among candidates: some Sequence<String>) -> String {
        nearest(to: name, among: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }
}
