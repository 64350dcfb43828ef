# goheap-bpf - build, test, bench and demo.
#
#   make deps      install missing Debian packages and Go toolchains
#   make           build ./goheap-bpf and the library (libgoheap.a, .so)
#   make ARCH=arm64  cross-build build/arm64/goheap-bpf and its library
#                  on an amd64 host (Debian's cross toolchain; tools/deps.sh)
#   make test      deps + build + every test (layers, docs, unit, fuzz,
#                  errors, integration, fault injection, privileges, the
#                  installed library and its ABI, the VMs)
#   make vmtest    the kernel matrix: Debian's kernels booted under qemu
#                  (VM_KERNELS="bookworm sid" runs those alone)
#   make fuzz      every libFuzzer harness (tests/fuzz/) for FUZZ_SECONDS
#                  (600) each: the nightly run
#   make bench     the benchmark tables (tools/bench/README.md)
#   make demo      profile the bundled demo Go program
#   make install   the command, the library, goheap.h, goheap.pc and the
#                  man pages under $(PREFIX) (DESTDIR honoured)
#   make doc-test  the man pages render without a warning and name every
#                  flag; README.md is at most 250 lines (tests/docs/run.sh)
#
# SANITIZE=1 builds with ASan and UBSan (make test always runs that way);
# SANITIZE=thread with ThreadSanitizer (make test runs the threading test
# that way); SANITIZE=fuzzer with clang for libFuzzer, ASan and UBSan (the
# fuzz harnesses).

.DELETE_ON_ERROR:
.SUFFIXES:

PREFIX    ?= /usr/local
LIBDIR    ?= $(PREFIX)/lib
MANDIR    ?= $(PREFIX)/share/man
CC        ?= cc
CLANG     ?= clang
BPFTOOL   ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
HOSTARCH  := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
ARCH      := $(HOSTARCH)
LD        ?= ld
OBJCOPY   ?= objcopy
AR        := ar
PKG_CONFIG ?= pkg-config

# Another architecture's build (ARCH=arm64 on amd64): Debian's cross
# toolchain and its multiarch libraries (libbpf-dev:arm64, ...), every
# output under build/<arch>/, never ./goheap-bpf.
CROSS_arm64 := aarch64-linux-gnu
CROSS_x86   := x86_64-linux-gnu
ifneq ($(ARCH),$(HOSTARCH))
CROSS     := $(or $(CROSS_$(ARCH)),$(error ARCH=$(ARCH): unknown architecture, use x86 or arm64))
CC        := $(CROSS)-gcc
LD        := $(CROSS)-ld
OBJCOPY   := $(CROSS)-objcopy
AR        := $(CROSS)-ar
PKG_CONFIG := PKG_CONFIG_LIBDIR=/usr/lib/$(CROSS)/pkgconfig pkg-config
OUTSUFFIX := /$(ARCH)
endif

# The library's version and soname (GOHEAP_VERSION in include/goheap.h).
VERSION   := $(shell sed -n 's/^\#define GOHEAP_VERSION[ \t]*"\(.*\)"/\1/p' include/goheap.h)
SOMAJOR   := $(firstword $(subst ., ,$(VERSION)))
SONAME    := libgoheap.so.$(SOMAJOR)

ifeq ($(SANITIZE),1)
OUT       ?= build/san$(OUTSUFFIX)
SANFLAGS  := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
else ifeq ($(SANITIZE),thread)
OUT       ?= build/tsan$(OUTSUFFIX)
SANFLAGS  := -fsanitize=thread -fno-omit-frame-pointer
else ifeq ($(SANITIZE),fuzzer)
# The library instrumented for libFuzzer's harnesses (tests/fuzz/): clang
# only, and libFuzzer's main linked into each harness, not the library.
OUT       ?= build/fuzz
CC        := $(CLANG)
SANFLAGS  := -fsanitize=fuzzer-no-link,address,undefined \
	     -fno-sanitize-recover=undefined -fno-omit-frame-pointer
else
OUT       ?= $(if $(CROSS),build/$(ARCH),build/rel)
SANFLAGS  :=
endif

ifeq ($(V),1)
Q :=
else
Q := @
endif

