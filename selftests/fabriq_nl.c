// SPDX-License-Identifier: GPL-2.0
/*
 * fabriq_nl.c - raw generic netlink tests of the "fabriq" family, without
 * libnl: family resolution, DEV_GET do and dump, and that bad requests are
 * refused with the right errno, an extack message, and an extack offset
 * that points at the offending attribute.
 */
#include <stdlib.h>
#include <unistd.h>

#include "fq_nl.h"
#include "kselftest_harness.h"

#define RXE "fqnl0"

static void parse_dev(struct nlmsghdr *h, struct nl_reply *rep)
{
	uint32_t *index;
	char *name;
	void *attrs;
	int len;

	if (rep->count)
		return;
	attrs = genl_attrs(h, &len);
	name = attr_find(attrs, len, FABRIQ_A_DEV_NAME);
	index = attr_find(attrs, len, FABRIQ_A_DEV_INDEX);
	if (name)
		snprintf(rep->name, sizeof(rep->name), "%s", name);
	if (index)
		rep->index = *index;
}

static int transact(int fd, struct req *r, struct nl_reply *rep)
{
	return transact_cb(fd, r, rep, parse_dev);
}

FIXTURE(fabriq) {
	int fd;
	int family;
	struct req r;
	struct nl_reply rep;
};

FIXTURE_SETUP(fabriq)
{
	ASSERT_EQ(0, system("modprobe rdma_rxe && "
			    "ip link add fqnlv0 type veth peer name fqnlv1 && "
			    "ip link set fqnlv0 up && ip link set fqnlv1 up && "
			    "rdma link add " RXE " type rxe netdev fqnlv0"));
	self->fd = nl_open();
	ASSERT_LE(0, self->fd);
	self->family = resolve_family(self->fd);
	ASSERT_LT(0, self->family) TH_LOG("family '%s' not registered: is fabriq.ko loaded?",
					  FABRIQ_GENL_NAME);
}

FIXTURE_TEARDOWN(fabriq)
{
	close(self->fd);
	system("rdma link del " RXE " 2>/dev/null; ip link del fqnlv0 2>/dev/null");
}

TEST_F(fabriq, get_by_name)
{
	req_init(&self->r, self->family, FABRIQ_CMD_DEV_GET, 0);
	req_put(&self->r, FABRIQ_A_DEV_NAME, RXE, sizeof(RXE));
	ASSERT_EQ(0, transact(self->fd, &self->r, &self->rep));
	EXPECT_EQ(0, self->rep.error);
	EXPECT_EQ(1, self->rep.count);
	EXPECT_STREQ(RXE, self->rep.name);
	EXPECT_LE(0, self->rep.index);
}

TEST_F(fabriq, get_by_index_matches_name)
{
	int64_t index;
	uint32_t idx;

	req_init(&self->r, self->family, FABRIQ_CMD_DEV_GET, 0);
	req_put(&self->r, FABRIQ_A_DEV_NAME, RXE, sizeof(RXE));
	ASSERT_EQ(0, transact(self->fd, &self->r, &self->rep));
	ASSERT_EQ(0, self->rep.error);
	index = self->rep.index;
	idx = index;
	req_init(&self->r, self->family, FABRIQ_CMD_DEV_GET, 0);
	req_put(&self->r, FABRIQ_A_DEV_INDEX, &idx, sizeof(idx));
	ASSERT_EQ(0, transact(self->fd, &self->r, &self->rep));
	EXPECT_EQ(0, self->rep.error);
	EXPECT_STREQ(RXE, self->rep.name);
	EXPECT_EQ(index, self->rep.index);
}

TEST_F(fabriq, dump_lists_every_device)
{
	FILE *f = popen("ls /sys/class/infiniband | wc -l", "r");
	int expected = -1;

	ASSERT_NE(NULL, f);
	ASSERT_EQ(1, fscanf(f, "%d", &expected));
	pclose(f);
	req_init(&self->r, self->family, FABRIQ_CMD_DEV_GET, NLM_F_DUMP);
	ASSERT_EQ(0, transact(self->fd, &self->r, &self->rep));
	EXPECT_EQ(0, self->rep.error);
	EXPECT_EQ(expected, self->rep.count);
}

TEST_F(fabriq, unknown_attribute_rejected)
{
	uint32_t v = 1, off;

	req_init(&self->r, self->family, FABRIQ_CMD_DEV_GET, 0);
	req_put(&self->r, FABRIQ_A_DEV_NAME, RXE, sizeof(RXE));
	off = req_put(&self->r, FABRIQ_A_DEV_MAX + 10, &v, sizeof(v));
	ASSERT_EQ(0, transact(self->fd, &self->r, &self->rep));
	EXPECT_EQ(-EINVAL, self->rep.error);
	EXPECT_STRNE("", self->rep.msg);
	EXPECT_EQ(off, self->rep.offs);
	TH_LOG("extack: '%s' at offset %lld", self->rep.msg, (long long)self->rep.offs);
}

TEST_F(fabriq, reply_only_attribute_rejected)
{
	uint8_t v = 1;
	uint32_t off;

	req_init(&self->r, self->family, FABRIQ_CMD_DEV_GET, 0);
	req_put(&self->r, FABRIQ_A_DEV_NAME, RXE, sizeof(RXE));
	off = req_put(&self->r, FABRIQ_A_DEV_NODE_TYPE, &v, sizeof(v));
	ASSERT_EQ(0, transact(self->fd, &self->r, &self->rep));
	EXPECT_EQ(-EINVAL, self->rep.error);
	EXPECT_STRNE("", self->rep.msg);
	EXPECT_EQ(off, self->rep.offs);
}

