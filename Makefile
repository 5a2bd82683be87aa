# Makefile — the C core for native C callers, its tests, the demo and install.
#
#   make                      build/libdispatchcore.a, build/libdispatchcore.so, build/dispatchcore.pc
#                             (the .so's exports: a version script made from the headers, see
#                             "exports" below; the SONAME policy is in the README)
#   make test                 deps, C tests, header and export checks, stub check, the CMake and
#                             Meson consumers, swift test, misuse checks (Tests/Misuse must not
#                             compile)
#   make demo                 deps, then swift run EventKitDemo
#   make bench                the C benchmarks (Benchmarks/c) in one table: dynamic calls (stub and
#                             libffi paths vs direct calls and raw ffi_call), events with 1 and 10
#                             handlers beside GLib g_signal_emit and libsigc++, registering and
#                             memory beside both, the table at 1M handlers (one execute over all,
#                             removing them one by one in three orders, blocking and unblocking)
#                             and on two threads; times and callgrind instruction counts
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
#                             builds the benchmark package and its dependencies (minutes); not part of
#                             `make test` (BENCH_SWIFT_ARGS="--filter 'dispatch.*'" runs some cases,
#                             BENCH_SWIFT_SUMMARY_ARGS=--strict fails on a missed target)
#   make install PREFIX=/opt/dc DESTDIR=/tmp/stage
#   make deps                 install the Debian packages the build and tests need (as root)
#   make check-exports        the .so exports exactly what the headers declare, in the version
#                             nodes the version script (made from the headers) gives them
#   make check-layers         the core's layers call downward only (Scripts/check-layers.sh)
#   make test-c               only the C tests (cmocka), built into build/tests/
#   make test-consumers       the README's C quick start (Tests/Consumers/add.c) built by cc with
#                             pkg-config, by CMake (pkg_check_modules, IMPORTED_TARGET) and by Meson
#                             (dependency()) against a make install into build/consumers/prefix,
#                             run and its output checked; the README's copies of add.c,
#                             CMakeLists.txt and meson.build must be those files
#                             (check-readme-consumers). Installs cmake, meson and ninja-build when
#                             missing (as root)
#   make test-compilers       the library (CC) and the C tests (TEST_CC) by gcc and by clang in every
#                             pairing but make test's, each in build/compilers/CC-TESTCC: test-c,
#                             test-fence-fallback, check-exports, check-header. Installs gcc when
#                             missing (as root); clang is the Swift toolchain's
#   make test-aarch64         the library and the C tests cross-compiled for AArch64 (Debian's
#                             gcc-aarch64-linux-gnu, libffi and cmocka from dpkg multiarch) into
#                             build/aarch64 and run under qemu-user, then test-fence-fallback and
#                             check-exports there; installs what it needs (as root), adding the
#                             arm64 architecture
#   make test-32              the same for 32-bit i386 (gcc-i686-linux-gnu) in build/i386, run
#                             natively; every call takes the libffi path there
#   make test-fence-fallback  test_table_threads with membarrier(2) refused, so the core falls back
#                             to full fences at run time (it prints which fences it used)
#   make sanitize             the C tests under ASan+UBSan, then under TSan (clang, build/sanitize-*);
#                             then swift test --sanitize=address and --sanitize=thread in
#                             .build-sanitize-*; any report fails (sanitize-c, sanitize-swift: each half)
#   make memcheck             the C tests under valgrind memcheck: no error, no definite or indirect leak
#   make fuzz                 every libFuzzer target (Tests/CDispatchCoreTests/fuzz) for FUZZ_SECONDS
#                             (default 60) at once, from the committed seeds; a crash fails, its
#                             input is kept in build/fuzz/artifacts/
#   make model                the SPIN model of removing handlers (Tests/Model/removal.pml); installs spin
#   make docs                 the documentation, with no warning allowed: the DocC catalog and the
#                             Swift doc comments (swift-docc-plugin, in .build-docs; Package.swift
#                             names the plugin only when EVENTKIT_DOCS is set, which make docs does)
#                             into build/docs/swift, and the public headers' comments as the C API
#                             reference (Scripts/c-reference.py) into build/docs/c/index.html
#   make clean
#
# CC defaults to cc, else the Swift toolchain's clang; TEST_CC (the C tests) to clang.
#
# Sanitizer builds go to their own folder and only build the C library and tests:
#   make SANITIZE=address,undefined test-c        (BUILD defaults to build/sanitize)
# STUBS_CFLAGS then carries -fno-sanitize=function for stubs.c, whose calls through
# cast function pointers are what the platform ABI defines and UBSan's function
# check reports (only clang knows that check; gcc gets nothing extra).

VERSION       := 0.1.0
SOVERSION     := 0
LIBRARY       := dispatchcore

PREFIX        ?= /usr/local
DESTDIR       ?=
INCLUDEDIR    ?= $(PREFIX)/include
LIBDIR        ?= $(PREFIX)/lib
PKGCONFIGDIR  ?= $(LIBDIR)/pkgconfig

SANITIZE      ?=
ifneq ($(SANITIZE),)
BUILD         ?= build/sanitize
else
BUILD         ?= build
endif

