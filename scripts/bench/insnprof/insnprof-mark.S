/* SPDX-License-Identifier: GPL-2.0 */
/*
 * insnprof-mark start|end: mark a window for the insnprof plugin
 * (insnprof.c). Static, no libc, linked at an address of its own (the
 * Makefile's -Ttext-segment): the plugin watches the first instruction of
 * insnprof_mark_start and insnprof_mark_end, which no other program in
 * the guest can execute. Each is reached by a jump, so a translation
 * block starts there. Exit status 0, or 2 for a bad argument.
 */
	.text
	.globl	_start
_start:
	mov	16(%rsp), %rsi		/* argv[1] */
	test	%rsi, %rsi
	jz	bad
	cmpb	$'s', (%rsi)
	je	insnprof_mark_start
	cmpb	$'e', (%rsi)
	je	insnprof_mark_end
bad:
	mov	$2, %edi
	mov	$60, %eax		/* exit */
	syscall

	.p2align 6
	.globl	insnprof_mark_start
insnprof_mark_start:
	xor	%edi, %edi
	mov	$60, %eax
	syscall

	.p2align 6
	.globl	insnprof_mark_end
insnprof_mark_end:
	xor	%edi, %edi
	mov	$60, %eax
	syscall

	.section .note.GNU-stack, "", @progbits
