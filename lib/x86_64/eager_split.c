// SPDX-License-Identifier: GPL-2.0-only
/*
 * x86_64 eager page splitting: the kvm module's eager_page_split
 * parameter, read by KVM when dirty logging starts (and at each
 * KVM_CLEAR_DIRTY_LOG with KVM_DIRTY_LOG_INITIALLY_SET).  Only the TDP
 * MMU splits eagerly (tdp_mmu parameter); the shadow MMU leaves huge
 * mappings to be split by the guest's writes.
 */
#include "eager_split.h"
#include "kvm_params.h"

void eager_split_probe(struct eager_split_info *e)
{
	int on = kvm_param_bool("eager_page_split");
	char why[160];

	memset(e, 0, sizeof(*e));
	snprintf(e->knob, sizeof(e->knob), "kvm parameter eager_page_split");
	if (on < 0) {
		snprintf(e->why, sizeof(e->why), "KVM has no eager_page_split parameter");
		return;
	}
	e->available = true;
	e->current = on;
	e->kvm_splits = kvm_param_bool("tdp_mmu") == 1;
	/* Writing the value it has changes nothing: a probe of writability. */
	e->settable = kvm_param_set("eager_page_split", on ? "Y" : "N", why, sizeof(why));
	if (!e->settable)
		snprintf(e->why, sizeof(e->why), "%s", why);
	else if (!e->kvm_splits)
		snprintf(e->why, sizeof(e->why),
			 "the TDP MMU is off (kvm parameter tdp_mmu=N): huge mappings split only on writes");
}

void eager_split_select(bool on)
{
	char why[160];

	TEST_ASSERT(kvm_param_set("eager_page_split", on ? "Y" : "N", why, sizeof(why)),
		    "%s", why);
}

void eager_split_vm_init(struct kvm_vm *vm)
{
}
