import Foundation

/// A request target's path and query parameters, read once by `URLComponents` for the route
/// and its parameters alike.
struct AdminQuery {
    let path: String
    private let items: [URLQueryItem]

    init(target: String) {
        let components = URLComponents(string: target)
        path = components?.path ?? target
        items = components?.queryItems ?? []
    }

    /// The query parameters, each of them one of `allowed` and given once: of two values, which
    /// one was meant is a guess, as with a duplicate key in YAML.
    func parameters(allowed: [String]) throws -> [String: String] {
        if let unknown = items.first(where: { !allowed.contains($0.name) }) {
            let takes = allowed.isEmpty ? "no parameters" : allowed.joined(separator: ", ")
            throw AdminError("unknown parameter '\(unknown.name)' for \(path); it takes \(takes)")
        }
        var query: [String: String] = [:]
        for item in items {
            guard query.updateValue(item.value ?? "", forKey: item.name) == nil else {
                throw AdminError("duplicate parameter '\(item.name)' for \(path): give each parameter once")
            }
        }
        return query
    }
}
