// SPDX-License-Identifier: GPL-2.0
/*
 * reduce_fp.c - floating-point reductions: fp16, bf16, fp32 and fp64.
 *
 * Built with the FPU flags (see Kbuild); every function here runs only
 * between kernel_fpu_begin() and kernel_fpu_end(), which reduce.c holds.
 *
 * fp16 and bf16 are widened to fp32, combined in fp32 and rounded back
 * (round to nearest, ties to even) after every pairwise step, so a
 * 16-bit sum accumulates with 16-bit precision between steps, as NCCL's
 * does.  min and max pick by bit pattern when neither operand is smaller
 * (+0/-0, NaN), which keeps every op commutative bit for bit: partners
 * that reduce the same pair get the same bits.
 *
 * The file builds twice: as itself with SSE2 (every x86-64 CPU has it),
 * and as reduce_fp_avx2.c with AVX2 on; reduce.c picks by the CPU.  The
 * element-wise sum and product loops are what the compiler vectorises.
 */
#include <linux/compiler.h>
#include <linux/fabriq.h>
#include <linux/types.h>

#include "reduce.h"

#ifndef FQ_FP_ISA
#define FQ_FP_ISA	sse2
#endif
#define FQ_FP_NAME(name)	__PASTE(name, __PASTE(_, FQ_FP_ISA))

union fq_f32 {
	float f;
	u32 u;
};

union fq_f64 {
	double f;
	u64 u;
};

static float fq_h2f(u16 h)
{
	u32 s = (u32)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
	union fq_f32 v;

	if (e == 0 && m == 0) {
		v.u = s;
	} else if (e == 0) {
		e = 113;
		while (!(m & 0x400)) {
			m <<= 1;
			e--;
		}
		v.u = s | (e << 23) | ((m & 0x3ff) << 13);
	} else if (e == 31) {
		v.u = s | 0x7f800000 | (m << 13);
	} else {
		v.u = s | ((e + 112) << 23) | (m << 13);
	}
	return v.f;
}

static u16 fq_f2h(float f)
{
	union fq_f32 v = { .f = f };
	u32 s = (v.u >> 16) & 0x8000, m = v.u & 0x7fffff, hm, rem, half, shift;
	int e = (int)((v.u >> 23) & 0xff) - 127 + 15;

	if (e == 128 + 15)	/* Inf or NaN; NaN stays quiet */
		return s | 0x7c00 | (m ? 0x200 | (m >> 13) : 0);
	if (e >= 31)
		return s | 0x7c00;
	if (e <= 0) {
		if (e < -10)
			return s;
		m |= 0x800000;
		shift = 14 - e;
		hm = m >> shift;
		rem = m & ((1U << shift) - 1);
		half = 1U << (shift - 1);
		if (rem > half || (rem == half && (hm & 1)))
			hm++;
		return s | hm;
	}
	hm = s | ((u32)e << 10) | (m >> 13);
	rem = m & 0x1fff;
	if (rem > 0x1000 || (rem == 0x1000 && (hm & 1)))
		hm++;
	return hm;
}

static float fq_bf2f(u16 b)
{
	union fq_f32 v = { .u = (u32)b << 16 };

	return v.f;
}

static u16 fq_f2bf(float f)
{
	union fq_f32 v = { .f = f };

	if ((v.u & 0x7fffffff) > 0x7f800000)
		return (v.u >> 16) | 0x40;
	return (v.u + 0x7fff + ((v.u >> 16) & 1)) >> 16;
}

static float fq_op32(u32 op, float a, float b)
{
	union fq_f32 x = { .f = a }, y = { .f = b };

	switch (op) {
	case FABRIQ_OP_PROD:
		return a * b;
	case FABRIQ_OP_MAX:
		if (a > b || b > a)
			return a > b ? a : b;
		return x.u > y.u ? b : a;	/* +0 over -0 */
	case FABRIQ_OP_MIN:
		if (a < b || b < a)
			return a < b ? a : b;
		return x.u > y.u ? a : b;	/* -0 over +0 */
	default:			/* sum, avg */
		return a + b;
	}
}

static double fq_op64(u32 op, double a, double b)
{
	union fq_f64 x = { .f = a }, y = { .f = b };

	switch (op) {
	case FABRIQ_OP_PROD:
		return a * b;
	case FABRIQ_OP_MAX:
		if (a > b || b > a)
			return a > b ? a : b;
		return x.u > y.u ? b : a;
	case FABRIQ_OP_MIN:
		if (a < b || b < a)
			return a < b ? a : b;
		return x.u > y.u ? a : b;
	default:
		return a + b;
	}
}

/* sum and product get loops of their own: plain element-wise, so vectorised */
#define FQ_FP_REDUCE(name, T, opfn)						\
static void fq_reduce_##name(u32 op, void *dst, const void *x, const void *y, u32 n) \
{										\
	const T *a = x, *b = y;							\
	T *d = dst;								\
	u32 i;									\
										\
	if (op == FABRIQ_OP_SUM || op == FABRIQ_OP_AVG)				\
		for (i = 0; i < n; i++)						\
			d[i] = a[i] + b[i];					\
	else if (op == FABRIQ_OP_PROD)						\
		for (i = 0; i < n; i++)						\
			d[i] = a[i] * b[i];					\
	else									\
		for (i = 0; i < n; i++)						\
			d[i] = opfn(op, a[i], b[i]);				\
}

FQ_FP_REDUCE(f32, float, fq_op32)
FQ_FP_REDUCE(f64, double, fq_op64)

void FQ_FP_NAME(fq_reduce_fp)(u32 dtype, u32 op, void *dst, const void *x, const void *y, u32 n)
{
	u32 i;

	switch (dtype) {
	case FABRIQ_FLOAT32:
		return fq_reduce_f32(op, dst, x, y, n);
	case FABRIQ_FLOAT64:
		return fq_reduce_f64(op, dst, x, y, n);
	case FABRIQ_FLOAT16: {
		const u16 *a = x, *b = y;
		u16 *d = dst;

		for (i = 0; i < n; i++)
			d[i] = fq_f2h(fq_op32(op, fq_h2f(a[i]), fq_h2f(b[i])));
		break;
	}
	case FABRIQ_BFLOAT16: {
		const u16 *a = x, *b = y;
		u16 *d = dst;

		for (i = 0; i < n; i++)
			d[i] = fq_f2bf(fq_op32(op, fq_bf2f(a[i]), fq_bf2f(b[i])));
		break;
	}
	}
}

/* buf[i] /= div, for op avg */
void FQ_FP_NAME(fq_scale_fp)(u32 dtype, void *buf, u32 n, u32 div)
{
	u32 i;

	switch (dtype) {
	case FABRIQ_FLOAT32: {
		float *a = buf;

		for (i = 0; i < n; i++)
			a[i] = a[i] / (float)div;
		break;
	}
	case FABRIQ_FLOAT64: {
		double *a = buf;

		for (i = 0; i < n; i++)
			a[i] = a[i] / (double)div;
		break;
	}
	case FABRIQ_FLOAT16: {
		u16 *a = buf;

		for (i = 0; i < n; i++)
			a[i] = fq_f2h(fq_h2f(a[i]) / (float)div);
		break;
	}
	case FABRIQ_BFLOAT16: {
		u16 *a = buf;

		for (i = 0; i < n; i++)
			a[i] = fq_f2bf(fq_bf2f(a[i]) / (float)div);
		break;
	}
	}
}
