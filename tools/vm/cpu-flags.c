// SPDX-License-Identifier: GPL-2.0
/*
 * tools/vm/cpu-flags.c - run in a guest by tools/vm/cpu-flags-check: does
 * the (emulated) CPU keep EFLAGS right across a cmpxchg16b that follows a
 * flags-setting cmp in the same translation block?
 *
 * qemu 7.2's TCG does not.  Its cmpxchg16b helper computes the flags from
 * the cc_op last stored in the CPU state, not the one the translator holds
 * for the block; after a popf (which ends a block) that is CC_OP_EFLAGS,
 * whose "flags" are CC_SRC raw, and the cmp left its source operand there.
 * So EFLAGS becomes that operand's low 32 bits or'ed with IF: TF, DF, NT,
 * IOPL and bits no x86 CPU has, live until the next flags-setting
 * instruction and kept forever if an interrupt saves them first.  Linux's
 * SLUB fast path does exactly this sequence (this_cpu_try_cmpxchg128), so
 * guests under rxe load crashed with EFLAGS like 022faa02.  qemu 8.0
 * translates cmpxchg16b inline from the block's own cc_op (commit
 * 5f0dd8cd33cb, "target/i386: Inline cmpxchg16b").
 *
 * Prints the EFLAGS it saw and exits 1 if any had bits above 21 set.
 */
#include <stdio.h>

#define ROUNDS 1000
#define EFLAGS_DEFINED 0x3fffffUL	/* bits 0-21: all an x86 CPU has */

int main(void)
{
	static unsigned __int128 slot __attribute__((aligned(16))) = 1;
	unsigned long flags = 0, bad = 0;
	int i;

	for (i = 0; i < ROUNDS; i++) {
		/* popf ends qemu's block; the rest is one block. rdx:rax (0)
		 * differs from the slot (1): the cmpxchg16b fails, as SLUB's
		 * does when it races an interrupt.
		 */
		asm volatile("pushq $0x2\n\t"
			     "popfq\n\t"
			     "movq $0x12340000, %%rdi\n\t"
			     "xorl %%eax, %%eax\n\t"
			     "xorl %%edx, %%edx\n\t"
			     "xorl %%ebx, %%ebx\n\t"
			     "xorl %%ecx, %%ecx\n\t"
			     "cmpq %%rdi, %%rax\n\t"
			     "lock cmpxchg16b %1\n\t"
			     "pushfq\n\t"
			     "popq %0"
			     : "=r"(flags), "+m"(slot)
			     : : "rax", "rbx", "rcx", "rdx", "rdi", "cc");
		if (flags & ~EFLAGS_DEFINED)
			bad++;
	}
	printf("cpu-flags: EFLAGS after a failed cmpxchg16b: %#lx; %lu of %d with bits above 21\n",
	       flags, bad, ROUNDS);
	return bad != 0;
}
