import NetsimModel

extension ModelBenchRunner {
    /// The client-file settings the model engine does not play, as `key: value` or, for a
    /// strategy block, its key: its transport models resume (resilient) or subscribe from now
    /// (naive), REST and WebSocket do not watch the network, and each event is handled as it
    /// comes (no consumer or receive buffer).
    public static func unsupportedSettings(_ client: ClientSettings) -> [String] {
        var settings: [String] = []
        if client.rest.watchNetwork { settings.append("rest.watchNetwork: true") }
        if client.ws.watchNetwork { settings.append("websocket.watchNetwork: true") }
        if client.consumer != nil { settings.append("consumer") }
        if client.ws.receiveBuffer != ClientSettings().ws.receiveBuffer { settings.append("websocket.receiveBuffer") }
        if case .bounded = client.grpc.receiveBuffer {} else { settings.append("grpc.receiveBuffer") }
        return settings
    }

    /// Why `--engine model` cannot play `client`, naming its file and keys; nil when it can.
    public static func refusal(of client: ClientSettings) -> String? {
        let settings = unsupportedSettings(client)
        guard !settings.isEmpty else { return nil }
        return "\(client.source): \(settings.joined(separator: ", ")) is not modelled by --engine model (its clients "
            + "handle each event as it comes, and its REST and WebSocket clients do not "
            + "watch the network); play it with --engine live"
    }
}
