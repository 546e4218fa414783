# SPDX-License-Identifier: GPL-2.0
#
# Top-level entry points. `make` builds the modules, the tools and the
# selftests; `make check` runs the suite inside a QEMU guest; `make demo`
# shows RDS working in one. See README.md.

# The test bed's kernels, listed in scripts/kernels: the host's own
# (Debian 12's 6.1) and other Debian releases' (6.12).
KERNELS := $(shell awk '!/^\#/ && NF >= 2 { print $$1 }' scripts/kernels)
HOST_KERNELS := $(shell awk '!/^\#/ && $$2 == "host" { print $$1 }' scripts/kernels)
OTHER_KERNELS := $(filter-out $(HOST_KERNELS),$(KERNELS))

# KERNEL=6.12 (one of OTHER_KERNELS) builds for another Debian release's
# kernel, inside a root of that release made on first use
# (scripts/kernel/debian-root.sh); KERNEL=6.1, or none, is the host's own.
ifneq ($(filter-out $(HOST_KERNELS) host,$(KERNEL)),)
RDS_KENV := $(shell scripts/kernel/kernel-env.sh $(KERNEL))
ifeq ($(words $(RDS_KENV)),3)
KDIR := $(word 1,$(RDS_KENV))
KVER := $(word 2,$(RDS_KENV))
RDS_ROOT := $(word 3,$(RDS_KENV))
else
$(error no root for KERNEL=$(KERNEL))
endif
export RDS_ROOT
endif
# That kernel's headers work only with its release's compiler and build
# programs: the kernel builds run inside its root.
ifneq ($(RDS_ROOT),)
IN_ROOT := $(CURDIR)/scripts/kernel/in-root.sh $(RDS_ROOT)
endif
ifneq ($(KERNEL),)
export RDS_KERNEL := $(KERNEL)
endif

# The build machine's own kernel may have no headers: fall back to the
# newest installed /lib/modules/*/build (Debian 12's 6.1 is the target).
KDIR ?= $(shell d=/lib/modules/$$(uname -r)/build; \
	  if [ -d $$d ]; then echo $$d; else \
	  ls -d /lib/modules/*/build 2>/dev/null | sort -V | tail -n1; fi)
# The kernel release the modules are built for (and the guest boots).
KVER ?= $(shell case "$(KDIR)" in (/lib/modules/*/build) basename $$(dirname $(KDIR));; \
	  (*) cat $(KDIR)/include/config/kernel.release;; esac)

MODULES := net/rds.ko transports/loop/rds_loop.ko transports/ib/rds_rdma.ko \
	   transports/iwarp/rds_iwarp.ko transports/tcp/rds_tcp.ko

export KDIR KVER

.PHONY: all modules tools selftests test-modules clean deps check demo \
	vm install modules_install sparse checkpatch bench bench-failover debug-kernel \
	check-debug check-fault check-ha-debug fuzz soak $(addprefix check-,$(OTHER_KERNELS)) \
	check-wire check-wire-short test deb check-deb tools_install

all: modules tools selftests scripts/bench/msgbench

modules:
	@test -n "$(KDIR)" || { echo "no kernel build dir: run scripts/deps.sh" >&2; exit 1; }
	$(IN_ROOT) $(MAKE) -C $(KDIR) M=$(CURDIR) modules

tools:
	$(MAKE) -C tools

selftests:
	$(MAKE) -C selftests

# Test-only modules (never installed): built against the same kernel.
test-modules:
	$(IN_ROOT) $(MAKE) -C $(KDIR) M=$(CURDIR)/selftests/modules modules

deps:
	scripts/deps.sh

check:
ifneq ($(RDS_ROOT),)
	scripts/check/check-kernel.sh $(KERNEL)
else
	scripts/check/check.sh
endif

# The inner loop: build, then boot one guest and run only the selftest
# programs T names (T="bind sendmsg"; two guests for the two-host ones),
# about 10 s after the build; KERNEL=NAME boots that kernel, INTREE=1
# Linux's RDS. Results in results/test/; see scripts/check/test.sh.
test: all test-modules
	@test -n "$(T)" || { echo "usage: make test T=NAME [KERNEL=NAME] [INTREE=1]" >&2; exit 1; }
	scripts/check/test.sh $(if $(INTREE),--intree) $(T)

