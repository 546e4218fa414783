# SPDX-License-Identifier: GPL-2.0
#
# Top-level entry points. `make` builds the modules, the tools and the
# selftests; `make check` runs the suite inside a QEMU guest; `make demo`
# shows RDS working in one. See README.md.

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
	vm install modules_install sparse checkpatch bench debug-kernel \
	check-debug check-fault fuzz

all: modules tools selftests

modules:
	@test -n "$(KDIR)" || { echo "no kernel build dir: run scripts/deps.sh" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

tools:
	$(MAKE) -C tools

selftests:
	$(MAKE) -C selftests

# Test-only modules (never installed): built against the same kernel.
test-modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR)/selftests/modules modules

deps:
	scripts/deps.sh

check:
	scripts/check.sh

# The debug kernel (KASAN, lockdep, kmemleak, UBSAN, fault injection),
# built once into the cache; see Documentation/testbed.rst.
debug-kernel:
	scripts/debug-kernel.sh

# The suite on the debug kernel, then kmemleak and fault injection.
check-debug:
	scripts/check-debug.sh

# Only the fault-injection boot on the debug kernel.
check-fault:
	scripts/check-debug.sh --fault

# trinity + rds-fuzz in the guest for FUZZ_SECONDS (default 600) as an
# unprivileged user; the debug kernel if built (results/fuzz/).
fuzz:
	scripts/fuzz.sh

demo:
	scripts/demo.sh

# rds-stress scenarios, Linux's in-tree RDS vs ours (results/bench/).
bench:
	scripts/bench.sh

# An interactive shell in the guest with our modules loaded.
vm: all
	scripts/vm.sh --rdma --interactive

install: modules_install
modules_install: modules
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_DIR=updates modules_install
	depmod -a $(KVER)

sparse:
	$(MAKE) -C $(KDIR) M=$(CURDIR) C=2 modules

checkpatch:
	scripts/checkpatch.sh

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C $(KDIR) M=$(CURDIR)/selftests/modules clean
	$(MAKE) -C tools clean
	$(MAKE) -C selftests clean
