# Makefile — the C core for native C callers: build, test, install.
#
#   make                      build/libdispatchcore.a, build/libdispatchcore.so, build/dispatchcore.pc
#                             (the .so's exports: a version script made from the headers, see
#                             "exports" below; the SONAME policy is in the DocC article Using the C Library)
#   make test                 deps, C tests, header and export checks, stub check, layer check, the
#                             CMake and Meson consumers, swift test, misuse checks (Tests/Misuse
#                             must not compile)
#   make install PREFIX=/opt/dc DESTDIR=/tmp/stage       (make uninstall takes the same)
#   make deps                 install the Debian packages the build and tests need (as root;
#                             Scripts/install-deps.sh)
#   make demo                 deps, then swift run EventKitDemo
#   make test-c               only the C tests (cmocka), built into build/tests/
#   make check-header         each installed header and the binding header alone, as C11 and C++11,
#                             and the binding's inline header as C11
#   make check-exports        the .so exports exactly what the headers declare, in the version
#                             nodes the version script (made from the headers) gives them
#   make check-stubs          stubs.c is what Scripts/generate-stubs.py makes
#   make check-layers         the core's layers call downward only (Scripts/check-layers.sh)
#   make check-libffi-restatement  every libffi test file listed, restated by a registered test or
#                             not for an allowed reason (Scripts/check-libffi-restatement.sh)
#   make test-fence-fallback  test_table_threads with membarrier(2) refused, so the core falls back
#                             to full fences at run time (it prints which fences it used)
#   make test-swift-fallback  swift test with the C core's Swift-convention calls turned off
#   make clean
#
# The rest is in mk/, each file's header listing its targets:
#   mk/checks.mk              check-layers, check-libffi-restatement, check-misuse, check-header,
#                             check-exports, check-stubs: the checks make test runs beside the tests
#   mk/consumers.mk           test-consumers, check-readme-consumers: the README's C quick start
#   mk/cross.mk               test-compilers, test-aarch64, test-32, test-portable, test-musl: other
#                             compilers, ABIs, the POSIX platform layer and musl
#   mk/bench.mk               bench, bench-all, bench-chart, bench-check, bench-record, bench-swift
#   mk/hardening.mk           sanitize, memcheck, fuzz, stress, model
#   mk/docs.mk                docs: DocC and the C API reference, no warning allowed
#
# CC defaults to cc, else the Swift toolchain's clang; TEST_CC (the C tests) to clang.
#
# Sanitizer builds go to their own folder and only build the C library and tests:
#   make SANITIZE=address,undefined test-c        (BUILD defaults to build/sanitize)
# STUBS_CFLAGS then carries -fno-sanitize=function for stubs.c, whose calls through
# cast function pointers are what the platform ABI defines and UBSan's function
# check reports (only clang knows that check; gcc gets nothing extra).

# SOVERSION 1 (VERSION 0.2.0), issue 40: DC_MAX_PARAMETERS went from 32 to 127
# and DC_TYPE_COUNT from 16 to 20, and encodings once refused (D, jf, jd, jD,
# variadic closures) are accepted; dc_value's layout is unchanged.
VERSION       := 0.2.0
SOVERSION     := 1
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
# What only a language binding needs; not installed: the binding's API
# (dispatch_core_binding.h) and the core's layouts and inline execute a binding
# compiles into its callers (dispatch_core_inline.h, C only). The core owns both;
# the Swift layer's module map (Sources/CDispatchCoreBinding) lists them.
BINDING_DIR   := $(SOURCE_DIR)/binding
BINDING_HEADER := $(BINDING_DIR)/dispatch_core_binding.h
INLINE_HEADER := $(BINDING_DIR)/dispatch_core_inline.h
BINDING_HEADERS := $(BINDING_HEADER) $(INLINE_HEADER)
SOURCES       := $(sort $(wildcard $(SOURCE_DIR)/*.c))
OBJECTS       := $(patsubst $(SOURCE_DIR)/%.c,$(BUILD)/obj/%.o,$(SOURCES))
TEST_SOURCES  := $(sort $(wildcard Tests/CDispatchCoreTests/test_*.c))
TESTS         := $(patsubst Tests/CDispatchCoreTests/%.c,$(BUILD)/tests/%,$(TEST_SOURCES))

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

# The core asks for C11 and POSIX.1-2008 alone, so that a glibc extension
# fails to compile here rather than on another system; only the Linux side of
# its platform layer (platform_linux.c) asks for more.
LIB_CFLAGS    := -std=c11 $(WARNINGS) $(OPTIMIZE) -fPIC -fvisibility=hidden \
                 -DDC_BUILDING_LIBRARY -D_POSIX_C_SOURCE=200809L -pthread $(FFI_CFLAGS) \
                 -I$(SOURCE_DIR)/include -I$(SOURCE_DIR) $(SANITIZE_FLAGS) $(CFLAGS)
# Tests and the benchmark see the library as a client does: the public header,
# and the binding's headers for what they test of the binding.
CLIENT_CFLAGS := -std=c11 $(WARNINGS) $(OPTIMIZE) -D_GNU_SOURCE -pthread \
                 -I$(SOURCE_DIR)/include -I$(BINDING_DIR) $(SANITIZE_FLAGS) $(CFLAGS)

# Debian packages the build and the tests need; a C or C++ compiler and nm are
# added by `make deps` only when none is found.
DEB_PACKAGES  := libffi-dev libcmocka-dev pkg-config libc6-dev

.PHONY: all deps test test-c check-header check-exports check-stubs demo install uninstall clean FORCE

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
# the binding's headers declare with DC__BINDING_API (dc__). These lists are
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

$(BINDING_NAMES): $(BINDING_HEADERS) | $(BUILD)/exports
	@grep -hE '\bDC__BINDING_API\b' $(BINDING_HEADERS) | grep -v '^#' \
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

# Quiet when everything is there; as root it installs what is missing, else it
# prints the commands to run (Scripts/install-deps.sh). DEB_ARCHITECTURES names
# the dpkg architectures that packages named name:arch in DEB_PACKAGES need.
DEB_ARCHITECTURES ?=

deps:
	@Scripts/install-deps.sh --architectures "$(DEB_ARCHITECTURES)" --pkg-config "$(PKG_CONFIG)" \
	    --command "$(CC)" gcc --command "$(CXX)" g++ --command "$(NM)" binutils $(DEB_PACKAGES)

# ---- tests --------------------------------------------------------------------

# Sub-makes, so that variables read through pkg-config are read again after
# `deps` has installed the packages.
test:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory test-c check-header check-exports check-stubs check-layers \
	    check-libffi-restatement
	@$(MAKE) --no-print-directory test-consumers
	$(SWIFT) test
	@$(MAKE) --no-print-directory check-misuse

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
                  $(HEADERS) $(BINDING_HEADERS) $(SHARED_LIB) | $(BUILD)/tests
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

# ---- the rest: C consumers, other compilers and ABIs, benchmarks, hardening, docs --

include mk/checks.mk mk/consumers.mk mk/cross.mk mk/bench.mk mk/hardening.mk mk/docs.mk
