# goheap-bpf - build, test, bench and demo.
#
#   make deps      install missing Debian packages and Go toolchains
#   make           build ./goheap-bpf (BPF object, skeleton, binary)
#   make test      deps + build + every test (unit, errors, integration)
#   make bench     the benchmark table (README "Benchmarks")
#   make demo      profile the bundled demo Go program
#   make install   install to $(PREFIX)/sbin
#
# SANITIZE=1 builds with ASan and UBSan (make test always runs that way).

.DELETE_ON_ERROR:
.SUFFIXES:

PREFIX    ?= /usr/local
CC        ?= cc
CLANG     ?= clang
BPFTOOL   ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
ARCH      := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

ifeq ($(SANITIZE),1)
OUT       ?= build/san
SANFLAGS  := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
else
OUT       ?= build/rel
SANFLAGS  :=
endif

ifeq ($(V),1)
Q :=
else
Q := @
endif

CFLAGS    ?= -O2 -g
WARN      := -Wall -Wextra -Werror
# Library headers are named by their layer ("gobin/elf.h"), so they never
# shadow a system header (<elf.h>); the record format is bpf/'s.
CPPFLAGS  := -Iinclude -iquote user -iquote bpf -I$(OUT) -D_GNU_SOURCE
ALLCFLAGS := -std=c11 $(WARN) $(CFLAGS) $(SANFLAGS) -MMD -MP
LDLIBS    := -lbpf -lelf -lz -lm -lpthread

# One BPF object (and skeleton goheap_<name>_bpf) per bpf/<name>.bpf.c.
BPF_SRC   := $(wildcard bpf/*.bpf.c)
BPF_OBJ   := $(BPF_SRC:bpf/%.bpf.c=$(OUT)/%.bpf.o)
SKEL      := $(BPF_SRC:bpf/%.bpf.c=$(OUT)/%.skel.h)
.SECONDARY: $(BPF_OBJ) $(SKEL)

# user/<layer>/*.c: the library; user/cmd/: the command, a front end over it.
LIB_SRC   := $(filter-out user/cmd/%,$(wildcard user/*/*.c))
LIB_OBJ   := $(LIB_SRC:user/%.c=$(OUT)/user/%.o)
MAIN_OBJ  := $(OUT)/user/cmd/main.o
BIN       := $(OUT)/goheap-bpf

UNIT_SRC  := $(wildcard tests/unit/test_*.c)
UNIT_LIB  := $(wildcard tests/unit/lib/*.c)
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(OUT)/tests/%)

.PHONY: all deps test FORCE unit-test error-test integration-test bench demo install clean format

# ./goheap-bpf is the release build; a SANITIZE=1 build stays in build/san.
ifeq ($(SANITIZE),1)
all: $(BIN)
else
all: goheap-bpf
endif

goheap-bpf: $(BIN) FORCE
	$(Q)cmp -s $< $@ || cp $< $@

$(BIN): $(LIB_OBJ) $(MAIN_OBJ)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALLCFLAGS) -o $@ $^ $(LDLIBS)

$(OUT)/user/%.o: user/%.c $(SKEL)
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

$(OUT)/tests/test_%: tests/unit/test_%.c $(UNIT_LIB) $(LIB_OBJ)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) -iquote tests/unit/lib $(ALLCFLAGS) -o $@ \
		$(filter %.c %.o,$^) $(LDLIBS) -lcmocka

deps:
	$(Q)tools/deps.sh

test: deps
	$(Q)$(MAKE) --no-print-directory SANITIZE=1 unit-test error-test integration-test

unit-test: $(UNIT_BIN)
	$(Q)tests/unit/run.sh $(UNIT_BIN)

error-test: $(BIN)
	$(Q)tests/errors/run.sh $(BIN)

# Every backend must give the target's own profile.
BACKENDS ?= iter perf perf-bounded procmem

# Hard builds (stripped, cgo, c-shared, namespaces, replaced binaries) and
# the backend fallbacks, after the plain matrix.
integration-test: $(BIN)
	$(Q)fail=0; for b in $(BACKENDS); do \
		BACKEND=$$b tests/integration/run.sh $(BIN) || fail=1; done; \
	tests/integration/stripped.sh $(BIN) || fail=1; \
	tests/integration/hard.sh $(BIN) || fail=1; \
	tests/integration/fallback.sh $(BIN) || fail=1; \
	exit $$fail

bench: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tools/bench/run.sh ./goheap-bpf

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tools/demo.sh ./goheap-bpf

install: goheap-bpf
	install -D -m 0755 goheap-bpf $(DESTDIR)$(PREFIX)/sbin/goheap-bpf

format:
	clang-format -i $(wildcard user/*/*.[ch] include/*.h bpf/*.[ch] tests/unit/*.c)

clean:
	rm -rf build goheap-bpf

-include $(shell find build -name '*.d' 2>/dev/null)
