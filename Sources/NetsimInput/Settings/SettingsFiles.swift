import NetsimCore
import NetsimModel

// The workload, client and server-policy files (their formats are documented on `Workload`,
// `ClientSettings` and `GRPCServerPolicy`), read through `SettingsMapping`. They live here, not
// beside the types, so that NetsimModel needs no YAML library.

extension Workload {
    /// Reads a workload file (`--workload FILE.yaml`); `source` names it in errors.
    public static func load(yaml: String, source: String) throws(InputFileError) -> Workload {
        let root = try SettingsMapping(yaml: yaml, source: source)
        try root.allowOnly(["serverEvents", "clientMessages", "outboxLimit", "serverBurst"])
        var workload = Workload()
        if let events = try root.mapping("serverEvents") {
            try events.allowOnly(["meanGap", "payload"])
            workload.eventMeanGap = try events.duration("meanGap") ?? workload.eventMeanGap
            workload.eventPayloadBytes = try events.byteCount("payload") ?? workload.eventPayloadBytes
        }
        if let messages = try root.mapping("clientMessages") {
            try messages.allowOnly(["every", "payload", "burst", "over"])
            workload.messageInterval = try messages.duration("every") ?? workload.messageInterval
            workload.messagePayloadBytes = try messages.byteCount("payload") ?? workload.messagePayloadBytes
            try loadMessageBurst(messages, into: &workload)
        }
        workload.outboxLimit = try root.count("outboxLimit", in: 1...100_000) ?? workload.outboxLimit
        if let burst = try root.mapping("serverBurst") {
            try burst.allowOnly(["at", "events", "rate"])
            workload.serverBurst = Workload.ServerBurst(
                at: try burst.duration("at") ?? 0, events: try burst.count("events", in: 1...1_000_000) ?? 1000,
                eventsPerSecond: try burst.rate("rate") ?? 100)
        }
        return workload
    }

    /// `clientMessages.burst` and `over` (strategy 2's bursty uplink).
    private static func loadMessageBurst(_ messages: SettingsMapping, into workload: inout Workload) throws(InputFileError) {
        workload.messageBurst = try messages.count("burst", in: 1...10_000) ?? workload.messageBurst
        workload.messageBurstSpan = try messages.duration("over") ?? workload.messageBurstSpan
        guard workload.messageBurstSpan < workload.messageInterval else {
            throw messages.error(
                at: "over",
                "'clientMessages.over' (\(Quantity.formatDuration(workload.messageBurstSpan))) must be shorter than "
                    + "'clientMessages.every' (\(Quantity.formatDuration(workload.messageInterval)))")
        }
    }
}

extension ClientSettings {
    /// Reads a client file (`--client FILE.yaml`); `source` names it in errors and becomes the
    /// settings' `source`.
    public static func load(yaml: String, source: String) throws(InputFileError) -> ClientSettings {
        let root = try SettingsMapping(yaml: yaml, source: source)
        try root.allowOnly(["rest", "websocket", "grpc", "quic", "reconnect", "batching", "consumer"])
        var settings = ClientSettings()
        settings.source = source
        if let reconnect = try root.choice("reconnect", among: ClientSettings.Reconnect.allCases.map(\.rawValue)) {
            settings.reconnect = ClientSettings.Reconnect(rawValue: reconnect) ?? settings.reconnect
        }
        if let rest = try root.mapping("rest") {
            try rest.allowOnly(["pollInterval", "requestTimeout", "backoff", "watchNetwork"])
            settings.rest.pollInterval = try rest.duration("pollInterval") ?? settings.rest.pollInterval
            if let timeout = try rest.optionalDuration("requestTimeout") { settings.rest.requestTimeout = timeout }
            settings.rest.backoff = try Backoff.load(rest.mapping("backoff"), default: settings.rest.backoff)
            settings.rest.watchNetwork = try rest.flag("watchNetwork") ?? settings.rest.watchNetwork
        }
        if let ws = try root.mapping("websocket") {
            try ws.allowOnly(["pingInterval", "backoff", "watchNetwork", "receiveBuffer"])
            if let interval = try ws.optionalDuration("pingInterval") { settings.ws.pingInterval = interval }
            settings.ws.backoff = try Backoff.load(ws.mapping("backoff"), default: settings.ws.backoff)
            settings.ws.watchNetwork = try ws.flag("watchNetwork") ?? settings.ws.watchNetwork
            settings.ws.receiveBuffer = try ClientSettings.ReceiveBuffer.load(ws, default: settings.ws.receiveBuffer)
        }
        if let quic = try root.mapping("quic") {
            try quic.allowOnly([
                "keepAlivePeriod", "maxIdleTimeout", "serverIdleTimeout", "handshakeTimeout", "zeroRTT", "onNetworkChange",
                "backoff", "watchNetwork",
            ])
            if let period = try quic.optionalDuration("keepAlivePeriod") { settings.quic.keepAlivePeriod = period }
            settings.quic.maxIdleTimeout = try quic.duration("maxIdleTimeout") ?? settings.quic.maxIdleTimeout
            settings.quic.serverIdleTimeout = try quic.duration("serverIdleTimeout") ?? settings.quic.serverIdleTimeout
            settings.quic.handshakeTimeout = try quic.duration("handshakeTimeout") ?? settings.quic.handshakeTimeout
            settings.quic.zeroRTT = try quic.flag("zeroRTT") ?? settings.quic.zeroRTT
            if let choice = try quic.choice("onNetworkChange", among: QUICSettings.NetworkChange.allCases.map(\.rawValue)) {
                settings.quic.onNetworkChange = QUICSettings.NetworkChange(rawValue: choice) ?? settings.quic.onNetworkChange
            }
            settings.quic.backoff = try Backoff.load(quic.mapping("backoff"), default: settings.quic.backoff)
            settings.quic.watchNetwork = try quic.flag("watchNetwork") ?? settings.quic.watchNetwork
        }
        if let grpc = try root.mapping("grpc") {
            try grpc.allowOnly(["keepalive", "backoff", "callTimeLimit", "receiveBuffer", "reconnection"])
            if let keepalive = try grpc.mapping("keepalive") {
                try keepalive.allowOnly(["time", "timeout", "permitWithoutCalls", "maxPingsWithoutData"])
                settings.grpc.keepaliveTime = try keepalive.duration("time") ?? settings.grpc.keepaliveTime
                settings.grpc.keepaliveTimeout = try keepalive.duration("timeout") ?? settings.grpc.keepaliveTimeout
                settings.grpc.permitWithoutCalls = try keepalive.flag("permitWithoutCalls") ?? settings.grpc.permitWithoutCalls
                // C-core's meaning: 0 is no limit.
                if let most = try keepalive.count("maxPingsWithoutData", in: 0...1000) {
                    settings.grpc.maxPingsWithoutData = most == 0 ? nil : most
                }
            }
            settings.grpc.backoff = try Backoff.load(grpc.mapping("backoff"), default: settings.grpc.backoff)
            if let limit = try grpc.optionalDuration("callTimeLimit") { settings.grpc.callTimeLimit = limit }
            settings.grpc.receiveBuffer = try ClientSettings.ReceiveBuffer.load(grpc, default: settings.grpc.receiveBuffer)
            if let choice = try grpc.choice("reconnection", among: GRPCReconnection.allCases.map(\.rawValue)) {
                settings.grpc.reconnection = GRPCReconnection(rawValue: choice)
            }
        }
        if let batching = try root.mapping("batching") {
            try batching.allowOnly(["maxMessages", "flushAfter"])
            var batcher = ClientSettings.Batching()
            batcher.maxMessages = try batching.count("maxMessages", in: 1...10_000) ?? batcher.maxMessages
            batcher.flushAfter = try batching.duration("flushAfter") ?? batcher.flushAfter
            settings.batching = batcher
        }
        if let consumer = try root.mapping("consumer") {
            try consumer.allowOnly(["rate"])
            guard let rate = try consumer.rate("rate") else { throw root.error(at: "consumer", "'consumer' needs a 'rate', such as 50/s") }
            settings.consumer = ClientSettings.Consumer(eventsPerSecond: rate)
        }
        return settings
    }
}

