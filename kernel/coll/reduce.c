// SPDX-License-Identifier: GPL-2.0
/*
 * reduce.c - which (type, op) pairs exist, the integer reductions, and the
 * bounded FPU sections around the floating-point ones (reduce_fp.c).
 *
 * Integer sums and products wrap (computed unsigned).  Floating-point
 * work runs in sections of at most FQ_FPU_ELEMS elements, so preemption
 * is never off for long, with a reschedule point between sections; it
 * runs the AVX2 build of the kernels where the CPU and the kernel's
 * saved state have AVX (the YMM registers), else the SSE2 one.
 */
#include <linux/fabriq.h>
#include <linux/jump_label.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <asm/cpufeature.h>
#include <asm/fpu/api.h>

#include "reduce.h"

#define FQ_FPU_ELEMS	4096

static const u8 fq_dtype_sizes[__FABRIQ_DTYPE_MAX] = {
	[FABRIQ_INT8] = 1, [FABRIQ_UINT8] = 1, [FABRIQ_INT32] = 4, [FABRIQ_UINT32] = 4,
	[FABRIQ_INT64] = 8, [FABRIQ_UINT64] = 8, [FABRIQ_FLOAT16] = 2, [FABRIQ_FLOAT32] = 4,
	[FABRIQ_FLOAT64] = 8, [FABRIQ_BFLOAT16] = 2,
};

static bool fq_dtype_is_fp(u32 dtype)
{
	return dtype == FABRIQ_FLOAT16 || dtype == FABRIQ_FLOAT32 ||
	       dtype == FABRIQ_FLOAT64 || dtype == FABRIQ_BFLOAT16;
}

u32 fq_dtype_size(u32 dtype)
{
	return dtype < __FABRIQ_DTYPE_MAX ? fq_dtype_sizes[dtype] : 0;
}

/**
 * fq_reduce_valid() - does fabriq reduce @dtype with @op?
 * @dtype: enum fabriq_dtype
 * @op: enum fabriq_redop
 *
 * sum, prod, min and max on every type; avg on the floating-point types;
 * band, bor and bxor on the integer types.
 */
bool fq_reduce_valid(u32 dtype, u32 op)
{
	if (dtype >= __FABRIQ_DTYPE_MAX || op >= __FABRIQ_OP_MAX)
		return false;
	if (op == FABRIQ_OP_AVG)
		return fq_dtype_is_fp(dtype);
	if (op >= FABRIQ_OP_BAND)
		return !fq_dtype_is_fp(dtype);
	return true;
}

/* one loop per op, so that the compiler sees a plain element-wise loop */
#define FQ_INT_REDUCE(name, T, UT)						\
static void fq_reduce_##name(u32 op, void *dst, const void *x, const void *y, u64 n) \
{										\
	const T *a = x, *b = y;							\
	T *d = dst;								\
	u64 i;									\
										\
	switch (op) {								\
	case FABRIQ_OP_SUM:							\
		for (i = 0; i < n; i++)						\
			d[i] = (T)((UT)a[i] + (UT)b[i]);			\
		break;								\
	case FABRIQ_OP_PROD:							\
		for (i = 0; i < n; i++)						\
			d[i] = (T)((UT)a[i] * (UT)b[i]);			\
		break;								\
	case FABRIQ_OP_MAX:							\
		for (i = 0; i < n; i++)						\
			d[i] = a[i] > b[i] ? a[i] : b[i];			\
		break;								\
	case FABRIQ_OP_MIN:							\
		for (i = 0; i < n; i++)						\
			d[i] = a[i] < b[i] ? a[i] : b[i];			\
		break;								\
	case FABRIQ_OP_BAND:							\
		for (i = 0; i < n; i++)						\
			d[i] = a[i] & b[i];					\
		break;								\
	case FABRIQ_OP_BOR:							\
		for (i = 0; i < n; i++)						\
			d[i] = a[i] | b[i];					\
		break;								\
	case FABRIQ_OP_BXOR:							\
		for (i = 0; i < n; i++)						\
			d[i] = a[i] ^ b[i];					\
		break;								\
	}									\
}