SOURCE_DIR    := Sources/CDispatchCore
HEADER        := $(SOURCE_DIR)/include/dispatch_core.h
# The installed headers: dispatch_core.h includes the rest.
HEADERS       := $(HEADER) $(SOURCE_DIR)/include/dispatch_table.h $(SOURCE_DIR)/include/dispatch_closure.h
# What only a language binding needs; not installed (dispatch_core_binding.h).
BINDING_DIR   := Sources/CDispatchCoreBinding
BINDING_HEADER := $(BINDING_DIR)/dispatch_core_binding.h
SOURCES       := $(sort $(wildcard $(SOURCE_DIR)/*.c))
OBJECTS       := $(patsubst $(SOURCE_DIR)/%.c,$(BUILD)/obj/%.o,$(SOURCES))
TEST_SOURCES  := $(sort $(wildcard Tests/CDispatchCoreTests/test_*.c))
TESTS         := $(patsubst Tests/CDispatchCoreTests/%.c,$(BUILD)/tests/%,$(TEST_SOURCES))
BENCH_DIR     := Benchmarks/c

STATIC_LIB    := $(BUILD)/lib$(LIBRARY).a
SONAME        := lib$(LIBRARY).so.$(SOVERSION)
SHARED_REAL   := $(BUILD)/lib$(LIBRARY).so.$(VERSION)
SHARED_SONAME := $(BUILD)/$(SONAME)
SHARED_LIB    := $(BUILD)/lib$(LIBRARY).so
PC_FILE       := $(BUILD)/$(LIBRARY).pc
# The exported names and their version nodes (see "exports" below).
PUBLIC_NODE   := DISPATCHCORE_$(SOVERSION)
BINDING_NODE  := DISPATCHCORE_BINDING_$(VERSION)
PUBLIC_NAMES  := $(BUILD)/exports/public.txt
BINDING_NAMES := $(BUILD)/exports/binding.txt
VERSION_SCRIPT := $(BUILD)/exports/$(LIBRARY).map

# A fresh Debian with only the Swift toolchain may have clang but no cc or gcc.
first_command = $(firstword $(foreach c,$(1),$(shell command -v $(c) 2>/dev/null)))
# $(call compiler_family,COMPILER): clang or gcc.
compiler_family = $(if $(shell $(1) --version 2>/dev/null | grep -i clang),clang,gcc)
ifeq ($(origin CC),default)
CC := $(or $(call first_command,cc clang gcc),cc)
endif
ifeq ($(origin CXX),default)
CXX := $(or $(call first_command,c++ clang++ g++),c++)
endif
# Tests are compiled with clang where there is one: an LLVM-compiled callee (as
# every Swift one is) relies on its caller having sign- or zero-extended narrow
# integer arguments, which gcc-compiled callees never check. Sanitizer builds keep
# one compiler, whose runtime the library and the tests share.
ifeq ($(origin TEST_CC),undefined)
ifeq ($(SANITIZE)$(origin CC),file)
TEST_CC := $(or $(call first_command,clang),$(CC))
else
TEST_CC := $(CC)
endif
endif
AR            ?= ar
NM            ?= nm
READELF       ?= readelf
PKG_CONFIG    ?= pkg-config
PYTHON        ?= python3
SWIFT         ?= swift
SWIFTC        ?= $(if $(findstring /,$(SWIFT)),$(dir $(SWIFT))swiftc,swiftc)
INSTALL       ?= install

FFI_CFLAGS    := $(shell $(PKG_CONFIG) --cflags libffi 2>/dev/null)
FFI_LIBS      := $(or $(shell $(PKG_CONFIG) --libs libffi 2>/dev/null),-lffi)
CMOCKA_CFLAGS := $(shell $(PKG_CONFIG) --cflags cmocka 2>/dev/null)
CMOCKA_LIBS   := $(or $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null),-lcmocka)

OPTIMIZE      ?= -O2
CFLAGS        ?=
LDFLAGS       ?=
WARNINGS      := -Wall -Wextra -Werror

# A shared library leaves the sanitizer runtime to the executable, so only an
# unsanitized one is linked with -z defs (no undefined symbols).
ifneq ($(SANITIZE),)
SANITIZE_FLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
STUBS_CFLAGS  ?= $(shell $(CC) -fno-sanitize=function -x c -c /dev/null -o /dev/null 2>/dev/null && echo -fno-sanitize=function)
NO_UNDEFINED  :=
else
SANITIZE_FLAGS :=
STUBS_CFLAGS  ?=
NO_UNDEFINED  := -Wl,-z,defs
endif

LIB_CFLAGS    := -std=c11 $(WARNINGS) $(OPTIMIZE) -fPIC -fvisibility=hidden \
                 -DDC_BUILDING_LIBRARY -D_GNU_SOURCE -pthread $(FFI_CFLAGS) \
                 -I$(SOURCE_DIR)/include -I$(SOURCE_DIR) $(SANITIZE_FLAGS) $(CFLAGS)
# Tests and the benchmark see the library as a client does: the public header,
# and the binding header for what they test of the binding.
CLIENT_CFLAGS := -std=c11 $(WARNINGS) $(OPTIMIZE) -D_GNU_SOURCE -pthread \
                 -I$(SOURCE_DIR)/include -I$(BINDING_DIR) $(SANITIZE_FLAGS) $(CFLAGS)

# Debian packages the build and the tests need; a C or C++ compiler and nm are
# added by `make deps` only when none is found.
DEB_PACKAGES  := libffi-dev libcmocka-dev pkg-config libc6-dev

.PHONY: all deps test test-c check-header check-exports check-stubs demo bench \
        sanitize sanitize-c sanitize-swift memcheck fuzz fuzz-build deps-hardening model deps-model \
        check-sanitizer-cc docs deps-docs install uninstall clean FORCE

all: $(STATIC_LIB) $(SHARED_LIB) $(SHARED_SONAME) $(PC_FILE)

# ---- the library ------------------------------------------------------------

$(BUILD)/obj/stubs.o: LIB_CFLAGS += $(STUBS_CFLAGS)

$(BUILD)/obj/%.o: $(SOURCE_DIR)/%.c | $(BUILD)/obj $(BUILD)/.libffi-found
	$(CC) $(LIB_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/.libffi-found: | $(BUILD)
	@$(PKG_CONFIG) --exists libffi 2>/dev/null || { \
	    echo "error: libffi not found through $(PKG_CONFIG); run 'make deps'" >&2; exit 1; }
	@touch $@

$(BUILD) $(BUILD)/obj $(BUILD)/tests $(BUILD)/bench:
	@mkdir -p $@

$(STATIC_LIB): $(OBJECTS)
	@test -n "$(OBJECTS)" || { echo "error: no sources in $(SOURCE_DIR)" >&2; exit 1; }
	@rm -f $@
	$(AR) rcs $@ $^

$(SHARED_REAL): $(OBJECTS) $(VERSION_SCRIPT)
	@test -n "$(OBJECTS)" || { echo "error: no sources in $(SOURCE_DIR)" >&2; exit 1; }
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script,$(VERSION_SCRIPT) $(NO_UNDEFINED) \
	    $(SANITIZE_FLAGS) $(LDFLAGS) -o $@ $(OBJECTS) $(FFI_LIBS) -pthread

# ---- exports: one list, read from the headers ----------------------------------

# What the shared library exports is what the headers declare: the functions
# the public headers declare with DC_API (dc_), and the functions and variables
# dispatch_core_binding.h declares with DC__BINDING_API (dc__). These lists are
# read from the headers on every build, and both the version script and
# check-exports take them from here, so there is no second list to keep.
#
# The version script gives each name a version node. The public names are in
# DISPATCHCORE_$(SOVERSION), named for the SONAME: a program records the node
# with each symbol it uses, and a library of another SONAME, loaded in the same
# process by some other dependency, keeps its own. The binding's names are in a
# node of this VERSION's own, as the binding header is no stable interface: a
# binding linked against one release refuses to load against another, with the
# loader naming the missing node, rather than read layouts that moved.
# Everything else is local, whatever its visibility. (The names and nodes are
# set at the top of this file.) The script is made on every run, as the
# nodes' names may come from the command line, and replaced only when its text
# changes, so that the library and the tests are relinked only then.

$(BUILD)/exports:
	@mkdir -p $@

# A declaration marked DC_API begins its line; its name is the first dc_ name
# followed by `(`. A binding declaration may span lines, but its name ends the
# line, or comes before `(` or `;`.
$(PUBLIC_NAMES): $(HEADERS) | $(BUILD)/exports
	@grep -hE '^DC_API' $(HEADERS) | grep -oE '\bdc_[a-z0-9_]+\(' | tr -d '(' | sort -u > $@.new
	@mv $@.new $@

$(BINDING_NAMES): $(BINDING_HEADER) | $(BUILD)/exports
	@grep -E '\bDC__BINDING_API\b' $< | grep -v '^#' \
	    | grep -oE '\bdc__[a-z0-9_]+\b *(\(|;|$$)' | grep -oE 'dc__[a-z0-9_]+' | sort -u > $@.new
	@mv $@.new $@

$(VERSION_SCRIPT): $(PUBLIC_NAMES) $(BINDING_NAMES) FORCE
	@{ echo "/* The exports of lib$(LIBRARY).so, made by the Makefile from the headers. */"; \
	   echo "$(PUBLIC_NODE) {"; echo "  global:"; sed 's/.*/    &;/' $(PUBLIC_NAMES); \
	   echo "  local:"; echo "    *;"; echo "};"; \
	   echo "$(BINDING_NODE) {"; echo "  global:"; sed 's/.*/    &;/' $(BINDING_NAMES); \
	   echo "} $(PUBLIC_NODE);"; } > $@.new
	@if cmp -s $@.new $@; then rm $@.new; else mv $@.new $@; fi

$(SHARED_SONAME): $(SHARED_REAL)
	@ln -sf $(notdir $<) $@

$(SHARED_LIB): $(SHARED_SONAME)
	@ln -sf $(notdir $<) $@

# The .pc file names PREFIX, so it is rebuilt whenever PREFIX changes.
$(BUILD)/.prefix: FORCE | $(BUILD)
	@echo '$(PREFIX) $(LIBDIR) $(INCLUDEDIR)' | cmp -s - $@ 2>/dev/null || \
	    echo '$(PREFIX) $(LIBDIR) $(INCLUDEDIR)' > $@

# Directories under PREFIX are written relative to it, as pkg-config files usually are.
PC_LIBDIR     := $(patsubst $(PREFIX)/%,$${exec_prefix}/%,$(LIBDIR))
PC_INCLUDEDIR := $(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))

$(PC_FILE): $(LIBRARY).pc.in $(BUILD)/.prefix
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(PC_LIBDIR)|g' \
	    -e 's|@INCLUDEDIR@|$(PC_INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g' $< > $@

-include $(OBJECTS:.o=.d)

# ---- dependencies -------------------------------------------------------------

# Quiet when everything is there. As root it installs what is missing; otherwise
# it stops and prints the commands to run. DEB_ARCHITECTURES names dpkg
# architectures whose packages (name:arch in DEB_PACKAGES) are wanted; each one
# not yet configured is added (dpkg multiarch) before the package lists are
# read. A package list that fails to download (a foreign architecture's adds
# more of them, and a mirror may be mid-sync) does not stop the install:
# apt-get install then says which package it cannot find.
DEB_ARCHITECTURES ?=

deps:
	@missing=""; \
	if command -v dpkg-query >/dev/null 2>&1; then \
	    for package in $(DEB_PACKAGES); do \
	        dpkg-query -W -f='$${Status}\n' "$$package" 2>/dev/null | grep -q ' installed$$' \
	            || missing="$$missing $$package"; \
	    done; \
	    command -v "$(CC)" >/dev/null 2>&1 || missing="$$missing gcc"; \
	    command -v "$(CXX)" >/dev/null 2>&1 || missing="$$missing g++"; \
	    command -v "$(NM)" >/dev/null 2>&1 || missing="$$missing binutils"; \
	    missing="$${missing# }"; \
	    architectures=""; \
	    for architecture in $(DEB_ARCHITECTURES); do \
	        { dpkg --print-architecture; dpkg --print-foreign-architectures; } | grep -qxF "$$architecture" \
	            || architectures="$$architectures $$architecture"; \
	    done; \
	    if [ -n "$$missing" ]; then \
	        if [ "$$(id -u)" = 0 ]; then \
	            echo "make deps: installing $$missing"; \
	            export DEBIAN_FRONTEND=noninteractive; \
	            for architecture in $$architectures; do \
	                echo "make deps: adding the $$architecture architecture"; \
	                dpkg --add-architecture "$$architecture" || exit 1; \
	            done; \
	            apt-get update -qq || echo "make deps: some package lists failed to download;" \
	                "installing from those apt-get has" >&2; \
	            apt-get install -y -qq --no-install-recommends $$missing >/dev/null || exit 1; \
	        else \
	            echo "error: missing Debian packages: $$missing" >&2; \
	            echo "install them with:" >&2; \
	            for architecture in $$architectures; do \
	                echo "    sudo dpkg --add-architecture $$architecture" >&2; \
	            done; \
	            if [ -n "$$architectures" ]; then echo "    sudo apt-get update" >&2; fi; \
	            echo "    sudo apt-get install $$missing" >&2; \
	            exit 1; \
	        fi; \
	    fi; \
	else \
	    $(PKG_CONFIG) --exists libffi cmocka 2>/dev/null || { \
	        echo "error: this is not Debian; install libffi, cmocka and pkg-config" \
	             "with your package manager (Debian: $(DEB_PACKAGES))" >&2; exit 1; }; \
	fi

# ---- tests --------------------------------------------------------------------

# Sub-makes, so that variables read through pkg-config are read again after
# `deps` has installed the packages.
test:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory test-c check-header check-exports check-stubs check-layers
	@$(MAKE) --no-print-directory test-consumers
	$(SWIFT) test
	@$(MAKE) --no-print-directory check-misuse

# The core's layers call downward only (Scripts/check-layers.sh says which
# file is in which layer), read from the library's objects.
.PHONY: check-layers
check-layers: $(OBJECTS)
	@Scripts/check-layers.sh $(BUILD)/obj $(NM)

# Misuses of the typed API that must not compile (Tests/Misuse), against the
# module `swift test` built.
.PHONY: check-misuse
check-misuse:
	@Scripts/check-misuse.sh $(SWIFTC)

demo:
	@$(MAKE) --no-print-directory deps
	$(SWIFT) run EventKitDemo

# The Swift suite again with the C core's calls in Swift's own convention
# turned off (DC_NO_SWIFT_CALLS, for the library and the binding alike), so the
# binding's fallback, closures boxed behind @convention(c) trampolines, stays
# tested. A build folder of its own, so neither build undoes the other.
.PHONY: test-swift-fallback
test-swift-fallback:
	@$(MAKE) --no-print-directory deps
	$(SWIFT) test --scratch-path .build/swift-fallback -Xcc -DDC_NO_SWIFT_CALLS

# Tests link against the shared library, so a public function that is not
# exported fails to link here rather than in a user's program.
$(BUILD)/tests/%: Tests/CDispatchCoreTests/%.c $(wildcard Tests/CDispatchCoreTests/*.h) \
                  $(HEADERS) $(BINDING_HEADER) $(SHARED_LIB) | $(BUILD)/tests
	$(TEST_CC) $(CLIENT_CFLAGS) $(CMOCKA_CFLAGS) $< -o $@ \
	    -L$(BUILD) -l$(LIBRARY) -Wl,-rpath,'$$ORIGIN/..' $(CMOCKA_LIBS) \
	    $(SANITIZE_FLAGS) $(LDFLAGS) -pthread

# TEST_RUNNER runs each test program (qemu-user for another architecture's).
TEST_RUNNER   ?=

test-c: $(TESTS)
	@test -n "$(TESTS)" || { echo "error: no C tests in Tests/CDispatchCoreTests" >&2; exit 1; }
	@failed=""; \
	for test in $(TESTS); do \
	    echo "== $$test"; \
	    $(TEST_RUNNER) "$$test" || failed="$$failed $$(basename $$test)"; \
	done; \
	if [ -n "$$failed" ]; then echo "C tests failed:$$failed" >&2; exit 1; fi

# test_table_threads again, linked with a syscall() that refuses membarrier(2)
# (refuse_membarrier.c), so the core's run-time fallback to full fences runs too;
# the test prints which fences it used, and a run that did not fall back fails.
FENCE_FALLBACK_TEST := $(BUILD)/tests/fallback/test_table_threads

$(FENCE_FALLBACK_TEST): Tests/CDispatchCoreTests/test_table_threads.c \
                        Tests/CDispatchCoreTests/refuse_membarrier.c $(wildcard Tests/CDispatchCoreTests/*.h) \
                        $(HEADERS) $(BINDING_HEADER) $(SHARED_LIB)
	@mkdir -p $(dir $@)
	$(TEST_CC) $(CLIENT_CFLAGS) $(CMOCKA_CFLAGS) $(filter %.c,$^) -o $@ \
	    -L$(BUILD) -l$(LIBRARY) -Wl,-rpath,'$$ORIGIN/../..' $(CMOCKA_LIBS) \
	    $(SANITIZE_FLAGS) $(LDFLAGS) -pthread

.PHONY: test-fence-fallback
test-fence-fallback: $(FENCE_FALLBACK_TEST)
	@echo "== $< (membarrier(2) refused)"
	@$(TEST_RUNNER) $< > $<.log 2>&1; status=$$?; cat $<.log; \
	if [ $$status != 0 ]; then exit $$status; fi; \
	grep -q '^table threads: full fences' $<.log || { \
	    echo "error: $< did not fall back to full fences" >&2; exit 1; }

# Each header must stand alone, as C11 and as C++11 (the binding header's
# layouts and inline execute are C only; C++ sees its declarations).
HEADERS_ALONE := $(HEADERS) $(BINDING_HEADER)

check-header: | $(BUILD)/tests
	@for header in $(HEADERS_ALONE); do \
	    name=$$(basename $$header .h); \
	    printf '#include "%s"\n' $$(basename $$header) > $(BUILD)/tests/$${name}_alone.c; \
	    cp $(BUILD)/tests/$${name}_alone.c $(BUILD)/tests/$${name}_alone.cpp; \
	    echo "check-header: $$header as C11 and as C++11"; \
	    $(CC) -std=c11 -pedantic $(WARNINGS) -I$(SOURCE_DIR)/include -I$(BINDING_DIR) \
	        -c $(BUILD)/tests/$${name}_alone.c -o $(BUILD)/tests/$${name}_alone_c.o || exit 1; \
	    $(CXX) -std=c++11 -pedantic $(WARNINGS) -I$(SOURCE_DIR)/include -I$(BINDING_DIR) \
	        -c $(BUILD)/tests/$${name}_alone.cpp -o $(BUILD)/tests/$${name}_alone_cpp.o || exit 1; \
	done

# The shared library exports exactly the names the headers declare (the lists
# under "exports" above), each in its version node: nothing missing, nothing
# else. The objects are read too: the names compiled with default visibility
# (what DC_API and DC__BINDING_API mark) must be the same list, so a
# declaration the lists' reading missed, which the version script would then
# hide, fails here rather than at a user's link. Absolute symbols are the
# version nodes themselves, and the linker's own section markers (gold's
# _edata, _end, __bss_start) are not ours; both are skipped.
LINKER_SYMBOLS := _edata _end __bss_start _init _fini

check-exports: $(SHARED_REAL) $(PUBLIC_NAMES) $(BINDING_NAMES)
	@dir=$(BUILD)/exports; \
	$(NM) -D --defined-only $< | awk '$$2 != "A" && NF >= 3 { print $$3 }' \
	    | grep -vE '^($(subst $() ,|,$(strip $(LINKER_SYMBOLS))))(@|$$)' | sort > $$dir/exported.txt; \
	{ sed 's/$$/@@$(PUBLIC_NODE)/' $(PUBLIC_NAMES); sed 's/$$/@@$(BINDING_NODE)/' $(BINDING_NAMES); } \
	    | sort > $$dir/declared.txt; \
	$(READELF) -sW $(OBJECTS) | awk '($$5 == "GLOBAL" || $$5 == "WEAK") && $$6 == "DEFAULT" && $$7 != "UND" \
	    { print $$8 }' | sort -u > $$dir/visible.txt; \
	sort -u $(PUBLIC_NAMES) $(BINDING_NAMES) > $$dir/names.txt; \
	status=0; \
	report() { if [ -n "$$2" ]; then echo "error: $$1:" >&2; echo "$$2" | sed 's/^/    /' >&2; status=1; fi; }; \
	report "declared but not exported by $< (name@@version node)" "$$(comm -13 $$dir/exported.txt $$dir/declared.txt)"; \
	report "exported by $< but declared in neither header, or in another version node" \
	    "$$(comm -23 $$dir/exported.txt $$dir/declared.txt)"; \
	report "declared with DC_API or DC__BINDING_API but not found in the headers by the Makefile's reading" \
	    "$$(comm -23 $$dir/visible.txt $$dir/names.txt)"; \
	report "in the export lists but not compiled with default visibility" "$$(comm -13 $$dir/visible.txt $$dir/names.txt)"; \
	[ $$status = 0 ] || exit 1; \
	echo "check-exports: $$(wc -l < $(PUBLIC_NAMES)) public symbols in $(PUBLIC_NODE) and" \
	    "$$(wc -l < $(BINDING_NAMES)) binding symbols in $(BINDING_NODE), as the headers declare"

check-stubs:
	@if command -v $(PYTHON) >/dev/null 2>&1; then \
	    $(PYTHON) Scripts/generate-stubs.py --check && echo "check-stubs: stubs.c is up to date"; \
	else \
	    echo "check-stubs: skipped ($(PYTHON) not found)"; \
	fi

# ---- C consumers: CMake and Meson ------------------------------------------------

# The README's C quick start built the way its users build it: the library
# installed by `make install` into a prefix of its own, then
# Tests/Consumers/add.c built by the quick start's own command line (cc with
# pkg-config), by CMake (pkg_check_modules with IMPORTED_TARGET, linked to
# PkgConfig::DC) and by Meson (dependency('dispatchcore')), each finding the
# library through PKG_CONFIG_PATH alone and compiled by TEST_CC with the
# library's warnings as errors. Each program must be linked by the SONAME,
# with every dc_ symbol it uses in the public version node, and must print the
# quick start's answer when run against the installed library. The install
# writes its .pc file into build/consumers, leaving build/dispatchcore.pc as
# it was. The README shows add.c, CMakeLists.txt and meson.build: each fenced
# block there that begins with one of these files' first line must be that
# file whole.
CONSUMERS_DIR      := Tests/Consumers
CONSUMERS_FILES    := add.c CMakeLists.txt meson.build
CONSUMERS_BUILD    := $(BUILD)/consumers
CONSUMERS_PREFIX    = $(abspath $(CONSUMERS_BUILD))/prefix
CONSUMERS_PACKAGES := cmake meson ninja-build
CONSUMERS_ANSWER   := 42
CMAKE              ?= cmake
MESON              ?= meson

.PHONY: test-consumers deps-consumers check-readme-consumers

deps-consumers:
	@$(MAKE) --no-print-directory deps DEB_PACKAGES="$(DEB_PACKAGES) $(CONSUMERS_PACKAGES)"

check-readme-consumers:
	@mkdir -p $(CONSUMERS_BUILD); for file in $(CONSUMERS_FILES); do \
	    first=$$(head -n 1 $(CONSUMERS_DIR)/$$file); \
	    awk -v first="$$first" 'inside && /^```/ { exit } inside { print } \
	        /^```/ && !inside { fence = NR } NR == fence + 1 && $$0 == first { inside = 1; print }' \
	        README.md > $(CONSUMERS_BUILD)/readme-$$file; \
	    if [ ! -s $(CONSUMERS_BUILD)/readme-$$file ]; then \
	        echo "error: README.md has no block beginning with '$$first' ($(CONSUMERS_DIR)/$$file)" >&2; exit 1; \
	    fi; \
	    diff -u --label README.md --label $(CONSUMERS_DIR)/$$file $(CONSUMERS_BUILD)/readme-$$file \
	        $(CONSUMERS_DIR)/$$file >&2 || { \
	        echo "error: README.md's $$file and $(CONSUMERS_DIR)/$$file differ" >&2; exit 1; }; \
	done

test-consumers:
	@$(MAKE) --no-print-directory deps-consumers
	@$(MAKE) --no-print-directory all
	@rm -rf $(CONSUMERS_BUILD) && mkdir -p $(CONSUMERS_BUILD)
	@$(MAKE) --no-print-directory check-readme-consumers
	@$(MAKE) --no-print-directory install PREFIX=$(CONSUMERS_PREFIX) PC_FILE=$(CONSUMERS_BUILD)/$(LIBRARY).pc \
	    > $(CONSUMERS_BUILD)/install.log
	@export PKG_CONFIG_PATH=$(CONSUMERS_PREFIX)/lib/pkgconfig$${PKG_CONFIG_PATH:+:$$PKG_CONFIG_PATH} \
	    CC="$(TEST_CC)" CFLAGS="$(WARNINGS)"; log=$(CONSUMERS_BUILD)/build.log; \
	{ mkdir -p $(CONSUMERS_BUILD)/pkg-config && $(TEST_CC) -std=c11 $(WARNINGS) $(CONSUMERS_DIR)/add.c \
	    -o $(CONSUMERS_BUILD)/pkg-config/add $$($(PKG_CONFIG) --cflags --libs $(LIBRARY)) \
	  && $(CMAKE) -S $(CONSUMERS_DIR) -B $(CONSUMERS_BUILD)/cmake -G Ninja && $(CMAKE) --build $(CONSUMERS_BUILD)/cmake \
	  && $(MESON) setup $(CONSUMERS_BUILD)/meson $(CONSUMERS_DIR) && $(MESON) compile -C $(CONSUMERS_BUILD)/meson; \
	} > $$log 2>&1 || { cat $$log >&2; echo "error: test-consumers: a build failed (output in $$log)" >&2; exit 1; }
	@status=0; \
	for tool in pkg-config cmake meson; do \
	    program=$(CONSUMERS_BUILD)/$$tool/add; \
	    fail() { echo "error: test-consumers: $$program ($$tool) $$1" >&2; status=1; }; \
	    $(READELF) -d $$program | grep -q 'NEEDED.*\[$(SONAME)\]' || fail "does not need $(SONAME)"; \
	    unversioned=$$($(NM) -D --undefined-only $$program | awk '{ print $$2 }' | grep '^dc_' \
	        | grep -v '@$(PUBLIC_NODE)$$'); \
	    [ -z "$$unversioned" ] || fail "uses dc_ symbols outside $(PUBLIC_NODE): $$(echo $$unversioned)"; \
	    answer=$$(LD_LIBRARY_PATH=$(CONSUMERS_PREFIX)/lib $$program) || fail "failed"; \
	    if [ "$$answer" = "$(CONSUMERS_ANSWER)" ]; then \
	        echo "test-consumers: built by $$tool against $(CONSUMERS_PREFIX), $(CONSUMERS_DIR)/add.c printed $$answer"; \
	    else \
	        fail "printed '$$answer', not $(CONSUMERS_ANSWER)"; \
	    fi; \
	done; \
	exit $$status

# ---- compilers: gcc and clang, for the library and for the tests ----------------

# The library (CC) and the C tests (TEST_CC) each built by gcc and by clang, in
# every pairing but the one `make test` runs on this machine (CC and TEST_CC as
# they default here, read before gcc is installed), each pairing in a build
# folder of its own, build/compilers/CC-TESTCC: all C tests, the fence
# fallback run, the exports (the version script through each compiler's
# default linker: bfd for gcc, gold for the Swift toolchain's clang) and each
# header alone under CC. gcc is installed when missing (as root); clang is the
# one on PATH, which the Swift toolchain brings. The thread tests run one
# program at a time, as in test-c, even under -j.
COMPILERS_GCC     ?= gcc
COMPILERS_CLANG   ?= clang
COMPILERS_BUILD   := build/compilers
COMPILER_gcc       = $(COMPILERS_GCC)
COMPILER_clang     = $(COMPILERS_CLANG)
COMPILERS_COVERED  = $(call compiler_family,$(CC))-$(call compiler_family,$(TEST_CC))
COMPILERS_PAIRS    = $(filter-out $(COMPILERS_COVERED),gcc-gcc gcc-clang clang-gcc clang-clang)
# $(call compilers_make,LIBRARY-TESTS) GOALS: make GOALS for one pairing.
compilers_make     = $(MAKE) --no-print-directory BUILD=$(COMPILERS_BUILD)/$(1) \
    CC=$(COMPILER_$(word 1,$(subst -, ,$(1)))) TEST_CC=$(COMPILER_$(word 2,$(subst -, ,$(1))))

.PHONY: test-compilers deps-compilers

deps-compilers:
	@$(MAKE) --no-print-directory deps DEB_PACKAGES="$(DEB_PACKAGES) $(if $(call first_command,$(COMPILERS_GCC)),,gcc)"

test-compilers:
	@$(MAKE) --no-print-directory deps-compilers
	@command -v $(COMPILERS_CLANG) >/dev/null 2>&1 || { \
	    echo "error: $(COMPILERS_CLANG) not found; put the Swift toolchain's usr/bin on PATH" \
	         "or name a clang with COMPILERS_CLANG=" >&2; exit 1; }
	@echo "test-compilers: $(COMPILERS_COVERED) is make test's; here $(COMPILERS_PAIRS) (library-tests)"
	@$(foreach pair,$(COMPILERS_PAIRS),echo "== library by $(word 1,$(subst -, ,$(pair))), tests by $(word 2,$(subst -, ,$(pair)))" && \
	    $(call compilers_make,$(pair)) all test-c && \
	    $(call compilers_make,$(pair)) test-fence-fallback check-exports check-header &&) true

# ---- other ABIs: AArch64 under qemu-user, and 32-bit i386 -------------------------

# The library and the C tests built for another ABI by Debian's cross gcc,
# against that architecture's libffi and cmocka from dpkg multiarch, into a
# build folder of the ABI's own (build/aarch64, build/i386), and run by
# make test-c and test-fence-fallback; check-exports reads the library with
# the target's nm. pkg-config reads the architecture's .pc files.
#
# AArch64 programs run under qemu-aarch64 with the arm64 loader and libc that
# libffi8:arm64 brings (libc6:arm64, in the usual multiarch places), not with
# the cross sysroot's (-L /usr/aarch64-linux-gnu): that loader is another glibc
# build, and would load the multiarch libc beside it through /etc/ld.so.cache.
# i386 programs run natively on an x86-64 kernel. i386 is built by
# gcc-i686-linux-gnu, not gcc -m32: gcc-multilib, which -m32 needs, conflicts
# with Debian's cross compilers, gcc-aarch64-linux-gnu among them.
AARCH64_BUILD    := build/aarch64
AARCH64_PACKAGES := gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user \
                    libffi-dev:arm64 libcmocka-dev:arm64
I386_BUILD       := build/i386
I386_PACKAGES    := gcc-i686-linux-gnu libc6-dev-i386-cross libffi-dev:i386 libcmocka-dev:i386
# qemu-i386 (from qemu-user) where the kernel runs no 32-bit programs (no IA32 emulation).
I386_RUNNER      ?=

# gcc notes, on i386, that GCC 11 changed the alignment of _Atomic 64-bit
# fields in structs (a layout shared with objects built by an older GCC);
# here one compiler builds the library and its tests.
I386_CFLAGS      := -Wno-psabi

# $(call cross_make,TRIPLET,MULTIARCH-DIRECTORY,BUILD,RUNNER,EXTRA-CFLAGS) GOALS: make GOALS
# for the target. The thread tests run one program at a time, as in test-c,
# even under -j: the fallback run is a second sub-make.
cross_make = PKG_CONFIG_LIBDIR=/usr/lib/$(2)/pkgconfig:/usr/share/pkgconfig \
    $(MAKE) --no-print-directory BUILD=$(3) CC=$(1)-gcc TEST_CC=$(1)-gcc AR=$(1)-ar NM=$(1)-nm READELF=$(1)-readelf \
        TEST_RUNNER="$(4)" CFLAGS="$(strip $(CFLAGS) $(5))"
AARCH64_MAKE = $(call cross_make,aarch64-linux-gnu,aarch64-linux-gnu,$(AARCH64_BUILD),qemu-aarch64)
I386_MAKE    = $(call cross_make,i686-linux-gnu,i386-linux-gnu,$(I386_BUILD),$(I386_RUNNER),$(I386_CFLAGS))

.PHONY: test-aarch64 deps-aarch64 test-32 deps-32

deps-aarch64:
	@$(MAKE) --no-print-directory deps DEB_ARCHITECTURES=arm64 DEB_PACKAGES="$(DEB_PACKAGES) $(AARCH64_PACKAGES)"

test-aarch64:
	@$(MAKE) --no-print-directory deps-aarch64
	@$(AARCH64_MAKE) all test-c
	@$(AARCH64_MAKE) test-fence-fallback check-exports

deps-32:
	@$(MAKE) --no-print-directory deps DEB_ARCHITECTURES=i386 DEB_PACKAGES="$(DEB_PACKAGES) $(I386_PACKAGES)"

test-32:
	@$(MAKE) --no-print-directory deps-32
	@$(I386_MAKE) all test-c
	@$(I386_MAKE) test-fence-fallback check-exports

# ---- benchmark ----------------------------------------------------------------

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

.PHONY: bench-deps bench-build bench-check bench-record
bench-deps:
	@$(MAKE) --no-print-directory deps DEB_PACKAGES="$(DEB_PACKAGES) $(BENCH_PACKAGES)"

bench-build: bench-deps
	@$(MAKE) --no-print-directory $(BENCH_BINARIES)

bench: bench-build
	@$(BENCH_REPORT) --save $(BENCH_FIGURES) $(BENCH_ARGS)

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
bench-all: bench-swift-run bench-build
	@cd Benchmarks && $(SWIFT) run -c release --skip-build BenchSummary $(BENCH_SWIFT_RESULTS) \
	    --tsv > ../$(BUILD)/bench/swift.tsv
	@$(BENCH_REPORT) --swift $(BUILD)/bench/swift.tsv --save $(BENCH_FIGURES) $(BENCH_ARGS)

# The last make bench or make bench-all run's figures, drawn beside RESULTS.md.
BENCH_FIGURES := $(BUILD)/bench/figures.tsv
BENCH_CHART   := Benchmarks/bench-chart.svg
.PHONY: bench-chart
bench-chart:
	@test -f $(BENCH_FIGURES) || { echo "error: no $(BENCH_FIGURES); run make bench-all (or make bench) first" >&2; exit 1; }
	@$(PYTHON) Scripts/bench-chart.py $(BENCH_FIGURES) $(BENCH_CHART)

# ---- hardening: sanitizers, valgrind, libFuzzer ---------------------------------

# Sanitizer and fuzzer builds need clang and its runtimes (compiler-rt); the
# Swift toolchain's clang brings them all, libFuzzer included. Variables read
# through $(shell) use `=`, so only the targets below pay for them.
SANITIZER_CC  ?= $(or $(call first_command,clang),clang)
# valgrind's memcheck must redirect strlen in ld.so, whose symbols Debian ships
# only in libc6-dbg; without it valgrind refuses to start.
HARDENING_PACKAGES := valgrind libc6-dbg
VALGRIND      ?= valgrind

# gold, the Swift toolchain clang's default linker, warns about every ASan helper
# it cannot export; lld links the same quietly.
SANITIZER_LDFLAGS = $(shell printf 'int main(void) { return 0; }\n' | \
    $(SANITIZER_CC) -fuse-ld=lld -x c - -o /dev/null 2>/dev/null && echo -fuse-ld=lld)
# The Swift toolchain's TSan runtime intercepts libdispatch, so a C program linked
# with it needs the toolchain's libdispatch and BlocksRuntime beside it.
SANITIZER_SWIFT_LIBDIR = $(realpath $(dir $(realpath $(shell command -v $(SANITIZER_CC))))../lib/swift/linux)
comma         := ,
TSAN_LDFLAGS  = $(if $(wildcard $(SANITIZER_SWIFT_LIBDIR)/libdispatch.so),-L$(SANITIZER_SWIFT_LIBDIR) \
                -Wl$(comma)-rpath$(comma)$(SANITIZER_SWIFT_LIBDIR) -ldispatch -lBlocksRuntime)

# Every report stops the process with a failure status.
ASAN_RUNTIME_OPTIONS  := detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1
UBSAN_RUNTIME_OPTIONS := print_stacktrace=1:halt_on_error=1
TSAN_RUNTIME_OPTIONS  := halt_on_error=1:second_deadlock_stack=1
SANITIZE_ENV  = ASAN_OPTIONS=$(ASAN_RUNTIME_OPTIONS) UBSAN_OPTIONS=$(UBSAN_RUNTIME_OPTIONS) \
                TSAN_OPTIONS=$(TSAN_RUNTIME_OPTIONS)

# run_logged NAME COMMAND...: runs the command with its output also kept in
# build/logs/NAME.log, and fails when the command fails or the output holds a
# sanitizer report (one from a child process, such as a Swift exit test's, need
# not change the exit status).
SANITIZER_REPORT := ==[0-9]+==ERROR: |WARNING: ThreadSanitizer|runtime error: |SUMMARY: [A-Za-z]+Sanitizer
RUN_LOGGED = run_logged() { \
    log="build/logs/$$1.log"; shift; mkdir -p build/logs; \
    { "$$@" 2>&1; echo $$? > "$$log.status"; } | tee "$$log"; \
    status=$$(cat "$$log.status"); \
    if grep -qE '$(SANITIZER_REPORT)' "$$log"; then \
        echo "error: sanitizer report in $$log:" >&2; grep -E '$(SANITIZER_REPORT)' "$$log" | head -5 >&2; \
        return 1; \
    fi; \
    [ "$$status" = 0 ] || echo "error: exit status $$status (output in $$log)" >&2; \
    return "$$status"; \
}

deps-hardening:
	@$(MAKE) --no-print-directory deps DEB_PACKAGES="$(DEB_PACKAGES) $(HARDENING_PACKAGES)"

# Fails early, with what to install, when the compiler lacks a runtime.
check-sanitizer-cc: | $(BUILD)
	@printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' \
	    > $(BUILD)/sanitizer_probe.c
	@$(SANITIZER_CC) -fsanitize=fuzzer,address,undefined $(BUILD)/sanitizer_probe.c -o $(BUILD)/sanitizer_probe \
	    $(SANITIZER_LDFLAGS) 2>/dev/null && \
	 printf 'int main(void) { return 0; }\n' > $(BUILD)/sanitizer_probe.c && \
	 $(SANITIZER_CC) -fsanitize=thread $(BUILD)/sanitizer_probe.c -o $(BUILD)/sanitizer_probe \
	    $(SANITIZER_LDFLAGS) $(TSAN_LDFLAGS) 2>/dev/null || { \
	    echo "error: $(SANITIZER_CC) cannot build with libFuzzer, ASan, UBSan and TSan;" \
	         "use the Swift toolchain's clang (SANITIZER_CC=/path/to/swift/usr/bin/clang)" >&2; exit 1; }
	@rm -f $(BUILD)/sanitizer_probe $(BUILD)/sanitizer_probe.c

# -- sanitizers -------------------------------------------------------------------

SANITIZE_ADDRESS_BUILD := build/sanitize-address
SANITIZE_THREAD_BUILD  := build/sanitize-thread

# The XCTest runner leaks its own suite objects, which LeakSanitizer reports; the
# Swift tests use swift-testing, so the empty XCTest pass is left out (and kept
# while any test file imports XCTest).
SWIFT_SANITIZE_FLAGS = $(if $(shell grep -rls '^import XCTest' Tests 2>/dev/null),,--disable-xctest)
# LeakSanitizer reads /proc/self/task when a process exits; a process out of
# file descriptors cannot, and LeakSanitizer ends it with status 1. The one test
# that runs a child out of descriptors on purpose expects status 0, so it runs
# in the plain and TSan runs, not under ASan. The macro's expansion and
# refusal tests run swift-syntax's parser in the test process; its frames,
# deep and large, leave ASan's stack poisoning behind on the thread, which a
# later deep recursion test on that thread then trips over: they are syntax
# transforms, checked in the plain and TSan runs.
SWIFT_ASAN_SKIP := DispatchErrorReachabilityTests/outOfMemory|MulticastExpansionTests|MulticastDiagnosticsTests|MulticastFallbackDiagnosticsTests

sanitize: sanitize-c sanitize-swift

# The C tests under ASan + UBSan (stubs.c without UBSan's function check, see
# STUBS_CFLAGS), then under TSan. TSan does not model membarrier(2), through
# which the core's readers get their ordering, so the TSan build uses the
# full-fence fallback (DC_NO_MEMBARRIER), which is exactly what TSan checks.
sanitize-c:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory check-sanitizer-cc
	@$(RUN_LOGGED); run_logged sanitize-c-address env $(SANITIZE_ENV) \
	    $(MAKE) --no-print-directory SANITIZE=address,undefined CC=$(SANITIZER_CC) \
	        BUILD=$(SANITIZE_ADDRESS_BUILD) LDFLAGS="$(SANITIZER_LDFLAGS)" test-c
	@$(RUN_LOGGED); run_logged sanitize-c-thread env $(SANITIZE_ENV) \
	    $(MAKE) --no-print-directory SANITIZE=thread CC=$(SANITIZER_CC) CFLAGS=-DDC_NO_MEMBARRIER \
	        BUILD=$(SANITIZE_THREAD_BUILD) LDFLAGS="$(SANITIZER_LDFLAGS) $(TSAN_LDFLAGS)" test-c

# swift test under each sanitizer, in scratch folders of their own so the plain
# build stays as it is. swiftc has no UBSan on Linux, but the C core compiled by
# SwiftPM does: -Xcc reaches it (and the ASan runtime carries UBSan's). SwiftPM
# has no per-file flags, so the function check is off for the whole core here;
# the C tests and the fuzzers keep it everywhere but stubs.c.
SWIFT_UBSAN_FLAGS := -Xcc -fsanitize=undefined -Xcc -fno-sanitize=function -Xcc -fno-sanitize-recover=all

sanitize-swift:
	@$(MAKE) --no-print-directory deps
	@$(RUN_LOGGED); run_logged sanitize-swift-address env $(SANITIZE_ENV) \
	    $(SWIFT) test --sanitize=address $(SWIFT_UBSAN_FLAGS) --scratch-path .build-sanitize-address \
	        $(SWIFT_SANITIZE_FLAGS) --skip '$(SWIFT_ASAN_SKIP)'
	@$(RUN_LOGGED); run_logged sanitize-swift-thread env $(SANITIZE_ENV) \
	        TSAN_OPTIONS=$(TSAN_RUNTIME_OPTIONS):suppressions=$(CURDIR)/Tests/tsan.supp \
	    $(SWIFT) test --sanitize=thread --scratch-path .build-sanitize-thread -Xcc -DDC_NO_MEMBARRIER \
	        $(SWIFT_SANITIZE_FLAGS)

# -- valgrind ---------------------------------------------------------------------

# The plain build's tests. Under valgrind membarrier(2) is missing, so the core
# takes its full-fence fallback. Memory still reachable at exit (each thread's
# reader record, kept for reuse) is not a leak. valgrind runs one thread at a
# time; its default hand-over lets a thread that yields in a loop (the thread
# tests' waits, a remove waiting for a running call) take the turn again and
# again, and once kept a mutex holder off the CPU past the tests' 60-second
# watchdog: --fair-sched=yes hands the turn over in order.
VALGRIND_FLAGS := --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
                  --show-leak-kinds=definite,indirect --track-origins=yes --num-callers=30 --fair-sched=yes

memcheck:
	@$(MAKE) --no-print-directory deps-hardening
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory $(TESTS)
	@failed=""; \
	for test in $(TESTS); do \
	    echo "== valgrind $$test"; \
	    $(VALGRIND) $(VALGRIND_FLAGS) "$$test" || failed="$$failed $$(basename $$test)"; \
	done; \
	if [ -n "$$failed" ]; then echo "memcheck failed:$$failed" >&2; exit 1; fi; \
	echo "memcheck: $(words $(TESTS)) C test programs, no error, no leak"

# -- libFuzzer --------------------------------------------------------------------

# Each target is Tests/CDispatchCoreTests/fuzz/fuzz_NAME.c, linked with the
# library compiled for fuzzing (coverage, ASan, UBSan); its committed seeds are
# corpus/NAME/. New inputs go to build/fuzz/corpus/NAME, crashes to
# build/fuzz/artifacts/. Replay one with build/fuzz/fuzz_NAME FILE.
FUZZ_DIR      := Tests/CDispatchCoreTests/fuzz
FUZZ_BUILD    := build/fuzz
FUZZ_TARGETS  := signature table queue forwarder
FUZZ_SECONDS  ?= 60
FUZZ_TIMEOUT  ?= 20
FUZZ_ARGS     ?=
# A smaller quarantine than ASan's default reuses memory sooner (fresh pages
# cost the table target a quarter of its speed); a use after free within one
# input, far below 64 MB, is still caught.
FUZZ_ENV      := ASAN_OPTIONS=quarantine_size_mb=64 UBSAN_OPTIONS=$(UBSAN_RUNTIME_OPTIONS)
FUZZ_BINARIES := $(addprefix $(FUZZ_BUILD)/fuzz_,$(FUZZ_TARGETS))
FUZZ_OBJECTS  := $(patsubst $(SOURCE_DIR)/%.c,$(FUZZ_BUILD)/obj/%.o,$(SOURCES))
FUZZ_CFLAGS   := -std=c11 $(WARNINGS) -O1 -g -fno-omit-frame-pointer -D_GNU_SOURCE -pthread \
                 -fno-sanitize-recover=all
# Longer inputs seldom reach more, and cost executions.
FUZZ_MAX_LEN_signature := 160
FUZZ_MAX_LEN_table     := 1024
FUZZ_MAX_LEN_queue     := 384
FUZZ_MAX_LEN_forwarder := 512

FUZZ_OBJECT_FLAGS :=
$(FUZZ_BUILD)/obj/stubs.o: FUZZ_OBJECT_FLAGS := -fno-sanitize=function

$(FUZZ_BUILD)/obj/%.o: $(SOURCE_DIR)/%.c | $(FUZZ_BUILD)/obj $(BUILD)/.libffi-found
	$(SANITIZER_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined $(FUZZ_OBJECT_FLAGS) \
	    $(FFI_CFLAGS) -I$(SOURCE_DIR)/include -I$(SOURCE_DIR) -MMD -MP -c $< -o $@

$(FUZZ_BUILD)/fuzz_%: $(FUZZ_DIR)/fuzz_%.c $(FUZZ_DIR)/fuzz_support.h $(HEADERS) $(BINDING_HEADER) $(FUZZ_OBJECTS)
	$(SANITIZER_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined -I$(SOURCE_DIR)/include -I$(BINDING_DIR) \
	    $< $(FUZZ_OBJECTS) -o $@ $(FFI_LIBS) $(SANITIZER_LDFLAGS) -pthread

# The table's model, shared with stress_table.
$(FUZZ_BUILD)/fuzz_table: $(FUZZ_DIR)/table_model.h
$(FUZZ_BUILD)/fuzz_signature: $(FUZZ_DIR)/encoding_model.h

$(FUZZ_BUILD) $(FUZZ_BUILD)/obj:
	@mkdir -p $@

-include $(FUZZ_OBJECTS:.o=.d)

fuzz-build:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory check-sanitizer-cc
	@$(MAKE) --no-print-directory $(FUZZ_BINARIES)

fuzz_command = env $(FUZZ_ENV) $(FUZZ_BUILD)/fuzz_$(1) -max_total_time=$(FUZZ_SECONDS) -max_len=$(FUZZ_MAX_LEN_$(1)) \
    -timeout=$(FUZZ_TIMEOUT) -print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/artifacts/$(1)- \
    $(if $(wildcard $(FUZZ_DIR)/$(1).dict),-dict=$(FUZZ_DIR)/$(1).dict) $(FUZZ_ARGS) \
    $(FUZZ_BUILD)/corpus/$(1) $(FUZZ_DIR)/corpus/$(1)

# The targets run at the same time, each for FUZZ_SECONDS, with their output in
# build/fuzz/logs/NAME.log; then each one's figures, or the end of its log when
# it failed.
fuzz: fuzz-build
	@mkdir -p $(FUZZ_BUILD)/artifacts $(FUZZ_BUILD)/logs $(addprefix $(FUZZ_BUILD)/corpus/,$(FUZZ_TARGETS))
	@pids=""; \
	$(foreach t,$(FUZZ_TARGETS),echo "== fuzz_$(t) for $(FUZZ_SECONDS) s (log: $(FUZZ_BUILD)/logs/$(t).log)"; \
	    $(call fuzz_command,$(t)) > $(FUZZ_BUILD)/logs/$(t).log 2>&1 & pids="$$pids $(t):$$!";) \
	status=0; \
	for entry in $$pids; do \
	    target=$${entry%%:*}; \
	    if wait $${entry#*:}; then \
	        echo "== fuzz_$$target: no crash"; \
	        grep -E '^(Done [0-9]+ runs|stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb))' \
	            $(FUZZ_BUILD)/logs/$$target.log | sed 's/^/    /'; \
	    else \
	        status=1; \
	        echo "== fuzz_$$target: FAILED; the end of $(FUZZ_BUILD)/logs/$$target.log:" >&2; \
	        tail -n 60 $(FUZZ_BUILD)/logs/$$target.log >&2; \
	    fi; \
	done; \
	exit $$status

# -- stress: threads against shared tables ----------------------------------------
#
#   make stress [STRESS_SECONDS=60] [STRESS_THREADS=3] [STRESS_SEED=0x...] [STRESS_SANITIZERS=address]
#
# Tests/CDispatchCoreTests/fuzz/stress_table.c: STRESS_THREADS threads, each running a
# seeded program of fuzz_table's operations, against tables they share, destroyed
# and recreated in rounds, for STRESS_SECONDS. A broken check, a sanitizer report
# or a hang (no round completed in STRESS_WATCHDOG seconds) fails. It runs under
# ASan + UBSan and, at the same time, under TSan (with DC_NO_MEMBARRIER, as
# sanitize-c does), each with the library built in a folder of its own; output in
# build/logs/stress-{address,thread}.log. The seed is random unless STRESS_SEED is
# given; every run prints it, and a failure prints the command that replays it.
STRESS_SECONDS    ?= 60
STRESS_THREADS    ?= 3
STRESS_WATCHDOG   ?= 30
STRESS_SEED       ?=
STRESS_ARGS       ?=
STRESS_SANITIZERS ?= address thread
STRESS_BUILD_address := build/stress-address
STRESS_BUILD_thread  := build/stress-thread
STRESS_MAKE_address   = SANITIZE=address,undefined CFLAGS=-g LDFLAGS="$(SANITIZER_LDFLAGS)"
STRESS_MAKE_thread    = SANITIZE=thread CFLAGS="-g -DDC_NO_MEMBARRIER" \
                        LDFLAGS="$(SANITIZER_LDFLAGS) $(TSAN_LDFLAGS)"
STRESS_SOURCES    := $(FUZZ_DIR)/stress_table.c $(FUZZ_DIR)/stress_support.h $(FUZZ_DIR)/fuzz_support.h \
                     $(FUZZ_DIR)/table_model.h \
                     Tests/CDispatchCoreTests/value_equality.h $(BINDING_HEADER)

.PHONY: stress stress-build

# Built by a sub-make whose BUILD, SANITIZE and CFLAGS are one sanitizer's, with
# that build's static library.
$(BUILD)/stress/stress_table: $(STRESS_SOURCES) $(HEADERS) $(STATIC_LIB) | $(BUILD)/stress
	$(CC) $(CLIENT_CFLAGS) $< -o $@ $(STATIC_LIB) $(FFI_LIBS) $(SANITIZE_FLAGS) $(LDFLAGS) -pthread

$(BUILD)/stress:
	@mkdir -p $@

stress-build:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory check-sanitizer-cc
	@$(foreach s,$(STRESS_SANITIZERS),$(MAKE) --no-print-directory CC=$(SANITIZER_CC) \
	    BUILD=$(STRESS_BUILD_$(s)) $(STRESS_MAKE_$(s)) $(STRESS_BUILD_$(s))/stress/stress_table &&) true

stress_command = env $(SANITIZE_ENV) $(STRESS_BUILD_$(1))/stress/stress_table --seconds $(STRESS_SECONDS) \
    --threads $(STRESS_THREADS) --watchdog $(STRESS_WATCHDOG) $(if $(STRESS_SEED),--seed $(STRESS_SEED)) \
    $(STRESS_ARGS)

# The runs go at the same time; then each one's summary, or its log from the
# first report on (without ASan's shadow bytes).
STRESS_REPORT_START := /==[0-9]+==ERROR: |WARNING: ThreadSanitizer|runtime error: |check failed|^stress_table FAILED/
stress: stress-build
	@$(RUN_LOGGED); pids=""; \
	$(foreach s,$(STRESS_SANITIZERS),echo "== stress_table under $(s) for $(STRESS_SECONDS) s" \
	    "(log: build/logs/stress-$(s).log)"; \
	    run_logged stress-$(s) $(call stress_command,$(s)) > /dev/null & pids="$$pids $(s):$$!";) \
	status=0; \
	for entry in $$pids; do \
	    name=$${entry%%:*}; \
	    if wait $${entry#*:}; then \
	        echo "== stress_table under $$name: passed"; \
	        sed -n '/^stress_table: seed/p; /^stress_table: passed/,$$p' build/logs/stress-$$name.log | sed 's/^/    /'; \
	    else \
	        status=1; \
	        echo "== stress_table under $$name: FAILED; from build/logs/stress-$$name.log:" >&2; \
	        awk '$(STRESS_REPORT_START) { on = 1 } on && /^Shadow bytes/ { skip = 1 } \
	             /^stress_table FAILED/ { skip = 0 } on && !skip' build/logs/stress-$$name.log | head -n 150 >&2; \
	    fi; \
	done; \
	exit $$status

# -- the removal protocol's model (SPIN) --------------------------------------------

# Tests/Model/removal.pml models removing and blocking a handler while other
# threads call it (reclaim.c's dc__wait_for_calls(), its waiting rule and its
# handover); its header says what each part stands for and what is checked.
# Each configuration's verifier is generated, compiled and run in
# build/model/CONFIG, which keeps the log (pan.log) and, after a failure, the
# trail: cd there and replay it with `spin -DCONFIG $(MODEL_DEFINES) -t -p removal.pml`.
# pan exits 0 whatever it finds, so its report decides: no error, and a search
# neither cut short by the depth bound nor by the memory bound. A mutant the
# model must reject: make model MODEL_DEFINES=-DNO_SKIP (or -DNO_HANDOVER, or
# -DLAZY_ARRAY with MODEL_CONFIGS=NESTED3).
MODEL          := Tests/Model/removal.pml
MODEL_BUILD    := build/model
MODEL_CONFIGS  := CYCLE2 CYCLE2_NESTED CYCLE3 NESTED3 BLOCK2 SELF2 OUTSIDE
MODEL_DEFINES  ?=
MODEL_PACKAGES := spin
SPIN           ?= spin
# Safety only (assertions and invalid end states), states stored compressed; a
# search outgrowing MEMLIM megabytes stops, and fails, rather than swap.
PAN_CFLAGS     := -O2 -DSAFETY -DCOLLAPSE -DMEMLIM=1024
PAN_DEPTH      := 100000
PAN_INCOMPLETE := max search depth too small|MEMLIM bound|out of memory

deps-model:
	@$(MAKE) --no-print-directory deps DEB_PACKAGES="$(DEB_PACKAGES) $(MODEL_PACKAGES)"

model:
	@$(MAKE) --no-print-directory deps-model
	@status=0; \
	for config in $(MODEL_CONFIGS); do \
	    dir=$(MODEL_BUILD)/$$config; log=$$dir/pan.log; \
	    rm -rf $$dir && mkdir -p $$dir && cp $(MODEL) $$dir/; \
	    if ! (cd $$dir && $(SPIN) -D$$config $(MODEL_DEFINES) -a $(notdir $(MODEL)) && \
	          $(CC) $(PAN_CFLAGS) -o pan pan.c && ./pan -m$(PAN_DEPTH)) > $$log 2>&1; then \
	        status=1; echo "== model $$config: FAILED to build or run; the end of $$log:" >&2; tail -n 20 $$log >&2; \
	    elif grep -q 'errors: 0$$' $$log && ! grep -qE '$(PAN_INCOMPLETE)' $$log; then \
	        echo "== model $$config: no error;" \
	            "$$(awk '/states, stored/ { print $$1 }' $$log) states," \
	            "depth $$(sed -nE 's/.*depth reached ([0-9]+).*/\1/p' $$log)," \
	            "$$(sed -nE 's/^pan: elapsed time (.*) seconds/\1/p' $$log) s"; \
	    else \
	        status=1; echo "== model $$config: FAILED (log and trail in $$dir):" >&2; \
	        grep -E '^pan:[0-9]|errors: |$(PAN_INCOMPLETE)' $$log >&2; \
	    fi; \
	done; \
	exit $$status

# ---- documentation ------------------------------------------------------------

# build/docs/swift: the documentation catalog (Sources/EventKitSwift/EventKitSwift.docc)
# with the EventKitSwift target's doc comments, built by swift-docc-plugin as a
# static site (serve the folder, e.g. `python3 -m http.server -d build/docs/swift`,
# and open /documentation/eventkitswift/). build/docs/c/index.html: the C API
# reference, the public headers' comments laid out by Scripts/c-reference.py, one
# page that opens as a file. Any warning fails: from docc, a symbol or article
# link that resolves to nothing (its output is kept in build/docs/swift.log);
# from the script, a comment naming what the header does not declare or a
# function with no comment.
#
# Package.swift names swift-docc-plugin only when EVENTKIT_DOCS is set, so
# `swift build`, `swift test` and packages that depend on this one never
# resolve it. The documentation is built in a scratch folder of its own, and
# the Package.resolved that its resolution writes (naming the plugin) is
# replaced by the package's own, or removed when there was none, when it ends.
DOCS_BUILD    := build/docs
DOCS_SCRATCH  := .build-docs
DOCS_PACKAGES  = $(if $(call first_command,$(PYTHON)),,python3)

deps-docs:
	@$(MAKE) --no-print-directory deps DEB_PACKAGES="$(DEB_PACKAGES) $(DOCS_PACKAGES)"

docs:
	@$(MAKE) --no-print-directory deps-docs
	@rm -rf $(DOCS_BUILD) && mkdir -p $(DOCS_BUILD) $(DOCS_SCRATCH)
	@kept=$(DOCS_SCRATCH)/Package.resolved.package; log=$(DOCS_BUILD)/swift.log; \
	rm -f $$kept; if [ -f Package.resolved ]; then cp -p Package.resolved $$kept; fi; \
	trap "if [ -f $$kept ]; then mv -f $$kept Package.resolved; else rm -f Package.resolved; fi" EXIT; \
	trap 'exit 130' INT TERM; \
	{ EVENTKIT_DOCS=1 $(SWIFT) package --scratch-path $(DOCS_SCRATCH) --allow-writing-to-directory $(DOCS_BUILD) \
	    generate-documentation --target EventKitSwift --output-path $(DOCS_BUILD)/swift 2>&1; \
	    echo $$? > $$log.status; } | tee $$log; \
	status=$$(cat $$log.status); \
	if grep -q 'warning:' $$log; then \
	    echo "error: make docs: $$(grep -c 'warning:' $$log) warning(s) in the Swift documentation (output in $$log)" >&2; \
	    exit 1; \
	fi; \
	[ "$$status" = 0 ] || echo "error: exit status $$status (output in $$log)" >&2; \
	exit "$$status"
	@$(PYTHON) Scripts/c-reference.py $(HEADERS) $(DOCS_BUILD)/c/index.html
	@echo "make docs: $(DOCS_BUILD)/swift (the Swift API and articles), $(DOCS_BUILD)/c/index.html (the C API)"

# ---- install ------------------------------------------------------------------

# Once the files are in place, programs must be able to load $(SONAME). glibc's
# loader looks in LD_LIBRARY_PATH, a program's rpath, its cache (/etc/ld.so.cache)
# and its built-in directories; a directory listed in /etc/ld.so.conf, as
# /usr/local/lib is on Debian, is seen only through the cache, which `ldconfig`
# rebuilds. The rule: LIBDIR is a loader directory when `ldconfig -v -N` (which
# lists the directories the cache is built from, and writes nothing) names it,
# both sides compared with symlinks resolved (on a merged-/usr system /lib is
# /usr/lib). Asking ldconfig rather than keeping a list follows the machine's own
# configuration, multiarch directories included. For a loader directory, install
# runs ldconfig as root and otherwise prints the `sudo ldconfig` to run; for any
# other LIBDIR it prints how a program finds the library there. A DESTDIR install
# stages files for a package, so it leaves the cache alone: the files are not
# where they will be loaded from.
LDCONFIG      ?= ldconfig
LOADER_DIRS    = PATH="$$PATH:/usr/sbin:/sbin" $(LDCONFIG) -v -N 2>/dev/null \
                 | sed -n 's|^\(/[^:]*\):.*|\1|p' | while read -r dir; do readlink -f "$$dir"; done
IS_LOADER_DIR  = $(LOADER_DIRS) | grep -qxF "$$(readlink -f '$(LIBDIR)')"

install: all
	$(INSTALL) -d $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR)
	$(INSTALL) -m 644 $(HEADERS) $(DESTDIR)$(INCLUDEDIR)/
	$(INSTALL) -m 644 $(STATIC_LIB) $(DESTDIR)$(LIBDIR)/
	$(INSTALL) -m 755 $(SHARED_REAL) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(SHARED_REAL)) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/lib$(LIBRARY).so
	$(INSTALL) -m 644 $(PC_FILE) $(DESTDIR)$(PKGCONFIGDIR)/
	@if [ -n '$(DESTDIR)' ]; then \
	    echo "make install: staged under $(DESTDIR); run ldconfig on the system that loads $(LIBDIR)/$(SONAME)"; \
	elif $(IS_LOADER_DIR); then \
	    if [ "$$(id -u)" = 0 ]; then \
	        echo "$(LDCONFIG)"; PATH="$$PATH:/usr/sbin:/sbin" $(LDCONFIG) || exit 1; \
	    else \
	        echo "make install: run 'sudo ldconfig' so that programs find $(SONAME) in $(LIBDIR)"; \
	    fi; \
	else \
	    echo "make install: the loader does not search $(LIBDIR); a program finds $(SONAME) there"; \
	    echo "    when run with LD_LIBRARY_PATH=$(LIBDIR),"; \
	    echo "    when linked with -Wl,-rpath,$(LIBDIR),"; \
	    echo "    or once $(LIBDIR) is listed in a file under /etc/ld.so.conf.d/ and 'sudo ldconfig' has run"; \
	fi

# As root, a loader directory's cache is rebuilt so that it names no removed file.
uninstall:
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/,$(notdir $(HEADERS))) \
	      $(DESTDIR)$(LIBDIR)/lib$(LIBRARY).a \
	      $(DESTDIR)$(LIBDIR)/lib$(LIBRARY).so \
	      $(DESTDIR)$(LIBDIR)/$(SONAME) \
	      $(DESTDIR)$(LIBDIR)/$(notdir $(SHARED_REAL)) \
	      $(DESTDIR)$(PKGCONFIGDIR)/$(LIBRARY).pc
	@if [ -z '$(DESTDIR)' ] && [ "$$(id -u)" = 0 ] && $(IS_LOADER_DIR); then \
	    echo "$(LDCONFIG)"; PATH="$$PATH:/usr/sbin:/sbin" $(LDCONFIG); \
	fi

clean:
	rm -rf build

FORCE:
