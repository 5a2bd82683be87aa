# mk/consumers.mk — the README's C quick start built the way its users build it.
# Included by the Makefile; make test runs test-consumers.
#
#   make test-consumers          Tests/Consumers/add.c built by cc with pkg-config, by CMake
#                                (pkg_check_modules, IMPORTED_TARGET) and by Meson (dependency())
#                                against a make install into build/consumers/prefix, run and its
#                                output checked. Installs cmake, meson and ninja-build when
#                                missing (as root)
#   make check-readme-consumers  the README's copies of add.c, CMakeLists.txt and meson.build
#                                must be those files

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
