// SPDX-License-Identifier: GPL-2.0
/*
 * fabriq_qos_nl.c - QOS_SET validation over raw netlink, without the CLI
 * and its own checks: each bad request is refused with the right errno
 * and an extack message that names the attribute (and an offset pointing
 * into it where the kernel knows it), and the port's intent and hardware
 * state (fabriq's debugfs qos file) are exactly as before.  Also: a good
 * validate-only request changes nothing, QOS_SET needs CAP_NET_ADMIN and
 * QOS_GET does not.
 *
 * Runs on fabriq_sim devices fqsim61 (InfiniBand) and fqsim62 (RoCE), and
 * on Soft-RoCE rxe61, whose veth has no DCB.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fq_nl.h"
#include "fq_sh.h"
#include "kselftest_harness.h"

#define DBG "/sys/kernel/debug/fabriq/devices/"
/*
 * Each test sets up two simulated devices and a Soft-RoCE link: seconds
 * on a release kernel, more than the harness's default 30 under KASAN.
 */
#define FQ_QOS_TEST_TIMEOUT_S	180

static char *slurp(const char *path)
{
	static char buf[2][8192];
	static int which;
	FILE *f = fopen(path, "r");
	size_t n = 0;
	char *b = buf[which++ & 1];

	if (f) {
		n = fread(b, 1, sizeof(buf[0]) - 1, f);
		fclose(f);
	}
	b[n] = '\0';
	return b;
}

FIXTURE(qos) {
	int fd;
	int family;
	struct req r;
	struct nl_reply rep;
	struct nlattr *intent;
	char ib_before[8192];
	char eth_before[8192];
};

FIXTURE_SETUP(qos)
{
	ASSERT_EQ(0, fq_sh("fq_insmod fabriq_sim && fq_sim_new \"61 1 ib\" && "
			   "fq_sim_new \"62 1 eth\" && modprobe rdma_rxe && fq_veth_add 61 && "
			   "rdma link add rxe61 type rxe netdev fqv61a"));
	self->fd = nl_open();
	ASSERT_LE(0, self->fd);
	self->family = resolve_family(self->fd);
	ASSERT_LT(0, self->family);
	strcpy(self->ib_before, slurp(DBG "fqsim61/port1/qos/state"));
	strcpy(self->eth_before, slurp(DBG "fqsim62/port1/qos/state"));
	ASSERT_TRUE(self->ib_before[0] != '\0');
}

FIXTURE_TEARDOWN(qos)
{
	close(self->fd);
	fq_sh("rdma link del rxe61 2>/dev/null; fq_veth_del 61; fq_sim_del 61; fq_sim_del 62");
}

/* Start a QOS_SET on @dev port @port with an open intent nest. */
static void set_start(struct __test_metadata *_metadata, FIXTURE_DATA(qos) *self,
		      const char *dev, uint32_t port)
{
	req_init(&self->r, self->family, FABRIQ_CMD_QOS_SET, 0);
	req_put(&self->r, FABRIQ_A_QOS_DEV_NAME, dev, strlen(dev) + 1);
	req_put(&self->r, FABRIQ_A_QOS_PORT, &port, sizeof(port));
	self->intent = req_nest_start(&self->r, FABRIQ_A_QOS_INTENT);
}

static uint32_t put_u8(struct req *r, uint16_t type, uint8_t v)
{
	return req_put(r, type, &v, 1);
}

static uint32_t put_u32(struct req *r, uint16_t type, uint32_t v)
{
	return req_put(r, type, &v, 4);
}

static uint32_t put_ecn(struct req *r, uint8_t prio, uint32_t min, uint32_t max, uint8_t prob,
			uint32_t *min_off, uint32_t *prob_off)
{
	struct nlattr *n = req_nest_start(r, FABRIQ_A_QOS_CFG_ECN);
	uint32_t off = (char *)n - (char *)r;

	put_u8(r, FABRIQ_A_QOS_ECN_PRIO, prio);
	put_u8(r, FABRIQ_A_QOS_ECN_ENABLE, 1);
	*min_off = put_u32(r, FABRIQ_A_QOS_ECN_MIN_BYTES, min);
	put_u32(r, FABRIQ_A_QOS_ECN_MAX_BYTES, max);
	*prob_off = put_u8(r, FABRIQ_A_QOS_ECN_PROB, prob);
	req_nest_end(r, n);
	return off;
}

