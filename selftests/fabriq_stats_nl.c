// SPDX-License-Identifier: GPL-2.0
/*
 * fabriq_stats_nl.c - CONFIG_SET, STATS_GET and the events group over raw
 * netlink, without the CLI and its own checks: every bad value is refused
 * with the right errno and an extack that names it (an offset pointing at
 * the attribute where the policy knows it), and the settings are exactly
 * as before, even when the good attributes of the same request came first.
 * An unprivileged user cannot set or join "events" but can dump stats.
 */
#include <stdlib.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fq_nl.h"
#include "fq_sh.h"
#include "kselftest_harness.h"

#define CFG_FILE "/tmp/fabriq_stats_nl.cfg"

static char *config_text(void)
{
	static char buf[2][4096];
	static int which;
	char *b = buf[which++ & 1];
	size_t n = 0;
	FILE *f;

	fq_sh("\"$FQ_CLI\" stats config show > " CFG_FILE " 2>&1");
	f = fopen(CFG_FILE, "r");
	if (f) {
		n = fread(b, 1, sizeof(buf[0]) - 1, f);
		fclose(f);
	}
	b[n] = '\0';
	return b;
}

FIXTURE(cfg) {
	int fd;
	int family;
	struct req r;
	struct nl_reply rep;
	char before[4096];
};

FIXTURE_SETUP(cfg)
{
	self->fd = nl_open();
	ASSERT_LE(0, self->fd);
	self->family = resolve_family(self->fd);
	ASSERT_LT(0, self->family);
	strcpy(self->before, config_text());
	ASSERT_TRUE(strstr(self->before, "detector pfc-storm") != NULL);
	req_init(&self->r, self->family, FABRIQ_CMD_CONFIG_SET, 0);
}

FIXTURE_TEARDOWN(cfg)
{
	close(self->fd);
}

static uint32_t put_u8(struct req *r, uint16_t type, uint8_t v)
{
	return req_put(r, type, &v, 1);
}

static uint32_t put_u32(struct req *r, uint16_t type, uint32_t v)
{
	return req_put(r, type, &v, 4);
}

static uint32_t put_u64(struct req *r, uint16_t type, uint64_t v)
{
	return req_put(r, type, &v, 8);
}

/* Send; expect errno @err, an extack holding @msg, offset @offs (< 0: any), nothing changed. */
#define EXPECT_REFUSED(_err, _msg, _offs) do {						\
	volatile int64_t _o = (_offs);							\
	ASSERT_EQ(0, transact_cb(self->fd, &self->r, &self->rep, NULL));		\
	EXPECT_EQ(-(_err), self->rep.error);						\
	EXPECT_TRUE(strstr(self->rep.msg, _msg) != NULL)				\
		TH_LOG("extack: '%s'", self->rep.msg);					\
	if (_o >= 0)									\
		EXPECT_EQ((int64_t)_o, self->rep.offs);					\
	EXPECT_STREQ(self->before, config_text());					\
} while (0)

TEST_F(cfg, interval_above_60000)
{
	uint32_t off = put_u32(&self->r, FABRIQ_A_CONFIG_INTERVAL_MS, 60001);

	EXPECT_REFUSED(ERANGE, "", off);
}

TEST_F(cfg, ring_of_one_sample)
{
	uint32_t off = put_u32(&self->r, FABRIQ_A_CONFIG_RING_SAMPLES, 1);

	EXPECT_REFUSED(ERANGE, "", off);
}

TEST_F(cfg, events_per_sec_zero)
{
	uint32_t off = put_u32(&self->r, FABRIQ_A_CONFIG_EVENTS_PER_SEC, 0);

	EXPECT_REFUSED(ERANGE, "", off);
}

TEST_F(cfg, unknown_detector)
{
	struct nlattr *n;
	uint32_t off;

	put_u32(&self->r, FABRIQ_A_CONFIG_INTERVAL_MS, 7);	/* good, must not stick */
	n = req_nest_start(&self->r, FABRIQ_A_CONFIG_DET);
	off = put_u8(&self->r, FABRIQ_A_CONFIG_DET_ID, __FABRIQ_DET_MAX);
	req_nest_end(&self->r, n);
	EXPECT_REFUSED(ERANGE, "", off);
}

TEST_F(cfg, detector_without_id)
{
	struct nlattr *n;

	n = req_nest_start(&self->r, FABRIQ_A_CONFIG_DET);
	put_u64(&self->r, FABRIQ_A_CONFIG_DET_THRESHOLD, 5);
	req_nest_end(&self->r, n);
	EXPECT_REFUSED(EINVAL, "CONFIG_DET_ID is required", (char *)n - (char *)&self->r);
}

