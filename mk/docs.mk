# mk/docs.mk — the documentation. Included by the Makefile.
#
#   make docs                 the documentation, with no warning allowed: the DocC catalog and the
#                             Swift doc comments (swift-docc-plugin, in .build-docs; Package.swift
#                             names the plugin only when EVENTKIT_DOCS is set, which make docs does)
#                             into build/docs/swift, and the public headers' comments as the C API
#                             reference (Scripts/c-reference.py) into build/docs/c/index.html

.PHONY: docs deps-docs

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