CFLAGS    ?= -O2 -g
WARN      := -Wall -Wextra -Werror
# Library headers are named by their layer ("base/err.h"), so they never
# shadow a system header (<err.h>); the record format is bpf/'s.
CPPFLAGS  := -Iinclude -iquote user -iquote bpf -I$(OUT) -D_GNU_SOURCE
# -fPIC: the same objects make the shared library.
ALLCFLAGS := -std=c11 $(WARN) $(CFLAGS) $(SANFLAGS) -fPIC -MMD -MP
LDLIBS    := -lbpf -lelf -lz -lm -lpthread
# The command's HTTP server (goheap-bpf serve), which opens libmicrohttpd
# by its soname when it starts (user/cmd/serve/mhd.h); nothing links it.
MHD_CFLAGS := $(shell $(PKG_CONFIG) --cflags libmicrohttpd 2>/dev/null)
MHD_SONAME := $(shell readelf -d "$$($(CC) -print-file-name=libmicrohttpd.so)" \
		2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
MHD_SONAME := $(or $(MHD_SONAME),libmicrohttpd.so.12)

# One BPF object (and skeleton goheap_<name>_bpf) per bpf/<name>.bpf.c.
BPF_SRC   := $(wildcard bpf/*.bpf.c)
BPF_OBJ   := $(BPF_SRC:bpf/%.bpf.c=$(OUT)/%.bpf.o)
# The task iterator's light skeleton too (goheap_iter_lite): a loader
# program relocates it in the kernel, which spares libbpf the kernel's BTF.
# The task iterators also load through light skeletons (user/read/liteload.h).
LITE_SKEL := $(OUT)/iterlite.skel.h $(OUT)/giterlite.skel.h
SKEL      := $(BPF_SRC:bpf/%.bpf.c=$(OUT)/%.skel.h) $(LITE_SKEL)
.SECONDARY: $(BPF_OBJ) $(SKEL)

# user/<layer>/*.c: the library; user/cmd/: the command, its shared code
# in user/cmd/ and a folder per front end (user/cmd/serve/, ...);
# user/compat/: the older releases' entry points, in the shared library only.
LIB_SRC   := $(filter-out user/cmd/% user/compat/%,$(wildcard user/*/*.c))
LIB_OBJ   := $(LIB_SRC:user/%.c=$(OUT)/user/%.o)
COMPAT_OBJ := $(patsubst user/%.c,$(OUT)/user/%.o,$(wildcard user/compat/*.c))
CMD_OBJ   := $(patsubst user/%.c,$(OUT)/user/%.o,$(wildcard user/cmd/*.c user/cmd/*/*.c))
BIN       := $(OUT)/goheap-bpf
LIB_A     := $(OUT)/libgoheap.a
LIB_SO    := $(OUT)/libgoheap.so.$(VERSION)

