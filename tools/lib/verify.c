// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * verify.c - libfabriq's verifiable data: the input of any rank and the
 * exact expected output of any collective, computed locally (see
 * libfabriq.h).  Used by `fabriq bench -c` and the kselftests.
 */
#include <stdlib.h>
#include <string.h>

#include "libfabriq.h"

static int fq_is_fp(int d)
{
	return d == FABRIQ_FLOAT16 || d == FABRIQ_FLOAT32 || d == FABRIQ_FLOAT64 ||
	       d == FABRIQ_BFLOAT16;
}

static int fq_is_unsigned(int d)
{
	return d == FABRIQ_UINT8 || d == FABRIQ_UINT32 || d == FABRIQ_UINT64;
}

static uint16_t fq_f2bf(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	if ((u & 0x7fffffff) > 0x7f800000)
		return (u >> 16) | 0x40;
	return (u + 0x7fff + ((u >> 16) & 1)) >> 16;
}

/* rank r's input at index i: small integers, positive where they must be */
static int64_t fq_val(int dtype, int op, uint32_t r, uint64_t i)
{
	if (op == FABRIQ_OP_PROD)
		return 1 + (r + i) % 2;
	if (op >= FABRIQ_OP_BAND)
		return (r * 37 + i * 11 + 5) & 0x7f;
	if (fq_is_unsigned(dtype))
		return (r * 7 + i * 3) % 9;
	return (int64_t)((r * 7 + i * 3) % 9) - 4;
}

static void fq_store(int dtype, void *p, uint64_t i, double v)
{
	switch (dtype) {
	case FABRIQ_INT8: ((int8_t *)p)[i] = (int8_t)(int64_t)v; break;
	case FABRIQ_UINT8: ((uint8_t *)p)[i] = (uint8_t)(int64_t)v; break;
	case FABRIQ_INT32: ((int32_t *)p)[i] = (int32_t)(int64_t)v; break;
	case FABRIQ_UINT32: ((uint32_t *)p)[i] = (uint32_t)(int64_t)v; break;
	case FABRIQ_INT64: ((int64_t *)p)[i] = (int64_t)v; break;
	case FABRIQ_UINT64: ((uint64_t *)p)[i] = (uint64_t)(int64_t)v; break;
	case FABRIQ_FLOAT16: ((_Float16 *)p)[i] = (_Float16)v; break;
	case FABRIQ_FLOAT32: ((float *)p)[i] = (float)v; break;
	case FABRIQ_FLOAT64: ((double *)p)[i] = v; break;
	case FABRIQ_BFLOAT16: ((uint16_t *)p)[i] = fq_f2bf((float)v); break;
	}
}

/* integer results wrap in the type: keep the low bytes */
static void fq_store_int(int dtype, void *p, uint64_t i, int64_t v)
{
	switch (dtype) {
	case FABRIQ_INT8: case FABRIQ_UINT8: ((uint8_t *)p)[i] = (uint8_t)v; break;
	case FABRIQ_INT32: case FABRIQ_UINT32: ((uint32_t *)p)[i] = (uint32_t)v; break;
	default: ((uint64_t *)p)[i] = (uint64_t)v; break;
	}
}

/* every rank's input at index i, reduced; stored at p[at] */
static void fq_reduced(int dtype, int op, uint32_t nranks, void *p, uint64_t at, uint64_t i)
{
	int64_t acc = fq_val(dtype, op, 0, i), v;
	double f;
	uint32_t r;

	for (r = 1; r < nranks; r++) {
		v = fq_val(dtype, op, r, i);
		switch (op) {
		case FABRIQ_OP_SUM: case FABRIQ_OP_AVG: acc += v; break;
		case FABRIQ_OP_PROD: acc *= v; break;
		case FABRIQ_OP_MAX: acc = v > acc ? v : acc; break;
		case FABRIQ_OP_MIN: acc = v < acc ? v : acc; break;
		case FABRIQ_OP_BAND: acc &= v; break;
		case FABRIQ_OP_BOR: acc |= v; break;
		case FABRIQ_OP_BXOR: acc ^= v; break;
		}
	}
	if (!fq_is_fp(dtype)) {
		fq_store_int(dtype, p, at, acc);
		return;
	}
	f = (double)acc;
	if (op == FABRIQ_OP_AVG)
		f = dtype == FABRIQ_FLOAT64 ? f / nranks : (double)((float)f / (float)nranks);
	fq_store(dtype, p, at, f);
}

void fabriq_verify_lens(int coll, size_t count, uint32_t nranks, size_t *inlen, size_t *outlen)
{
	*inlen = *outlen = count;
	if (coll == FABRIQ_COLL_ALLGATHER)
		*outlen = count * nranks;
	else if (coll == FABRIQ_COLL_REDUCESCATTER)
		*inlen = count * nranks;
	else if (coll == FABRIQ_COLL_ALLTOALL)
		*inlen = *outlen = count * nranks;
	else if (coll == FABRIQ_COLL_BARRIER)
		*inlen = *outlen = 0;
}

void fabriq_verify_input(int dtype, int op, uint32_t rank, size_t nelems, void *buf)
{
	size_t i;

	for (i = 0; i < nelems; i++)
		fq_store(dtype, buf, i, (double)fq_val(dtype, op, rank, i));
}

void fabriq_verify_expected(int coll, int dtype, int op, uint32_t rank, uint32_t nranks,
			    uint32_t root, size_t count, void *buf)
{
	size_t in, out, i;

	fabriq_verify_lens(coll, count, nranks, &in, &out);
	for (i = 0; i < out; i++) {
		switch (coll) {
		case FABRIQ_COLL_ALLREDUCE: case FABRIQ_COLL_REDUCE:
			fq_reduced(dtype, op, nranks, buf, i, i);
			break;
		case FABRIQ_COLL_REDUCESCATTER:
			fq_reduced(dtype, op, nranks, buf, i, rank * count + i);
			break;
		case FABRIQ_COLL_ALLGATHER:
			fq_store(dtype, buf, i, (double)fq_val(dtype, op, i / count, i % count));
			break;
		case FABRIQ_COLL_BROADCAST:
			fq_store(dtype, buf, i, (double)fq_val(dtype, op, root, i));
			break;
		case FABRIQ_COLL_ALLTOALL:
			fq_store(dtype, buf, i,
				 (double)fq_val(dtype, op, i / count, rank * count + i % count));
			break;
		}
	}
}

/* wrong elements in @out (0 for ranks that get no output) */
size_t fabriq_verify_check(int coll, int dtype, int op, uint32_t rank, uint32_t nranks,
			   uint32_t root, size_t count, const void *out)
{
	size_t in, n, i, es = fabriq_dtype_size(dtype), wrong = 0;
	unsigned char *ref;

	if (coll == FABRIQ_COLL_REDUCE && rank != root)
		return 0;
	fabriq_verify_lens(coll, count, nranks, &in, &n);
	ref = malloc(n * es + 1);
	if (!ref)
		return n;
	fabriq_verify_expected(coll, dtype, op, rank, nranks, root, count, ref);
	for (i = 0; i < n; i++)
		if (memcmp((const unsigned char *)out + i * es, ref + i * es, es))
			wrong++;
	free(ref);
	return wrong;
}
