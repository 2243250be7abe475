# tabula: plain Makefile.  `make` builds ./tabula; `make run` and `make test`
# first install missing Debian packages (scripts/deps.sh), then recurse.

ifeq ($(origin CC),default)
CC = gcc
endif
PKG_CONFIG ?= pkg-config
PKGS = libuv libwebsockets libcurl jansson sqlite3 libpq olm libcrypto cairo pangocairo fontconfig zlib \
	libdeflate

O ?= build
# The version (tabula --version, Discord's User-Agent) is the VERSION file;
# the project's address, which Discord's User-Agent names, is TABULA_URL
# (`make TABULA_URL=https://your.site` for a build of your own).  Only
# util/version.c sees them (through $(O)/version.h, rewritten when they
# change).
TABULA_VERSION := $(shell cat VERSION)
TABULA_URL ?= https://tabula.invalid
DEV_CFLAGS = -Wall -Wextra -Werror -Wstrict-prototypes -Wvla -Wwrite-strings \
	-Wshadow -Wno-unused-parameter
OPT ?= -O2 -g
CFLAGS ?= $(OPT)
ALL_CFLAGS = -std=c17 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(DEV_CFLAGS) \
	$(CFLAGS) -I. -include util/banned.h \
	$(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null) -MMD -MP
LIBS = $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) -lm
TEST_LIBS = $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)

