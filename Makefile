# Makefile — the C core for native C callers, its tests, the demo and install.
#
#   make                      build/libdispatchcore.a, build/libdispatchcore.so, build/dispatchcore.pc
#   make test                 deps, C tests, header and export checks, stub check, swift test
#   make demo                 deps, then swift run EventKitDemo
#   make bench                the C benchmarks (Benchmarks/c): bench_invoke (stub and libffi paths
#                             vs direct calls), then bench_table (executes, registering, memory
#                             and threads of the event table vs direct calls)
#                             (BENCH_ARGS=--quick for a short run, --strict to fail on a missed target)
#   make bench-swift          the Swift benchmarks (Benchmarks/, its own package on ordo-one/benchmark):
#                             CommandTable beside closures, a [String: [() -> Void]], NotificationCenter
#                             and OpenCombine; prints one table with ratios and targets. The first run
#                             builds the benchmark package and its dependencies (minutes); not part of
#                             `make test` (BENCH_SWIFT_ARGS="--filter 'dispatch.*'" runs some cases,
#                             BENCH_SWIFT_SUMMARY_ARGS=--strict fails on a missed target)
#   make install PREFIX=/opt/dc DESTDIR=/tmp/stage
#   make deps                 install the Debian packages the build and tests need (as root)
#   make check-exports        fail if the .so exports a symbol not starting with dc_
#   make test-c               only the C tests (cmocka), built into build/tests/
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

# A fresh Debian with only the Swift toolchain may have clang but no cc or gcc.
first_command = $(firstword $(foreach c,$(1),$(shell command -v $(c) 2>/dev/null)))
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
PKG_CONFIG    ?= pkg-config
PYTHON        ?= python3
SWIFT         ?= swift
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
# Tests and the benchmark see the library as a client does: the public header only.
CLIENT_CFLAGS := -std=c11 $(WARNINGS) $(OPTIMIZE) -D_GNU_SOURCE -pthread \
                 -I$(SOURCE_DIR)/include $(SANITIZE_FLAGS) $(CFLAGS)

# Debian packages the build and the tests need; a C or C++ compiler and nm are
# added by `make deps` only when none is found.
DEB_PACKAGES  := libffi-dev libcmocka-dev pkg-config libc6-dev

.PHONY: all deps test test-c check-header check-exports check-stubs demo bench \
        install uninstall clean FORCE

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

$(SHARED_REAL): $(OBJECTS)
	@test -n "$(OBJECTS)" || { echo "error: no sources in $(SOURCE_DIR)" >&2; exit 1; }
	$(CC) -shared -Wl,-soname,$(SONAME) $(NO_UNDEFINED) $(SANITIZE_FLAGS) $(LDFLAGS) \
	    -o $@ $^ $(FFI_LIBS) -pthread

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
# it stops and prints the command to run.
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
	    if [ -n "$$missing" ]; then \
	        if [ "$$(id -u)" = 0 ]; then \
	            echo "make deps: installing $$missing"; \
	            export DEBIAN_FRONTEND=noninteractive; \
	            apt-get update -qq && \
	            apt-get install -y -qq --no-install-recommends $$missing >/dev/null || exit 1; \
	        else \
	            echo "error: missing Debian packages: $$missing" >&2; \
	            echo "install them with:" >&2; \
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
	@$(MAKE) --no-print-directory test-c check-header check-exports check-stubs
	$(SWIFT) test

demo:
	@$(MAKE) --no-print-directory deps
	$(SWIFT) run EventKitDemo

