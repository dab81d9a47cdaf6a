# plumb: GNU Make build. `make` builds build/plumb and libplumb; `make check`
# runs the whole suite, then again under AddressSanitizer + UBSan.

VERSION   := 0.1.0
PREFIX    ?= /usr/local
BUILD     ?= build
SANITIZE  ?=
CC        ?= cc
.DEFAULT_GOAL := all

PKGS      := sqlite3 zlib libdeflate libzstd capstone libelf libdw libprotobuf-c

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# capstone is opened with dlopen when first needed (src/symbols/capstone_lib.c)
PKG_LIBS   := $(shell pkg-config --libs $(filter-out capstone,$(PKGS)) 2>/dev/null)

# CFLAGS/LDFLAGS are the user's (optimisation, debug); what the build needs
# goes in ALL_* so that `make CFLAGS=...` cannot drop it.
CFLAGS   ?= -O2 -g
ALL_CFLAGS   = -std=c11 -Wall -Wextra -Wshadow -Wno-missing-field-initializers -fPIC $(CFLAGS)
ALL_CPPFLAGS = -D_GNU_SOURCE -DPLUMB_VERSION='"$(VERSION)"' -Iinclude -Isrc $(PKG_CFLAGS) $(CPPFLAGS)
ALL_LDFLAGS  = $(LDFLAGS)
LDLIBS   += $(PKG_LIBS) -liberty -lm
ifneq ($(SANITIZE),)
ALL_CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
ALL_LDFLAGS += -fsanitize=address,undefined
endif

