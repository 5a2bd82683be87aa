# mk/bench.mk — the benchmarks, C and Swift. Included by the Makefile; not part
# of make test.
#
#   make bench                the C benchmarks (Benchmarks/c) in one table: dynamic calls (stub and
#                             libffi paths vs direct calls and raw ffi_call), events with 1 and 10
#                             handlers beside GLib g_signal_emit and libsigc++, registering and
#                             memory beside both, the table at 1M handlers (one execute over all,
#                             removing them one by one in three orders, blocking and unblocking)
#                             and on two threads, and bench_table again with the core's POSIX
#                             platform layer forced (built in build/portable), beside the Linux
#                             build's; times and callgrind instruction counts
#                             (Scripts/bench-report.py). Installs GLib, libsigc++, valgrind and
#                             python3 when missing (as root). (BENCH_ARGS=--quick for a short run,
#                             --strict to fail on a missed target, --remove-count N for the removal
#                             tables' size)
#   make bench-all            make bench and make bench-swift in one run and one table
#   make bench-chart          Benchmarks/bench-chart.svg from the last make bench(-all) run's figures
#                             (build/bench/figures.tsv): the library beside each peer, as ratios
#   make bench-check          instruction counts of the hot paths against the committed ceilings in
#                             Benchmarks/instructions-{gcc,clang}.txt (by CC): catches a regression
#                             without timing; the Swift executes' counts come from Benchmarks/Count.
#                             A guarded case with no ceiling in the file yet is listed, not counted
#   make bench-record         rewrite that file from this build's counts
#   make bench-swift          the Swift benchmarks (Benchmarks/, its own package on ordo-one/benchmark):
#                             CommandTable beside closures, a [String: [() -> Void]], NotificationCenter
#                             and OpenCombine; prints one table with ratios and targets. The first run
#                             builds the benchmark package and its dependencies (minutes)
#                             (BENCH_SWIFT_ARGS="--filter 'dispatch.*'" runs some cases,
#                             BENCH_SWIFT_SUMMARY_ARGS=--strict fails on a missed target)

BENCH_DIR      := Benchmarks/c

