/* SPDX-License-Identifier: GPL-2.0 */
/* fq_ktypes.h - the kernel integer types, for building kernel/coll/algo*.c in userspace */
#ifndef _FQ_KTYPES_H
#define _FQ_KTYPES_H
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
typedef uint8_t u8;
typedef int8_t s8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef int32_t s32;
typedef uint64_t u64;
typedef int64_t s64;
#define min(a, b)	((a) < (b) ? (a) : (b))
#define max(a, b)	((a) > (b) ? (a) : (b))
#define min_t(t, a, b)	((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#endif
