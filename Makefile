# irpipe: one non-recursive Makefile (GNU make 4.3 or newer).
#
#   make                 build build/libirpipe.a and build/bin/ir-*
#   make check           deps, build, man lint, unit + bats tests, also under
#                        AddressSanitizer+UBSan (build-asan/); ends with
#                        "N passed, N failed"
#   make demo | bench    deps, build, then demo/demo.sh | bench/run.sh
#                        (BENCH_BASELINE_BIN=DIR: another build's tools beside)
#   make fuzz            libFuzzer harnesses tests/fuzz/fuzz_*.c, FUZZ_SECONDS=60
#                        each (build-fuzz/), then COUNT=3000 random models and
#                        MUTANTS=3000 mutants of the tests from SEED=1 (asan)
#   make install | uninstall   PREFIX, BINDIR, MANDIR, DESTDIR
#   make clean | distclean
#
# All outputs go to $(BUILD) (default build/); other builds of the same tree
# are sub-makes with another BUILD and extra flags, e.g. build-asan/.

VERSION = 0.1.0

PREFIX = /usr/local
BINDIR = $(PREFIX)/bin
MANDIR = $(PREFIX)/share/man

# CC defaults to make's cc; these four may also come from the environment.
CFLAGS ?= -O2 -g
CPPFLAGS ?=
LDFLAGS ?=
LDLIBS ?=
RE2C = re2c
BISON = bison
PKG_CONFIG = pkg-config
OPENCL_CFLAGS =
OPENCL_LIBS = -lOpenCL

# config.mk (from ./configure) overrides the defaults above.
-include config.mk

BUILD = build
WERROR = -Werror
# Extra compile+link flags of a variant build (sanitizers); see check, fuzz.
SAN =

IR_CFLAGS = -std=c11 -Wall -Wextra $(WERROR) $(SAN)
IR_CPPFLAGS = -D_POSIX_C_SOURCE=200809L -DCL_TARGET_OPENCL_VERSION=120 \
	-DIRPIPE_VERSION='"$(VERSION)"' \
	-Ilib -Iparser -I$(BUILD)/parser $(OPENCL_CFLAGS)
DEPFLAGS = -MMD -MP

ALL_CFLAGS = $(IR_CPPFLAGS) $(CPPFLAGS) $(IR_CFLAGS) $(CFLAGS) $(DEPFLAGS)
ALL_LDFLAGS = $(SAN) $(LDFLAGS)
ALL_LDLIBS = $(LDLIBS) $(OPENCL_LIBS) -lm

# Show commands briefly; V=1 shows them in full.
ifeq ($(V),1)
Q =
say = @:
else
Q = @
say = @printf '  %-6s %s$(if $(filter-out build,$(BUILD)), [$(BUILD)])\n'
endif

