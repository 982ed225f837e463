// swift-tools-version:6.1
import Foundation
import PackageDescription

/// netsim: a mobile-network emulator and protocol benchmark.
///
/// The layout follows the architecture: `NetsimCore` is pure (profiles, link, radio, timeline
/// and energy models; time is always an input, randomness always seeded); `NetsimInput` reads
/// the YAML files into its values; `NetsimCLI` holds one file per subcommand; `netsim` is the
/// thin executable.
let package = Package(
    name: "netsim",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "netsim", targets: ["netsim"]),
        .library(name: "NetsimCore", targets: ["NetsimCore"]),
        // An emulated phone inside a Swift test suite (docs/swift-api.md).
        .library(name: "NetsimTesting", targets: ["NetsimTesting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/grpc/grpc-swift-2", from: "2.4.3"),
        .package(url: "https://github.com/grpc/grpc-swift-nio-transport", from: "2.9.2"),
        .package(url: "https://github.com/grpc/grpc-swift-protobuf", from: "2.4.1"),
        // The two packages' default traits turned off, as the packages that depend on them here
        // already do. Unused (swift-configuration, full Foundation, FieldMask helpers, delimited
        // streams), they cost build time, and two traits of a package make builds unrepeatable:
        // SwiftPM orders their `-D` flags anew at each build plan, and a changed command line
        // compiles the package again (`--build-tests` after `--product netsim` compiled
        // Hummingbird or SwiftProtobuf a second time in each fresh clone timed).
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // The admin API's event streams: events and heartbeats merged, pulled on demand.
        .package(url: "https://github.com/apple/swift-async-algorithms.git", from: "1.1.4"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", exact: "2.0.1"),
        // Already built for swift-certificates: the analyzer decrypts QUIC Initial packets.
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // `netsim run -- COMMAND`: a child with signals at their defaults and none blocked, and
        // SIGTERM then SIGKILL when the run ends first.
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
        // `Deque`: the first-in first-out queues of the link, the proxy's delay lines and the
        // model's app buffers (already built for swift-nio).
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    ],
    targets: [
        .target(
            name: "NetsimCore",
            dependencies: [
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "DequeModule", package: "swift-collections"),
            ]),
        // The reports: their documents (Markdown, HTML, SVG), JSON trees and schemas, gates,
        // baselines, shard merging and `report compare`. Over NetsimCore; no model depends on it.
        .target(name: "NetsimReport", dependencies: ["NetsimCore"]),
        // The model engine: the bench's workload, client settings and transports played in virtual
        // time over NetsimCore's models. Pure like NetsimCore: no NIO, no clock, no YAML.
        .target(
            name: "NetsimModel", dependencies: ["NetsimCore", .product(name: "DequeModule", package: "swift-collections")]),
        // Reading the YAML inputs into those models' values: profiles (and the built-in ones),
        // workload, client and server-policy files, every error at FILE:LINE:COLUMN.
        .target(
            name: "NetsimInput",
            dependencies: ["NetsimCore", "NetsimModel", .product(name: "Yams", package: "Yams")]
        ),
        // The keepalive tuner: sweeps of the model engine, the recommendation and its reports.
        .target(name: "NetsimTune", dependencies: ["NetsimModel", "NetsimCore", "NetsimReport"]),
        // The lifecycle of one proxied connection as a pure state machine: no NIO, no clock.
        .target(name: "NetsimConnection", dependencies: ["NetsimCore", .product(name: "DequeModule", package: "swift-collections")]),
        .target(
            name: "NetsimProxy",
            dependencies: [
                "NetsimCore",
                .product(name: "Prometheus", package: "swift-prometheus"),
                "NetsimConnection",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSOCKS", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The admin API over a running proxy: its server, access rules, event streams and the
        // live dashboard. No NetsimInput: POST /set is handed its reader (`AdminServer.SetChangeReader`).
        .target(
            name: "NetsimAdmin",
            dependencies: [
                "NetsimProxy", "NetsimCore", "NetsimReport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
            ],
            // The dashboard's page, style sheet and script (its logic and its wiring), compiled
            // into the binary as bytes (`PackageResources`), so that it serves them with no files
            // beside it.
            resources: [
                .embedInCode("Dashboard/dashboard.html"), .embedInCode("Dashboard/dashboard.css"),
                .embedInCode("Dashboard/dashboard-logic.js"), .embedInCode("Dashboard/dashboard.js"),
            ]
        ),
        // EmulatedPhone: the proxy as a Swift API for tests.
        .target(
            name: "NetsimTesting",
            dependencies: [
                "NetsimProxy", "NetsimInput", "NetsimCore", "NetsimReport",
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .systemLibrary(
            name: "CPcap",
            path: "Sources/CPcap",
            pkgConfig: "libpcap",
            providers: [.apt(["libpcap-dev"]), .brew(["libpcap"])]
        ),
        .target(
            name: "NetsimPcap",
            dependencies: [
                "NetsimCore", "NetsimReport", "CPcap", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]),
        // The benchmark: workload, the REST, WebSocket and gRPC servers and clients, metrics,
        // reports and thresholds. Its gRPC code is generated by scripts/generate-grpc.sh and
        // committed (the build-tool plugin would compile protoc from source on every clean build).
        .target(
            name: "NetsimBench",
            dependencies: [
                "NetsimCore", "NetsimReport",
                "NetsimModel",
                "NetsimProxy",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCNIOTransportHTTP2Posix", package: "grpc-swift-nio-transport"),
                .product(name: "GRPCProtobuf", package: "grpc-swift-protobuf"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]
        ),
        // Measured phones: readers of measurement files, the radio fit and the fidelity score.
        .target(name: "NetsimCalibration", dependencies: ["NetsimCore", "NetsimReport", "NetsimInput"]),
        .target(
            name: "NetsimCLI",
            dependencies: [
                "NetsimCalibration",
                "NetsimCore", "NetsimReport",
                "NetsimModel",
                "NetsimInput",
                "NetsimTune",
                "NetsimProxy",
                "NetsimAdmin",
                "NetsimBench",
                "NetsimPcap",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Subprocess", package: "swift-subprocess"),
            ]
        ),
        .executableTarget(
            name: "netsim",
            dependencies: ["NetsimCLI", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // What the test targets share (the live-timing tag, the test material's paths), so that each does not keep a copy.
        .target(name: "NetsimTestSupport", path: "Tests/NetsimTestSupport"),
        .testTarget(name: "NetsimCoreTests", dependencies: ["NetsimCore", "NetsimTestSupport"]),
        // The YAML reader's tests: profiles, built-ins, traces and hostile files.
        .testTarget(
            name: "NetsimInputTests",
            dependencies: [
                "NetsimInput", "NetsimCore", "NetsimTestSupport", .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(name: "NetsimReportTests", dependencies: ["NetsimReport", "NetsimCore", "NetsimInput", "NetsimTestSupport"]),
        .testTarget(name: "NetsimModelTests", dependencies: ["NetsimModel", "NetsimInput", "NetsimCore", "NetsimTestSupport"]),
        .testTarget(
            name: "NetsimTuneTests",
            dependencies: ["NetsimTune", "NetsimModel", "NetsimInput", "NetsimCore", "NetsimReport", "NetsimTestSupport"]),
        .testTarget(name: "NetsimConnectionTests", dependencies: ["NetsimConnection", "NetsimCore", "NetsimTestSupport"]),
        .testTarget(
            name: "NetsimProxyTests",
            dependencies: [
                "NetsimProxy", "NetsimReport", "NetsimTestSupport",
                // The admin API's tests share the proxy's loopback rigs.
                "NetsimAdmin",
                "NetsimPcap",
                "NetsimInput",
                // The model's QUIC client, checked against a live one (QUICModelAgreementTests).
                "NetsimModel",
                // The tuner's C-core snippet, played by grpcio (GRPCCoreKeepaliveTests).
                "NetsimTune",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                // The admin API's routes, tested without sockets (`app.test(.router)`).
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            // The python peers of the front ends' end-to-end tests.
            exclude: ["Peers"]
        ),
        .testTarget(
            name: "NetsimTestingTests",
            dependencies: [
                "NetsimTesting", "NetsimProxy", "NetsimCore", "NetsimReport", "NetsimTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "NetsimPcapTests",
            dependencies: [
                "NetsimPcap", "NetsimCore", "NetsimReport", "NetsimTestSupport", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ], exclude: ["Fixtures"]),
        .testTarget(
            name: "NetsimBenchTests",
            dependencies: [
                "NetsimBench", "NetsimModel", "NetsimInput", "NetsimTune", "NetsimProxy", "NetsimCore", "NetsimReport", "NetsimTestSupport",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]
        ),
        .testTarget(
            name: "NetsimCalibrationTests",
            dependencies: ["NetsimCalibration", "NetsimInput", "NetsimCore", "NetsimReport", "NetsimTestSupport"]),
        .testTarget(
            name: "NetsimCLITests",
            dependencies: [
                "NetsimCLI", "NetsimCore", "NetsimReport", "NetsimModel", "NetsimInput", "NetsimTune", "NetsimBench", "NetsimTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The tests compile unoptimised in release too. scripts/test.sh builds them on top of the
// release netsim (scripts/release-build.sh), and optimising them was most of that
// build, for rigs whose hot paths are in the modules they test, which stay optimised.
// Nor do they carry debug information (`-Xfrontend -gnone`, since SwiftPM's own `-g` comes
// after these flags): a failure names its line through the test macros, not through DWARF,
// and without it the test build is a little quicker and the test executable 17 MB smaller.
for target in package.targets where target.type == .test || target.name == "NetsimTestSupport" {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [.unsafeFlags(["-Onone", "-Xfrontend", "-gnone"], .when(configuration: .release))]
}

// Benchmarks (ordo-one/benchmark) are added only when asked for, so ordinary builds and CI's
// test run stay lean: `NETSIM_BENCHMARKS=1 swift package benchmark`.
if ProcessInfo.processInfo.environment["NETSIM_BENCHMARKS"] != nil {
    package.dependencies.append(
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"])
    )
    package.targets.append(
        .executableTarget(
            name: "RadioModelBenchmarks",
            dependencies: ["NetsimCore", .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/RadioModel",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    )
    package.targets.append(
        .executableTarget(
            name: "ModelEngineBenchmarks",
            dependencies: ["NetsimModel", "NetsimInput", "NetsimTune", "NetsimCore", .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/ModelEngine",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    )
    package.targets.append(
        .executableTarget(
            name: "AnalyzeBenchmarks",
            dependencies: ["NetsimPcap", "NetsimCore", .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/Analyze",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    )
}
