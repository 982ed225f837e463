import GRPCCore
import GRPCNIOTransportHTTP2Posix
import Hummingbird
import Logging
import NetsimModel
import ServiceLifecycle

/// The transports' servers, one per transport, run together in a ServiceGroup on loopback.
struct BenchServers {
    /// Each transport's store and bound port.
    let stores: [BenchTransport: EventStore]
    let ports: [BenchTransport: Int]
    private let group: ServiceGroup
    private let running: Task<Void, any Error>

    struct StartFailure: Error, CustomStringConvertible {
        let transport: BenchTransport
        var description: String { "the \(transport.title) server did not start" }
    }

    static func start(
        _ transports: [BenchTransport], schedules: [DeviceSchedule], client: ClientSettings, grpcPolicy: GRPCServerPolicy,
        clock: BenchClock, logger: Logger
    ) async throws -> BenchServers {
        let (bound, binding) = AsyncStream.makeStream(
            of: (BenchTransport, Int).self, bufferingPolicy: .bufferingOldest(BenchTransport.allCases.count))
        var stores: [BenchTransport: EventStore] = [:]
        var services: [any Service] = []
        var grpcTransport: HTTP2ServerTransport.Posix?
        for transport in transports {
            let store = EventStore(schedules: schedules)
            stores[transport] = store
            switch transport {
            case .rest:
                services.append(
                    RESTServer.application(store: store, clock: clock, logger: logger) { port in binding.yield((.rest, port)) })
            case .ws:
                services.append(
                    WebSocketServer.application(
                        store: store, clock: clock, pingInterval: client.ws.pingInterval, logger: logger
                    ) { port in binding.yield((.ws, port)) })
            case .grpc:
                let serverTransport = EventStreamService.transport(policy: grpcPolicy, timeScale: clock.timeScale)
                grpcTransport = serverTransport
                let server = GRPCServer(transport: serverTransport, services: [EventStreamService(store: store, clock: clock)])
                services.append(GRPCServerService(server: server))
            case .quic:
                // Refused before any server starts (`BenchConfiguration.problem`).
                throw StartFailure(transport: .quic)
            }
        }
        let group = ServiceGroup(services: services, logger: logger)
        let running = Task { try await group.run() }
        // A server that fails to bind ends the group: stop waiting for ports then.
        Task {
            _ = await running.result
            binding.finish()
        }
        do {
            let ports = try await boundPorts(transports, grpc: grpcTransport, others: bound, running: running)
            return BenchServers(stores: stores, ports: ports, group: group, running: running)
        } catch {
            await group.triggerGracefulShutdown()
            _ = await running.result
            throw error
        }
    }

    /// Each transport's port: gRPC's from its transport, the others' as their servers report them.
    private static func boundPorts(
        _ transports: [BenchTransport], grpc: HTTP2ServerTransport.Posix?, others bound: AsyncStream<(BenchTransport, Int)>,
        running: Task<Void, any Error>
    ) async throws -> [BenchTransport: Int] {
        var ports: [BenchTransport: Int] = [:]
        if let grpc {
            guard let port = try await grpc.listeningAddress.ipv4?.port else { throw StartFailure(transport: .grpc) }
            ports[.grpc] = port
        }
        var pending = Set(transports).subtracting(ports.keys)
        if !pending.isEmpty {
            for await (transport, port) in bound where pending.contains(transport) {
                ports[transport] = port
                pending.remove(transport)
                if pending.isEmpty { break }
            }
        }
        if let missing = pending.sorted().first {
            // The group ended before that server bound: its error says why.
            try await running.value
            throw StartFailure(transport: missing)
        }
        return ports
    }

    func stop() async {
        for store in stores.values { store.closeSessions() }
        await group.triggerGracefulShutdown()
        _ = await running.result
    }
}

/// A gRPC server as a ServiceLifecycle service: graceful shutdown lets open calls finish.
struct GRPCServerService: Service {
    let server: GRPCServer<HTTP2ServerTransport.Posix>

    func run() async throws {
        try await withGracefulShutdownHandler {
            try await server.serve()
        } onGracefulShutdown: {
            server.beginGracefulShutdown()
        }
    }
}