/* The extack offset, when the test knows where it must point (@want >= 0). */
static void expect_offs(struct __test_metadata *_metadata, int64_t want, int64_t got)
{
	if (want >= 0)
		EXPECT_EQ(want, got);
}

/*
 * Send the request; expect errno @err, an extack containing @msg, the
 * offset @offs (any offset, or none, when @offs is negative),
 * and both sim ports' QoS exactly as before.
 */
#define EXPECT_REFUSED(_err, _msg, _offs) do {						\
	if (self->intent)								\
		req_nest_end(&self->r, self->intent);					\
	ASSERT_EQ(0, transact_cb(self->fd, &self->r, &self->rep, NULL));		\
	EXPECT_EQ(-(_err), self->rep.error);						\
	EXPECT_TRUE(strstr(self->rep.msg, _msg) != NULL)				\
		TH_LOG("extack: '%s'", self->rep.msg);					\
	expect_offs(_metadata, _offs, self->rep.offs);					\
	EXPECT_STREQ(self->ib_before, slurp(DBG "fqsim61/port1/qos/state"));			\
	EXPECT_STREQ(self->eth_before, slurp(DBG "fqsim62/port1/qos/state"));			\
} while (0)

TEST_F_TIMEOUT(qos, sl2vl_vl15_reserved, FQ_QOS_TEST_TIMEOUT_S)
{
	uint8_t map[16] = { [3] = 15 };

	set_start(_metadata, self, "fqsim61", 1);
	req_put(&self->r, FABRIQ_A_QOS_CFG_SL2VL, map, sizeof(map));
	EXPECT_REFUSED(EINVAL, "sl2vl: VL15 is reserved", -1);
}

TEST_F_TIMEOUT(qos, sl2vl_vl_above_15, FQ_QOS_TEST_TIMEOUT_S)
{
	uint8_t map[16] = { [0] = 16 };
	uint32_t off;

	set_start(_metadata, self, "fqsim61", 1);
	off = req_put(&self->r, FABRIQ_A_QOS_CFG_SL2VL, map, sizeof(map));
	EXPECT_REFUSED(EINVAL, "sl2vl: a VL above 15", off);
}

TEST_F_TIMEOUT(qos, sl2vl_vl_not_below_oper_vls, FQ_QOS_TEST_TIMEOUT_S)
{
	uint8_t map[16] = { [5] = 8 };	/* the sim runs 8 data VLs: VL0-7 */

	set_start(_metadata, self, "fqsim61", 1);
	req_put(&self->r, FABRIQ_A_QOS_CFG_SL2VL, map, sizeof(map));
	EXPECT_REFUSED(EINVAL, "OperVLs", -1);
}

TEST_F_TIMEOUT(qos, sl2vl_wrong_length, FQ_QOS_TEST_TIMEOUT_S)
{
	uint8_t map[15] = {};
	uint32_t off;

	set_start(_metadata, self, "fqsim61", 1);
	off = req_put(&self->r, FABRIQ_A_QOS_CFG_SL2VL, map, sizeof(map));
	EXPECT_REFUSED(ERANGE, "", off);
}

TEST_F_TIMEOUT(qos, vlarb_too_many_entries, FQ_QOS_TEST_TIMEOUT_S)
{
	uint8_t t[18];
	int i;

	for (i = 0; i < 9; i++) {
		t[2 * i] = i % 8;
		t[2 * i + 1] = 1;
	}
	set_start(_metadata, self, "fqsim61", 1);
	req_put(&self->r, FABRIQ_A_QOS_CFG_VLARB_HIGH, t, sizeof(t));
	EXPECT_REFUSED(EINVAL, "vlarb-high", -1);
}

TEST_F_TIMEOUT(qos, vlarb_longer_than_any_table, FQ_QOS_TEST_TIMEOUT_S)
{
	uint8_t t[130] = {};
	uint32_t off;

	set_start(_metadata, self, "fqsim61", 1);
	off = req_put(&self->r, FABRIQ_A_QOS_CFG_VLARB_LOW, t, sizeof(t));
	EXPECT_REFUSED(ERANGE, "", off);
}

TEST_F_TIMEOUT(qos, vlarb_vl15_reserved, FQ_QOS_TEST_TIMEOUT_S)
{
	uint8_t t[] = { 0, 10, 15, 10 };

	set_start(_metadata, self, "fqsim61", 1);
	req_put(&self->r, FABRIQ_A_QOS_CFG_VLARB_LOW, t, sizeof(t));
	EXPECT_REFUSED(EINVAL, "vlarb-low: VL15 is reserved", -1);
}

TEST_F_TIMEOUT(qos, vlarb_odd_length, FQ_QOS_TEST_TIMEOUT_S)
{
	uint8_t t[] = { 0, 10, 1 };
	uint32_t off;

	set_start(_metadata, self, "fqsim61", 1);
	off = req_put(&self->r, FABRIQ_A_QOS_CFG_VLARB_HIGH, t, sizeof(t));
	EXPECT_REFUSED(EINVAL, "vlarb: (VL, weight) byte pairs", off);
}

TEST_F_TIMEOUT(qos, oper_vls_not_a_count, FQ_QOS_TEST_TIMEOUT_S)
{
	uint32_t off;

	set_start(_metadata, self, "fqsim61", 1);
	off = put_u8(&self->r, FABRIQ_A_QOS_CFG_OPER_VLS, 3);
	EXPECT_REFUSED(EINVAL, "oper-vls: must be 1, 2, 4, 8 or 15", off);
}

TEST_F_TIMEOUT(qos, oper_vls_above_vl_cap, FQ_QOS_TEST_TIMEOUT_S)
{
	set_start(_metadata, self, "fqsim61", 1);
	put_u8(&self->r, FABRIQ_A_QOS_CFG_OPER_VLS, 15);
	EXPECT_REFUSED(EINVAL, "oper-vls", -1);
}

TEST_F_TIMEOUT(qos, sl_out_of_range, FQ_QOS_TEST_TIMEOUT_S)
{
	uint32_t off;

	set_start(_metadata, self, "fqsim61", 1);
	off = put_u8(&self->r, FABRIQ_A_QOS_CFG_SL, 16);
	EXPECT_REFUSED(EINVAL, "sl: out of range (valid 0-15)", off);
}

TEST_F_TIMEOUT(qos, pfc_priority_8, FQ_QOS_TEST_TIMEOUT_S)
{
	uint32_t off;

	set_start(_metadata, self, "fqsim62", 1);
	off = put_u32(&self->r, FABRIQ_A_QOS_CFG_PFC, 1u << 8);
	EXPECT_REFUSED(EINVAL, "pfc: a priority above 7", off);
}

TEST_F_TIMEOUT(qos, roce_setting_on_ib_port, FQ_QOS_TEST_TIMEOUT_S)
{
	set_start(_metadata, self, "fqsim61", 1);
	put_u32(&self->r, FABRIQ_A_QOS_CFG_PFC, 1u << 3);
	EXPECT_REFUSED(EINVAL, "pfc", -1);
}

TEST_F_TIMEOUT(qos, ib_setting_on_roce_port, FQ_QOS_TEST_TIMEOUT_S)
{
	uint8_t map[16] = {};

	set_start(_metadata, self, "fqsim62", 1);
	req_put(&self->r, FABRIQ_A_QOS_CFG_SL2VL, map, sizeof(map));
	EXPECT_REFUSED(EINVAL, "sl2vl", -1);
}

TEST_F_TIMEOUT(qos, ecn_min_above_max, FQ_QOS_TEST_TIMEOUT_S)
{
	uint32_t min_off, prob_off;

	set_start(_metadata, self, "fqsim62", 1);
	put_ecn(&self->r, 3, 2000, 1000, 10, &min_off, &prob_off);
	EXPECT_REFUSED(EINVAL, "ecn min: the minimum threshold exceeds the maximum", min_off);
}

TEST_F_TIMEOUT(qos, ecn_probability_0, FQ_QOS_TEST_TIMEOUT_S)
{
	uint32_t min_off, prob_off;

	set_start(_metadata, self, "fqsim62", 1);
	put_ecn(&self->r, 3, 1000, 2000, 0, &min_off, &prob_off);
	EXPECT_REFUSED(EINVAL, "ecn prob: marking probability out of range (valid 1-100)", prob_off);
}

TEST_F_TIMEOUT(qos, ecn_probability_101, FQ_QOS_TEST_TIMEOUT_S)
{
	uint32_t min_off, prob_off;

	set_start(_metadata, self, "fqsim62", 1);
	put_ecn(&self->r, 3, 1000, 2000, 101, &min_off, &prob_off);
	EXPECT_REFUSED(EINVAL, "ecn prob", prob_off);
}

TEST_F_TIMEOUT(qos, ecn_priority_8, FQ_QOS_TEST_TIMEOUT_S)
{
	uint32_t min_off, prob_off;

	set_start(_metadata, self, "fqsim62", 1);
	put_ecn(&self->r, 8, 1000, 2000, 10, &min_off, &prob_off);
	EXPECT_REFUSED(EINVAL, "ecn prio: priority out of range (valid 0-7)", -1);
}

TEST_F_TIMEOUT(qos, dscp_prio_priority_9, FQ_QOS_TEST_TIMEOUT_S)
{
	uint8_t map[64];
	uint32_t off;

	memset(map, FABRIQ_QOS_DSCP_NONE, sizeof(map));
	map[26] = 9;
	set_start(_metadata, self, "fqsim62", 1);
	off = req_put(&self->r, FABRIQ_A_QOS_CFG_DSCP_PRIO, map, sizeof(map));
	EXPECT_REFUSED(EINVAL, "dscp-prio: a priority above 7", off);
}

TEST_F_TIMEOUT(qos, ets_bandwidth_not_100, FQ_QOS_TEST_TIMEOUT_S)
{
	uint8_t bw[8] = { 50, 40 }, tsa[8] = { FABRIQ_QOS_TSA_ETS, FABRIQ_QOS_TSA_ETS };

	set_start(_metadata, self, "fqsim62", 1);
	req_put(&self->r, FABRIQ_A_QOS_CFG_ETS_TC_BW, bw, sizeof(bw));
	req_put(&self->r, FABRIQ_A_QOS_CFG_ETS_TC_TSA, tsa, sizeof(tsa));
	EXPECT_REFUSED(EINVAL, "ets tc-bw", -1);
}

TEST_F_TIMEOUT(qos, ets_unknown_tsa, FQ_QOS_TEST_TIMEOUT_S)
{
	uint8_t tsa[8] = { 7 };
	uint32_t off;

	set_start(_metadata, self, "fqsim62", 1);
	off = req_put(&self->r, FABRIQ_A_QOS_CFG_ETS_TC_TSA, tsa, sizeof(tsa));
	EXPECT_REFUSED(EINVAL, "ets tc-tsa: unknown TSA", off);
}

TEST_F_TIMEOUT(qos, trust_unknown, FQ_QOS_TEST_TIMEOUT_S)
{
	uint32_t off;

	set_start(_metadata, self, "fqsim62", 1);
	off = put_u8(&self->r, FABRIQ_A_QOS_CFG_TRUST, 3);
	EXPECT_REFUSED(EINVAL, "trust: must be pcp (1) or dscp (2)", off);
}

TEST_F_TIMEOUT(qos, unknown_device, FQ_QOS_TEST_TIMEOUT_S)
{
	set_start(_metadata, self, "fqnosuch", 1);
	put_u8(&self->r, FABRIQ_A_QOS_CFG_SL, 1);
	EXPECT_REFUSED(ENODEV, "dev-name: no such RDMA device", -1);
}

TEST_F_TIMEOUT(qos, unknown_port, FQ_QOS_TEST_TIMEOUT_S)
{
	set_start(_metadata, self, "fqsim61", 2);
	put_u8(&self->r, FABRIQ_A_QOS_CFG_SL, 1);
	EXPECT_REFUSED(EINVAL, "port: the device has no such port", -1);
}