LIB_SRC := $(sort $(wildcard util/*.c games/*.c games/*/*.c state/*.c bot/*.c \
	adapters/*.c adapters/*/*.c paint/*.c))
LIB_SRC := $(filter-out bot/main.c,$(LIB_SRC))
LIB_OBJ := $(LIB_SRC:%.c=$(O)/%.o)
# the game page's files, embedded in the binary (bot/web.h's web_assets)
# by scripts/embed.c, a tool of the build itself
WEB_SRC := $(sort $(wildcard web/*.html web/*.css web/*.js))
LIB_OBJ += $(O)/gen/web_assets.o
TEST_SUPPORT_SRC := $(sort $(wildcard tests/support/*.c))
TEST_SUPPORT_OBJ := $(TEST_SUPPORT_SRC:%.c=$(O)/%.o)
TEST_SRC := $(sort $(wildcard tests/unit/test_*.c))
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(O)/tests/%)
# tools the integration tests run beside the bot (tests/tools/<name>.c)
TOOL_SRC := $(sort $(wildcard tests/tools/*.c))
TOOL_BIN := $(TOOL_SRC:tests/tools/%.c=$(O)/tests/tabula-%)
BENCH_SRC := $(sort $(wildcard bench/*.c))
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(O)/bench/%)

# The binary: ./tabula for the default build, $(O)/tabula for others
# (make asan must not leave an instrumented ./tabula behind).
ifeq ($(O),build)
BIN = tabula
else
BIN = $(O)/tabula
endif

.SECONDARY:

.PHONY: all run test check check-build unit integration deps asan valgrind bench clean \
	fuzz fuzz-deps fuzz-build fuzz-clean FORCE

all: $(BIN)

$(BIN): $(O)/bot/main.o $(O)/libtabula.a
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LIBS)

$(O)/libtabula.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(O)/tools/embed: scripts/embed.c
	@mkdir -p $(dir $@)
	$(CC) -std=c17 -O1 -o $@ $<

$(O)/gen/web_assets.c: $(O)/tools/embed $(WEB_SRC) Makefile
	@mkdir -p $(dir $@)
	$(O)/tools/embed $@ $(WEB_SRC)

$(O)/gen/web_assets.o: $(O)/gen/web_assets.c
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(O)/version.h: FORCE
	@mkdir -p $(O)
	@printf '#define TABULA_VERSION "%s"\n#define TABULA_URL "%s"\n' \
		'$(TABULA_VERSION)' '$(TABULA_URL)' > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(O)/util/version.o: $(O)/version.h
$(O)/util/version.o: ALL_CFLAGS += -include $(O)/version.h

$(O)/tests/%: $(O)/tests/unit/%.o $(TEST_SUPPORT_OBJ) $(O)/libtabula.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LIBS) $(TEST_LIBS)

$(O)/tests/tabula-%: $(O)/tests/tools/%.o $(O)/libtabula.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LIBS)

$(O)/bench/%: $(O)/bench/%.o $(O)/libtabula.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LIBS)

deps:
	@sh scripts/deps.sh

# The newcomer's two commands.
run: deps
	@$(MAKE) --no-print-directory tabula
	@mkdir -p var
	TABULA_DB=$${TABULA_DB:-./var/tabula.db} ./tabula --console

# The build goes on every core first (the tests then run one by one: they
# wait for events, but share a 2-core machine with the bot they drive).
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

test: deps
	@$(MAKE) --no-print-directory -j$(JOBS) check-build
	@$(MAKE) --no-print-directory check

check-build: $(BIN) $(TOOL_BIN) $(TEST_BIN)

# Every test, without the install step.
check: unit integration

# The tests that need PostgreSQL get a throwaway server
# (scripts/pg-test-server.sh: TABULA_TEST_PG names it).
PG_RUN = sh scripts/pg-test-server.sh run

unit: $(TEST_BIN)
	@$(PG_RUN) sh scripts/run-tests.sh $(TEST_BIN)

integration: $(BIN) $(TOOL_BIN)
	@TABULA_TOOLS=$(abspath $(O)/tests) $(PG_RUN) sh tests/integration/run.sh ./$(BIN)

# The whole-game scans test data, not memory (tests/integration/harness.py):
# the plain pass runs them, this one does not (README, "For developers").
asan:
	@$(MAKE) --no-print-directory O=build-asan OPT="$(ASAN_OPT)" -j$(JOBS) check-build
	@TABULA_TEST_SCANS=0 $(MAKE) --no-print-directory O=build-asan OPT="$(ASAN_OPT)" check

ASAN_OPT = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# Every test under valgrind memcheck (docs/reliability.md): the unit tests,
# then the integration suite with the bot run by scripts/valgrind-tabula.sh;
# its per-process logs in $(O)/valgrind/ must all be empty.
VG_SLOW ?= 10
valgrind: $(TEST_BIN) $(BIN) $(TOOL_BIN)
	@VALGRIND="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite" \
		$(PG_RUN) sh scripts/run-tests.sh $(TEST_BIN)
	@rm -rf $(O)/valgrind && mkdir -p $(O)/valgrind && \
	VG_TABULA_BIN=$(abspath $(BIN)) VG_LOGDIR=$(abspath $(O)/valgrind) \
	TABULA_TEST_SLOW=$(VG_SLOW) TABULA_TOOLS=$(abspath $(O)/tests) \
		$(PG_RUN) sh tests/integration/run.sh $(CURDIR)/scripts/valgrind-tabula.sh; \
	rc=$$?; n=0; \
	for f in $(O)/valgrind/vg.*.log; do \
		[ -s "$$f" ] || continue; cat "$$f"; n=$$((n + 1)); rc=1; done; \
	echo "valgrind: $$(ls $(O)/valgrind | wc -l) bot processes, $$n with errors"; \
	exit $$rc

# PostgreSQL with its durable defaults, for honest figures.  Figures on
# stdout; each bench's time, and the first that fails (which stops the
# run, make's status non-zero), on stderr.
bench: $(BENCH_BIN) $(BIN)
	@$(PG_RUN) --durable sh -c 'for b in $(BENCH_BIN); do t=$$(date +%s); \
		BENCH_TABULA=$${BENCH_TABULA:-./$(BIN)} $$b || { \
			echo "make bench: $$b failed (exit $$?)" >&2; exit 1; }; \
		echo "make bench: $$b took $$(($$(date +%s) - t)) s" >&2; done'

# ---- fuzzing (libFuzzer; docs/fuzzing.md) ----
# `make fuzz` installs clang if missing, builds every tests/fuzz/fuzz_*.c
# against libtabula compiled with clang and ASan + UBSan in $(FUZZ_O), replays
# tests/fuzz/regressions/<target>/ and fuzzes each target for FUZZ_SECONDS.
FUZZ_O ?= build-fuzz
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_NAMES := $(FUZZ_SRC:tests/fuzz/fuzz_%.c=%)
FUZZ_TARGETS ?= $(FUZZ_NAMES)
FUZZ_BIN := $(FUZZ_NAMES:%=$(O)/fuzz/fuzz_%)
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer

fuzz: fuzz-deps
	@$(MAKE) --no-print-directory O=$(FUZZ_O) CC=$(FUZZ_CC) \
		DEV_CFLAGS="-Wall -Wextra -Wno-unused-parameter -Wno-error" \
		OPT="-O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN)" -j$(JOBS) fuzz-build
	@sh tests/fuzz/run.sh $(FUZZ_O)/fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-deps:
	@sh scripts/deps.sh fuzz

fuzz-build: $(FUZZ_BIN)

$(O)/fuzz/fuzz_%: $(O)/tests/fuzz/fuzz_%.o $(O)/libtabula.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer -o $@ $(filter %.o,$^) $(filter %.a,$^) $(LIBS)

# the session harness drives the manager through the tests' capture adapter
$(O)/fuzz/fuzz_command: $(O)/tests/support/capture.o

fuzz-clean:
	rm -rf $(FUZZ_O)

clean:
	rm -rf build build-asan tabula

-include $(shell find $(O) -name '*.d' 2>/dev/null)
