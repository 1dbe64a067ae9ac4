# SPDX-License-Identifier: GPL-2.0
# tsq: per-cgroup TCP Small Queues policy with BPF.
#
#   make              libbpf + bpftool, tsqd, tsqctl, tsq-kube, BPF objects (no kernel)
#   make tests        the test programs, test BPF objects and unit tests
#   make kernel       the patched 6.12 guest kernel only (KVER=7.3: the series'
#                     base on Debian's newest 7.x; DEBUG=1: lockdep)
#   make vmlinux-h    vmlinux/ARCH/vmlinux.h from the patched kernel's BTF
#   make check        host tests, then the VM tests on 6.12 and on 7.3
#                     (TESTS="effect race"); check-vm KVER=7.3: one kernel
#   make demo         boot the VM: 8 bulk flows and a ping, stock vs tsqctl policy
#   make bench        scenarios, hook overhead, zero cost: bench/results/
#   make install      tsqd, tsqctl, tsq-kube, man pages, tsqd.service, bpftrace scripts
#                     (PREFIX=/usr/local DESTDIR=); needs a built tree
#   make deb          the user-space Debian package: .output/deb/tsq_*.deb
#   make kernel-deb   the patched kernel as Debian packages, Debian's config
#                     (KFLAVOUR=cloud-amd64, KCONFIG=/boot/config-...)
#   make kernel-deb-check  VM tests on that kernel, booted as Debian boots it
#   make help         more
OUTPUT ?= .output
DEBUG ?= 0
V ?= 0

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

CLANG ?= $(shell command -v clang-19 || command -v clang)
CC ?= cc
TOOLS := $(OUTPUT)/tools
BPFTOOL ?= $(TOOLS)/bpftool
LIBBPF_A := $(TOOLS)/lib/libbpf.a

# The guest kernel: KVER=6.12, the series' backport on Debian stable's
# linux-source-6.12, whose package stays put: README's two commands, the
# demo, the bench and kernel-deb use it. KVER=7.3: the series' base, on
# the newest linux-source-7.N Debian offers, which make check runs as
# well (scripts/build-kernel.sh). Each has its own output link.
KVER ?= 6.12
KVER_MAINLINE := 7.3
kernel_dir = $(OUTPUT)/kernel$(if $(filter 6.12,$(1)),,-$(1))$(if $(filter 1,$(DEBUG)),-debug)
KERNEL_DIR = $(call kernel_dir,$(KVER))

# The BPF side's vmlinux.h is kept in the tree per architecture, as
# libbpf-tools keeps it: vmlinux/ARCH/vmlinux.h points at the versioned
# header that make vmlinux-h generates from the patched kernel, so user
# space builds without a kernel build. VMLINUX_H= uses another (a file
# named vmlinux.h: the sources include it by that name).
BPF_ARCH ?= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' \
	      -e 's/ppc64le/powerpc/' -e 's/s390x/s390/' -e 's/riscv64/riscv/')
VMLINUX_H_DIR ?= vmlinux/$(BPF_ARCH)
VMLINUX_H ?= $(VMLINUX_H_DIR)/vmlinux.h
ifneq ($(notdir $(VMLINUX_H)),vmlinux.h)
$(error VMLINUX_H=$(VMLINUX_H): the file must be named vmlinux.h)
endif

CFLAGS := -g -O2 -Wall -Wextra -Wno-unused-parameter $(EXTRA_CFLAGS)
INCLUDES := -I$(OUTPUT) -I$(TOOLS)/include -Iinclude
LDLIBS := $(LIBBPF_A) -lelf -lz -lpthread
# Not -I$(OUTPUT): a vmlinux.h left there would shadow VMLINUX_H, and the
# .d files would name it.
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -Wall -Werror \
	      -I$(dir $(VMLINUX_H)) -I$(TOOLS)/include -Iinclude

# Every user-space object, once, below $(OBJ) at its source's path, with
# its header dependencies in a .d file beside it.
OBJ := $(OUTPUT)/obj
USER_CFLAGS := $(CFLAGS) -std=gnu11 -MMD -MP
USER_INCLUDES := $(INCLUDES) -Iuser/lib -Iuser/bpf
obj = $(patsubst %.c,$(OBJ)/%.o,$(1))