TEST_F_TIMEOUT(qos, intent_missing, FQ_QOS_TEST_TIMEOUT_S)
{
	set_start(_metadata, self, "fqsim61", 1);
	self->r.nlh.nlmsg_len = (char *)self->intent - (char *)&self->r;
	self->intent = NULL;
	EXPECT_REFUSED(EINVAL, "intent is required", -2);
}

TEST_F_TIMEOUT(qos, intent_empty, FQ_QOS_TEST_TIMEOUT_S)
{
	set_start(_metadata, self, "fqsim61", 1);
	EXPECT_REFUSED(EINVAL, "intent: no setting given", -1);
}

TEST_F_TIMEOUT(qos, reply_only_attribute_refused, FQ_QOS_TEST_TIMEOUT_S)
{
	struct nlattr *hw;

	set_start(_metadata, self, "fqsim61", 1);
	put_u8(&self->r, FABRIQ_A_QOS_CFG_SL, 1);
	req_nest_end(&self->r, self->intent);
	self->intent = NULL;
	hw = req_nest_start(&self->r, FABRIQ_A_QOS_HW);
	put_u8(&self->r, FABRIQ_A_QOS_CFG_SL, 2);
	req_nest_end(&self->r, hw);
	EXPECT_REFUSED(EINVAL, "", (char *)hw - (char *)&self->r);
}

TEST_F_TIMEOUT(qos, dcb_setting_on_netdev_without_dcb, FQ_QOS_TEST_TIMEOUT_S)
{
	set_start(_metadata, self, "rxe61", 1);
	put_u32(&self->r, FABRIQ_A_QOS_CFG_PFC, 1u << 3);
	EXPECT_REFUSED(EOPNOTSUPP, "no DCB support", -1);
	EXPECT_TRUE(strstr(slurp(DBG "rxe61/port1/qos/state"), "pfc            3") == NULL);
}

TEST_F_TIMEOUT(qos, validate_only_changes_nothing, FQ_QOS_TEST_TIMEOUT_S)
{
	set_start(_metadata, self, "fqsim62", 1);
	put_u32(&self->r, FABRIQ_A_QOS_CFG_PFC, 1u << 3);
	req_nest_end(&self->r, self->intent);
	self->intent = NULL;
	req_put(&self->r, FABRIQ_A_QOS_VALIDATE_ONLY, NULL, 0);
	ASSERT_EQ(0, transact_cb(self->fd, &self->r, &self->rep, NULL));
	EXPECT_EQ(0, self->rep.error);
	EXPECT_STREQ(self->eth_before, slurp(DBG "fqsim62/port1/qos/state"));
}

TEST_F_TIMEOUT(qos, set_needs_cap_net_admin_get_does_not, FQ_QOS_TEST_TIMEOUT_S)
{
	pid_t pid = fork();
	int status;

	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct nl_reply rep;
		int fd;

		/* nobody, without capabilities */
		if (setgid(65534) || setuid(65534))
			_exit(10);
		fd = nl_open();
		set_start(_metadata, self, "fqsim62", 1);
		put_u32(&self->r, FABRIQ_A_QOS_CFG_PFC, 1u << 3);
		req_nest_end(&self->r, self->intent);
		if (transact_cb(fd, &self->r, &rep, NULL) || rep.error != -EPERM)
			_exit(11);
		req_init(&self->r, self->family, FABRIQ_CMD_QOS_GET, 0);
		req_put(&self->r, FABRIQ_A_QOS_DEV_NAME, "fqsim62", 8);
		put_u32(&self->r, FABRIQ_A_QOS_PORT, 1);
		if (transact_cb(fd, &self->r, &rep, NULL) || rep.error || rep.count != 1)
			_exit(12);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("10: cannot drop privileges, 11: QOS_SET "
						 "not refused with EPERM, 12: QOS_GET failed");
	EXPECT_STREQ(self->eth_before, slurp(DBG "fqsim62/port1/qos/state"));
}

TEST_HARNESS_MAIN