FQ_INT_REDUCE(s8, s8, u8)
FQ_INT_REDUCE(u8, u8, u8)
FQ_INT_REDUCE(s32, s32, u32)
FQ_INT_REDUCE(u32, u32, u32)
FQ_INT_REDUCE(s64, s64, u64)
FQ_INT_REDUCE(u64, u64, u64)

/* the AVX2 build of the floating-point kernels runs (fq_reduce_init()) */
static DEFINE_STATIC_KEY_FALSE(fq_fp_avx2);

/**
 * fq_reduce_init() - pick the build of the floating-point kernels once:
 * AVX2 where the CPU has it and the kernel saves its registers, else SSE2
 *
 * Context: process context (the subsystem's start).
 */
void fq_reduce_init(void)
{
	if (boot_cpu_has(X86_FEATURE_AVX2) &&
	    cpu_has_xfeatures(XFEATURE_MASK_SSE | XFEATURE_MASK_YMM, NULL))
		static_branch_enable(&fq_fp_avx2);
}

/* which build of the floating-point kernels runs ("sse2" or "avx2") */
const char *fq_reduce_isa(void)
{
	return static_branch_likely(&fq_fp_avx2) ? "avx2" : "sse2";
}

/**
 * fq_reduce_to() - dst[i] = a[i] op b[i] for @n elements
 * @dtype: enum fabriq_dtype
 * @op: enum fabriq_redop (not avg: the caller sums, then divides)
 * @dst: the result; may be @a (an accumulator), else overlaps neither
 * @a: the local operand
 * @b: the other operand
 * @n: elements
 *
 * The caller checked fq_reduce_valid().  With @dst != @a the first
 * reduction of a step reads the caller's input in place of a copy of it
 * (the fused reduction, coll_fresh.c).
 * Context: process context; may reschedule between FPU sections.
 */
void fq_reduce_to(u32 dtype, u32 op, void *dst, const void *a, const void *b, u64 n)
{
	u32 esz = fq_dtype_size(dtype), step;

	switch (dtype) {
	case FABRIQ_INT8:
		return fq_reduce_s8(op, dst, a, b, n);
	case FABRIQ_UINT8:
		return fq_reduce_u8(op, dst, a, b, n);
	case FABRIQ_INT32:
		return fq_reduce_s32(op, dst, a, b, n);
	case FABRIQ_UINT32:
		return fq_reduce_u32(op, dst, a, b, n);
	case FABRIQ_INT64:
		return fq_reduce_s64(op, dst, a, b, n);
	case FABRIQ_UINT64:
		return fq_reduce_u64(op, dst, a, b, n);
	}
	while (n) {
		step = min_t(u64, n, FQ_FPU_ELEMS);
		kernel_fpu_begin();
		if (static_branch_likely(&fq_fp_avx2))
			fq_reduce_fp_avx2(dtype, op, dst, a, b, step);
		else
			fq_reduce_fp_sse2(dtype, op, dst, a, b, step);
		kernel_fpu_end();
		dst += (size_t)step * esz;
		a += (size_t)step * esz;
		b += (size_t)step * esz;
		n -= step;
		cond_resched();
	}
}

/**
 * fq_reduce_avg_finish() - divide a reduced sum by @nranks (op avg)
 * @dtype: a floating-point enum fabriq_dtype
 * @buf: the sums
 * @n: elements
 * @nranks: the divisor
 *
 * Context: process context.
 */
void fq_reduce_avg_finish(u32 dtype, void *buf, u64 n, u32 nranks)
{
	u32 esz = fq_dtype_size(dtype), step;

	while (n) {
		step = min_t(u64, n, FQ_FPU_ELEMS);
		kernel_fpu_begin();
		if (static_branch_likely(&fq_fp_avx2))
			fq_scale_fp_avx2(dtype, buf, step, nranks);
		else
			fq_scale_fp_sse2(dtype, buf, step, nranks);
		kernel_fpu_end();
		buf += (size_t)step * esz;
		n -= step;
		cond_resched();
	}
}