# Each program is its own .c with a main; every other .c in the folder is a helper
# (callees, handlers, timing) linked into all of them. bench_peers also links GLib
# and libsigc++ (through bench_sigc.cpp, the one C++ unit).
BENCH_SOURCES  := $(sort $(wildcard $(BENCH_DIR)/*.c))
BENCH_PROGRAMS := bench_invoke bench_table bench_peers bench_closure bench_calls
BENCH_HELPERS  := $(filter-out $(patsubst %,$(BENCH_DIR)/%.c,$(BENCH_PROGRAMS)),$(BENCH_SOURCES))
BENCH_BINARIES := $(addprefix $(BUILD)/bench/,$(BENCH_PROGRAMS))
BENCH_PACKAGES := libglib2.0-dev libsigc++-3.0-dev valgrind libc6-dbg python3
BENCH_REPORT    = CC="$(CC)" $(PYTHON) Scripts/bench-report.py --bench-dir $(BUILD)/bench
# Instruction counts depend on the compiler that built the library: one
# ceilings file per compiler family.
BENCH_COMPILER  = $(call compiler_family,$(CC))
BENCH_CEILINGS  = Benchmarks/instructions-$(BENCH_COMPILER).txt
PEERS_CFLAGS    = $(shell $(PKG_CONFIG) --cflags gobject-2.0)
PEERS_CXXFLAGS  = $(shell $(PKG_CONFIG) --cflags sigc++-3.0)
PEERS_LIBS      = $(shell $(PKG_CONFIG) --libs gobject-2.0 sigc++-3.0) -lstdc++

$(BENCH_BINARIES): $(BUILD)/bench/%: $(BENCH_DIR)/%.c $(BENCH_HELPERS) $(wildcard $(BENCH_DIR)/*.h) \
                   $(HEADERS) $(STATIC_LIB) | $(BUILD)/bench
	$(CC) $(CLIENT_CFLAGS) $(FFI_CFLAGS) $(EXTRA_CFLAGS) $< $(BENCH_HELPERS) $(EXTRA_OBJECTS) -o $@ \
	    $(STATIC_LIB) $(FFI_LIBS) $(EXTRA_LIBS) $(SANITIZE_FLAGS) $(LDFLAGS) -pthread

$(BUILD)/bench/bench_peers: EXTRA_CFLAGS = $(PEERS_CFLAGS)
$(BUILD)/bench/bench_peers: EXTRA_OBJECTS = $(BUILD)/bench/bench_sigc.o
$(BUILD)/bench/bench_peers: EXTRA_LIBS = $(PEERS_LIBS)
$(BUILD)/bench/bench_peers: $(BUILD)/bench/bench_sigc.o

$(BUILD)/bench/bench_sigc.o: $(BENCH_DIR)/bench_sigc.cpp $(BENCH_DIR)/bench_sigc.h | $(BUILD)/bench
	$(CXX) -std=c++17 $(WARNINGS) $(OPTIMIZE) $(PEERS_CXXFLAGS) -c $< -o $@

.PHONY: bench bench-deps bench-build bench-posix-build bench-check bench-record
bench-deps:
	@$(MAKE) --no-print-directory deps DEB_PACKAGES="$(DEB_PACKAGES) $(BENCH_PACKAGES)"

bench-build: bench-deps
	@$(MAKE) --no-print-directory $(BENCH_BINARIES)

# bench_table with the POSIX platform layer forced (mk/cross.mk's build/portable).
BENCH_POSIX_DIR := $(PORTABLE_BUILD)/bench

bench-posix-build: bench-deps
	@$(PORTABLE_MAKE) $(BENCH_POSIX_DIR)/bench_table

bench: bench-build bench-posix-build
	@$(BENCH_REPORT) --save $(BENCH_FIGURES) --posix-bench-dir $(BENCH_POSIX_DIR) $(BENCH_ARGS)

# The Swift layer's counted executes: Benchmarks/Count, a release build
# without debug information, which valgrind cannot read in Swift binaries.
SWIFT_COUNT_DIR := Benchmarks/Count
SWIFT_COUNT     := $(SWIFT_COUNT_DIR)/.build/release/EventKitCount

.PHONY: swift-count-build
swift-count-build:
	$(SWIFT) build -c release --package-path $(SWIFT_COUNT_DIR) -Xswiftc -gnone -Xcc -g0

bench-check: bench-build swift-count-build
	@$(BENCH_REPORT) --check $(BENCH_CEILINGS) --swift-count $(SWIFT_COUNT)

bench-record: bench-build swift-count-build
	@$(BENCH_REPORT) --record $(BENCH_CEILINGS) --swift-count $(SWIFT_COUNT)

# The benchmark package exports one histogram per case and metric into a fresh
# folder, then BenchSummary reads them and prints the table. ordo-one's line
# for each file written is left out; its exit status is kept.
BENCH_SWIFT_RESULTS := .build/bench-swift-results

.PHONY: bench-swift bench-swift-run bench-all
bench-swift-run:
	@$(MAKE) --no-print-directory deps
	@rm -rf Benchmarks/$(BENCH_SWIFT_RESULTS) && mkdir -p Benchmarks/$(BENCH_SWIFT_RESULTS)
	@cd Benchmarks && { $(SWIFT) package --allow-writing-to-package-directory benchmark \
	    --format histogramEncoded --path $(BENCH_SWIFT_RESULTS) --no-progress $(BENCH_SWIFT_ARGS) 2>&1; \
	    echo $$? > $(BENCH_SWIFT_RESULTS).status; } | grep -v '^Writing to '; \
	    exit $$(cat $(BENCH_SWIFT_RESULTS).status)
	@cd Benchmarks && $(SWIFT) build -c release --product BenchSummary >/dev/null

bench-swift: bench-swift-run
	@cd Benchmarks && $(SWIFT) run -c release --skip-build BenchSummary $(BENCH_SWIFT_RESULTS) \
	    $(BENCH_SWIFT_SUMMARY_ARGS)

# Everything in one table: the Swift run first (its build takes minutes), then
# the C programs and their counts, with the Swift figures as more sections.
bench-all: bench-swift-run bench-build bench-posix-build
	@cd Benchmarks && $(SWIFT) run -c release --skip-build BenchSummary $(BENCH_SWIFT_RESULTS) \
	    --tsv > ../$(BUILD)/bench/swift.tsv
	@$(BENCH_REPORT) --swift $(BUILD)/bench/swift.tsv --save $(BENCH_FIGURES) \
	    --posix-bench-dir $(BENCH_POSIX_DIR) $(BENCH_ARGS)

# The last make bench or make bench-all run's figures, drawn beside RESULTS.md.
BENCH_FIGURES := $(BUILD)/bench/figures.tsv
BENCH_CHART   := Benchmarks/bench-chart.svg
.PHONY: bench-chart
bench-chart:
	@test -f $(BENCH_FIGURES) || { echo "error: no $(BENCH_FIGURES); run make bench-all (or make bench) first" >&2; exit 1; }
	@$(PYTHON) Scripts/bench-chart.py $(BENCH_FIGURES) $(BENCH_CHART)
