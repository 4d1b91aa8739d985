# polymma — GNU make build.
#
#   make              library, command line and example (build/)
#   make shared       build/libpolymma.so (-fPIC objects in build/obj-pic/;
#                     isl inside it; with the system's isl, isl and GMP as
#                     shared libraries, copied beside it)
#   make check        build and run every tests/test_*.c, a smoke test and
#                     the dependency checker (tests/check_deps.sh)
#   make asan         the same with -fsanitize=address,undefined (build-asan/)
#   make install      PREFIX=/usr/local, DESTDIR honoured
#   make gpu-check    scripts/gpu-check.sh (on a GPU machine)
#   make docs         regenerate docs/OPTIONS.md from the options table
#   make fuzz         libFuzzer (clang) over the library, FUZZ_ARGS=...
#   make clean        all but the isl build (build/isl)
#   make distclean    also the isl build
#
# isl (docs/decisions/0052-small-integer-isl.md): `make` first builds the
# installed libisl-dev version from Debian's source package, configured
# --with-int=imath-32 (small integers inline, no GMP; the same generated
# files with ~1.7x less CPU than Debian's GMP isl, docs/PERF.md "Generation
# time") and position-independent, once, into $(ISL_CACHE)
# (scripts/isl-imath.sh --cache; ~1.5 min on 2 cores). It is merged into
# libpolymma.a (so that the archive needs no isl or GMP: installed, its
# polymma.pc and CMake target name only -lm -ldl -lpthread) and linked into
# libpolymma.so, which then needs no library of its own. When it cannot be
# built (no network, no source package), one warning line, and the system's
# isl is used as below; $(BUILD)/isl.mk records the choice (make clean, or
# delete it, to try again).
#
#   ISL=system        Debian's libisl.a and libgmp.a, linked statically into
#                     every program so that they run on machines without isl
#                     (the GPU machine). The shared library cannot do so
#                     (they are not position-independent): it needs
#                     libisl.so and libgmp.so, and finds them beside itself
#                     first (RUNPATH $ORIGIN; `make shared` copies them
#                     there, so that build/libpolymma.so with its two
#                     neighbours runs on the GPU machine).
#   ISL_PREFIX=DIR    the isl in DIR, built by `scripts/isl-imath.sh DIR`,
#                     used as the cached one is (one built before that
#                     script made position-independent code, without
#                     DIR/lib/polymma-pic: libpolymma.so on the system's).
#
# Library sources are picked up by wildcard: a new .c file in one of
# LIB_DIRS needs no edit here.

ifeq ($(origin CC),default)
CC := gcc
endif
CFLAGS ?= -O2 -g
AR ?= ar
PREFIX ?= /usr/local
DESTDIR ?=
BUILD ?= build
# Extra compile and link flags for every object and program (make asan).
SANITIZE ?=

MAKEFLAGS += --no-builtin-rules
.SUFFIXES:
.DELETE_ON_ERROR:

PM_CFLAGS := -std=c11 -Wall -Wextra -Werror -I. -Iinclude -I$(BUILD)/gen
ISL ?= built
ISL_CACHE ?= build/isl
ISL_PREFIX ?=
ISL_MK := $(BUILD)/isl.mk
ISL_DIR := $(ISL_PREFIX)
# the goals that need no isl do not build it
ifeq ($(ISL_PREFIX)$(filter system,$(ISL)),)
ifneq ($(filter-out clean distclean uninstall gpu-check,$(or $(MAKECMDGOALS),all)),)
-include $(ISL_MK)
ISL_DIR := $(ISL_BUILT)
endif
endif
# --no-as-needed: libgmp is a NEEDED of libpolymma.so itself, so that its
# RUNPATH finds it (a RUNPATH does not serve libisl.so's own needs).
SYSTEM_SHLIB_ISL := -Wl,--no-as-needed -lisl -lgmp
ifneq ($(ISL_DIR),)
PM_CFLAGS += -I$(ISL_DIR)/include
ISL_A := $(ISL_DIR)/lib/libisl.a
ISL_LIBS :=
# an ISL_PREFIX from before scripts/isl-imath.sh built position-independent
# code (no lib/polymma-pic): the shared library on the system's isl
SHLIB_ISL := $(if $(ISL_PREFIX),$(if $(wildcard \
	$(ISL_PREFIX)/lib/polymma-pic),$(ISL_A),$(SYSTEM_SHLIB_ISL)),$(ISL_A))
PC_ISL :=
CMAKE_ISL :=
else
ISL_A :=
ISL_LIBS := -Wl,-Bstatic -lisl -lgmp -Wl,-Bdynamic
SHLIB_ISL := $(SYSTEM_SHLIB_ISL)
PC_ISL := -lisl -lgmp
CMAKE_ISL := isl;gmp;
endif
ALL_CFLAGS = $(CPPFLAGS) $(CFLAGS) $(SANITIZE) $(PM_CFLAGS)
LINK_FLAGS = $(CFLAGS) $(SANITIZE) $(LDFLAGS)
STATIC_LIBS := $(ISL_LIBS) -lm -ldl -lpthread