# Product BPF objects (bpf/) and those only tests load (tests/bpf/).
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.bpf.o,$(wildcard bpf/*.bpf.c))
TEST_BPF_OBJS := $(patsubst tests/bpf/%.bpf.c,$(OUTPUT)/%.bpf.o,$(wildcard tests/bpf/*.bpf.c))
SKELS := $(BPF_OBJS:.bpf.o=.skel.h)
TEST_SKELS := $(TEST_BPF_OBJS:.bpf.o=.skel.h)
PROGS := $(OUTPUT)/tsqctl $(OUTPUT)/tsqd $(OUTPUT)/tsq-kube
TEST_PROGS := $(OUTPUT)/hook_test $(OUTPUT)/qdisc_backlog $(OUTPUT)/rrprobe \
	      $(OUTPUT)/stallwatch $(OUTPUT)/scale_maps \
	      $(OUTPUT)/mapfill $(OUTPUT)/tsqd_policies $(OUTPUT)/scope_tool
TSQ_VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo unknown)

vpath %.bpf.c bpf tests/bpf

.DELETE_ON_ERROR:
.PHONY: all tests selftests deps kernel kernel-mainline tools vmlinux-h check check-host \
	check-vm demo bench \
	help clean distclean install uninstall deb kernel-deb kernel-deb-config \
	kernel-deb-check

# The product: what make install installs and the BPF objects it loads.
all: $(BPF_OBJS) $(SKELS) $(PROGS)

# What the host, VM and bench runs use besides the product (the unit
# tests join it in user/Makefile.inc).
tests: $(TEST_BPF_OBJS) $(TEST_SKELS) $(TEST_PROGS)

# libtsq (libc only), its unit tests and fuzzers.
include user/Makefile.inc

# make print-VAR: the value the build uses (tests/host/test_build.sh).
print-%:
	@echo '$($*)'

help:
	@sed -n 's/^#   //p' Makefile
	@echo '  variables: OUTPUT=$(OUTPUT) KVER=6.12|$(KVER_MAINLINE) DEBUG=0|1 V=0|1 EXTRA_CFLAGS='
	@echo '             VMLINUX_H=$(VMLINUX_H)'
	@echo '             TSQ_CACHE=/var/cache/tsq (kernel and tools cache)'
	@echo '             TSQ_TOOLS_CACHE=$$TSQ_CACHE/tools (libbpf + bpftool only)'

# The kernel and tools scripts keep their own cache; these rules always
# ask them, and they answer in a second when nothing changed. They run
# makes of their own (libbpf's, bpftool's, the kernel's), which must not
# see this one's command-line variables (MAKEFLAGS, and make exports
# them): libbpf's Makefile builds into $(OUTPUT), and OUTPUT= is ours
# (debian/rules sets it); nor the build flags debian/rules gives ours,
# which stop bpftool's build (-Werror=format-security without -Wformat).
script = env -u MAKEFLAGS -u MFLAGS -u OUTPUT -u EXTRA_CFLAGS -u CFLAGS \
	 -u CPPFLAGS -u LDFLAGS scripts/$(1)
# NO_DEPS=1: the caller has what is needed (debian/rules: Build-Depends).
deps:
	$(Q)$(if $(NO_DEPS),:,scripts/install-deps.sh)

# What one target needs on top (scripts/install-deps.sh SET).
deps-deb deps-kernel-deb deps-kernel-boot:
	$(Q)$(if $(NO_DEPS),:,scripts/install-deps.sh $(patsubst deps-%,%,$@))

kernel: | deps
	$(Q)KVER=$(KVER) $(call script,build-kernel.sh) $(OUTPUT) $(DEBUG)

tools: | deps
	$(Q)$(call script,build-tools.sh) $(OUTPUT)

# Regenerate the committed header after a change of the series (and
# commit it); tests/host/test_vmlinux_h.sh fails while they differ.
# From the non-debug kernel: lockdep changes the types.
vmlinux-h: kernel tools
	$(Q)[ "$(DEBUG)" = 0 ] || { echo "make vmlinux-h: DEBUG=0 only" >&2; exit 1; }
	$(call msg,GEN,$(VMLINUX_H_DIR))
	$(Q)scripts/gen-vmlinux-h.sh $(BPFTOOL) $(KERNEL_DIR) $(VMLINUX_H_DIR)

$(VMLINUX_H):
	@echo "$@ missing: no vmlinux.h for $(BPF_ARCH) in the tree (make vmlinux-h makes it)" >&2
	@exit 1

$(OUTPUT):
	$(Q)mkdir -p $@

$(OUTPUT)/%.bpf.o: %.bpf.c $(VMLINUX_H) include/tsq.h | $(OUTPUT) tools
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -MMD -MP -MF $(@:.o=.d) -c $< -o $@

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o | tools
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(notdir $*) > $@

$(OBJ)/%.o: %.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(USER_CFLAGS) $(USER_INCLUDES) -c $< -o $@

# libtsq-bpf: loading, pinning and reading tsq's BPF objects (libbpf).
LIBTSQ_BPF := $(OUTPUT)/libtsq-bpf.a
LIBTSQ_BPF_OBJS := $(call obj,$(wildcard user/bpf/*.c))

TSQCTL_OBJS := $(call obj,$(wildcard user/tsqctl/*.c))
TSQD_OBJS := $(call obj,$(wildcard user/tsqd/*.c))
# tsq-kube: libtsq's parsers, libcurl and json-c; no BPF. libcurl by its
# GnuTLS flavour's name: the OpenSSL flavour's libcurl.so links as well,
# and OpenSSL 3's Apache-2.0 licence does not go with GPL-2.0.
KUBE_OBJS := $(call obj,$(wildcard user/kube/*.c))
KUBE_LDLIBS := -lcurl-gnutls -ljson-c
HOOK_TEST_OBJS := $(call obj,tests/vm/hook_test.c)
STALLWATCH_OBJS := $(call obj,tests/vm/stallwatch.c tests/vm/stall_track.c)
SCALE_MAPS_OBJS := $(call obj,bench/scale_maps.c)

# Objects that include a skeleton: generated before the first compile,
# after which the .d files name the ones each needs.
$(LIBTSQ_BPF_OBJS) $(TSQCTL_OBJS) $(TSQD_OBJS) $(SCALE_MAPS_OBJS): | $(SKELS) tools
$(HOOK_TEST_OBJS) $(STALLWATCH_OBJS): | $(TEST_SKELS) tools
$(call obj,tests/host/mapfill.c): | tools
$(call obj,tests/host/scope_tool.c): | $(SKELS) tools
$(call obj,tests/host/tsqd_policies.c): USER_INCLUDES += -Iuser/tsqd -I.
$(call obj,tests/host/tsqd_policies.c): | $(SKELS) tools
$(HOOK_TEST_OBJS): USER_INCLUDES += -Itests/bpf

$(call obj,user/tsqd/main.c): USER_CFLAGS += -DTSQ_VERSION='"$(TSQ_VERSION)"'
$(call obj,user/kube/main.c user/kube/apiclient.c): USER_CFLAGS += -DTSQ_VERSION='"$(TSQ_VERSION)"'
$(KUBE_OBJS): USER_INCLUDES += -Iuser/kube
# libcurl's and json-c's headers come from scripts/install-deps.sh.
$(KUBE_OBJS): | deps

$(LIBTSQ_BPF): $(LIBTSQ_BPF_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# Link order: ours, then libtsq-bpf, libtsq, libbpf (link_libc: no libbpf).
link_libc = $(CC) $(CFLAGS) $(LDFLAGS) $(filter %.o,$^) $(filter %.a,$^) $(LINK_LIBS) -o $@
link = $(CC) $(CFLAGS) $(LDFLAGS) $(filter %.o,$^) $(filter %.a,$^) $(LDLIBS) -o $@

$(OUTPUT)/tsqctl: $(TSQCTL_OBJS) $(LIBTSQ_BPF) $(LIBTSQ) | tools
	$(call msg,LD,$@)
	$(Q)$(link)

$(OUTPUT)/tsqd: $(TSQD_OBJS) $(LIBTSQ_BPF) $(LIBTSQ) | tools
	$(call msg,LD,$@)
	$(Q)$(link)

$(OUTPUT)/tsq-kube: LINK_LIBS = $(KUBE_LDLIBS)
$(OUTPUT)/tsq-kube: $(KUBE_OBJS) $(LIBTSQ)
	$(call msg,LD,$@)
	$(Q)$(link_libc)

# tsqd and tsqctl again under ASan and UBSan, stopping at the first
# finding, for the host tests that drive them with hostile input
# (test_sanitize.sh). Their own objects: other flags.
SAN := $(OUTPUT)/san
SAN_CFLAGS := -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
	      -fno-sanitize-recover=all
SAN_LIB_SRCS := $(LIBTSQ_SRCS) $(wildcard user/bpf/*.c)
san_obj = $(patsubst %.c,$(SAN)/obj/%.o,$(1))

$(SAN)/obj/%.o: %.c | $(SKELS) tools
	$(call msg,SAN-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(USER_CFLAGS) $(SAN_CFLAGS) $(USER_INCLUDES) -c $< -o $@

$(call san_obj,user/tsqd/main.c): USER_CFLAGS += -DTSQ_VERSION='"$(TSQ_VERSION)"'

$(SAN)/tsqd: $(call san_obj,$(wildcard user/tsqd/*.c) $(SAN_LIB_SRCS)) | tools
	$(call msg,SAN-LD,$@)
	$(Q)$(CC) $(SAN_CFLAGS) $^ $(LDLIBS) -o $@

$(SAN)/tsqctl: $(call san_obj,$(wildcard user/tsqctl/*.c) $(SAN_LIB_SRCS)) | tools
	$(call msg,SAN-LD,$@)
	$(Q)$(CC) $(SAN_CFLAGS) $^ $(LDLIBS) -o $@

tests: $(SAN)/tsqd $(SAN)/tsqctl

$(OUTPUT)/scale_maps: $(SCALE_MAPS_OBJS) $(LIBTSQ_BPF) $(LIBTSQ) | tools
	$(call msg,LD,$@)
	$(Q)$(link)

# tsqd's policies.c and metrics.c against real maps and cgroups
# (test_policies_maps.sh).
$(OUTPUT)/tsqd_policies: $(call obj,tests/host/tsqd_policies.c user/tsqd/policies.c \
			   user/tsqd/metrics.c) \
			 $(LIBTSQ_BPF) $(LIBTSQ) | tools
	$(call msg,LD,$@)
	$(Q)$(link)

# The sync scope map, entry by entry (test_scope.sh, t_scope.sh).
$(OUTPUT)/scope_tool: $(call obj,tests/host/scope_tool.c) $(LIBTSQ_BPF) $(LIBTSQ) | tools
	$(call msg,LD,$@)
	$(Q)$(link)

$(OUTPUT)/mapfill: $(call obj,tests/host/mapfill.c) | tools
	$(call msg,LD,$@)
	$(Q)$(link)

$(OUTPUT)/hook_test: $(HOOK_TEST_OBJS) $(LIBTSQ) | tools
	$(call msg,LD,$@)
	$(Q)$(link)

$(OUTPUT)/stallwatch: $(STALLWATCH_OBJS) | tools
	$(call msg,LD,$@)
	$(Q)$(link)

$(OUTPUT)/rrprobe: $(call obj,tests/vm/rrprobe.c)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $^ -o $@

$(OUTPUT)/qdisc_backlog: $(call obj,tests/vm/qdisc_backlog.c)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $^ -o $@

# test_progs of the patched kernel's own selftests/bpf, with the series'
# tests (scripts/build-selftests.sh).
selftests: kernel tools
	$(Q)KVER=$(KVER) scripts/build-selftests.sh $(OUTPUT)

# make check's run on the series' base: its kernel and selftests. When
# Debian offers no 7.x source, or the series does not apply to a newer
# one, build-kernel.sh says so in one line, kept in
# OUTPUT/kernel-7.3.skip, and the VM run on it is a skip, not a failure.
kernel-mainline: tools | deps
	$(Q)KVER=$(KVER_MAINLINE) $(call script,build-kernel.sh) $(OUTPUT) $(DEBUG) || \
		{ rc=$$?; [ $$rc = 2 ] || [ $$rc = 3 ]; }
	$(Q)[ ! -s $(OUTPUT)/kernel-$(KVER_MAINLINE)/vmlinux ] || \
		KVER=$(KVER_MAINLINE) scripts/build-selftests.sh $(OUTPUT)

# Only these boot the guest kernel: only they build it. check also
# installs the package it builds (tests/host/test_deb.sh, t_deb.sh) and
# merges the kernel config (test_kconfig.sh).
# Both kernels whatever KVER says; demo and bench stay on 6.12.
check demo bench: override KVER := 6.12
check: all tests kernel selftests kernel-mainline deb | deps-kernel-deb
	$(Q)DEBUG=$(DEBUG) TSQ_KVERS="6.12 $(KVER_MAINLINE)" tests/check $(TESTS)

check-host: all tests
	$(Q)tests/host/run

check-vm: all tests $(if $(filter $(KVER_MAINLINE),$(KVER)),kernel-mainline,kernel selftests)
	$(Q)DEBUG=$(DEBUG) tests/vm/run-tests -k $(KVER) $(TESTS)

demo: all tests kernel
	$(Q)tests/vm/run-vm -- demo/demo.sh

# Long (bench/results/results.md gives each part's start and end): not
# part of check.
# bench/run -h for knobs.
bench: all tests kernel
	$(Q)bench/run

# The user-space package from a copy of this tree, as dpkg-buildpackage
# -us -uc -b builds it; debian/rules runs make all and make install.
DEB_DIR := $(OUTPUT)/deb
deb: | deps-deb
	$(Q)$(call script,build-deb.sh) $(DEB_DIR)

# The patched kernel as linux-image and linux-headers packages, from
# Debian's config for KFLAVOUR or from KCONFIG, with kernel/config-tsq
# (and KFRAGMENTS) merged: scripts/build-kernel-deb.sh. Long: a
# distribution's kernel and its modules, with debug information for
# BTF. kernel-deb-config stops after the merge.
TSQ_CACHE ?= /var/cache/tsq
KDEB_DIR ?= $(TSQ_CACHE)/kernel-deb
kernel-deb: | deps-kernel-deb
	$(Q)$(call script,build-kernel-deb.sh) $(KDEB_DIR)

kernel-deb-config: | deps-kernel-deb
	$(Q)$(call script,build-kernel-deb.sh) --config-only $(KDEB_DIR)

# VM tests (TESTS="seeds effect") on that package's kernel, booted as
# Debian boots it: its modules, an initramfs from initramfs-tools. Its
# config needs KFRAGMENTS=kernel/config-deb-vm (9p for the VM's root).
kernel-deb-check: all tests | deps-kernel-boot
	$(Q)tests/vm/boot-kernel-deb $(KDEB_DIR) $(TESTS)

-include $(wildcard $(OUTPUT)/*.d) \
	 $(shell find $(OBJ) $(SAN)/obj -name '*.d' 2>/dev/null)

# Installing rebuilds nothing (like the kernel's modules_install): it
# runs as root on the target, where a kernel build is out of place.
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/tsq
UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSCONFDIR ?= /etc
INSTALL ?= install
INSTALL_BINS := $(OUTPUT)/tsqd $(OUTPUT)/tsqctl $(OUTPUT)/tsq-kube
BPFTRACE_SCRIPTS := $(wildcard tools/bpftrace/*.bt)

install:
	$(Q)for f in $(INSTALL_BINS); do [ -x $$f ] || \
		{ echo "install: $$f missing: run make first" >&2; exit 1; }; done
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)$(INSTALL) -d -m 755 $(DESTDIR)$(SBINDIR) $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(UNITDIR) \
		$(DESTDIR)$(DATADIR)/bpftrace $(DESTDIR)$(SYSCONFDIR)/tsq/tsq.conf.d
	$(Q)$(INSTALL) -m 755 $(INSTALL_BINS) $(DESTDIR)$(SBINDIR)
	$(Q)$(INSTALL) -m 644 $(wildcard man/*.8) $(DESTDIR)$(MANDIR)/man8
	$(Q)$(INSTALL) -m 644 $(wildcard man/*.5) $(DESTDIR)$(MANDIR)/man5
	$(Q)sed 's|@SBINDIR@|$(SBINDIR)|g' systemd/tsqd.service.in \
		>$(DESTDIR)$(UNITDIR)/tsqd.service
	$(Q)chmod 644 $(DESTDIR)$(UNITDIR)/tsqd.service
	$(Q)$(if $(BPFTRACE_SCRIPTS),$(INSTALL) -m 755 $(BPFTRACE_SCRIPTS) \
		$(DESTDIR)$(DATADIR)/bpftrace)
	$(Q)[ -e $(DESTDIR)$(SYSCONFDIR)/tsq/tsq.conf ] || \
		$(INSTALL) -m 644 etc/tsq.conf $(DESTDIR)$(SYSCONFDIR)/tsq/tsq.conf

# The configuration stays, as dpkg keeps conffiles on remove.
uninstall:
	$(call msg,UNINSTALL,$(DESTDIR)$(PREFIX))
	$(Q)rm -f $(addprefix $(DESTDIR)$(SBINDIR)/,$(notdir $(INSTALL_BINS))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(wildcard man/*.8))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(wildcard man/*.5))) \
		$(DESTDIR)$(UNITDIR)/tsqd.service
	$(Q)rm -rf $(DESTDIR)$(DATADIR)

clean:
	$(call msg,CLEAN,$(OUTPUT))
	$(Q)rm -rf $(OUTPUT)

# Also drops the kernel and tools cache shared by every checkout.
distclean: clean
	$(Q)rm -rf $${TSQ_CACHE:-/var/cache/tsq}
