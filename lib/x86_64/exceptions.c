// SPDX-License-Identifier: GPL-2.0-only
/*
 * x86_64 exceptions, guest side: exception_entry.S calls route_exception()
 * for every vector, which runs the test's handler or reports the vector to
 * the host (UCALL_UNHANDLED); guest code that returns lands here too.
 */
#include "processor.h"

/* Guest: GVA of the per-VM handler table, written by vm_arch_setup(). */
exception_handler_t *exception_handlers;

__guest_code void route_exception(struct ex_regs *regs)
{
	exception_handler_t h = NULL;

	if (regs->vector < NUM_IDT_VECTORS && exception_handlers)
		h = exception_handlers[regs->vector];
	if (h) {
		h(regs);
		return;
	}
	ucall(UCALL_UNHANDLED, 3, regs->vector, regs->error_code, regs->rip);
}

__guest_code void guest_code_returned(void)
{
	GUEST_FAIL("guest code returned (without GUEST_DONE?)");
}
