# mk/hardening.mk — sanitizers, valgrind, libFuzzer, the threaded stress and the
# SPIN model. Included by the Makefile; not part of make test.
#
#   make sanitize             the C tests under ASan+UBSan, then under TSan (clang, build/sanitize-*);
#                             then swift test --sanitize=address and --sanitize=thread in
#                             .build-sanitize-*; any report fails (sanitize-c, sanitize-swift: each half)
#   make memcheck             the C tests under valgrind memcheck: no error, no definite or indirect leak
#   make fuzz                 every libFuzzer target (Tests/CDispatchCoreTests/fuzz) for FUZZ_SECONDS
#                             (default 60) at once, from the committed seeds; a crash fails, its
#                             input is kept in build/fuzz/artifacts/ (fuzz-build only builds them)
#   make stress               threads against shared tables under ASan+UBSan and under TSan at once,
#                             for STRESS_SECONDS (default 60); see "stress" below for its variables
#                             (stress-build only builds it)
#   make model                the SPIN model of removing handlers (Tests/Model/removal.pml); installs spin
#
# SANITIZER_CC (default: clang on PATH, the Swift toolchain's) builds the
# sanitizer and fuzzer builds; check-sanitizer-cc says when it cannot.

.PHONY: sanitize sanitize-c sanitize-swift memcheck fuzz fuzz-build deps-hardening model deps-model \
        check-sanitizer-cc

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

$(FUZZ_BUILD)/fuzz_%: $(FUZZ_DIR)/fuzz_%.c $(FUZZ_DIR)/fuzz_support.h $(HEADERS) $(BINDING_HEADERS) $(FUZZ_OBJECTS)
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
	        grep -a -E '^(Done [0-9]+ runs|stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb))' \
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
                     Tests/CDispatchCoreTests/value_equality.h $(BINDING_HEADERS)

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

# ---- the fence fallback ---------------------------------------------------------

# test_table_threads again, linked with a syscall() that refuses membarrier(2)
# (refuse_membarrier.c), so the core's run-time fallback to full fences runs too;
# the test prints which fences it used, and a run that did not fall back fails.
FENCE_FALLBACK_TEST := $(BUILD)/tests/fallback/test_table_threads

$(FENCE_FALLBACK_TEST): Tests/CDispatchCoreTests/test_table_threads.c \
                        Tests/CDispatchCoreTests/refuse_membarrier.c $(wildcard Tests/CDispatchCoreTests/*.h) \
                        $(HEADERS) $(BINDING_HEADERS) $(SHARED_LIB)
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