# Tests link against the shared library, so a public function that is not
# exported fails to link here rather than in a user's program.
$(BUILD)/tests/%: Tests/CDispatchCoreTests/%.c $(wildcard Tests/CDispatchCoreTests/*.h) \
                  $(HEADER) $(SHARED_LIB) | $(BUILD)/tests
	$(TEST_CC) $(CLIENT_CFLAGS) $(CMOCKA_CFLAGS) $< -o $@ \
	    -L$(BUILD) -l$(LIBRARY) -Wl,-rpath,'$$ORIGIN/..' $(CMOCKA_LIBS) \
	    $(SANITIZE_FLAGS) $(LDFLAGS) -pthread

test-c: $(TESTS)
	@test -n "$(TESTS)" || { echo "error: no C tests in Tests/CDispatchCoreTests" >&2; exit 1; }
	@failed=""; \
	for test in $(TESTS); do \
	    echo "== $$test"; \
	    "$$test" || failed="$$failed $$(basename $$test)"; \
	done; \
	if [ -n "$$failed" ]; then echo "C tests failed:$$failed" >&2; exit 1; fi

# The public header must stand alone, as C11 and as C++11.
check-header: | $(BUILD)/tests
	@printf '#include "dispatch_core.h"\n' > $(BUILD)/tests/header_alone.c
	@printf '#include "dispatch_core.h"\n' > $(BUILD)/tests/header_alone.cpp
	$(CC) -std=c11 -pedantic $(WARNINGS) -I$(SOURCE_DIR)/include \
	    -c $(BUILD)/tests/header_alone.c -o $(BUILD)/tests/header_alone_c.o
	$(CXX) -std=c++11 -pedantic $(WARNINGS) -I$(SOURCE_DIR)/include \
	    -c $(BUILD)/tests/header_alone.cpp -o $(BUILD)/tests/header_alone_cpp.o

# Every exported symbol starts with dc_, and every function the header declares
# with DC_API is exported. Symbols the linker itself defines (gold exports the
# section markers _edata, _end and __bss_start) are not ours and are skipped.
LINKER_SYMBOLS := _edata _end __bss_start _init _fini

check-exports: $(SHARED_REAL)
	@stray=$$($(NM) -D --defined-only $< | awk 'NF >= 3 && $$3 !~ /^dc_/ { print $$3 }' \
	    | grep -vxF $(foreach s,$(LINKER_SYMBOLS),-e $(s)) || true); \
	if [ -n "$$stray" ]; then \
	    echo "error: $< exports symbols without the dc_ prefix:" >&2; \
	    echo "$$stray" | sed 's/^/    /' >&2; exit 1; \
	fi; \
	exported=$$($(NM) -D --defined-only $< | awk 'NF >= 3 && $$3 ~ /^dc_/ { print $$3 }'); \
	declared=$$(grep -E '^DC_API' $(HEADER) | grep -oE '\bdc_[a-z0-9_]+\(' | tr -d '('); \
	missing=""; \
	for name in $$declared; do \
	    echo "$$exported" | grep -qx "$$name" || missing="$$missing $$name"; \
	done; \
	if [ -n "$$missing" ]; then \
	    echo "error: declared in $(HEADER) but not exported:$$missing" >&2; exit 1; \
	fi; \
	echo "check-exports: $$(echo "$$exported" | wc -l) dc_ symbols exported, nothing else"

check-stubs:
	@if command -v $(PYTHON) >/dev/null 2>&1; then \
	    $(PYTHON) Scripts/generate-stubs.py --check && echo "check-stubs: stubs.c is up to date"; \
	else \
	    echo "check-stubs: skipped ($(PYTHON) not found)"; \
	fi

# ---- benchmark ----------------------------------------------------------------

# Each program is its own .c with a main; every other .c in the folder is a helper
# (callees, handlers) linked into all of them.
BENCH_SOURCES  := $(sort $(wildcard $(BENCH_DIR)/*.c))
BENCH_PROGRAMS := bench_invoke bench_table
BENCH_HELPERS  := $(filter-out $(patsubst %,$(BENCH_DIR)/%.c,$(BENCH_PROGRAMS)),$(BENCH_SOURCES))
BENCH_BINARIES := $(addprefix $(BUILD)/bench/,$(BENCH_PROGRAMS))

$(BENCH_BINARIES): $(BUILD)/bench/%: $(BENCH_DIR)/%.c $(BENCH_HELPERS) $(wildcard $(BENCH_DIR)/*.h) \
                   $(HEADER) $(STATIC_LIB) | $(BUILD)/bench
	$(CC) $(CLIENT_CFLAGS) $(FFI_CFLAGS) $< $(BENCH_HELPERS) -o $@ $(STATIC_LIB) $(FFI_LIBS) \
	    $(SANITIZE_FLAGS) $(LDFLAGS) -pthread

# Every program runs even when an earlier one missed a target under --strict.
bench:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory $(BENCH_BINARIES)
	@status=0; \
	for program in $(BENCH_BINARIES); do \
	    echo "== $$program $(BENCH_ARGS)"; \
	    "$$program" $(BENCH_ARGS) || status=1; \
	    echo; \
	done; \
	exit $$status

# The benchmark package exports one histogram per case and metric into a fresh
# folder, then BenchSummary reads them and prints the table. ordo-one's line
# for each file written is left out; its exit status is kept.
BENCH_SWIFT_RESULTS := .build/bench-swift-results

.PHONY: bench-swift
bench-swift:
	@$(MAKE) --no-print-directory deps
	@rm -rf Benchmarks/$(BENCH_SWIFT_RESULTS) && mkdir -p Benchmarks/$(BENCH_SWIFT_RESULTS)
	@cd Benchmarks && { $(SWIFT) package --allow-writing-to-package-directory benchmark \
	    --format histogramEncoded --path $(BENCH_SWIFT_RESULTS) --no-progress $(BENCH_SWIFT_ARGS) 2>&1; \
	    echo $$? > $(BENCH_SWIFT_RESULTS).status; } | grep -v '^Writing to '; \
	    exit $$(cat $(BENCH_SWIFT_RESULTS).status)
	@cd Benchmarks && $(SWIFT) build -c release --product BenchSummary >/dev/null
	@cd Benchmarks && $(SWIFT) run -c release --skip-build BenchSummary $(BENCH_SWIFT_RESULTS) \
	    $(BENCH_SWIFT_SUMMARY_ARGS)

# ---- install ------------------------------------------------------------------

install: all
	$(INSTALL) -d $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR)
	$(INSTALL) -m 644 $(HEADER) $(DESTDIR)$(INCLUDEDIR)/
	$(INSTALL) -m 644 $(STATIC_LIB) $(DESTDIR)$(LIBDIR)/
	$(INSTALL) -m 755 $(SHARED_REAL) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(SHARED_REAL)) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/lib$(LIBRARY).so
	$(INSTALL) -m 644 $(PC_FILE) $(DESTDIR)$(PKGCONFIGDIR)/

uninstall:
	rm -f $(DESTDIR)$(INCLUDEDIR)/dispatch_core.h \
	      $(DESTDIR)$(LIBDIR)/lib$(LIBRARY).a \
	      $(DESTDIR)$(LIBDIR)/lib$(LIBRARY).so \
	      $(DESTDIR)$(LIBDIR)/$(SONAME) \
	      $(DESTDIR)$(LIBDIR)/$(notdir $(SHARED_REAL)) \
	      $(DESTDIR)$(PKGCONFIGDIR)/$(LIBRARY).pc

clean:
	rm -rf build

FORCE:
