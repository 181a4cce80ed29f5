// SPDX-License-Identifier: GPL-2.0
/*
 * fabriq_nl.c - raw generic netlink tests of the "fabriq" family, without
 * libnl: family resolution, DEV_GET do and dump, and that bad requests are
 * refused with the right errno, an extack message, and an extack offset
 * that points at the offending attribute.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/fabriq.h>

#include "kselftest_harness.h"

#define RXE "fqnl0"
#define BUF_SIZE 65536

struct nl_reply {
	int error;		/* 0 or negative errno from NLMSG_ERROR */
	char msg[256];		/* NLMSGERR_ATTR_MSG */
	int64_t offs;		/* NLMSGERR_ATTR_OFFS, -1 if absent */
	int count;		/* data messages received */
	char name[FABRIQ_DEV_NAME_MAX];	/* FABRIQ_A_DEV_NAME of the first */
	int64_t index;		/* FABRIQ_A_DEV_INDEX of the first */
};

struct req {
	struct nlmsghdr nlh;
	struct genlmsghdr gh;
	char attrs[512];
};

static int nl_open(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC);
	int one = 1;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	return fd;
}

static void req_init(struct req *r, uint16_t family, uint8_t cmd, uint16_t flags)
{
	memset(r, 0, sizeof(*r));
	r->nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->nlh.nlmsg_type = family;
	r->nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	r->nlh.nlmsg_seq = 1;
	r->gh.cmd = cmd;
	r->gh.version = 1;
}

/* Append an attribute; return its offset from the start of the message. */
static uint32_t req_put(struct req *r, uint16_t type, const void *data, uint16_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)r + NLMSG_ALIGN(r->nlh.nlmsg_len));
	uint32_t off = (char *)a - (char *)r;

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	r->nlh.nlmsg_len = NLMSG_ALIGN(r->nlh.nlmsg_len) + NLA_ALIGN(a->nla_len);
	return off;
}

/* The payload of the first attribute of @type in [@start, @start + @len). */
static void *attr_find(void *start, int len, uint16_t type)
{
	struct nlattr *a = start;

	while (len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len) {
		if (a->nla_type == type)
			return (char *)a + NLA_HDRLEN;
		len -= NLA_ALIGN(a->nla_len);
		a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
	}
	return NULL;
}

static void *genl_attrs(struct nlmsghdr *h, int *len)
{
	*len = h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	return (char *)NLMSG_DATA(h) + GENL_HDRLEN;
}

static void parse_extack(struct nlmsghdr *h, struct nl_reply *rep)
{
	struct nlmsgerr *e = NLMSG_DATA(h);
	size_t skip = sizeof(*e);
	char *start, *msg;
	uint32_t *offs;
	int len;

	rep->error = e->error;
	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(h->nlmsg_flags & NLM_F_CAPPED))
		skip += e->msg.nlmsg_len - NLMSG_HDRLEN;
	start = (char *)e + skip;
	len = (int)h->nlmsg_len - NLMSG_HDRLEN - (int)skip;
	msg = attr_find(start, len, NLMSGERR_ATTR_MSG);
	offs = attr_find(start, len, NLMSGERR_ATTR_OFFS);
	if (msg)
		snprintf(rep->msg, sizeof(rep->msg), "%s", msg);
	if (offs)
		rep->offs = *offs;
}

static void parse_dev(struct nlmsghdr *h, struct nl_reply *rep)
{
	uint32_t *index;
	char *name;
	void *attrs;
	int len;

	if (rep->count++)
		return;
	attrs = genl_attrs(h, &len);
	name = attr_find(attrs, len, FABRIQ_A_DEV_NAME);
	index = attr_find(attrs, len, FABRIQ_A_DEV_INDEX);
	if (name)
		snprintf(rep->name, sizeof(rep->name), "%s", name);
	if (index)
		rep->index = *index;
}

/* Send @r, collect replies until the ack, the error or NLMSG_DONE. */
static int transact(int fd, struct req *r, struct nl_reply *rep)
{
	static char buf[BUF_SIZE];
	bool done = false;

	memset(rep, 0, sizeof(*rep));
	rep->offs = -1;
	rep->index = -1;
	if (send(fd, r, r->nlh.nlmsg_len, 0) < 0)
		return -errno;
	while (!done) {
		int len = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h;

		if (len < 0)
			return -errno;
		for (h = (void *)buf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_type == NLMSG_ERROR) {
				parse_extack(h, rep);
				done = true;
			} else if (h->nlmsg_type == NLMSG_DONE) {
				done = true;
			} else {
				parse_dev(h, rep);
			}
		}
	}
	return 0;
}

static int resolve_family(int fd)
{
	static char buf[BUF_SIZE];
	struct nlmsghdr *h;
	int len, alen;
	uint16_t *id;
	void *attrs;
	struct req r;

	req_init(&r, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	r.nlh.nlmsg_flags &= ~NLM_F_ACK;
	req_put(&r, CTRL_ATTR_FAMILY_NAME, FABRIQ_GENL_NAME, sizeof(FABRIQ_GENL_NAME));
	if (send(fd, &r, r.nlh.nlmsg_len, 0) < 0)
		return -1;
	len = recv(fd, buf, sizeof(buf), 0);
	h = (void *)buf;
	if (len < 0 || !NLMSG_OK(h, len) || h->nlmsg_type == NLMSG_ERROR)
		return -1;
	attrs = genl_attrs(h, &alen);
	id = attr_find(attrs, alen, CTRL_ATTR_FAMILY_ID);
	return id ? *id : -1;
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
