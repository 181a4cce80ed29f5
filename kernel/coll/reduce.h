/* SPDX-License-Identifier: GPL-2.0 */
/*
 * reduce.h - element-wise reductions of fabriq's data types.
 *
 * reduce.c owns the integer kernels and the FPU sections; reduce_fp.c,
 * built with the FPU flags, owns the floating-point kernels and is only
 * ever called from inside kernel_fpu_begin()/kernel_fpu_end().
 */
#ifndef _FABRIQ_REDUCE_H
#define _FABRIQ_REDUCE_H

#include <linux/types.h>

bool fq_reduce_valid(u32 dtype, u32 op);
u32 fq_dtype_size(u32 dtype);
void fq_reduce(u32 dtype, u32 op, void *dst, const void *src, u64 n);
void fq_reduce_avg_finish(u32 dtype, void *buf, u64 n, u32 nranks);

/* reduce_fp.c: only between kernel_fpu_begin() and kernel_fpu_end() */
void fq_reduce_fp(u32 dtype, u32 op, void *dst, const void *src, u32 n);
void fq_scale_fp(u32 dtype, void *buf, u32 n, u32 div);

#endif /* _FABRIQ_REDUCE_H */