extension ClientSettings.ReceiveBuffer {
    /// A `receiveBuffer` key of `section`: a number of events, `unbounded` or `pull`.
    static func load(_ section: SettingsMapping, default fallback: Self) throws(InputFileError) -> Self {
        switch try section.countOrWord("receiveBuffer", in: 1...1_000_000, words: ["unbounded", "pull"]) {
        case nil: fallback
        case .count(let limit): .bounded(limit)
        case .word("unbounded"): .unbounded
        case .word: .pull
        }
    }
}

extension Backoff {
    /// A `backoff` mapping of a client file over `fallback`; nil (no mapping) is `fallback`.
    static func load(_ mapping: SettingsMapping?, default fallback: Backoff) throws(InputFileError) -> Backoff {
        guard let mapping else { return fallback }
        try mapping.allowOnly(["initial", "max", "multiplier", "jitter"])
        var backoff = fallback
        backoff.initial = try mapping.duration("initial") ?? backoff.initial
        backoff.maximum = try mapping.duration("max") ?? backoff.maximum
        backoff.multiplier = try mapping.number("multiplier", in: 1...10) ?? backoff.multiplier
        backoff.jitter = try mapping.number("jitter", in: 0...1) ?? backoff.jitter
        return backoff
    }
}

extension GRPCServerPolicy {
    /// A policy file (`--server-policy FILE.yaml`; every key optional, defaults grpc-core's):
    /// ```yaml
    /// minPingInterval: 5m     # or none: pings are never policed
    /// allowWithoutCalls: false
    /// maxPingStrikes: 2
    /// keepalive: {time: 2h, timeout: 20s}   # time may be none
    /// ```
    public static func load(yaml: String, source: String) throws(InputFileError) -> GRPCServerPolicy {
        let root = try SettingsMapping(yaml: yaml, source: source)
        try root.allowOnly(["minPingInterval", "allowWithoutCalls", "maxPingStrikes", "keepalive"])
        var policy = GRPCServerPolicy.grpcCore
        policy.name = source
        if let interval = try root.optionalDuration("minPingInterval") { policy.minPingInterval = interval }
        policy.allowWithoutCalls = try root.flag("allowWithoutCalls") ?? policy.allowWithoutCalls
        policy.maxPingStrikes = try root.count("maxPingStrikes", in: 0...1000) ?? policy.maxPingStrikes
        if let keepalive = try root.mapping("keepalive") {
            try keepalive.allowOnly(["time", "timeout"])
            if let time = try keepalive.optionalDuration("time") { policy.keepaliveTime = time }
            policy.keepaliveTimeout = try keepalive.duration("timeout") ?? policy.keepaliveTimeout
        }
        return policy
    }
}
