# mk/cross.mk — other compilers and other ABIs. Included by the Makefile.
#
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
#                             natively (I386_RUNNER=qemu-i386 where the kernel runs no 32-bit
#                             programs); every call takes the libffi path there
#   make test-portable        the core's POSIX platform layer forced (DC_PLATFORM_POSIX) on Linux:
#                             the library and every C test in build/portable, check-exports,
#                             check-layers, then the Swift suite in .build/portable
#   make test-musl            the library and the C tests built by Debian's musl-gcc (musl-tools)
#                             against Debian's libffi_pic.a and a cmocka built from Debian's
#                             source package, and run: in build/musl as musl-gcc is (the POSIX
#                             platform layer), in build/musl-linux with the kernel's headers
#                             added (the Linux layer); installs what it needs

# -- compilers: gcc and clang, for the library and for the tests ------------------

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

# -- other ABIs: AArch64 under qemu-user, and 32-bit i386 ---------------------------

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

# -- the POSIX platform layer, and musl ----------------------------------------------

# Which side of the platform layer (platform.h) a build took: the side's file
# defines the platform functions, the other compiles to nothing.
# $(call platform_side_is,OBJECT,NAME): fails unless OBJECT defines them.
platform_side_is = $(NM) --defined-only $(1) | grep -q ' dc__platform_wait$$' || { \
    echo "error: $(1) is empty: this build did not take the $(2) side of the platform layer" >&2; exit 1; }

# The POSIX side on Linux, where the feature tests would take the Linux side:
# every C test (the thread tests among them, with full fences in readers, a
# mutex and a condition variable under the table lock and a pipe as a queue's
# descriptor), the exports, the layers, and the Swift suite, each build in a
# folder of its own so that none undoes the plain build.
PORTABLE_BUILD   := build/portable
PORTABLE_SCRATCH := .build/portable
PORTABLE_MAKE     = $(MAKE) --no-print-directory BUILD=$(PORTABLE_BUILD) CFLAGS="$(strip $(CFLAGS) -DDC_PLATFORM_POSIX)"

.PHONY: test-portable test-portable-swift

test-portable:
	@$(MAKE) --no-print-directory deps
	@$(PORTABLE_MAKE) all test-c
	@$(PORTABLE_MAKE) check-exports check-layers
	@$(call platform_side_is,$(PORTABLE_BUILD)/obj/platform_posix.o,POSIX)
	@$(MAKE) --no-print-directory test-portable-swift

test-portable-swift:
	$(SWIFT) test --scratch-path $(PORTABLE_SCRATCH) -Xcc -DDC_PLATFORM_POSIX
	@$(call platform_side_is,$$(find $(PORTABLE_SCRATCH) -path '*/debug/CDispatchCore.build/platform_posix.c.o' | head -n 1),POSIX)

# musl, as Debian's musl-tools has it: musl-gcc, a wrapper that compiles
# against musl's headers alone. They hold no kernel headers, so the feature
# tests take the POSIX side of the platform layer there (build/musl). A
# second build (build/musl-linux) adds the kernel's headers after musl's, as
# Alpine's linux-headers package does, and takes the Linux side: futex,
# membarrier and eventfd through musl's syscall(). libffi is Debian's own:
# the headers, which name nothing of a C library, and libffi_pic.a, whose few
# calls into the C library musl has too, linked into the shared library.
# cmocka is built here by musl-gcc from Debian's source package
# (Scripts/install-deps.sh --sources). The tests run under musl's loader,
# which the musl package installs.
MUSL_BUILD     := build/musl
MUSL_CC        ?= musl-gcc
MUSL_PACKAGES  := musl-tools cmake libffi-dev linux-libc-dev
MUSL_MULTIARCH  = $(shell $(MUSL_CC) -print-multiarch 2>/dev/null)
MUSL_FFI       := $(MUSL_BUILD)/ffi
MUSL_CMOCKA    := $(MUSL_BUILD)/cmocka
MUSL_SOURCES   := $(MUSL_BUILD)/sources
# The kernel's headers alone, without glibc's beside them.
MUSL_KERNEL_HEADERS := $(MUSL_BUILD)/kernel-headers
# $(call musl_make,BUILD,EXTRA-CFLAGS) GOALS: make GOALS with musl-gcc.
musl_make       = $(MAKE) --no-print-directory BUILD=$(1) CC=$(MUSL_CC) TEST_CC=$(MUSL_CC) \
    CFLAGS="$(strip $(CFLAGS) $(2))" FFI_CFLAGS=-I$(abspath $(MUSL_FFI)) \
    FFI_LIBS=/usr/lib/$(MUSL_MULTIARCH)/libffi_pic.a \
    CMOCKA_CFLAGS=-I$(abspath $(MUSL_CMOCKA))/include CMOCKA_LIBS=$(abspath $(MUSL_CMOCKA))/lib/libcmocka-static.a
