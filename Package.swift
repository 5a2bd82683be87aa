// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "EventKitSwift",
    products: [
        .library(name: "EventKitSwift", targets: ["EventKitSwift"]),
        .executable(name: "EventKitDemo", targets: ["EventKitDemo"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        // libffi, found through pkg-config; Debian's package is libffi-dev.
        .systemLibrary(
            name: "CFFI",
            path: "Sources/CFFI",
            pkgConfig: "libffi",
            providers: [.apt(["libffi-dev"])]
        ),
        // The C core. The Makefile builds the same sources into
        // libdispatchcore.a / .so for native C callers.
        .target(
            name: "CDispatchCore",
            dependencies: ["CFFI"],
            cSettings: [.define("_GNU_SOURCE")]
        ),
        // What only a language binding needs of the C core: a header beside
        // the core's sources (not installed) and its module map.
        .systemLibrary(name: "CDispatchCoreBinding", path: "Sources/CDispatchCoreBinding"),
        .target(
            name: "EventKitSwift",
            dependencies: ["CDispatchCore", "CDispatchCoreBinding", .product(name: "Logging", package: "swift-log")]
        ),
        .executableTarget(name: "EventKitDemo", dependencies: ["EventKitSwift"]),
        .testTarget(
            name: "EventKitSwiftTests",
            dependencies: [
                "EventKitSwift", "CDispatchCore", "CDispatchCoreBinding", .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
