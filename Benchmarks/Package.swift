// swift-tools-version:6.1
// The benchmark package: its own package, so that users of EventKitSwift
// never resolve or build ordo-one/benchmark or OpenCombine. It depends on
// the library by path.
//
//   make bench-swift              from the repository root: runs every
//                                 benchmark and prints the summary table
//   swift package benchmark       ordo-one's own per-benchmark tables
//
// ordo-one/benchmark's MallocInterposer trait gives the malloc counters the
// memory figures come from. Naming the trait also leaves out its default
// RuntimeInterposer trait and that trait's extra package.
import PackageDescription

// SwiftPM names a path dependency after its folder, so the root package is
// "main" in CI's clone and "eventkitswift" in a clone named EventKitSwift.
let rootPackage = String(Context.packageDirectory.split(separator: "/").dropLast().last ?? "main")

let package = Package(
    name: "EventKitSwiftBenchmarks",
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.1.4"),
    ],
    targets: [
        // The benchmarks. ordo-one's plugin runs every executable target
        // whose folder is directly inside Benchmarks/.
        .executableTarget(
            name: "EventKitBenchmarks",
            dependencies: [
                "BenchmarkCatalog",
                "BenchFFI",
                .product(name: "EventKitSwift", package: rootPackage),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "OpenCombine", package: "OpenCombine"),
            ],
            path: "Benchmarks/EventKitBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The case list both executables share.
        .target(name: "BenchmarkCatalog", path: "Benchmarks/Support/BenchmarkCatalog"),
        // libffi, for the raw ffi_call baseline (the root package's CFFI is
        // not a product).
        .systemLibrary(
            name: "BenchFFI",
            path: "Benchmarks/Support/BenchFFI",
            pkgConfig: "libffi",
            providers: [.apt(["libffi-dev"])]
        ),
        // Reads the histograms a run exported and prints the summary table.
        .executableTarget(
            name: "BenchSummary",
            dependencies: [
                "BenchmarkCatalog",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            path: "Benchmarks/Support/BenchSummary"
        ),
    ],
    swiftLanguageModes: [.v6]
)
