import NetsimModel

extension ModelBenchRunner {
    /// The client-file settings the model engine does not play, as `key: value`: its transport
    /// models resume (resilient) or subscribe from now (naive), and REST and WebSocket do not
    /// watch the network. It plays a consumer and every receive buffer (`AppInbox`).
    public static func unsupportedSettings(_ client: ClientSettings) -> [String] {
        var settings: [String] = []
        if client.rest.watchNetwork { settings.append("rest.watchNetwork: true") }
        if client.ws.watchNetwork { settings.append("websocket.watchNetwork: true") }
        return settings
    }

    /// Why `--engine model` cannot play `client`, naming its file and keys; nil when it can.
    public static func refusal(of client: ClientSettings) -> String? {
        let settings = unsupportedSettings(client)
        guard !settings.isEmpty else { return nil }
        return "\(client.source): \(settings.joined(separator: ", ")) is not modelled by --engine model (its REST and WebSocket "
            + "clients do not watch the network); play it with --engine live"
    }
}
