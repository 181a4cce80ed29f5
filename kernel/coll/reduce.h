/* SPDX-License-Identifier: GPL-2.0 */
/*
 * reduce.h - element-wise reductions of fabriq's data types.
 *
 * reduce.c owns the integer kernels, the FPU sections and the choice of
 * SSE2 or AVX2; reduce_fp.c, built with the FPU flags (twice: SSE2 and
 * AVX2), owns the floating-point kernels and is only ever called from
 * inside kernel_fpu_begin()/kernel_fpu_end().
 */
#ifndef _FABRIQ_REDUCE_H
#define _FABRIQ_REDUCE_H

#include <linux/types.h>

bool fq_reduce_valid(u32 dtype, u32 op);
u32 fq_dtype_size(u32 dtype);
void fq_reduce_init(void);
const char *fq_reduce_isa(void);
void fq_reduce_to(u32 dtype, u32 op, void *dst, const void *a, const void *b, u64 n);

/* dst[i] = dst[i] op src[i] */
static inline void fq_reduce(u32 dtype, u32 op, void *dst, const void *src, u64 n)
{
	fq_reduce_to(dtype, op, dst, dst, src, n);
}

void fq_reduce_avg_finish(u32 dtype, void *buf, u64 n, u32 nranks);

/*
 * reduce_fp.c (SSE2) and reduce_fp_avx2.c (AVX2): only between
 * kernel_fpu_begin() and kernel_fpu_end()
 */
void fq_reduce_fp_sse2(u32 dtype, u32 op, void *dst, const void *a, const void *b, u32 n);
void fq_scale_fp_sse2(u32 dtype, void *buf, u32 n, u32 div);
void fq_reduce_fp_avx2(u32 dtype, u32 op, void *dst, const void *a, const void *b, u32 n);
void fq_scale_fp_avx2(u32 dtype, void *buf, u32 n, u32 div);

#endif /* _FABRIQ_REDUCE_H */
