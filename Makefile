# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Out-of-tree build of rdmavt.ko and rvtsw/rvtsw.ko, plus the project's
# front door: `make demo`, `make demo-fabric` and `make check`.

REPO := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
# The kernel to build for: make check's, or KVER=<release> of those in
# tools/kernels; its headers are in the kernel cache (tools/kernels.sh),
# where tools/setup.sh unpacks them.
KVER ?= $(shell $(REPO)/tools/kernels.sh release)
KDIR ?= $(shell $(REPO)/tools/kernels.sh dir $(KVER))/headers
INSTALL_MOD_DIR ?= updates

# Anything beyond the tree's own defaults (W=1, C=1, ...) goes through
# on the command line as usual. Its recipes start with + since make sees
# no $(MAKE) in them: without it, make -j's jobs would not reach Kbuild.
KBUILD = $(MAKE) -C $(KDIR) M=$(REPO) $(if $(SPARSE),$(SPARSE_FLAGS))
# SPARSE=1: sparse on every file of the build (C=2) as it goes, with the
# flags of tools/style.sh's gate, which reads what it prints; make
# check's W=1 build runs it so that the gate needs no build of its own.
# -Wno-flexible-array-array: the public headers rdmavt must use as they
# are (rvt-abi.h's struct rvt_rwq, rdmavt_qp.h's struct rvt_krwq) hold
# arrays of flexible structures, by ABI.
SPARSE_FLAGS = C=2 CHECK=sparse CF=-Wno-flexible-array-array
# A build's first step: say what to do if the headers are not there yet.
CHECK_KDIR = @test -r $(KDIR)/Makefile || { echo 'no kernel headers in $(KDIR): \
	run tools/setup.sh (make setup), or give KDIR=' >&2; exit 1; }

.PHONY: all modules tests progs clean install setup check check-debug demo \
	demo-fabric bench man style deb check-dkms check-rt check-wire fuzz-wire

all: modules

# One goal at a time (make -j2 modules tests): each Kbuild run writes the
# same objects; a Kbuild run is parallel within itself all the same.
.NOTPARALLEL:

modules:
	$(CHECK_KDIR)
	+$(KBUILD) modules

# The modules plus the kernel-side test modules under tools/testing/kmod,
# and the userspace programs the suites run.
tests: progs
	$(CHECK_KDIR)
	+$(KBUILD) RVT_TESTS=1 modules

# The userspace programs the guest suites run (tools/testing/progs/
# Makefile), built here into build/progs/: the guest compiles nothing.
progs:
	$(MAKE) -C $(REPO)/tools/testing/progs O=$(REPO)/build/progs

clean:
	$(CHECK_KDIR)
	+$(KBUILD) RVT_TESTS=1 clean
	rm -rf $(REPO)/build/man $(REPO)/build/progs

# Installs under /lib/modules/<release of KDIR>/updates/, which depmod
# prefers over the distro's own rdmavt.ko.
install: modules
	+$(KBUILD) INSTALL_MOD_DIR=$(INSTALL_MOD_DIR) modules_install
	depmod -a $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) \
		$$($(MAKE) -s -C $(KDIR) kernelrelease)

setup:
	$(REPO)/tools/setup.sh

style:
	$(REPO)/tools/style.sh

# The rdmavt-dkms Debian package, into build/deb/ (tools/deb.sh).
deb:
	$(REPO)/tools/deb.sh

# make check's steps, then the package in the guest on our core
# (tools/testing/dkms/): each suite has DKMS compile the modules under
# TCG, which outlasts make check's limit of a suite.
check-dkms: setup
	RVT_CORES=ours RVT_SUITE_TIMEOUT=$${RVT_SUITE_TIMEOUT:-3600} \
	RVT_VM_TIMEOUT=$${RVT_VM_TIMEOUT:-7200} \
		$(REPO)/tools/check.sh $(REPO)/tools/testing/dkms/*.sh

man:
	$(REPO)/tools/mkman.sh

# The PREEMPT_RT lane: Debian 12's RT 6.12 (the rt row of tools/kernels)
# fetched into the kernel cache, the modules built and abi-checked
# against it, and the core, data-path and stress suites on our core in a
# boot of it (tools/check.sh --rt).
RT_KVER = $(shell $(REPO)/tools/kernels.sh pick 6.12 rt)
check-rt:
	KVER=$(RT_KVER) $(REPO)/tools/setup.sh
	$(REPO)/tools/check.sh --rt

check: setup
	$(REPO)/tools/check.sh

# The two-guest suites (tools/testing/pair/): two guests joined by a
# virtio-net link (tools/vm/pair.sh), the suites' halves in step over it.
check-wire: setup
	$(REPO)/tools/check.sh --wire

# The debug lane: our core on a KASAN/lockdep/kmemleak kernel built once
# from Debian's linux-source (tools/debug-kernel.sh), which wants the
# kernel's build tools.
check-debug:
	$(REPO)/tools/setup.sh flex bison libelf-dev libssl-dev bc
	$(REPO)/tools/check.sh --debug-kernel

demo: setup
	$(REPO)/tools/demo.sh

# The wire fuzzer's long run (83-wirefuzz, Documentation/testing.rst):
# FUZZ_SECONDS (default 1800) of random and mutated frames into an
# uplink, on the debug lane's kernel, with a seed from the date unless
# RVT_WIREFUZZ_SEED names one.
FUZZ_SECONDS ?= 1800
fuzz-wire:
	$(REPO)/tools/setup.sh flex bison libelf-dev libssl-dev bc
	RVT_WIREFUZZ_SECONDS=$(FUZZ_SECONDS) RVT_WIREFUZZ_COUNT=0 \
	RVT_WIREFUZZ_SEED=$${RVT_WIREFUZZ_SEED:-$$(date +%s)} \
		$(REPO)/tools/check.sh --debug-kernel 83-wirefuzz.sh

# The managed fabric: OpenSM brings rvtsw's switch and ports up; the
# diags, IPoIB and rping over it.
demo-fabric: setup
	$(REPO)/tools/demo.sh fabric

# The chart wants matplotlib, which nothing else needs.
bench:
	$(REPO)/tools/setup.sh python3-matplotlib
	$(REPO)/tools/bench.sh
