#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# demand_paging_test over a table of cases: userfaultfd modes, every
# backing source, 1..4 vCPUs, 1..8 readers, -o, -a, both wake modes, the
# host-only mode, nested vCPUs (-n), -p, -L, and bad input (exit 1 with the reason on stderr).
# A case the host cannot run (no hugepages, no MINOR support...) is a
# skip.  Prints TAP; exits 1 if any case failed, 4 if all were skipped.
#
# usage: demand_paging_cases.sh [PATH_TO_demand_paging_test]

TEST=${1:-$(dirname "$0")/demand_paging_test}
B=4M
SUMMARY='Overall demand paging rate'
# shellcheck source=cases_lib.sh
. "$(dirname "$0")/cases_lib.sh"

cases() {
	run ok
	run ok -b $B -v 2
	for v in 1 2 3 4; do
		run ok -u MISSING -b $B -v $v
	done
	for r in 1 2 4 8; do
		run ok -u MISSING -b $B -v 2 -r $r
		run ok -u MISSING -b $B -v 2 -r $r -w poll
	done
	run ok -u MISSING -b $B -v 2 -r 2 -a
	run ok -u MISSING -b $B -v 2 -r 2 -o
	run ok -u MISSING -b $B -v 4 -r 4 -o -w poll
	run ok -u MISSING -b $B -v 2 -d 10
	run ok -u MISSING -b $B -v 2 -B
	run ok -u MISSING -b $B -v 2 -c 0,0,0
	run ok -u MISSING -b $B -v 2 -N 0
	run ok -u MINOR -b $B -v 2 -s shmem -N 1
	for s in anonymous anonymous_thp anonymous_hugetlb shmem shared_hugetlb; do
		run ok -u MISSING -b $B -v 2 -r 2 -s $s
	done
	for s in shmem shared_hugetlb; do
		run ok -u MINOR -b $B -v 2 -r 2 -s $s
		run ok -u MINOR -b $B -v 2 -r 2 -s $s -a
		run ok -u MINOR -b $B -v 2 -r 2 -s $s -o
	done
	run ok -b $B -v 2 -L
	# guest_memfd: KVM's own faults, shared (mmap()ed) and private; uffd
	# where the kernel registers a guest_memfd mapping (else a skip).
	run ok -b $B -v 2 -s guest_memfd
	run ok -b $B -v 2 -s guest_memfd_private
	run ok -u MISSING -b $B -v 2 -s guest_memfd
	run ok -u MISSING -b $B -v 2 -p 0x40000000
	# Nested (-n): L2 walks the pages under L1's NPT or EPT; a skip where KVM
	# cannot nest (arm64, no svm or vmx in the guest CPUID).
	run ok -n -b $B -v 2
	run ok -n -u MISSING -b $B -v 2 -r 2
	run ok -n -u MISSING -b $B -v 2 -o
	for s in anonymous_thp anonymous_hugetlb shmem shared_hugetlb; do
		run ok -n -u MISSING -b $B -v 2 -s $s
	done
	run ok -n -u MINOR -b $B -v 2 -s shmem
	run ok -H -b $B -v 2
	run ok -H -u MISSING -b $B -v 4 -r 8
	run ok -H -u MISSING -b $B -v 2 -r 4 -w poll -o
	run ok -H -u MINOR -b $B -v 2 -r 2 -s shmem -a

	run "Invalid guest mode" -m 99
	run "Unknown uffd mode" -u FOO
	run "MINOR faults need shared memory" -u MINOR
	run "MINOR faults need shared memory" -H -u MINOR -s anonymous_hugetlb
	run "Invalid reader count" -u MISSING -r 0
	run "Invalid vCPU count" -v 0
	run "Invalid vCPU count" -v 100000
	run "must not be zero" -b 0
	run "not a multiple" -b 4097
	run "not a multiple" -s anonymous_hugetlb -b 1M
	run "Unknown backing source" -s nosuch
	run "has 1 CPUs" -v 2 -c 0
	run "not in this process's affinity mask" -v 2 -c 0,1000
	run "Invalid CPU list" -v 2 -c 0,x
	run "Unknown wake mode" -w foo
	run "Unexpected argument" extra
	run "runs no vCPUs" -n -H
	run "overlaps the test binary" -p 0x10000
	run "is not aligned" -p 0x40000001
	run "is not aligned" -p 0x40001000 -s anonymous_hugetlb -b 2M
	run "ends beyond the guest" -p 0x7fffffffffff0000
	run "Invalid guest-physical offset" -p x
	run "Invalid NUMA node" -N -1
	run "serves faults on the host's mapping" -u MISSING -s guest_memfd_private
	run "is a VM's guest_memfd; -H runs no VM" -H -s guest_memfd
}

cases_main
