// SPDX-License-Identifier: GPL-2.0
/*
 * reduce_fp_avx2.c - the floating-point reductions of reduce_fp.c, built
 * with AVX2 on (Kbuild); reduce.c calls them where the CPU has AVX2.
 */
#define FQ_FP_ISA	avx2
#include "reduce_fp.c"
