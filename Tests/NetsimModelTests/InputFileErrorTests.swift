import NetsimCore
import NetsimInput
import NetsimTestSupport
import Testing

@testable import NetsimModel

/// Profiles, workload, client and server-policy files are read by one YAML reader: a misspelt
/// key and a value of the wrong type are reported at FILE:LINE:COLUMN, a misspelt key with the
/// nearest valid one.
@Suite(.computes)
struct InputFileErrorTests {
    static func message(_ load: () throws -> Void) -> String? {
        do {
            try load()
            return nil
        } catch {
            return "\(error)"
        }
    }

    static let profileStart = """
        name: x
        description: y
        networks:
          lte:
            radio: none

        """

    @Test(arguments: [
        // A misspelt key, at the key, with the nearest valid one.
        (
            "workload.yaml", "serverEvents:\n  meanGap: 30s\n  paylod: 1KiB\n",
            "workload.yaml:3:3: unknown key 'serverEvents.paylod'; did you mean 'payload'? (known here: meanGap, payload)"
        ),
        (
            "client.yaml", "grpc:\n  keepalive: {time: 60s, timout: 10s}\n",
            "client.yaml:2:26: unknown key 'grpc.keepalive.timout'; did you mean 'timeout'? (known here: time, timeout, permitWithoutCalls, maxPingsWithoutData)"
        ),
        (
            "policy.yaml", "minPingIntervall: 5m\n",
            "policy.yaml:1:1: unknown key 'minPingIntervall'; did you mean 'minPingInterval'? (known here: minPingInterval, allowWithoutCalls, maxPingStrikes, keepalive)"
        ),
        // A value of the wrong type, at the value.
        (
            "workload.yaml", "clientMessages:\n  every: [60s]\n",
            "workload.yaml:2:10: 'clientMessages.every' must be a duration such as 500ms or 30s"
        ),
        (
            "client.yaml", "grpc:\n  receiveBuffer: lots\n",
            "client.yaml:2:18: 'grpc.receiveBuffer' must be a whole number from 1 to 1000000, unbounded or pull"
        ),
        (
            "policy.yaml", "allowWithoutCalls: 'true'\n",
            "policy.yaml:1:20: 'allowWithoutCalls' must be true or false"
        ),
    ])
    func settingsFiles(file: String, yaml: String, expected: String) {
        let message = Self.message {
            switch file {
            case "workload.yaml": _ = try Workload.load(yaml: yaml, source: file)
            case "client.yaml": _ = try ClientSettings.load(yaml: yaml, source: file)
            default: _ = try GRPCServerPolicy.load(yaml: yaml, source: file)
            }
        }
        #expect(message == expected)
    }

    @Test func profiles() {
        let typo = Self.message {
            _ = try ProfileLoader.load(yaml: Self.profileStart + "nat: {idleTimout: 30s}\n", source: "p.yaml") { _ in "" }
        }
        #expect(typo?.hasPrefix("p.yaml:6:7: unknown key 'idleTimout' in 'nat'; did you mean 'idleTimeout'?") == true, "\(typo ?? "")")
        let wrongType = Self.message {
            _ = try ProfileLoader.load(yaml: Self.profileStart + "nat: {idleTimeout: [30s]}\n", source: "p.yaml") { _ in "" }
        }
        #expect(wrongType?.hasPrefix("p.yaml:6:20: ") == true, "\(wrongType ?? "")")
    }

    /// The reader's YAML syntax errors are located too, for settings files as for profiles.
    @Test func syntaxErrors() {
        let message = Self.message { _ = try Workload.load(yaml: "serverEvents:\n  meanGap: 30s\n payload: 1KiB\n", source: "w.yaml") }
        #expect(message?.hasPrefix("w.yaml:3:") == true, "\(message ?? "")")
        let duplicate = Self.message { _ = try ClientSettings.load(yaml: "rest: {}\nrest: {}\n", source: "c.yaml") }
        #expect(duplicate?.contains("duplicate key 'rest'") == true, "\(duplicate ?? "")")
    }
}
