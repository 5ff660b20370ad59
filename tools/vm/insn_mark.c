// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Runs the instruction profiler's mark once (see tools/vm/insn_profile.c):
 * under run.sh --insn-profile FILE, the guest's counts since the previous
 * mark go to FILE.N. Elsewhere the mark is a NOP and this does nothing.
 * run.sh builds it into build/vm/insn_mark with the plugin.
 */
int main(void)
{
	/* nopl 0x4d545652(%rax): the displacement spells "RVTM" */
	asm volatile(".byte 0x0f, 0x1f, 0x80, 0x52, 0x56, 0x54, 0x4d");
	return 0;
}
