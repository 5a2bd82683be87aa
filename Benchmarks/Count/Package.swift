// swift-tools-version:6.0
// The Swift hot paths whose instruction counts `make bench-check` guards
// (Scripts/bench-report.py runs this under callgrind). A package of its own,
// with the library as its one dependency, so that it builds in seconds
// without the benchmark package's.
import PackageDescription

// SwiftPM names a path dependency after its folder: the repository's.
let rootPackage = String(Context.packageDirectory.split(separator: "/").dropLast(2).last ?? "main")

let package = Package(
    name: "EventKitCount",
    dependencies: [.package(path: "../..")],
    targets: [
        .executableTarget(
            name: "EventKitCount",
            dependencies: [.product(name: "EventKitSwift", package: rootPackage)]
        )
    ],
    swiftLanguageModes: [.v6]
)
