import NetsimModel

extension ModelBenchRunner {
    /// The client-file settings the model engine does not play, as `key: value` or, for a
    /// strategy block, its key: its transport models resume (resilient) or subscribe from now
    /// (naive), and each event is handled as it comes (no consumer or receive buffer).
    public static func unsupportedSettings(_ client: ClientSettings) -> [String] {
        var settings: [String] = []
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
            + "handle each event as it comes); play it with --engine live"
    }
}