TEST_F(cfg, pfc_threshold_above_100_percent)
{
	struct nlattr *n;
	uint32_t off;

	n = req_nest_start(&self->r, FABRIQ_A_CONFIG_DET);
	put_u8(&self->r, FABRIQ_A_CONFIG_DET_ID, FABRIQ_DET_PFC_STORM);
	off = put_u64(&self->r, FABRIQ_A_CONFIG_DET_THRESHOLD, 101);
	req_nest_end(&self->r, n);
	EXPECT_REFUSED(ERANGE, "threshold out of range", off);
}

TEST_F(cfg, slow_peer_ratio_below_one)
{
	struct nlattr *n;
	uint32_t off;

	n = req_nest_start(&self->r, FABRIQ_A_CONFIG_DET);
	put_u8(&self->r, FABRIQ_A_CONFIG_DET_ID, FABRIQ_DET_SLOW_PEER);
	off = put_u64(&self->r, FABRIQ_A_CONFIG_DET_THRESHOLD, 99);
	req_nest_end(&self->r, n);
	EXPECT_REFUSED(ERANGE, "threshold out of range", off);
}

TEST_F(cfg, limit_on_a_detector_without_one)
{
	struct nlattr *n;
	uint32_t off;

	/* a good detector first: it must not be applied either */
	n = req_nest_start(&self->r, FABRIQ_A_CONFIG_DET);
	put_u8(&self->r, FABRIQ_A_CONFIG_DET_ID, FABRIQ_DET_BW_DROP);
	put_u64(&self->r, FABRIQ_A_CONFIG_DET_THRESHOLD, 50);
	req_nest_end(&self->r, n);
	n = req_nest_start(&self->r, FABRIQ_A_CONFIG_DET);
	put_u8(&self->r, FABRIQ_A_CONFIG_DET_ID, FABRIQ_DET_LATENCY);
	off = put_u64(&self->r, FABRIQ_A_CONFIG_DET_LIMIT, 3);
	req_nest_end(&self->r, n);
	EXPECT_REFUSED(ERANGE, "limit", off);
}

TEST_F(cfg, window_above_an_hour)
{
	struct nlattr *n;
	uint32_t off;

	n = req_nest_start(&self->r, FABRIQ_A_CONFIG_DET);
	put_u8(&self->r, FABRIQ_A_CONFIG_DET_ID, FABRIQ_DET_ERROR_RATE);
	off = put_u32(&self->r, FABRIQ_A_CONFIG_DET_WINDOW_MS, 3600001);
	req_nest_end(&self->r, n);
	EXPECT_REFUSED(ERANGE, "", off);
}

TEST_F(cfg, enabled_not_a_bool)
{
	struct nlattr *n;
	uint32_t off;

	n = req_nest_start(&self->r, FABRIQ_A_CONFIG_DET);
	put_u8(&self->r, FABRIQ_A_CONFIG_DET_ID, FABRIQ_DET_LATENCY);
	off = put_u8(&self->r, FABRIQ_A_CONFIG_DET_ENABLED, 2);
	req_nest_end(&self->r, n);
	EXPECT_REFUSED(ERANGE, "", off);
}

TEST_F(cfg, wrong_length)
{
	uint8_t v = 5;
	uint32_t off = req_put(&self->r, FABRIQ_A_CONFIG_INTERVAL_MS, &v, 1);

	EXPECT_REFUSED(EINVAL, "", off);
}

TEST_F(cfg, reply_only_attribute)
{
	uint32_t off = put_u64(&self->r, FABRIQ_A_CONFIG_EVENTS_SUPPRESSED, 0);

	EXPECT_REFUSED(EINVAL, "", off);
}

TEST_F(cfg, reply_only_detector_count)
{
	struct nlattr *n;
	uint32_t off;

	n = req_nest_start(&self->r, FABRIQ_A_CONFIG_DET);
	put_u8(&self->r, FABRIQ_A_CONFIG_DET_ID, FABRIQ_DET_PFC_STORM);
	off = put_u64(&self->r, FABRIQ_A_CONFIG_DET_RAISED, 0);
	req_nest_end(&self->r, n);
	EXPECT_REFUSED(EINVAL, "", off);
}

