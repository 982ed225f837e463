import Testing

/// A suite trait that wraps each of its tests' cases, not the suite: what `.computes` and
/// `.playsLive` share, so that a parameterized test's cases each take their own threads, turn
/// and time limit.
public protocol TestCaseScope: SuiteTrait, TestTrait, TestScoping {}

extension TestCaseScope {
    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }
}
