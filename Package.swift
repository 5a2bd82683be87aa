// swift-tools-version:6.0
import CompilerPluginSupport
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
        // The @Multicast macro: a product of its own, so that a package using
        // EventKitSwift alone never builds swift-syntax.
        .library(name: "EventKitMulticast", targets: ["EventKitMulticast"]),
        .executable(name: "EventKitDemo", targets: ["EventKitDemo"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/swiftlang/swift-syntax", "600.0.1"..<"604.0.0"),
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
        // libdispatchcore.a / .so for native C callers. It is C11 and POSIX;
        // its platform layer takes the Linux side where the kernel's headers
        // are (Sources/CDispatchCore/platform_linux.h) and the POSIX side
        // everywhere else, so no setting here names a system.
        // `swift test -Xcc -DDC_PLATFORM_POSIX` forces the POSIX side.
        .target(name: "CDispatchCore", dependencies: ["CFFI"]),
        // What only a language binding needs of the C core: a module map of
        // the core's binding headers (Sources/CDispatchCore/binding, not
        // installed), the binding's API and the layouts its inline execute reads.
        .systemLibrary(name: "CDispatchCoreBinding", path: "Sources/CDispatchCoreBinding"),
        .target(
            name: "EventKitSwift",
            dependencies: ["CDispatchCore", "CDispatchCoreBinding", .product(name: "Logging", package: "swift-log")]
        ),
        // The compiler plugin behind @Multicast, built for the host on
        // swift-syntax; only EventKitMulticast (and what depends on it) needs it.
        .macro(
            name: "EventKitMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ]
        ),
        .target(name: "EventKitMulticast", dependencies: ["EventKitSwift", "EventKitMacros"]),
        .executableTarget(name: "EventKitDemo", dependencies: ["EventKitSwift", "EventKitMulticast"]),
        // glibc's fopencookie for the Swift tests (Glibc's module is built
        // without _GNU_SOURCE, which declares it).
        .target(name: "CCookieSupport", path: "Tests/CCookieSupport", cSettings: [.define("_GNU_SOURCE")]),
        .testTarget(
            name: "EventKitSwiftTests",
            dependencies: [
                "EventKitSwift", "CDispatchCore", "CDispatchCoreBinding", "CCookieSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "EventKitMacrosTests",
            dependencies: [
                "EventKitMacros", "EventKitMulticast",
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