LIB_DIRS := frontend poly target schedule_tree promote variant emit runtime api
LIB_SRCS := $(sort $(wildcard $(addsuffix /*.c,$(LIB_DIRS))))
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/gen/embedded.o \
	$(BUILD)/obj/gen/build_id.o
LIB := $(BUILD)/libpolymma.a
# The shared library (docs/decisions/0043-python-jit.md): the same sources
# compiled with -fPIC; only the polymma_* functions are exported
# (libpolymma.map).
SHLIB := $(BUILD)/libpolymma.so
SHLIB_SONAME := libpolymma.so.0
SHLIB_OBJS := $(LIB_OBJS:$(BUILD)/obj/%=$(BUILD)/obj-pic/%)
SHLIB_DEPS := $(BUILD)/.shlib-deps

CLI_SRCS := $(sort $(wildcard cli/*.c))
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/obj/%.o)
CLI := $(BUILD)/polymma
EXAMPLE := $(BUILD)/examples/embed

# Every tests/test_X.c is one cmocka program; other tests/*.c are helpers
# linked into each of them.
TEST_SRCS := $(sort $(wildcard tests/test_*.c))
TEST_HELPER_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,\
	$(filter-out tests/test_%.c,$(wildcard tests/*.c)))
TEST_BINS := $(TEST_SRCS:tests/%.c=$(BUILD)/tests/%)

# Target helper files embedded into the library (directories excluded).
TARGET_FILES := $(sort $(filter-out $(patsubst %/,%,$(wildcard runtime/device/*/)),\
	$(wildcard runtime/device/*))) runtime/plan.h runtime/plan_rules.h \
	runtime/plan_big.h runtime/plan_decode.h runtime/plan.c
EMBED := $(BUILD)/tools/embed
GEN := $(BUILD)/gen

DEPS_STAMP := $(BUILD)/.deps-ok
FLAGS_FILE := $(BUILD)/flags

ALL_OBJS := $(LIB_OBJS) $(SHLIB_OBJS) $(CLI_OBJS) $(BUILD)/obj/examples/embed.o \
	$(TEST_SRCS:%.c=$(BUILD)/obj/%.o) $(TEST_HELPER_OBJS)

.PHONY: all shared check asan fuzz fuzz-build install uninstall clean distclean \
	gpu-check docs FORCE

all: $(LIB) $(CLI) $(EXAMPLE)

# Dependencies are checked once per build directory (delete the stamp, or
# make clean, to check again).
$(DEPS_STAMP): scripts/deps.sh
	@mkdir -p $(@D)
	@CC='$(CC)' bash scripts/deps.sh
	@touch $@

# The isl build, once per $(ISL_CACHE) and isl version (again if its
# archive went missing); an included makefile, so make reads it before
# anything else is built.
$(ISL_MK): scripts/isl-imath.sh $(if $(ISL_BUILT),$(if \
		$(wildcard $(ISL_BUILT)/lib/libisl.a),,FORCE)) | $(DEPS_STAMP)
	@CC='$(CC)' bash scripts/isl-imath.sh --cache $(ISL_CACHE) $@

# Everything is rebuilt when the compiler or the flags change.
$(FLAGS_FILE): FORCE
	@mkdir -p $(@D)
	@printf '%s\n' '$(subst ','\'',$(CC) | $(ALL_CFLAGS) | $(LDFLAGS))' > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv -f $@.tmp $@; fi

$(BUILD)/obj/%.o: %.c $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

# Embedded target helpers: runtime/device/sm80.cuh -> pm_embed_sm80_cuh.
$(EMBED): scripts/embed.c $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) $< -o $@

# The directory is a prerequisite too, so that removing a file regenerates.
$(GEN)/embedded.c: $(EMBED) $(TARGET_FILES) $(wildcard runtime/device)
	@mkdir -p $(@D)
	$(EMBED) $@ $(TARGET_FILES)

# The generator's identity (api/build_id.h): a hash of every library
# source and header, so that the JIT's cache never serves a cubin that an
# earlier generator wrote under the same POLYMMA_VERSION.
ID_SRCS := $(sort $(wildcard $(addsuffix /*.[ch],$(LIB_DIRS)))) include/polymma.h
$(GEN)/build_id.c: $(ID_SRCS) $(LIB_DIRS)
	@mkdir -p $(@D)
	@printf 'const char pm_build_id[] = "%s";\n' \
		"$$(cat $(ID_SRCS) | sha256sum | cut -c1-16)" > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv -f $@.tmp $@; fi

$(BUILD)/obj/gen/%.o: $(GEN)/%.c $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

# isl's objects added to the archive (an MRI script: their names may be
# those of ours).
$(LIB): $(LIB_OBJS) $(ISL_A)
	@rm -f $@
	$(AR) rcs $@ $(LIB_OBJS)
	$(if $(ISL_A),printf 'open %s\naddlib %s\nsave\nend\n' $@ $(ISL_A) | $(AR) -M)

$(BUILD)/obj-pic/%.o: %.c $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -fPIC -MMD -MP -c $< -o $@

$(BUILD)/obj-pic/gen/%.o: $(GEN)/%.c $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -fPIC -c $< -o $@

$(SHLIB): $(SHLIB_OBJS) $(ISL_A) libpolymma.map
	$(CC) $(LINK_FLAGS) -shared -Wl,-soname,$(SHLIB_SONAME) \
		-Wl,--version-script=libpolymma.map \
		$(if $(SANITIZE),,-Wl,-z,defs) -Wl,-rpath,'$$ORIGIN' \
		$(SHLIB_OBJS) $(SHLIB_ISL) -lm -ldl -lpthread -o $@

# With the system's isl: libisl.so.N and libgmp.so.N (the names
# libpolymma.so asks for) copied beside it: carrying the three files is
# enough on a machine without isl. (None with the built isl.)
$(SHLIB_DEPS): $(SHLIB)
	@for f in $$(ldd $(SHLIB) | awk '$$1 ~ /^lib(isl|gmp)\.so/ && \
		$$3 ~ /^\// { print $$3 }'); do \
		[ "$$f" -ef "$(BUILD)/$${f##*/}" ] || \
		cp -fL "$$f" $(BUILD)/ || exit 1; \
	done
	@touch $@

shared: $(SHLIB) $(SHLIB_DEPS)

$(CLI): $(CLI_OBJS) $(LIB)
	$(CC) $(LINK_FLAGS) $(CLI_OBJS) $(LIB) $(STATIC_LIBS) -o $@

$(EXAMPLE): $(BUILD)/obj/examples/embed.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(LINK_FLAGS) $< $(LIB) $(STATIC_LIBS) -o $@

$(BUILD)/tests/%: $(BUILD)/obj/tests/%.o $(TEST_HELPER_OBJS) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(LINK_FLAGS) $< $(TEST_HELPER_OBJS) $(LIB) -lcmocka $(STATIC_LIBS) -o $@

# The JIT's GPU check (tests/gpu/jit_check.sh runs it on the GPU machine):
# isl statically, CUDA through dlopen, no cmocka.
$(BUILD)/tests/gpu/jit_check: tests/gpu/jit_check.c $(LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(LINK_FLAGS) $< $(LIB) $(STATIC_LIBS) -o $@

# A test source is compiled after removing its program, so that a test that
# does not build is reported as failed rather than run stale.
$(BUILD)/obj/tests/%.o: tests/%.c $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@rm -f $(BUILD)/tests/$*
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

# Builds what it can of the tests (make -k; as many jobs as CPUs unless
# make was given -j), then scripts/check.sh runs every test program from
# the repository root (a failure does not stop the others; CPUs at a time,
# each program's output grouped), the example on the shipped GEMM as a
# smoke test, the dependency checker (tests/check_deps.sh: its self-test
# and the tree), make install's consumers (tests/test_install.sh:
# pkg-config, CMake) and the Python module's tests (tests/test_python.py).
# The last line counts programs.
CHECK_J = $(if $(filter -j%,$(MAKEFLAGS)),,\
	-j$(shell getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2))
check:
	@$(MAKE) --no-print-directory $(CHECK_J) all $(if $(SANITIZE),,shared)
	@$(MAKE) --no-print-directory $(CHECK_J) -k $(TEST_BINS) || true
	@bash scripts/check.sh '$(CLI)' '$(if $(SANITIZE),off,$(SHLIB))' \
		'$(EXAMPLE)' '$(BUILD)' $(TEST_BINS)

asan:
	$(MAKE) BUILD=build-asan \
		SANITIZE='-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined' \
		check

# libFuzzer (clang) over the library entry points: tests/fuzz/fuzz_generate.c,
# seeded with every shipped spec (check, and one-kernel generation: a full
# variant set under the sanitizers takes ~30 s) and tests/fuzz/regress/, inputs
# up to 64 KB. FUZZ_ARGS: more libFuzzer flags (default: 10 minutes). A
# finding goes, minimized, into tests/fuzz/regress/ (test_fuzz_regress).
FUZZ_ARGS ?= -max_total_time=600
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined
fuzz: fuzz-build
	build-fuzz/fuzz_generate -max_len=65536 -timeout=120 -rss_limit_mb=4096 \
		-artifact_prefix=build-fuzz/ -report_slow_units=120 \
		$(FUZZ_ARGS) build-fuzz/corpus tests/fuzz/regress

# The fuzz target and its seed corpus without a run (build-fuzz/), for
# scripts/fuzz-fork.sh on a machine with more cores (tests/fuzz/README.md).
fuzz-build:
	$(MAKE) BUILD=build-fuzz CC=clang \
		SANITIZE='-fsanitize=fuzzer-no-link $(FUZZ_SAN) -fno-omit-frame-pointer' \
		build-fuzz/libpolymma.a
	clang $(CFLAGS) -std=c11 -Iinclude -I. -DPM_FUZZ_MAIN \
		-fsanitize=fuzzer $(FUZZ_SAN) tests/fuzz/fuzz_generate.c \
		build-fuzz/libpolymma.a $(STATIC_LIBS) -o build-fuzz/fuzz_generate
	@mkdir -p build-fuzz/corpus
	@for f in examples/*.tc bench/specs/*.tc tests/specs/*.tc; do \
		for m in 0 1; do \
			{ printf "\\$$m"; cat $$f; } > \
				build-fuzz/corpus/$$m-$$(basename $$f); \
		done; \
	done

gpu-check:
	bash scripts/gpu-check.sh

# docs/OPTIONS.md is generated from api/options.c (tests/test_options.c
# checks that it is up to date).
docs: $(CLI)
	$(CLI) --options-markdown > docs/OPTIONS.md.tmp
	mv -f docs/OPTIONS.md.tmp docs/OPTIONS.md

BINDIR = $(DESTDIR)$(PREFIX)/bin
LIBDIR = $(DESTDIR)$(PREFIX)/lib
INCDIR = $(DESTDIR)$(PREFIX)/include
VERSION = $(shell sed -n 's/.*POLYMMA_VERSION "\(.*\)".*/\1/p' include/polymma.h)
# the installed files' placeholders (isl and GMP: none when merged into
# libpolymma.a)
SUBST = -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' \
	-e 's| *@ISL_LIBS@|$(if $(PC_ISL), $(PC_ISL))|' -e 's|@CMAKE_ISL@|$(CMAKE_ISL)|'

install: all shared
	install -d '$(BINDIR)' '$(LIBDIR)/pkgconfig' '$(INCDIR)'
	install -m 755 $(CLI) '$(BINDIR)/polymma'
	install -m 644 $(LIB) '$(LIBDIR)/libpolymma.a'
	install -m 755 $(SHLIB) '$(LIBDIR)/$(SHLIB_SONAME)'
	ln -sf $(SHLIB_SONAME) '$(LIBDIR)/libpolymma.so'
	install -m 644 include/polymma.h '$(INCDIR)/polymma.h'
	sed $(SUBST) polymma.pc.in > '$(LIBDIR)/pkgconfig/polymma.pc'
	sed $(SUBST) polymma-shared.pc.in \
		> '$(LIBDIR)/pkgconfig/polymma-shared.pc'
	chmod 644 '$(LIBDIR)/pkgconfig/polymma.pc' \
		'$(LIBDIR)/pkgconfig/polymma-shared.pc'
	install -d '$(LIBDIR)/cmake/polymma'
	for f in polymmaConfig polymmaConfigVersion; do \
		sed $(SUBST) $$f.cmake.in \
			> '$(LIBDIR)/cmake/polymma/'$$f.cmake && \
		chmod 644 '$(LIBDIR)/cmake/polymma/'$$f.cmake || exit 1; \
	done

uninstall:
	rm -f '$(BINDIR)/polymma' '$(LIBDIR)/libpolymma.a' \
		'$(LIBDIR)/libpolymma.so' '$(LIBDIR)/$(SHLIB_SONAME)' \
		'$(INCDIR)/polymma.h' '$(LIBDIR)/pkgconfig/polymma.pc' \
		'$(LIBDIR)/pkgconfig/polymma-shared.pc' \
		'$(LIBDIR)/cmake/polymma/polymmaConfig.cmake' \
		'$(LIBDIR)/cmake/polymma/polymmaConfigVersion.cmake'
	-rmdir '$(LIBDIR)/cmake/polymma' 2>/dev/null

# build/isl (the isl build, ISL_CACHE) stays: it depends on the isl version
# only; make distclean removes it too.
clean:
	rm -rf $(filter-out build,$(sort build build-asan $(BUILD)))
	[ ! -d build ] || find build -mindepth 1 -maxdepth 1 ! -path build/isl \
		-exec rm -rf {} +

distclean: clean
	rm -rf build $(ISL_CACHE)

-include $(ALL_OBJS:.o=.d)