# $(call musl_test,BUILD,EXTRA-CFLAGS,SIDE): the library and the C tests, the
# exports and layers, then that they ran under musl's loader on SIDE's layer.
musl_test       = $(call musl_make,$(1),$(2)) all test-c && \
    $(call musl_make,$(1),$(2)) check-exports check-layers && \
    { $(READELF) -l $(1)/tests/test_table | grep -q 'interpreter: /lib/ld-musl' || { \
      echo "error: $(1)/tests/test_table does not run under musl's loader" >&2; exit 1; }; } && \
    $(call platform_side_is,$(1)/obj/platform_$(3).o,$(3)) && \
    echo "test-musl: $(1): musl $$(dpkg-query -W -f='$${Version}' musl 2>/dev/null), the $(3) side of the platform layer"

.PHONY: test-musl deps-musl musl-prerequisites

deps-musl:
	@Scripts/install-deps.sh --sources $(MUSL_SOURCES) cmocka $(DEB_PACKAGES) $(MUSL_PACKAGES)

musl-prerequisites: $(MUSL_FFI)/ffi.h $(MUSL_CMOCKA)/lib/libcmocka-static.a $(MUSL_KERNEL_HEADERS)/linux

$(MUSL_FFI)/ffi.h:
	@mkdir -p $(MUSL_FFI)
	cp /usr/include/$(MUSL_MULTIARCH)/ffi.h /usr/include/$(MUSL_MULTIARCH)/ffitarget.h $(MUSL_FFI)/

$(MUSL_KERNEL_HEADERS)/linux:
	@mkdir -p $(MUSL_KERNEL_HEADERS)
	ln -sfn /usr/include/asm-generic $(MUSL_KERNEL_HEADERS)/asm-generic
	ln -sfn /usr/include/$(MUSL_MULTIARCH)/asm $(MUSL_KERNEL_HEADERS)/asm
	ln -sfn /usr/include/linux $@

# cmocka's own build, quiet unless it fails.
MUSL_CMOCKA_LOG := $(MUSL_BUILD)/cmocka-build.log

$(MUSL_CMOCKA)/lib/libcmocka-static.a:
	@mkdir -p $(MUSL_BUILD)
	@echo "test-musl: building cmocka $(notdir $(wildcard $(MUSL_SOURCES)/cmocka_*.dsc)) with $(MUSL_CC)"
	@{ cmake -S $(MUSL_SOURCES)/cmocka -B $(MUSL_BUILD)/cmocka-build -DCMAKE_C_COMPILER=$(MUSL_CC) \
	       -DCMAKE_BUILD_TYPE=Release -DWITH_STATIC_LIB=ON -DWITH_EXAMPLES=OFF -DUNIT_TESTING=OFF \
	       -DCMAKE_INSTALL_PREFIX=$(abspath $(MUSL_CMOCKA)) -DCMAKE_INSTALL_LIBDIR=lib && \
	   cmake --build $(MUSL_BUILD)/cmocka-build --target install; } > $(MUSL_CMOCKA_LOG) 2>&1 || { \
	    tail -n 20 $(MUSL_CMOCKA_LOG) >&2; echo "error: cmocka did not build (log: $(MUSL_CMOCKA_LOG))" >&2; exit 1; }

test-musl:
	@$(MAKE) --no-print-directory deps-musl
	@$(MAKE) --no-print-directory musl-prerequisites
	@$(call musl_test,$(MUSL_BUILD),,posix)
	@$(call musl_test,$(MUSL_BUILD)-linux,-idirafter $(abspath $(MUSL_KERNEL_HEADERS)),linux)
