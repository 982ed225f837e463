/// A pause of the profile's timeline, for reports: from `at` until `resumedAt` (nil while in force).
public struct TimelinePause: Sendable, Codable, Equatable {
    public var at: Double
    public var resumedAt: Double?

    public init(at: Double, resumedAt: Double? = nil) {
        self.at = at
        self.resumedAt = resumedAt
    }
}
