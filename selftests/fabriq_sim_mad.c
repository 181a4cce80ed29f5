// SPDX-License-Identifier: GPL-2.0
/*
 * fabriq_sim_mad.c - the simulated HCA's subnet management and performance
 * management agents, driven through process_mad via fabriq_sim's "mad"
 * test hook (debugfs) until fabriq's own MAD path exists: SMP Get/Set
 * round-trips of PortInfo, SLtoVLMappingTable and VLArbitrationTable, MAD
 * status for bad values and unknown attributes, and PMA counters that
 * follow injected increments (also as the core's sysfs PMA reader sees
 * them).
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fq_sh.h"
#include "kselftest_harness.h"

#define SIM_ID		31
#define DBG		"/sys/kernel/debug/fabriq_sim/fqsim31/port1/"
#define MAD_SIZE	256

#define CLASS_SUBN_LID		0x01
#define CLASS_SUBN_DR		0x81
#define CLASS_PERF		0x04
#define METHOD_GET		0x01
#define METHOD_SET		0x02
#define METHOD_GET_RESP		0x81

#define ATTR_NODE_INFO		0x0011
#define ATTR_PORT_INFO		0x0015
#define ATTR_SL2VL		0x0017
#define ATTR_VLARB		0x0018
#define ATTR_SM_INFO		0x0020
#define PMA_CLASS_PORT_INFO	0x0001
#define PMA_PORT_COUNTERS	0x0012
#define PMA_PORT_COUNTERS_EXT	0x001D
#define PMA_VL_XMIT_WAIT	0x001C

#define STATUS_UNSUP_METHOD	0x0008
#define STATUS_UNSUP_ATTR	0x000c
#define STATUS_INVALID_VALUE	0x001c

/* SMP data starts at byte 64, PMA data at byte 64 too (24 + 40 reserved). */
#define DATA			64


struct mad {
	uint8_t b[MAD_SIZE];
};

static void mad_init(struct mad *m, uint8_t class, uint8_t method, uint16_t attr,
		     uint32_t mod)
{
	memset(m, 0, sizeof(*m));
	m->b[0] = 1;			/* BaseVersion */
	m->b[1] = class;
	m->b[2] = 1;			/* ClassVersion */
	m->b[3] = method;
	m->b[16] = attr >> 8;
	m->b[17] = attr & 0xff;
	m->b[20] = mod >> 24;
	m->b[21] = mod >> 16;
	m->b[22] = mod >> 8;
	m->b[23] = mod;
}

static uint16_t mad_status(const struct mad *m)
{
	return (m->b[4] << 8 | m->b[5]) & 0x7fff;
}

/* One MAD through the hook; returns 0, or -errno of the write. */
static int mad_xfer(const struct mad *in, struct mad *out)
{
	int fd = open(DBG "mad", O_RDWR);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, in, MAD_SIZE) != MAD_SIZE)
		ret = -errno;
	else if (read(fd, out, MAD_SIZE) != MAD_SIZE)
		ret = -errno;
	close(fd);
	return ret;
}

static uint64_t sysfs_u64(const char *path)
{
	unsigned long long v = ~0ULL;
	FILE *f = fopen(path, "r");

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = ~0ULL;
		fclose(f);
	}
	return v;
}

FIXTURE(sim) {
	struct mad in, out;
};

FIXTURE_SETUP(sim)
{
	ASSERT_EQ(0, fq_sh("fq_insmod fabriq_sim && fq_sim_new \"31 2 ib\""));
}

FIXTURE_TEARDOWN(sim)
{
	fq_sh("fq_sim_del 31");
}

TEST_F(sim, port_info_get)
{
	mad_init(&self->in, CLASS_SUBN_LID, METHOD_GET, ATTR_PORT_INFO, 0);
	ASSERT_EQ(0, mad_xfer(&self->in, &self->out));
	EXPECT_EQ(METHOD_GET_RESP, self->out.b[3]);
	EXPECT_EQ(0, mad_status(&self->out));
	EXPECT_EQ(SIM_ID * 4 + 2, self->out.b[DATA + 16] << 8 | self->out.b[DATA + 17]);
	EXPECT_EQ(1, self->out.b[DATA + 28]);		/* LocalPortNum */
	EXPECT_EQ(4, self->out.b[DATA + 32] & 0xf);	/* PortState ACTIVE */
	EXPECT_EQ(4, self->out.b[DATA + 37] >> 4);	/* VLCap VL0-7 */
	EXPECT_EQ(8, self->out.b[DATA + 39]);		/* VLArbitrationHighCap */
	EXPECT_EQ(8, self->out.b[DATA + 40]);		/* VLArbitrationLowCap */
	EXPECT_EQ(4, self->out.b[DATA + 43] >> 4);	/* OperationalVLs */
}

TEST_F(sim, port_info_set_round_trip)
{
	mad_init(&self->in, CLASS_SUBN_LID, METHOD_SET, ATTR_PORT_INFO, 0);
	self->in.b[DATA + 38] = 5;			/* VLHighLimit */
	self->in.b[DATA + 43] = 3 << 4;			/* OperationalVLs: VL0-3 */
	ASSERT_EQ(0, mad_xfer(&self->in, &self->out));
	/* SLs on VL4-7 (the power-on map) forbid shrinking OperVLs: refused */
	EXPECT_EQ(STATUS_INVALID_VALUE, mad_status(&self->out));

	/* map every SL to VL0-3 first, then shrink */
	mad_init(&self->in, CLASS_SUBN_LID, METHOD_SET, ATTR_SL2VL, 0);
	memset(self->in.b + DATA, 0x01, 8);
	ASSERT_EQ(0, mad_xfer(&self->in, &self->out));
	ASSERT_EQ(0, mad_status(&self->out));
	mad_init(&self->in, CLASS_SUBN_LID, METHOD_SET, ATTR_PORT_INFO, 0);
	self->in.b[DATA + 38] = 5;
	self->in.b[DATA + 43] = 3 << 4;
	ASSERT_EQ(0, mad_xfer(&self->in, &self->out));
	EXPECT_EQ(0, mad_status(&self->out));
	mad_init(&self->in, CLASS_SUBN_LID, METHOD_GET, ATTR_PORT_INFO, 0);
	ASSERT_EQ(0, mad_xfer(&self->in, &self->out));
	EXPECT_EQ(5, self->out.b[DATA + 38]);
	EXPECT_EQ(3, self->out.b[DATA + 43] >> 4);
}

TEST_F(sim, port_info_set_beyond_vlcap_refused)
{
	mad_init(&self->in, CLASS_SUBN_LID, METHOD_SET, ATTR_PORT_INFO, 0);
	self->in.b[DATA + 43] = 5 << 4;			/* VL0-14 > VLCap */
	ASSERT_EQ(0, mad_xfer(&self->in, &self->out));
	EXPECT_EQ(STATUS_INVALID_VALUE, mad_status(&self->out));
	mad_init(&self->in, CLASS_SUBN_LID, METHOD_GET, ATTR_PORT_INFO, 0);
	ASSERT_EQ(0, mad_xfer(&self->in, &self->out));
	EXPECT_EQ(4, self->out.b[DATA + 43] >> 4);	/* unchanged */
}

TEST_F(sim, sl2vl_round_trip)
{
	int i;

	mad_init(&self->in, CLASS_SUBN_LID, METHOD_SET, ATTR_SL2VL, 0);
	for (i = 0; i < 8; i++)		/* SL 2i -> 7 - i, SL 2i+1 -> 15 (drop) */
		self->in.b[DATA + i] = (7 - i) << 4 | 15;
	ASSERT_EQ(0, mad_xfer(&self->in, &self->out));
	EXPECT_EQ(0, mad_status(&self->out));
	mad_init(&self->in, CLASS_SUBN_LID, METHOD_GET, ATTR_SL2VL, 0);
	ASSERT_EQ(0, mad_xfer(&self->in, &self->out));
	EXPECT_EQ(0, mad_status(&self->out));
	for (i = 0; i < 8; i++)
		EXPECT_EQ((7 - i) << 4 | 15, self->out.b[DATA + i]);
}

TEST_F(sim, sl2vl_vl_beyond_oper_vls_refused)
{
	mad_init(&self->in, CLASS_SUBN_LID, METHOD_SET, ATTR_SL2VL, 0);
	self->in.b[DATA + 0] = 9 << 4;			/* SL0 -> VL9 */
	ASSERT_EQ(0, mad_xfer(&self->in, &self->out));
	EXPECT_EQ(STATUS_INVALID_VALUE, mad_status(&self->out));
	mad_init(&self->in, CLASS_SUBN_LID, METHOD_GET, ATTR_SL2VL, 0);
	ASSERT_EQ(0, mad_xfer(&self->in, &self->out));
	EXPECT_EQ(0x01, self->out.b[DATA + 0]);		/* power-on SL0->0, SL1->1 */
}

TEST_F(sim, vlarb_all_four_blocks_round_trip)
{
	uint32_t block;

	for (block = 1; block <= 4; block++) {
		mad_init(&self->in, CLASS_SUBN_LID, METHOD_SET, ATTR_VLARB, block << 16);
		if (block % 2) {	/* entries 0-31: fill the 8 the port has */
			int i;

			for (i = 0; i < 8; i++) {
				self->in.b[DATA + 2 * i] = (i + block) % 8;
				self->in.b[DATA + 2 * i + 1] = 16 * block + i;
			}
		}
		ASSERT_EQ(0, mad_xfer(&self->in, &self->out));
		EXPECT_EQ(0, mad_status(&self->out)) TH_LOG("set block %u", block);
	}
	for (block = 1; block <= 3; block += 2) {
		int i;

		mad_init(&self->in, CLASS_SUBN_LID, METHOD_GET, ATTR_VLARB, block << 16);
		ASSERT_EQ(0, mad_xfer(&self->in, &self->out));
		EXPECT_EQ(0, mad_status(&self->out));
		for (i = 0; i < 8; i++) {
			EXPECT_EQ((i + block) % 8, self->out.b[DATA + 2 * i]);
			EXPECT_EQ(16 * block + i, self->out.b[DATA + 2 * i + 1]);
		}
	}
}

TEST_F(sim, vlarb_beyond_capacity_or_bad_block_refused)
{
	mad_init(&self->in, CLASS_SUBN_LID, METHOD_SET, ATTR_VLARB, 3 << 16);
	self->in.b[DATA + 2 * 8] = 1;			/* entry 8: beyond cap 8 */
	self->in.b[DATA + 2 * 8 + 1] = 10;
	ASSERT_EQ(0, mad_xfer(&self->in, &self->out));
	EXPECT_EQ(STATUS_INVALID_VALUE, mad_status(&self->out));
	mad_init(&self->in, CLASS_SUBN_LID, METHOD_SET, ATTR_VLARB, 3 << 16);
	self->in.b[DATA + 0] = 15;			/* VL15 carries no data */
	self->in.b[DATA + 1] = 10;
	ASSERT_EQ(0, mad_xfer(&self->in, &self->out));
	EXPECT_EQ(STATUS_INVALID_VALUE, mad_status(&self->out));
	mad_init(&self->in, CLASS_SUBN_LID, METHOD_GET, ATTR_VLARB, 5 << 16);
	ASSERT_EQ(0, mad_xfer(&self->in, &self->out));
	EXPECT_EQ(STATUS_INVALID_VALUE, mad_status(&self->out));
}

TEST_F(sim, node_info)
{
	mad_init(&self->in, CLASS_SUBN_LID, METHOD_GET, ATTR_NODE_INFO, 0);
	ASSERT_EQ(0, mad_xfer(&self->in, &self->out));
	EXPECT_EQ(0, mad_status(&self->out));
	EXPECT_EQ(1, self->out.b[DATA + 2]);		/* NodeType CA */
	EXPECT_EQ(2, self->out.b[DATA + 3]);		/* NumPorts */
	EXPECT_EQ(1, self->out.b[DATA + 36]);		/* LocalPortNum */
	mad_init(&self->in, CLASS_SUBN_LID, METHOD_SET, ATTR_NODE_INFO, 0);
	ASSERT_EQ(0, mad_xfer(&self->in, &self->out));
	EXPECT_EQ(STATUS_UNSUP_ATTR, mad_status(&self->out));
}

TEST_F(sim, unsupported_attribute_and_method)
{
	mad_init(&self->in, CLASS_SUBN_LID, METHOD_GET, ATTR_SM_INFO, 0);
	ASSERT_EQ(0, mad_xfer(&self->in, &self->out));
	EXPECT_EQ(STATUS_UNSUP_ATTR, mad_status(&self->out));
	mad_init(&self->in, CLASS_SUBN_LID, 0x05 /* Trap */, ATTR_PORT_INFO, 0);
	ASSERT_EQ(0, mad_xfer(&self->in, &self->out));
	EXPECT_EQ(STATUS_UNSUP_METHOD, mad_status(&self->out));
}