# --- sources ------------------------------------------------------------------
LIB_SRC = $(sort $(wildcard lib/*.c lib/*/*.c))
PARSER_SRC = $(sort $(wildcard parser/*.c))
TOOL_SRC = $(sort $(wildcard tools/ir-*.c))
TOOL_COMMON_SRC = $(filter-out $(TOOL_SRC),$(sort $(wildcard tools/*.c)))
UNIT_SRC = $(sort $(wildcard tests/unit/*.c))
MAN = $(sort $(wildcard man/*.[157]))

GEN_C = $(BUILD)/parser/lexer.c $(BUILD)/parser/grammar.c
GEN_H = $(BUILD)/parser/grammar.h

LIB_OBJ = $(LIB_SRC:%.c=$(BUILD)/%.o) $(PARSER_SRC:%.c=$(BUILD)/%.o) \
	$(GEN_C:%.c=%.o)
TOOL_COMMON_OBJ = $(TOOL_COMMON_SRC:%.c=$(BUILD)/%.o)
LIB = $(BUILD)/libirpipe.a
TOOLS = $(TOOL_SRC:tools/%.c=$(BUILD)/bin/%)
UNITS = $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/unit/%)
# Test-only helpers (tests/helpers/*.c): built with the unit tests, run by
# bats files as $IRPIPE_BIN/../tests/bin/NAME, never installed.
HELPER_SRC = $(sort $(wildcard tests/helpers/*.c))
HELPERS = $(HELPER_SRC:tests/helpers/%.c=$(BUILD)/tests/bin/%)
# Benchmark drivers (bench/*.c), built by make bench.
BENCH_SRC = $(sort $(wildcard bench/*.c))
BENCH_BINS = $(BENCH_SRC:bench/%.c=$(BUILD)/bench/bin/%)

OBJ = $(LIB_OBJ) $(TOOL_COMMON_OBJ) $(TOOL_SRC:%.c=$(BUILD)/%.o) \
	$(UNIT_SRC:%.c=$(BUILD)/%.o) $(HELPER_SRC:%.c=$(BUILD)/%.o) \
	$(BENCH_SRC:%.c=$(BUILD)/%.o)

.PHONY: all tools unit all+unit check deps demo bench fuzz install uninstall \
	clean distclean asan
.SUFFIXES:
.DELETE_ON_ERROR:

all: $(LIB) $(TOOLS)
	@:
tools: $(TOOLS)
unit: $(UNITS) $(HELPERS)
all+unit: all unit
	@:

# --- compile ----------------------------------------------------------------------
# Every object waits for the generated header (order-only: after the first
# build, -MMD records who really includes it).
$(BUILD)/%.o: %.c | $(GEN_H)
	$(say) CC $<
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/parser/%.o: $(BUILD)/parser/%.c | $(GEN_H)
	$(say) CC $<
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# The lexer includes the token codes.
$(BUILD)/parser/lexer.o: $(GEN_H)

$(BUILD)/parser/lexer.c: parser/lexer.re
	$(say) RE2C $<
	@mkdir -p $(@D)
	$(Q)$(RE2C) -W -Werror --no-generation-date --no-version -o $@ $<

# Grouped target: bison runs once, even with -j.
$(BUILD)/parser/grammar.c $(BUILD)/parser/grammar.h &: parser/grammar.y
	$(say) BISON $<
	@mkdir -p $(@D)
	$(Q)$(BISON) -Wall -Werror --header=$(BUILD)/parser/grammar.h \
		-o $(BUILD)/parser/grammar.c $<

# --- link -------------------------------------------------------------------------
$(LIB): $(LIB_OBJ)
	$(say) AR $@
	@rm -f $@
	$(Q)$(AR) rcs $@ $(LIB_OBJ)

$(TOOLS): $(BUILD)/bin/%: $(BUILD)/tools/%.o $(TOOL_COMMON_OBJ) $(LIB)
	$(say) LD $@
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $< $(TOOL_COMMON_OBJ) $(LIB) $(ALL_LDLIBS)

$(UNITS): $(BUILD)/tests/unit/%: $(BUILD)/tests/unit/%.o $(LIB)
	$(say) LD $@
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $< $(LIB) $(ALL_LDLIBS)

$(BENCH_BINS): $(BUILD)/bench/bin/%: $(BUILD)/bench/%.o $(LIB)
	$(say) LD $@
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $< $(LIB) $(ALL_LDLIBS)

$(HELPERS): $(BUILD)/tests/bin/%: $(BUILD)/tests/helpers/%.o $(LIB)
	$(say) LD $@
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $< $(LIB) $(ALL_LDLIBS)

-include $(OBJ:.o=.d)

# Running ./configure again rebuilds everything.
$(OBJ) $(GEN_C) $(GEN_H): $(wildcard config.mk)

# --- variant builds ---------------------------------------------------------------
# The same rules into another directory with sanitizers.  Warnings stay errors
# in the normal build only: sanitizer instrumentation makes gcc warn falsely.
ASAN_FLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all
ASAN_BUILD = build-asan
asan:
	$(Q)$(MAKE) --no-print-directory BUILD=$(ASAN_BUILD) SAN='$(ASAN_FLAGS)' \
		WERROR= all+unit

# --- check ------------------------------------------------------------------------
# Sequential on purpose: deps first, then the builds (each parallel inside).
deps:
	@sh scripts/deps.sh

# A failed build still ends with the summary line that CI looks for.
check:
	@sh scripts/deps.sh || { echo "0 passed, 1 failed"; exit 1; }
	$(Q)$(MAKE) --no-print-directory all+unit || \
		{ echo "check: the build failed"; echo "0 passed, 1 failed"; exit 1; }
	$(Q)$(MAKE) --no-print-directory asan || \
		{ echo "check: the sanitizer build failed"; echo "0 passed, 1 failed"; exit 1; }
	@bash tests/run.sh $(BUILD) $(ASAN_BUILD)

# --- demo, bench ------------------------------------------------------------------
demo:
	@sh scripts/deps.sh
	$(Q)$(MAKE) --no-print-directory all
	@IRPIPE_BIN=$(BUILD)/bin sh demo/demo.sh

bench:
	@sh scripts/deps.sh
	$(Q)$(MAKE) --no-print-directory all $(BENCH_BINS)
	@if [ -f bench/run.sh ]; then IRPIPE_BIN=$(BUILD)/bin sh bench/run.sh; \
	else echo "bench: no bench/run.sh yet"; fi

# --- fuzz -------------------------------------------------------------------------
# Three campaigns, each reporting every failure with what reproduces it;
# the target fails if any found one.
#  1. the libFuzzer harnesses tests/fuzz/fuzz_*.c (parse, plan, lower), each
#     for FUZZ_SECONDS, with the library built again by clang with coverage
#     (build-fuzz/); each harness's corpus starts from every .ir file under
#     tests/ plus the committed seeds in tests/fuzz/corpus/, its dictionary
#     is tests/fuzz/ir.dict plus tests/fuzz/<harness>.dict; crashes go to
#     build-fuzz/<harness>-crash-*, the log to build-fuzz/<harness>.log;
#  2. COUNT random models from seed SEED (tests/gen/check.py) through the
#     sanitizer build;
#  3. MUTANTS mutants of the test files (tests/fuzz/mutate.py) through every
#     tool of the sanitizer build.
FUZZ_SECONDS = 60
SEED = 1
COUNT = 3000
MUTANTS = 3000
FUZZ_CC = clang
FUZZ_SAN = -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all
FUZZ_HARNESSES = $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS = $(FUZZ_HARNESSES:tests/fuzz/%.c=build-fuzz/%)
PYTHON = /usr/bin/python3
fuzz:
	@sh scripts/deps.sh
	$(Q)$(MAKE) --no-print-directory BUILD=build-fuzz CC=$(FUZZ_CC) WERROR= \
		SAN='$(FUZZ_SAN) -fsanitize=fuzzer-no-link' $(FUZZ_BINS)
	$(Q)$(MAKE) --no-print-directory asan
	@set -u; failed=; \
	for h in $(FUZZ_BINS:build-fuzz/%=%); do \
		c=build-fuzz/corpus/$$h; mkdir -p $$c; \
		for f in $$(find tests -name '*.ir' -type f | LC_ALL=C sort); do \
			case $$h in fuzz_parse) cp "$$f" $$c/"$$(echo "$$f" | tr / _)" ;; \
			*) { printf '\000'; cat "$$f"; } > $$c/"$$(echo "$$f" | tr / _)" ;; esac; \
		done; \
		seeds=; [ ! -d tests/fuzz/corpus ] || seeds=tests/fuzz/corpus; \
		cat tests/fuzz/ir.dict $$([ ! -f tests/fuzz/$$h.dict ] || echo tests/fuzz/$$h.dict) \
			> build-fuzz/$$h.dict; \
		echo "fuzz: $$h for $(FUZZ_SECONDS) s"; \
		build-fuzz/$$h -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
			-artifact_prefix=build-fuzz/$$h- -dict=build-fuzz/$$h.dict $$c $$seeds \
			> build-fuzz/$$h.log 2>&1 || { failed="$$failed $$h"; \
			grep -E 'ERROR|broken promise|Test unit written' build-fuzz/$$h.log; }; \
		grep -E '^stat::number_of_executed_units' build-fuzz/$$h.log || true; \
	done; \
	echo "fuzz: $(COUNT) random models from seed $(SEED)"; \
	$(PYTHON) tests/gen/check.py --seed $(SEED) --count $(COUNT) \
		--bin $(ASAN_BUILD)/bin || failed="$$failed random"; \
	echo "fuzz: $(MUTANTS) mutants of the test files from seed $(SEED)"; \
	$(PYTHON) tests/fuzz/mutate.py --seed $(SEED) --count $(MUTANTS) \
		--bin $(ASAN_BUILD)/bin --out build-fuzz/mutants || failed="$$failed mutants"; \
	if [ -n "$$failed" ]; then echo "fuzz: FAILED:$$failed"; exit 1; fi; \
	echo "fuzz: nothing found"

$(FUZZ_BINS): build-fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz_common.h $(LIB)
	$(say) LD $@
	$(Q)$(CC) $(IR_CPPFLAGS) $(CPPFLAGS) -std=c11 -Wall -Wextra -g -O1 $(FUZZ_SAN) \
		-fsanitize=fuzzer -o $@ $< $(LIB) $(ALL_LDLIBS)

# --- install ----------------------------------------------------------------------
MAN1 = $(filter %.1,$(MAN))
MAN5 = $(filter %.5,$(MAN))
MAN7 = $(filter %.7,$(MAN))

install: all
	mkdir -p $(DESTDIR)$(BINDIR)
	$(if $(TOOLS),install -m 755 $(TOOLS) $(DESTDIR)$(BINDIR)/)
	$(if $(MAN1),mkdir -p $(DESTDIR)$(MANDIR)/man1)
	$(if $(MAN1),install -m 644 $(MAN1) $(DESTDIR)$(MANDIR)/man1/)
	$(if $(MAN5),mkdir -p $(DESTDIR)$(MANDIR)/man5)
	$(if $(MAN5),install -m 644 $(MAN5) $(DESTDIR)$(MANDIR)/man5/)
	$(if $(MAN7),mkdir -p $(DESTDIR)$(MANDIR)/man7)
	$(if $(MAN7),install -m 644 $(MAN7) $(DESTDIR)$(MANDIR)/man7/)

uninstall:
	$(if $(TOOL_SRC),rm -f $(TOOL_SRC:tools/%.c=$(DESTDIR)$(BINDIR)/%))
	$(if $(MAN1),rm -f $(MAN1:man/%=$(DESTDIR)$(MANDIR)/man1/%))
	$(if $(MAN5),rm -f $(MAN5:man/%=$(DESTDIR)$(MANDIR)/man5/%))
	$(if $(MAN7),rm -f $(MAN7:man/%=$(DESTDIR)$(MANDIR)/man7/%))

# --- clean ------------------------------------------------------------------------
clean:
	rm -rf build build-*

distclean: clean
	rm -f config.mk config.mk.tmp
