import NetsimTestSupport
import Testing

@testable import NetsimInput

@Suite(.computes)
struct EmbeddedTraceTests {
    /// One character per gap (0-9, a-z, A-Z for 0 to 61 ms), longer gaps in parentheses,
    /// newlines skipped.
    @Test func decodesGapsToTimestamps() {
        #expect(EmbeddedTrace.decode("3a0\nZ(62)(1000)") == "3\n13\n13\n74\n136\n1136\n")
        #expect(EmbeddedTrace.decode("") == "")
    }
}