# RDS/TCP between two hosts: a netns pair in one guest and two guests on
# one virtual wire (scripts/vm/vm2.sh), on our modules and against Linux's
# in-tree RDS both ways. RDS_IMPL=intree checks Linux's against itself;
# WIRE_PAIRS="A:B ..."; see Documentation/testbed.rst. The short variant
# is what make check runs (its wire round).
check-wire:
	scripts/check/check-wire.sh

check-wire-short:
	scripts/check/check-wire.sh --short

# The whole suite on another kernel of scripts/kernels: make check-6.12
# (Debian 13's Linux 6.12) is the same as make check KERNEL=6.12.
$(addprefix check-,$(OTHER_KERNELS)): check-%:
	scripts/check/check-kernel.sh $*

# The debug kernel (KASAN, lockdep, kmemleak, UBSAN, fault injection),
# built once into the cache; see Documentation/testbed.rst.
debug-kernel:
	scripts/kernel/debug-kernel.sh

# The suite on the debug kernel, then kmemleak and fault injection.
check-debug:
	scripts/check/check-debug.sh

# Only the fault-injection boot on the debug kernel.
check-fault:
	scripts/check/check-debug.sh --fault

# RDS/IB port failover between two debug-kernel guests, kmemleak after.
check-ha-debug:
	scripts/check/check-debug.sh --ha

# trinity + rds-fuzz in the guest for FUZZ_SECONDS (default 600) as an
# unprivileged user; the debug kernel if built (results/fuzz/).
fuzz:
	scripts/check/fuzz.sh

# RDS/TCP teardown under load, SOAK_ROUNDS (100) rounds on the debug
# kernel, then kmemleak (results/soak/).
soak:
	scripts/check/soak.sh

demo:
	scripts/vm/demo.sh

# rds-stress scenarios, Linux's in-tree RDS vs ours (results/bench/).
bench:
	scripts/bench/bench.sh

# The bench's own client: ceilings and cost curves (bench-msgbench.sh).
scripts/bench/msgbench: scripts/bench/msgbench.c include/uapi/linux/rds.h
	$(CC) -O2 -g -std=gnu11 -Wall -Wextra -Werror -Iinclude/uapi -o $@ $<

# How long traffic stops when a port fails: routes vs an address move.
bench-failover:
	scripts/bench/bench-failover.sh

# Guest instructions per kernel symbol, a QEMU TCG plugin and the guest's
# window marker (scripts/bench/insnprof.sh). The marker is linked where
# no other guest program lives: the plugin knows it by its address.
INSNPROF := scripts/bench/insnprof
$(INSNPROF)/insnprof.so: $(INSNPROF)/insnprof.c
	$(CC) -O2 -g -std=gnu11 -Wall -Wextra -Werror -fPIC -shared \
		-fvisibility=hidden -o $@ $< -lpthread

$(INSNPROF)/insnprof-mark: $(INSNPROF)/insnprof-mark.S
	$(CC) -nostdlib -static -no-pie -Wl,-Ttext-segment=0x5e1f0000 \
		-Wl,--build-id=none -o $@ $<

# An interactive shell in the guest with our modules loaded.
vm: all
	scripts/vm/vm.sh --rdma --interactive

# The modules to updates/ (over Linux's own RDS), the tools and their man
# pages under PREFIX (/usr/local). The packages are the better route:
# make deb, README.md "Installing".
install: modules_install tools_install
modules_install: modules
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_DIR=updates modules_install
	depmod -a $(KVER)
tools_install:
	$(MAKE) -C tools install

# Debian packages rds-dkms and rds-tools (dpkg-buildpackage from a clean
# copy of the tree, then lintian) in results/deb/; see
# Documentation/packaging.rst.
deb:
	scripts/deb/build.sh

# The packages installed, booted on, upgraded and purged on every kernel
# of scripts/kernels, each in a clean root of its Debian release.
check-deb:
	scripts/deb/check-deb.sh $(KERNEL)

sparse:
	$(IN_ROOT) $(MAKE) -C $(KDIR) M=$(CURDIR) C=2 modules

checkpatch:
	scripts/check/checkpatch.sh

clean:
	$(IN_ROOT) $(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(IN_ROOT) $(MAKE) -C $(KDIR) M=$(CURDIR)/selftests/modules clean
	$(MAKE) -C tools clean
	$(MAKE) -C selftests clean
	rm -f $(INSNPROF)/insnprof.so $(INSNPROF)/insnprof-mark