LIB_SRC  := $(sort $(wildcard src/model/*.c src/formats/*.c src/store/*.c src/symbols/*.c src/analysis/*.c src/output/*.c src/gprof/*.c src/record/*.c))
CLI_SRC  := $(sort $(wildcard src/cli/*.c))
TEST_SRC := $(sort $(wildcard tests/unit/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)
HEADERS  := $(wildcard include/plumb/*.h src/*/*.h)

# The signal sampler, preloaded into arbitrary programs: libc and libgcc_s
# only, never sanitized, symbols hidden except the libc functions it wraps.
PRELOAD_SRC    := $(sort $(wildcard src/preload/*.c))
PRELOAD_OBJ    := $(PRELOAD_SRC:src/preload/%.c=$(BUILD)/preload-obj/%.o)
# two builds of it: libplumb-sampler.so wraps no allocator (heap_nohooks.c),
# libplumb-sampler-heap.so (plumb record --heap) does (heap_hooks.c)
PRELOAD_COMMON := $(filter-out %/heap_hooks.o %/heap_nohooks.o,$(PRELOAD_OBJ))
PRELOAD_CFLAGS := -std=c11 -Wall -Wextra -Wshadow -Wno-missing-field-initializers -fPIC \
	-fvisibility=hidden -O2 -g

# The input-sensitive runtime linked into programs built with `plumb cc`:
# libc only, never sanitized, symbols hidden except the compiler's hooks.
INPUTS_SRC    := $(sort $(wildcard src/inputs/*.c))
INPUTS_OBJ    := $(INPUTS_SRC:src/inputs/%.c=$(BUILD)/inputs-obj/%.o)
# its algorithm, built like the library, for the unit tests
INPUTS_CORE   := $(BUILD)/src/inputs/rms.o $(BUILD)/src/inputs/shadow.o $(BUILD)/src/inputs/drms.o $(BUILD)/src/inputs/cost_time.o

# The gcc plugin that puts the runtime's fast paths inline (plumb cc loads
# it when present): built when gcc's plugin headers are installed
# (gcc-12-plugin-dev), with the C++ compiler gcc's plugin API needs.
GCC_PLUGIN_DIR := $(shell $(CC) -print-file-name=plugin 2>/dev/null)
CXX           ?= c++
ifneq ($(wildcard $(GCC_PLUGIN_DIR)/include/gcc-plugin.h),)
INPUTS_PLUGIN := $(BUILD)/plumb-inputs-gcc.so
endif

# pprof's message code is generated from the project's own profile.proto
# and committed (a build needs libprotobuf-c only); `make proto` makes it
# again after a change to the .proto (protoc-c: protobuf-c-compiler).
proto:
	cd src/formats && protoc-c --c_out=. pprof_profile.proto

.PHONY: all deps demo check proto test unit e2e sanitize install uninstall clean bench fuzz tsan

all: $(BUILD)/plumb $(BUILD)/libplumb.a $(BUILD)/libplumb.so $(BUILD)/libplumb-sampler.so $(BUILD)/libplumb-sampler-heap.so $(BUILD)/libplumb-inputs.a $(INPUTS_PLUGIN)

$(BUILD)/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/preload-obj/%.o: src/preload/%.c $(wildcard src/preload/*.h)
	@mkdir -p $(dir $@)
	$(CC) -D_GNU_SOURCE -Isrc $(PRELOAD_CFLAGS) -c $< -o $@

# the allocator and wait wrappers find their caller's stack pointer from their frame
$(BUILD)/preload-obj/heap_hooks.o: PRELOAD_CFLAGS += -fno-omit-frame-pointer
$(BUILD)/preload-obj/wait_hooks.o: PRELOAD_CFLAGS += -fno-omit-frame-pointer

$(BUILD)/inputs-obj/%.o: src/inputs/%.c $(wildcard src/inputs/*.h)
	@mkdir -p $(dir $@)
	$(CC) -D_GNU_SOURCE -Isrc $(PRELOAD_CFLAGS) -fno-sanitize=all -c $< -o $@

$(BUILD)/libplumb-inputs.a: $(INPUTS_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/plumb-inputs-gcc.so: src/inputs/gcc_plugin.cc
	@mkdir -p $(dir $@)
	$(CXX) -shared -fPIC -fno-rtti -O2 -Wall -Wextra -Wno-unused-parameter -I$(GCC_PLUGIN_DIR)/include $< -o $@

# Where `make install` puts the sampler, for plumb_record_signal to find it.
$(BUILD)/src/record/signal.o: ALL_CPPFLAGS += -DPLUMB_LIBDIR='"$(PREFIX)/lib/plumb"'
$(BUILD)/src/cli/cc.o: ALL_CPPFLAGS += -DPLUMB_LIBDIR='"$(PREFIX)/lib/plumb"'

$(BUILD)/libplumb-sampler.so: $(PRELOAD_COMMON) $(BUILD)/preload-obj/heap_nohooks.o
	$(CC) -shared -Wl,-z,now -Wl,-soname,libplumb-sampler.so -o $@ $^ -lgcc_s

$(BUILD)/libplumb-sampler-heap.so: $(PRELOAD_COMMON) $(BUILD)/preload-obj/heap_hooks.o
	$(CC) -shared -Wl,-z,now -Wl,-soname,libplumb-sampler-heap.so -o $@ $^ -lgcc_s

# plumb record --sampler=signal loads the sampler from next to plumb, so
# every build of plumb (make check, make test) has one.
$(BUILD)/plumb: | $(BUILD)/libplumb-sampler.so $(BUILD)/libplumb-sampler-heap.so $(BUILD)/libplumb-inputs.a $(INPUTS_PLUGIN)

$(BUILD)/libplumb.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libplumb.so: $(LIB_OBJ)
	$(CC) $(ALL_LDFLAGS) -shared -Wl,-soname,libplumb.so.0 -o $@ $^ $(LDLIBS)

$(BUILD)/plumb: $(CLI_OBJ) $(BUILD)/libplumb.a
	$(CC) $(ALL_LDFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libplumb.a $(LDLIBS)

$(BUILD)/test-unit: $(TEST_OBJ) $(INPUTS_CORE) $(BUILD)/libplumb.a
	$(CC) $(ALL_LDFLAGS) -o $@ $(TEST_OBJ) $(INPUTS_CORE) $(BUILD)/libplumb.a $(LDLIBS) -lcriterion

# Fuzz targets run without libFuzzer (fuzz/replay.c feeds them files):
# tests/e2e/t_fuzz.sh runs them over their corpora in both builds.
FUZZ_NAMES := folded callgrind gmon gmon_exe store aprof pprof speedscope readahead signal_read
FUZZ := $(FUZZ_NAMES:%=$(BUILD)/fuzz-%)

$(BUILD)/fuzz-%: $(BUILD)/fuzz/%.o $(BUILD)/fuzz/replay.o $(BUILD)/fuzz/roundtrip.o $(BUILD)/libplumb.a
	$(CC) $(ALL_LDFLAGS) -o $@ $(BUILD)/fuzz/$*.o $(BUILD)/fuzz/replay.o $(BUILD)/fuzz/roundtrip.o \
		$(BUILD)/libplumb.a $(LDLIBS)

# `make fuzz`: every target built with clang for libFuzzer (ASan + UBSan)
# in build-lf, then run for FUZZ_TIME seconds each (FUZZ_TARGETS: a
# subset); fuzz/run.sh seeds the corpora and reports new crashes.
FUZZ_TIME ?= 30
FUZZ_TARGETS ?= $(FUZZ_NAMES)
LF := build-lf
LF_VARS := BUILD=$(LF) CC=clang SANITIZE=1 CFLAGS='-O1 -g -fsanitize=fuzzer-no-link'
LF_FLAGS := -g -O1 -std=c11 -D_GNU_SOURCE -Iinclude -Isrc $(PKG_CFLAGS) \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined

$(LF)/fuzz-%-lf: fuzz/%.c fuzz/roundtrip.c fuzz/roundtrip.h $(LF)/libplumb.a
	clang $(LF_FLAGS) -o $@ fuzz/$*.c fuzz/roundtrip.c $(LF)/libplumb.a $(LDLIBS)

fuzz:
	@$(MAKE) --no-print-directory $(LF_VARS) $(LF)/libplumb.a
	@$(MAKE) --no-print-directory $(FUZZ_TARGETS:%=$(LF)/fuzz-%-lf)
	@sh fuzz/run.sh $(LF) $(FUZZ_TIME) $(FUZZ_TARGETS)

deps:
	@sh scripts/deps.sh

demo: deps
	@$(MAKE) --no-print-directory all
	@sh scripts/demo.sh $(BUILD)/plumb

# One build's tests: unit (Criterion) then end-to-end (the plumb binary).
test: $(BUILD)/plumb $(BUILD)/test-unit $(FUZZ)
	@sh tests/run.sh $(BUILD)

# Both builds are made first (a build failure stops here); both suites then
# run to the end, side by side (one core each: the tests hold on a loaded
# machine, and it saves the five minutes of the plain suite), and the
# summary line decides the exit status.
SAN_VARS := BUILD=build-san SANITIZE=1 CFLAGS='-O1 -g'
SAN_ENV := ASAN_OPTIONS=detect_leaks=1:exitcode=86 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=87
# The three builds of check compile on every core (CI runs plain `make check`).
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
check:
	@sh scripts/deps.sh test
	@$(MAKE) --no-print-directory -j$(JOBS) build/plumb build/test-unit $(FUZZ_NAMES:%=build/fuzz-%)
	@$(MAKE) --no-print-directory -j$(JOBS) $(SAN_VARS) build-san/plumb build-san/test-unit $(FUZZ_NAMES:%=build-san/fuzz-%)
	-@sh tests/run.sh build > build/check.log 2>&1 & normal=$$!; \
	$(SAN_ENV) sh tests/run.sh build-san > build-san/check.log 2>&1; \
	wait $$normal; cat build/check.log build-san/check.log
	@sh tests/summary.sh build build-san
	@$(MAKE) --no-print-directory -j$(JOBS) tsan

# The threads (formats/readahead.c, formats/jobs.c) under ThreadSanitizer, in
# their own build: tests/tsan/readahead.c reads the Callgrind test files and a
# generated one (plain, gzip, zstd) with and without the read-ahead (the
# unit tests check the same outside TSan: Criterion's runner cannot run
# under it); and fuzz/readahead.c over its corpus (the ring with chunks of
# 1 to 64 bytes, stopped at any point); tests/tsan/pprof_gz.c writes pprof
# files in gzip members of 64 bytes on two threads, and reads one of 25,000
# stacks (sorted on two threads). The Callgrind reader in two pieces
# (formats/callgrind_par.c, on formats/jobs.c) runs there too: fuzz/callgrind.c
# splits every input it reads and compares with the serial reader, over the
# test files, a generated file and generated files of several parts
# (tests/gen_cg_parts.py); so do folded stacks (fuzz/folded.c,
# formats/folded.c); tests/tsan/store_write.c writes .plumb stores (their
# lines, summaries and function-level sums built on the second thread) and
# reads them back. make check runs them last.
TSAN_VARS := BUILD=build-tsan CFLAGS='-O1 -g -fsanitize=thread' LDFLAGS=-fsanitize=thread

$(BUILD)/tsan-readahead: tests/tsan/readahead.c $(BUILD)/libplumb.a
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/libplumb.a $(LDLIBS)
$(BUILD)/tsan-pprof-gz: tests/tsan/pprof_gz.c $(BUILD)/libplumb.a
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/libplumb.a $(LDLIBS)
$(BUILD)/tsan-store: tests/tsan/store_write.c $(BUILD)/libplumb.a
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/libplumb.a $(LDLIBS)

tsan:
	@$(MAKE) --no-print-directory $(TSAN_VARS) build-tsan/tsan-readahead build-tsan/fuzz-readahead \
		build-tsan/fuzz-callgrind build-tsan/fuzz-folded build-tsan/tsan-pprof-gz \
		build-tsan/tsan-store
	@python3 bench/gen_callgrind.py build-tsan/gen.cg 3
	@gzip -1 -c build-tsan/gen.cg > build-tsan/gen.cg.gz
	@zstd -q -1 -f -o build-tsan/gen.cg.zst build-tsan/gen.cg
	@head -c 500000 build-tsan/gen.cg.gz > build-tsan/cut.cg.gz
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 build-tsan/tsan-readahead tests/data/callgrind/*.cg \
		tests/data/callgrind/bad/*.cg build-tsan/gen.cg build-tsan/gen.cg.gz \
		build-tsan/gen.cg.zst build-tsan/cut.cg.gz
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 build-tsan/fuzz-readahead tests/fuzz/readahead
	@python3 tests/gen_cg_parts.py build-tsan/parts.cg 4 300 1
	@python3 tests/gen_cg_parts.py build-tsan/parts-bad.cg 3 300 2 0.7
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 build-tsan/fuzz-callgrind tests/data/callgrind \
		tests/data/callgrind/bad tests/fuzz/callgrind build-tsan/gen.cg build-tsan/parts.cg \
		build-tsan/parts-bad.cg
	@python3 bench/gen_folded.py build-tsan/gen.folded 20000 4000 3
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 build-tsan/fuzz-folded tests/data/folded \
		tests/fuzz/folded build-tsan/gen.folded
	@python3 bench/gen_pprof.py build-tsan/gen.pb.gz 25000 3000 7
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 build-tsan/tsan-pprof-gz tests/data/pprof/*.pb.gz \
		tests/data/fig21.folded build-tsan/gen.pb.gz
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 build-tsan/tsan-store build-tsan \
		tests/data/callgrind/*.cg build-tsan/gen.cg build-tsan/parts.cg build-tsan/gen.pb.gz \
		tests/data/aprof/*.aprof

bench: all
	@sh bench/run.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/lib/pkgconfig \
		$(DESTDIR)$(PREFIX)/include/plumb $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5
	install -m 755 $(BUILD)/plumb $(DESTDIR)$(PREFIX)/bin/plumb
	install -m 644 $(BUILD)/libplumb.a $(DESTDIR)$(PREFIX)/lib/libplumb.a
	install -m 755 $(BUILD)/libplumb.so $(DESTDIR)$(PREFIX)/lib/libplumb.so.0
	install -d $(DESTDIR)$(PREFIX)/lib/plumb
	install -m 755 $(BUILD)/libplumb-sampler.so $(DESTDIR)$(PREFIX)/lib/plumb/libplumb-sampler.so
	install -m 755 $(BUILD)/libplumb-sampler-heap.so $(DESTDIR)$(PREFIX)/lib/plumb/libplumb-sampler-heap.so
	install -m 644 $(BUILD)/libplumb-inputs.a $(DESTDIR)$(PREFIX)/lib/plumb/libplumb-inputs.a
	$(if $(INPUTS_PLUGIN),install -m 755 $(INPUTS_PLUGIN) $(DESTDIR)$(PREFIX)/lib/plumb/plumb-inputs-gcc.so)
	ln -sf libplumb.so.0 $(DESTDIR)$(PREFIX)/lib/libplumb.so
	install -m 644 include/plumb/*.h $(DESTDIR)$(PREFIX)/include/plumb/
	install -m 644 docs/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 docs/*.5 $(DESTDIR)$(PREFIX)/share/man/man5/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' libplumb.pc.in \
		> $(DESTDIR)$(PREFIX)/lib/pkgconfig/libplumb.pc

uninstall:
	rm -rf $(DESTDIR)$(PREFIX)/lib/plumb
	rm -f $(DESTDIR)$(PREFIX)/bin/plumb $(DESTDIR)$(PREFIX)/lib/libplumb.* \
		$(DESTDIR)$(PREFIX)/lib/pkgconfig/libplumb.pc
	rm -rf $(DESTDIR)$(PREFIX)/include/plumb
	cd docs && for m in *.1; do rm -f $(DESTDIR)$(PREFIX)/share/man/man1/$$m; done
	cd docs && for m in *.5; do rm -f $(DESTDIR)$(PREFIX)/share/man/man5/$$m; done

clean:
	rm -rf build build-san build-lf build-tsan