TEST_F(cfg, good_request_round_trips)
{
	unsigned long long thr = 0;
	unsigned int samples = 0;
	struct nlattr *n;
	char *p;

	p = strstr(self->before, "samples ");
	ASSERT_TRUE(p && sscanf(p, "samples %u", &samples) == 1);
	p = strstr(self->before, "detector bw-drop enabled on threshold ");
	ASSERT_TRUE(p && sscanf(p, "detector bw-drop enabled on threshold %llu", &thr) == 1);

	put_u32(&self->r, FABRIQ_A_CONFIG_RING_SAMPLES, 48);
	n = req_nest_start(&self->r, FABRIQ_A_CONFIG_DET);
	put_u8(&self->r, FABRIQ_A_CONFIG_DET_ID, FABRIQ_DET_BW_DROP);
	put_u64(&self->r, FABRIQ_A_CONFIG_DET_THRESHOLD, 45);
	req_nest_end(&self->r, n);
	ASSERT_EQ(0, transact_cb(self->fd, &self->r, &self->rep, NULL));
	EXPECT_EQ(0, self->rep.error);
	EXPECT_TRUE(strstr(config_text(), "samples 48") != NULL);
	EXPECT_TRUE(strstr(config_text(), "detector bw-drop enabled on threshold 45 ") != NULL);
	/* back to what it was */
	req_init(&self->r, self->family, FABRIQ_CMD_CONFIG_SET, 0);
	put_u32(&self->r, FABRIQ_A_CONFIG_RING_SAMPLES, samples);
	n = req_nest_start(&self->r, FABRIQ_A_CONFIG_DET);
	put_u8(&self->r, FABRIQ_A_CONFIG_DET_ID, FABRIQ_DET_BW_DROP);
	put_u64(&self->r, FABRIQ_A_CONFIG_DET_THRESHOLD, thr);
	req_nest_end(&self->r, n);
	ASSERT_EQ(0, transact_cb(self->fd, &self->r, &self->rep, NULL));
	EXPECT_EQ(0, self->rep.error);
	EXPECT_STREQ(self->before, config_text());
}

TEST_F(cfg, stats_port_without_device)
{
	uint32_t port = 1;

	req_init(&self->r, self->family, FABRIQ_CMD_STATS_GET, NLM_F_DUMP);
	put_u32(&self->r, FABRIQ_A_STATS_PORT, port);
	struct utsname u;
	int major = 0, minor = 0;

	ASSERT_EQ(0, transact_cb(self->fd, &self->r, &self->rep, NULL));
	EXPECT_EQ(-EINVAL, self->rep.error);
	/* 6.1 does not pass the extack to a dump's start callback */
	uname(&u);
	sscanf(u.release, "%d.%d", &major, &minor);
	if (self->rep.msg[0] || major > 6 || (major == 6 && minor > 1))
		EXPECT_TRUE(strstr(self->rep.msg, "a port needs a device") != NULL)
			TH_LOG("extack: '%s'", self->rep.msg);
}

static void count_msgs(struct nlmsghdr *h, struct nl_reply *rep)
{
}

/* In a child that dropped to nobody: CONFIG_SET and joining events fail, STATS_GET works. */
TEST(unprivileged)
{
	int fd = nl_open(), family, grp, status;
	pid_t pid;

	ASSERT_LE(0, fd);
	/* a port to dump, sampled at least once */
	ASSERT_EQ(0, fq_sh("fq_insmod fabriq_sim && fq_sim_new \"81 1 eth\" && sleep 0.5"));
	family = resolve_family(fd);
	grp = resolve_mcgrp(fd, FABRIQ_MCGRP_EVENTS);
	ASSERT_LT(0, family);
	ASSERT_LT(0, grp);
	close(fd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct nl_reply rep = {};
		struct req r;
		int code = 0;

		if (setgid(65534) || setuid(65534))
			_exit(10);
		fd = nl_open();
		req_init(&r, family, FABRIQ_CMD_CONFIG_SET, 0);
		put_u32(&r, FABRIQ_A_CONFIG_INTERVAL_MS, 5);
		if (transact_cb(fd, &r, &rep, NULL) || rep.error != -EPERM)
			code |= 1;
		if (!setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &grp, sizeof(grp)) ||
		    errno != EPERM)
			code |= 2;
		memset(&rep, 0, sizeof(rep));
		req_init(&r, family, FABRIQ_CMD_STATS_GET, NLM_F_DUMP);
		if (transact_cb(fd, &r, &rep, count_msgs) || rep.error || rep.count < 1)
			code |= 4;
		memset(&rep, 0, sizeof(rep));
		req_init(&r, family, FABRIQ_CMD_CONFIG_GET, 0);
		if (transact_cb(fd, &r, &rep, count_msgs) || rep.error || rep.count != 1)
			code |= 8;
		fflush(stdout);
		_exit(code);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	fq_sh("fq_sim_del 81");
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("bits: 1 set allowed, 2 join allowed, 4 dump failed, 8 get failed");
	/* and root may join */
	fd = nl_open();
	EXPECT_EQ(0, setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &grp, sizeof(grp)));
	close(fd);
}

TEST_HARNESS_MAIN