# test_threads runs under ThreadSanitizer, the others under ASan + UBSan.
TSAN_SRC  := tests/unit/test_threads.c
UNIT_SRC  := $(filter-out $(TSAN_SRC),$(wildcard tests/unit/test_*.c))
UNIT_LIB  := $(wildcard tests/unit/lib/*.c)
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(OUT)/tests/%)
TSAN_BIN  := $(TSAN_SRC:tests/unit/%.c=$(OUT)/tests/%)

# One libFuzzer harness build/fuzz/fuzz_<name> per tests/fuzz/fuzz_<name>.c,
# linked with tests/fuzz/lib/ and the library built with SANITIZE=fuzzer.
FUZZ_SRC  := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_LIB  := $(wildcard tests/fuzz/lib/*.c)
FUZZ_BIN  := $(FUZZ_SRC:tests/fuzz/%.c=build/fuzz/%)
# make fuzz: the nightly length, per harness; make test: the CI bound.
FUZZ_SECONDS    ?= 600
FUZZ_CI_SECONDS ?= 30

.PHONY: all lib deps test FORCE unit-test thread-test error-test \
	integration-test fault-test privilege-test library-test abi-test vmtest lint \
	doc-test bench bench-bins \
	demo install clean format fuzz fuzz-test fuzz-bins

# ./goheap-bpf is the release build; sanitizer and cross builds stay in
# build/.
ifneq ($(CROSS),)
all: $(BIN) lib
else ifeq ($(SANITIZE),)
all: goheap-bpf lib
else
all: $(BIN)
endif

lib: $(LIB_A) $(LIB_SO)

goheap-bpf: $(BIN) FORCE
	$(Q)cmp -s $< $@ || cp $< $@

# The command links the library statically: one file to deploy.
$(BIN): $(CMD_OBJ) $(LIB_A)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALLCFLAGS) -o $@ $^ $(LDLIBS)

$(CMD_OBJ): CPPFLAGS += $(MHD_CFLAGS) -DMHD_SONAME='"$(MHD_SONAME)"'

# One relocatable object whose only global symbols are the public gh_*
# ones, so that the library's insides never clash with a program's.
$(OUT)/goheap.o: $(LIB_OBJ)
	@echo "  LD -r   $@"
	$(Q)$(LD) -r -o $@ $^
	$(Q)$(OBJCOPY) -w --keep-global-symbol='gh_*' $@

$(LIB_A): $(OUT)/goheap.o
	@echo "  AR      $@"
	$(Q)rm -f $@ && $(AR) rcs $@ $<

# Only what goheap.h declares GH_API is exported (-fvisibility=hidden); the
# version script gives each export its release's node.
$(LIB_OBJ) $(COMPAT_OBJ): ALLCFLAGS += -fvisibility=hidden

$(LIB_SO): $(LIB_OBJ) $(COMPAT_OBJ) user/goheap.map
	@echo "  LD      $@"
	$(Q)$(CC) $(ALLCFLAGS) -shared -Wl,-soname,$(SONAME) \
		-Wl,--version-script=user/goheap.map -o $@ $(LIB_OBJ) \
		$(COMPAT_OBJ) $(LDLIBS)

# Go's exp, bit for bit: only its explicit fma() calls may fuse (clang
# contracts a*b+c by default even with -std=c11).
$(OUT)/user/profile/goexp.o: ALLCFLAGS += -ffp-contract=off

$(OUT)/user/%.o: user/%.c $(SKEL) Makefile
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) $(ALLCFLAGS) -c -o $@ $<

# The BPF objects: CO-RE, with BTF (-g), against the committed vmlinux.h;
# -mcpu=v3 for the atomic compare-and-exchange (Linux 5.12+).
$(OUT)/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) vmlinux/$(ARCH)/vmlinux.h
	@mkdir -p $(@D)
	@echo "  BPF     $<"
	$(Q)$(CLANG) -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) \
		-D__BPF__ -Ivmlinux/$(ARCH) -Wall -Werror -c $< -o $@

$(OUT)/%.skel.h: $(OUT)/%.bpf.o
	@echo "  SKEL    $@"
	$(Q)$(BPFTOOL) gen skeleton $< name goheap_$*_bpf > $@

$(LITE_SKEL): $(OUT)/%lite.skel.h: $(OUT)/%.bpf.o
	@echo "  SKEL    $@"
	$(Q)$(BPFTOOL) gen skeleton -L $< name goheap_$*_lite > $@

$(OUT)/tests/test_%: tests/unit/test_%.c $(UNIT_LIB) $(LIB_OBJ)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) -iquote tests/unit/lib $(ALLCFLAGS) -o $@ \
		$(filter %.c %.o,$^) $(LDLIBS) -lcmocka

ifeq ($(SANITIZE),fuzzer)
build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB) $(LIB_OBJ)
	@mkdir -p $(@D)
	@echo "  FUZZ    $<"
	$(Q)$(CC) $(CPPFLAGS) -iquote tests/fuzz/lib $(ALLCFLAGS) \
		-fsanitize=fuzzer -o $@ $(filter %.c %.o,$^) $(LDLIBS)

# fuzz_route feeds the server's request parsing, which is the command's.
build/fuzz/fuzz_route: $(patsubst %,build/fuzz/user/cmd/serve/%.o,route query auth \
	escape)

fuzz-bins: $(FUZZ_BIN)
endif

deps:
	$(Q)tools/deps.sh

test: deps
	$(Q)$(MAKE) --no-print-directory lint
	$(Q)$(MAKE) --no-print-directory doc-test
	$(Q)$(MAKE) --no-print-directory SANITIZE=1 unit-test
	$(Q)$(MAKE) --no-print-directory fuzz-test
	$(Q)$(MAKE) --no-print-directory SANITIZE=1 error-test integration-test \
		fault-test privilege-test
	$(Q)$(MAKE) --no-print-directory SANITIZE=thread thread-test
	$(Q)$(MAKE) --no-print-directory library-test
	$(Q)$(MAKE) --no-print-directory abi-test
	$(Q)$(MAKE) --no-print-directory vmtest

# The C that .clang-format governs (vmlinux.h and the ABI test's frozen
# 0.2.0 header are copies, not ours to reformat); lint checks it is formatted.
FORMAT_SRC := $(wildcard user/*/*.[ch] user/cmd/*/*.[ch] include/*.h \
	bpf/*.[ch] tests/unit/*.c tests/unit/lib/*.[ch] tests/fuzz/*.c \
	tests/fuzz/lib/*.[ch] tests/fault/*.c tests/integration/*.c \
	tools/bench/*.c tools/examples/*.c)

lint:
	$(Q)tools/check-layers.sh
	$(Q)tools/check-tree.sh
	$(Q)clang-format --dry-run --Werror $(FORMAT_SRC)

# The man pages (tools/man/) against the command's --help, and README's length.
doc-test: $(BIN)
	$(Q)tests/docs/run.sh $(BIN)

unit-test: $(UNIT_BIN)
	$(Q)tests/unit/run.sh $(UNIT_BIN)

# Every harness for FUZZ_SECONDS, after its regression inputs and from
# seeds rebuilt from real inputs (tests/fuzz/run.sh); fuzz-test is the
# same bounded for make test.
fuzz: deps
	$(Q)$(MAKE) --no-print-directory SANITIZE=fuzzer fuzz-bins
	$(Q)tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_BIN)

fuzz-test:
	$(Q)$(MAKE) --no-print-directory SANITIZE=fuzzer fuzz-bins
	$(Q)tests/fuzz/run.sh $(FUZZ_CI_SECONDS) $(FUZZ_BIN)

thread-test: $(TSAN_BIN)
	$(Q)TSAN_OPTIONS="halt_on_error=1 exitcode=66" tests/unit/run.sh $(TSAN_BIN)

error-test: $(BIN)
	$(Q)tests/errors/run.sh $(BIN)

# Every backend must give the target's own profile.
BACKENDS ?= iter perf perf-bounded procmem

# Hard builds (stripped, cgo, c-shared, namespaces, replaced binaries),
# several processes at once, busy programs, one status model, the
# resource bounds, the backend fallbacks, the output-file rules, a
# sweep (--all) of a crowded host, the legacy text against the targets'
# own, the goroutine profile's texts, top, JSON and leak view (gleak.sh),
# the HTTP server (serve), diff, the watcher (watch) and OOM-kill
# capture, after the plain matrix.
# Every suite in tests/integration/ is found, not listed, so that a new
# one runs: run.sh first, once per backend (the other backends at rate 1
# only: a rate changes only the scaling, done in userspace for all of them,
# and rate 1 keeps the most buckets); then the others by name, each
# given the command (goroutines.sh with procmem, then with iter on the
# oldest and newest release, stripped builds too: about 40 s); oom.sh last, given its OOM catcher, and again with
# MARK_VICTIM=pid. lib.sh is their shared code, not a suite.
INTEG_FIRST := tests/integration/run.sh
INTEG_LAST  := tests/integration/oom.sh
INTEG_SUITES := $(filter-out $(INTEG_FIRST) $(INTEG_LAST) \
	tests/integration/lib.sh,$(sort $(wildcard tests/integration/*.sh)))

integration-test: $(BIN) $(OUT)/tests/oomcatch $(OUT)/tests/mkbtf
	$(Q)fail=0; for b in $(BACKENDS); do r=; [ $$b = iter ] || r=1; \
		BACKEND=$$b RATES="$${RATES:-$$r}" $(INTEG_FIRST) $(BIN) || \
		fail=1; done; \
	for s in $(INTEG_SUITES); do $$s $(BIN) || fail=1; done; \
	BACKEND=iter MODES="exe pie exe-stripped pie-stripped" \
		GO_VERSIONS="$${GO_VERSIONS:-$$(tools/go-toolchains.sh \
		list | sed -n '1p;$$p' | tr '\n' ' ')}" \
		tests/integration/goroutines.sh $(BIN) || fail=1; \
	$(INTEG_LAST) $(OUT)/tests/oomcatch || fail=1; \
	MARK_VICTIM=pid $(INTEG_LAST) $(OUT)/tests/oomcatch || fail=1; \
	exit $$fail

# The fault tests' loop of snapshots through the public API.
$(OUT)/tests/churnloop: tests/fault/churnloop.c $(LIB_A)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) -Iinclude $(ALLCFLAGS) -o $@ $^ $(LDLIBS)

# The kernel's BTF with oom:mark_victim's (int pid) form, for oom.sh.
$(OUT)/tests/mkbtf: tests/integration/mkbtf.c tests/unit/lib/btfcopy.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) -iquote tests/unit/lib $(ALLCFLAGS) -o $@ $^ $(LDLIBS)

# The OOM test's watcher, through the public API.
$(OUT)/tests/oomcatch: tests/integration/oomcatch.c $(LIB_A)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) -Iinclude $(ALLCFLAGS) -o $@ $^ $(LDLIBS)

# Corrupted bucket lists, targets killed mid-read (their PIDs reused), and
# snapshots of a program collecting at full speed, in every backend.
fault-test: $(BIN) $(OUT)/tests/churnloop
	$(Q)tests/fault/run.sh $(BIN)

# Read-only and least privilege: the BPF helpers the objects call, the
# system calls each backend makes, each backend's minimal capabilities.
privilege-test: $(BIN)
	$(Q)tests/privilege/run.sh $(BIN)

# The installed library, used as a program outside this tree would; and
# the benchmark's C tools built, so that they keep building.
library-test: all bench-bins
	$(Q)tests/library/run.sh

# The benchmark's C tools (tools/bench/), in build/bench: standalone ones,
# and the library's users (its public header and static library only).
BENCH_TOOLS := refread runstat memcpybw
BENCH_USERS := walkonly repeat
bench-bins: $(addprefix build/bench/,$(BENCH_TOOLS) $(BENCH_USERS))

$(addprefix build/bench/,$(BENCH_TOOLS)): build/bench/%: tools/bench/%.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) -O2 -std=c11 $(WARN) -o $@ $<

$(addprefix build/bench/,$(BENCH_USERS)): build/bench/%: tools/bench/%.c \
		include/goheap.h $(LIB_A)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) -O2 -std=c11 $(WARN) -Iinclude -o $@ $< $(LIB_A) $(LDLIBS)

# A program built against 0.2.0's goheap.h runs against this libgoheap.so.
abi-test: lib
	$(Q)tests/abi/run.sh $(LIB_SO)

# The kernel matrix (issue 15): Debian's 5.10, 6.1, 6.12, sid's newest and
# arm64 6.1 booted under qemu, the release build run in each
# (tests/vm/run.sh); the arm64 VM runs build/arm64/goheap-bpf, cross-built
# here (make ARCH=arm64). VM_KERNELS picks kernels by name
# (tests/vm/kernels).
vmtest:
	$(Q)$(MAKE) --no-print-directory SANITIZE= build/rel/goheap-bpf
	$(Q)$(MAKE) --no-print-directory SANITIZE= ARCH=arm64 all
	$(Q)VM_KERNELS="$(VM_KERNELS)" tests/vm/run.sh build/rel/goheap-bpf

bench: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tools/bench/run.sh ./goheap-bpf

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tools/demo.sh ./goheap-bpf

install: goheap-bpf lib
	install -D -m 0755 goheap-bpf $(DESTDIR)$(PREFIX)/sbin/goheap-bpf
	install -D -m 0644 include/goheap.h $(DESTDIR)$(PREFIX)/include/goheap.h
	install -D -m 0644 $(LIB_A) $(DESTDIR)$(LIBDIR)/libgoheap.a
	install -D -m 0755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/libgoheap.so.$(VERSION)
	ln -sf libgoheap.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libgoheap.so
	mkdir -p $(DESTDIR)$(LIBDIR)/pkgconfig
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' \
		'includedir=$${prefix}/include' '' 'Name: goheap' \
		'Description: Go heap profiles of running processes, read with BPF' \
		'Version: $(VERSION)' 'Requires.private: libbpf libelf zlib' \
		'Cflags: -I$${includedir}' 'Libs: -L$${libdir} -lgoheap' \
		'Libs.private: -lm -lpthread' >$(DESTDIR)$(LIBDIR)/pkgconfig/goheap.pc
	install -D -m 0644 -t $(DESTDIR)$(MANDIR)/man8 $(wildcard tools/man/*.8)
	install -D -m 0644 -t $(DESTDIR)$(MANDIR)/man3 $(wildcard tools/man/*.3)

format:
	clang-format -i $(FORMAT_SRC)

clean:
	rm -rf build goheap-bpf

# Not build/vm: the kernels extracted there have directories named *.d.
-include $(shell find build -path build/vm -prune -o -name '*.d' -type f -print 2>/dev/null)