TEST_F(fabriq, wrong_type_rejected)
{
	uint16_t v = 1;
	uint32_t off;

	req_init(&self->r, self->family, FABRIQ_CMD_DEV_GET, 0);
	off = req_put(&self->r, FABRIQ_A_DEV_INDEX, &v, sizeof(v));
	ASSERT_EQ(0, transact(self->fd, &self->r, &self->rep));
	EXPECT_EQ(-EINVAL, self->rep.error);
	EXPECT_STRNE("", self->rep.msg);
	EXPECT_EQ(off, self->rep.offs);
	TH_LOG("extack: '%s'", self->rep.msg);
}

TEST_F(fabriq, oversized_name_rejected)
{
	char name[FABRIQ_DEV_NAME_MAX + 8];
	uint32_t off;

	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	req_init(&self->r, self->family, FABRIQ_CMD_DEV_GET, 0);
	off = req_put(&self->r, FABRIQ_A_DEV_NAME, name, sizeof(name));
	ASSERT_EQ(0, transact(self->fd, &self->r, &self->rep));
	EXPECT_EQ(-EINVAL, self->rep.error);
	EXPECT_STRNE("", self->rep.msg);
	EXPECT_EQ(off, self->rep.offs);
	TH_LOG("extack: '%s'", self->rep.msg);
}

TEST_F(fabriq, missing_device_name_is_enodev)
{
	uint32_t off;

	req_init(&self->r, self->family, FABRIQ_CMD_DEV_GET, 0);
	off = req_put(&self->r, FABRIQ_A_DEV_NAME, "fqnl_nosuch", sizeof("fqnl_nosuch"));
	ASSERT_EQ(0, transact(self->fd, &self->r, &self->rep));
	EXPECT_EQ(-ENODEV, self->rep.error);
	EXPECT_STREQ("dev-name: no such RDMA device", self->rep.msg);
	EXPECT_EQ(off, self->rep.offs);
}

TEST_F(fabriq, missing_device_index_is_enodev)
{
	uint32_t idx = 0x7ffffff0, off;

	req_init(&self->r, self->family, FABRIQ_CMD_DEV_GET, 0);
	off = req_put(&self->r, FABRIQ_A_DEV_INDEX, &idx, sizeof(idx));
	ASSERT_EQ(0, transact(self->fd, &self->r, &self->rep));
	EXPECT_EQ(-ENODEV, self->rep.error);
	EXPECT_STREQ("dev-index: no such RDMA device", self->rep.msg);
	EXPECT_EQ(off, self->rep.offs);
}

TEST_F(fabriq, index_out_of_range_rejected)
{
	uint32_t idx = 0x80000000u, off;

	req_init(&self->r, self->family, FABRIQ_CMD_DEV_GET, 0);
	off = req_put(&self->r, FABRIQ_A_DEV_INDEX, &idx, sizeof(idx));
	ASSERT_EQ(0, transact(self->fd, &self->r, &self->rep));
	EXPECT_EQ(-ERANGE, self->rep.error);
	EXPECT_STRNE("", self->rep.msg);
	EXPECT_EQ(off, self->rep.offs);
}

TEST_F(fabriq, no_selector_rejected)
{
	req_init(&self->r, self->family, FABRIQ_CMD_DEV_GET, 0);
	ASSERT_EQ(0, transact(self->fd, &self->r, &self->rep));
	EXPECT_EQ(-EINVAL, self->rep.error);
	EXPECT_STREQ("dev-index or dev-name is required to select a device", self->rep.msg);
}

TEST_F(fabriq, name_index_mismatch_rejected)
{
	uint32_t idx, off;

	req_init(&self->r, self->family, FABRIQ_CMD_DEV_GET, 0);
	req_put(&self->r, FABRIQ_A_DEV_NAME, RXE, sizeof(RXE));
	ASSERT_EQ(0, transact(self->fd, &self->r, &self->rep));
	ASSERT_EQ(0, self->rep.error);
	idx = self->rep.index;
	req_init(&self->r, self->family, FABRIQ_CMD_DEV_GET, 0);
	req_put(&self->r, FABRIQ_A_DEV_INDEX, &idx, sizeof(idx));
	off = req_put(&self->r, FABRIQ_A_DEV_NAME, "fqnl_other", sizeof("fqnl_other"));
	ASSERT_EQ(0, transact(self->fd, &self->r, &self->rep));
	EXPECT_EQ(-EINVAL, self->rep.error);
	EXPECT_EQ(off, self->rep.offs);
}

TEST_F(fabriq, unknown_command_rejected)
{
	req_init(&self->r, self->family, FABRIQ_CMD_MAX + 5, 0);
	ASSERT_EQ(0, transact(self->fd, &self->r, &self->rep));
	EXPECT_EQ(-EOPNOTSUPP, self->rep.error);
}

TEST_F(fabriq, notification_command_not_requestable)
{
	req_init(&self->r, self->family, FABRIQ_CMD_DEV_ADD_NTF, 0);
	ASSERT_EQ(0, transact(self->fd, &self->r, &self->rep));
	EXPECT_EQ(-EOPNOTSUPP, self->rep.error);
}

TEST_HARNESS_MAIN
