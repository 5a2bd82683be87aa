// swift-tools-version:6.0
import Foundation
import PackageDescription

// swift-docc-plugin builds the documentation (`make docs`). It is named only
// when EVENTKIT_DOCS is set, so a package that depends on EventKitSwift never
// resolves or builds it.
let documentationDependencies: [Package.Dependency] =
    ProcessInfo.processInfo.environment["EVENTKIT_DOCS"] == nil
    ? []
    : [.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0")]

let package = Package(
    name: "EventKitSwift",
    products: [
        .library(name: "EventKitSwift", targets: ["EventKitSwift"]),
        .executable(name: "EventKitDemo", targets: ["EventKitDemo"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ] + documentationDependencies,
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
