// swift-tools-version:6.1
import Foundation
import PackageDescription

/// netsim: a mobile-network emulator and protocol benchmark.
///
/// The layout follows the architecture: `NetsimCore` is pure (profiles, link, radio, timeline
/// and energy models; time is always an input, randomness always seeded); `NetsimCLI` holds one
/// file per subcommand; `netsim` is the thin executable.
let package = Package(
    name: "netsim",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "netsim", targets: ["netsim"]),
        .library(name: "NetsimCore", targets: ["NetsimCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .target(
            name: "NetsimCore",
            dependencies: [.product(name: "Yams", package: "Yams")]
        ),
        .target(
            name: "NetsimProxy",
            dependencies: [
                "NetsimCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .systemLibrary(
            name: "CPcap",
            path: "Sources/CPcap",
            pkgConfig: "libpcap",
            providers: [.apt(["libpcap-dev"]), .brew(["libpcap"])]
        ),
        .target(name: "NetsimPcap", dependencies: ["NetsimCore", "CPcap"]),
        .target(
            name: "NetsimCLI",
            dependencies: [
                "NetsimCore",
                "NetsimProxy",
                "NetsimPcap",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "netsim",
            dependencies: ["NetsimCLI", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .testTarget(name: "NetsimCoreTests", dependencies: ["NetsimCore"]),
        .testTarget(
            name: "NetsimProxyTests",
            dependencies: [
                "NetsimProxy",
                "NetsimCLI",
                "NetsimPcap",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "NetsimPcapTests", dependencies: ["NetsimPcap", "NetsimCore"], exclude: ["Fixtures"]),
        .testTarget(
            name: "NetsimCLITests",
            dependencies: ["NetsimCLI", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
    ],
    swiftLanguageModes: [.v6]
)

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
}
