import GRPCCore
import GRPCNIOTransportHTTP2Posix
import Hummingbird
import Logging
import NetsimModel
import ServiceLifecycle

/// The transports' servers, one per transport, run together in a ServiceGroup on loopback, for
/// the span of a bench: `run` starts them, hands them to its body, and stops them however the
/// body ends. The ServiceGroup runs as a child task of `run`'s task group, so no server
/// outlives the bench.
struct BenchServers {
    /// Each transport's store and bound port.
    let stores: [BenchTransport: EventStore]
    let ports: [BenchTransport: Int]

    struct StartFailure: Error, CustomStringConvertible {
        let transport: BenchTransport
        var description: String { "the \(transport.title) server did not start" }
    }

    static func run<Result>(
        _ transports: [BenchTransport], schedules: [DeviceSchedule], client: ClientSettings, grpcPolicy: GRPCServerPolicy,
        clock: BenchClock, logger: Logger, isolation: isolated (any Actor)? = #isolation,
        _ body: (BenchServers) async throws -> Result
    ) async throws -> Result {
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
        let grpc = grpcTransport
        let startedStores = stores
        return try await withThrowingTaskGroup(of: Void.self, returning: Result.self) { tasks in
            tasks.addTask {
                // A server that fails to bind ends the group: stop waiting for ports then.
                defer { binding.finish() }
                try await group.run()
            }
            let servers: BenchServers
            do {
                servers = BenchServers(stores: startedStores, ports: try await boundPorts(transports, grpc: grpc, others: bound))
            } catch {
                await group.triggerGracefulShutdown()
                // The group's own error, when a server failed to bind, says why; else this one.
                try await tasks.waitForAll()
                throw error
            }
            let result: Result
            do {
                result = try await body(servers)
            } catch {
                await servers.stop(group)
                try? await tasks.waitForAll()
                throw error
            }
            await servers.stop(group)
            try? await tasks.waitForAll()
            return result
        }
    }

    /// Each transport's port: gRPC's from its transport, the others' as their servers report them.
    private static func boundPorts(
        _ transports: [BenchTransport], grpc: HTTP2ServerTransport.Posix?, others bound: AsyncStream<(BenchTransport, Int)>
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
        // The group ended before that server bound.
        if let missing = pending.sorted().first { throw StartFailure(transport: missing) }
        return ports
    }

    /// Ends the sessions the servers hold open (long polls, streams), then shuts the group down
    /// gracefully: open calls finish.
    private func stop(_ group: ServiceGroup) async {
        for store in stores.values { store.closeSessions() }
        await group.triggerGracefulShutdown()
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
