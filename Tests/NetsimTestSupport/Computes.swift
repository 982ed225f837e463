import Testing

/// The trait of a suite whose tests only compute (models, parsers, reports, the model engine,
/// proxies on virtual time): no socket and no wall clock in any verdict. Its tests run on
/// `TestThreads.computing`, at the lowest priority, so that `swift test` can run them in
/// parallel beside the live tests (`.playsLive`) without taking the CPU those time their round
/// trips with.
///
/// Every suite carries one of the two; one that carries neither runs on Swift's cooperative
/// pool, where a long synchronous test delays the live tests' awaits.
public struct Computes: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    /// A scope for each test case.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withTaskExecutorPreference(TestThreads.computing) {
            try await function()
        }
    }
}

extension Trait where Self == Computes {
    /// The suite only computes: see `Computes`.
    public static var computes: Self { Computes() }
}
