# mk/checks.mk — the checks `make test` runs beside the tests: the layers
# call downward, the libffi restatement lists, misuses that must not compile,
# headers that stand alone, the exported symbols and the generated stubs.
# Included by the Makefile, whose variables these use.

# The core's layers call downward only (Scripts/check-layers.sh says which
# file is in which layer), read from the library's objects.
.PHONY: check-layers
check-layers: $(OBJECTS)
	@Scripts/check-layers.sh $(BUILD)/obj $(NM)

# LIBFFI_TESTSUITE=libffi/testsuite also compares each list with its suite's files.
.PHONY: check-libffi-restatement
check-libffi-restatement:
	@Scripts/check-libffi-restatement.sh Tests/CDispatchCoreTests

# Misuses of the typed API that must not compile (Tests/Misuse), against the
# module `swift test` built.
.PHONY: check-misuse
check-misuse:
	@Scripts/check-misuse.sh $(SWIFTC)

# Each header must stand alone, as C11 and as C++11 (the binding header's
# event cache is C only; C++ sees its declarations), and the inline header,
# which is C only, as C11.
HEADERS_ALONE := $(HEADERS) $(BINDING_HEADER)
C_HEADERS_ALONE := $(INLINE_HEADER)

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
	done; \
	for header in $(C_HEADERS_ALONE); do \
	    name=$$(basename $$header .h); \
	    printf '#include "%s"\n' $$(basename $$header) > $(BUILD)/tests/$${name}_alone.c; \
	    echo "check-header: $$header as C11"; \
	    $(CC) -std=c11 -pedantic $(WARNINGS) -I$(SOURCE_DIR)/include -I$(BINDING_DIR) \
	        -c $(BUILD)/tests/$${name}_alone.c -o $(BUILD)/tests/$${name}_alone_c.o || exit 1; \
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