TEST_F(sim, directed_route_sets_direction_bit)
{
	mad_init(&self->in, CLASS_SUBN_DR, METHOD_GET, ATTR_PORT_INFO, 0);
	ASSERT_EQ(0, mad_xfer(&self->in, &self->out));
	EXPECT_EQ(0x80, self->out.b[4] & 0x80);
	EXPECT_EQ(0, mad_status(&self->out));
}

TEST_F(sim, pma_class_port_info_has_xmit_wait)
{
	mad_init(&self->in, CLASS_PERF, METHOD_GET, PMA_CLASS_PORT_INFO, 0);
	ASSERT_EQ(0, mad_xfer(&self->in, &self->out));
	EXPECT_EQ(0, mad_status(&self->out));
	EXPECT_EQ(0x12, self->out.b[DATA + 2]);		/* XmitWait | ExtWidth */
}

TEST_F(sim, pma_counters_follow_injection)
{
	ASSERT_EQ(0, fq_sh("echo \"xmit_wait vl 1 100\" > " DBG "inject && "
			"echo \"xmit_wait vl 3 50\" > " DBG "inject && "
			"echo \"symbol_error 7\" > " DBG "inject"));
	mad_init(&self->in, CLASS_PERF, METHOD_GET, PMA_PORT_COUNTERS, 0);
	self->in.b[DATA + 1] = 1;			/* PortSelect */
	ASSERT_EQ(0, mad_xfer(&self->in, &self->out));
	EXPECT_EQ(0, mad_status(&self->out));
	EXPECT_EQ(7, self->out.b[DATA + 4] << 8 | self->out.b[DATA + 5]);
	EXPECT_EQ(150U, be32toh(*(uint32_t *)&self->out.b[DATA + 40]));	/* PortXmitWait */

	mad_init(&self->in, CLASS_PERF, METHOD_GET, PMA_VL_XMIT_WAIT, 0);
	self->in.b[DATA + 1] = 1;
	ASSERT_EQ(0, mad_xfer(&self->in, &self->out));
	EXPECT_EQ(0, mad_status(&self->out));
	EXPECT_EQ(100, self->out.b[DATA + 4 + 2] << 8 | self->out.b[DATA + 4 + 3]);
	EXPECT_EQ(50, self->out.b[DATA + 4 + 6] << 8 | self->out.b[DATA + 4 + 7]);
	EXPECT_EQ(0, self->out.b[DATA + 4 + 4] << 8 | self->out.b[DATA + 4 + 5]);

	/* the core's own PMA reader (sysfs) sees the same through process_mad */
	EXPECT_EQ(150ULL, sysfs_u64("/sys/class/infiniband/fqsim31/ports/1/counters/port_xmit_wait"));
	EXPECT_EQ(7ULL, sysfs_u64("/sys/class/infiniband/fqsim31/ports/1/counters/symbol_error"));
}

TEST_F(sim, pma_link_downed_and_extended)
{
	ASSERT_EQ(0, fq_sh("echo down > " DBG "link && echo up > " DBG "link"));
	EXPECT_EQ(1ULL, sysfs_u64("/sys/class/infiniband/fqsim31/ports/1/counters/link_downed"));
	mad_init(&self->in, CLASS_PERF, METHOD_GET, PMA_PORT_COUNTERS_EXT, 0);
	self->in.b[DATA + 1] = 1;
	ASSERT_EQ(0, mad_xfer(&self->in, &self->out));
	EXPECT_EQ(0, mad_status(&self->out));
	mad_init(&self->in, CLASS_PERF, METHOD_GET, PMA_PORT_COUNTERS, 0);
	self->in.b[DATA + 1] = 2;			/* the other port's number */
	ASSERT_EQ(0, mad_xfer(&self->in, &self->out));
	EXPECT_EQ(STATUS_INVALID_VALUE, mad_status(&self->out));
}

TEST_F(sim, fail_next_mads)
{
	ASSERT_EQ(0, fq_sh("echo 2 > " DBG "fail_mads"));
	mad_init(&self->in, CLASS_SUBN_LID, METHOD_GET, ATTR_PORT_INFO, 0);
	EXPECT_EQ(-EIO, mad_xfer(&self->in, &self->out));
	EXPECT_EQ(-EIO, mad_xfer(&self->in, &self->out));
	EXPECT_EQ(0, mad_xfer(&self->in, &self->out));
	EXPECT_EQ(0, mad_status(&self->out));
}

TEST_HARNESS_MAIN
