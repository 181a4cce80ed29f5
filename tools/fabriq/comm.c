// SPDX-License-Identifier: GPL-2.0
/*
 * comm.c - `fabriq comm`: the communicators on this host (COMM_GET dump).
 *
 *   fabriq comm show [id ID]
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <netlink/genl/genl.h>

#include "fabriq.h"

static struct nla_policy comm_policy[FABRIQ_A_COMM_MAX + 1] = {
	[FABRIQ_A_COMM_ID] = { .type = NLA_U64 },
	[FABRIQ_A_COMM_RANK] = { .type = NLA_U32 },
	[FABRIQ_A_COMM_NRANKS] = { .type = NLA_U32 },
	[FABRIQ_A_COMM_STATE] = { .type = NLA_STRING },
	[FABRIQ_A_COMM_ERROR] = { .type = NLA_U32 },
	[FABRIQ_A_COMM_DEV_NAME] = { .type = NLA_STRING },
	[FABRIQ_A_COMM_PORT] = { .type = NLA_U32 },
	[FABRIQ_A_COMM_ALGO] = { .type = NLA_U8 },
	[FABRIQ_A_COMM_CHUNK] = { .type = NLA_U32 },
	[FABRIQ_A_COMM_CHANNELS] = { .type = NLA_U32 },
	[FABRIQ_A_COMM_QPS] = { .type = NLA_U32 },
	[FABRIQ_A_COMM_OPS_DONE] = { .type = NLA_U64 },
	[FABRIQ_A_COMM_OPS_FAILED] = { .type = NLA_U64 },
	[FABRIQ_A_COMM_OPS_QUEUED] = { .type = NLA_U32 },
	[FABRIQ_A_COMM_BYTES] = { .type = NLA_U64 },
	[FABRIQ_A_COMM_PEER] = { .type = NLA_NESTED },
};

static struct nla_policy peer_policy[FABRIQ_A_COMM_PEER_MAX + 1] = {
	[FABRIQ_A_COMM_PEER_RANK] = { .type = NLA_U32 },
	[FABRIQ_A_COMM_PEER_UP] = { .type = NLA_U8 },
	[FABRIQ_A_COMM_PEER_MSGS_TX] = { .type = NLA_U64 },
	[FABRIQ_A_COMM_PEER_MSGS_RX] = { .type = NLA_U64 },
	[FABRIQ_A_COMM_PEER_BYTES_TX] = { .type = NLA_U64 },
	[FABRIQ_A_COMM_PEER_BYTES_RX] = { .type = NLA_U64 },
	[FABRIQ_A_COMM_PEER_TCLASS] = { .type = NLA_U8 },
	[FABRIQ_A_COMM_PEER_SL] = { .type = NLA_U8 },
};

static const char *const algo_names[] = { "auto", "ring", "rd", "tree", "direct" };

void comm_usage(void)
{
	fprintf(stdout,
		"Usage: fabriq comm show [id ID]\n"
		"       fabriq comm help\n"
		"where  ID := communicator id, 1-0xffffffffffffffff (decimal or 0x hex)\n");
}

static void print_addr(const char *key, const char *fmt, struct nlattr *a)
{
	char buf[INET6_ADDRSTRLEN] = "?";

	fq_nla_addr(a, buf, sizeof(buf));
	out_str(key, fmt, buf);
}

static void print_peer(struct nlattr *nest)
{
	struct nlattr *tb[FABRIQ_A_COMM_PEER_MAX + 1];

	if (nla_parse_nested(tb, FABRIQ_A_COMM_PEER_MAX, nest, peer_policy) ||
	    !tb[FABRIQ_A_COMM_PEER_RANK])
		return;
	out_begin_object(NULL);
	out_text("\n    ");
	out_uint("rank", "peer %llu ", nla_get_u32(tb[FABRIQ_A_COMM_PEER_RANK]));
	if (tb[FABRIQ_A_COMM_PEER_ADDR])
		print_addr("address", "address %s ", tb[FABRIQ_A_COMM_PEER_ADDR]);
	if (tb[FABRIQ_A_COMM_PEER_UP])
		out_str("state", "state %s ", nla_get_u8(tb[FABRIQ_A_COMM_PEER_UP]) ? "up" : "down");
	if (tb[FABRIQ_A_COMM_PEER_TCLASS])
		out_uint("tc", "tc %llu ", nla_get_u8(tb[FABRIQ_A_COMM_PEER_TCLASS]));
	if (tb[FABRIQ_A_COMM_PEER_SL])
		out_uint("sl", "sl %llu ", nla_get_u8(tb[FABRIQ_A_COMM_PEER_SL]));
	if (tb[FABRIQ_A_COMM_PEER_MSGS_TX])
		out_uint("msgs_tx", "msgs_tx %llu ", nla_get_u64(tb[FABRIQ_A_COMM_PEER_MSGS_TX]));
	if (tb[FABRIQ_A_COMM_PEER_MSGS_RX])
		out_uint("msgs_rx", "msgs_rx %llu ", nla_get_u64(tb[FABRIQ_A_COMM_PEER_MSGS_RX]));
	if (tb[FABRIQ_A_COMM_PEER_BYTES_TX])
		out_uint("bytes_tx", "bytes_tx %llu ", nla_get_u64(tb[FABRIQ_A_COMM_PEER_BYTES_TX]));
	if (tb[FABRIQ_A_COMM_PEER_BYTES_RX])
		out_uint("bytes_rx", "bytes_rx %llu ", nla_get_u64(tb[FABRIQ_A_COMM_PEER_BYTES_RX]));
	out_end_object();
}

/*
 * The communicator whose record is open: a communicator with many peers
 * comes in several messages, each with its id, rank and port again.
 */
struct comm_open_record {
	bool open;
	uint64_t id;
	uint32_t rank;
	uint32_t port;
};

static void comm_close_record(struct comm_open_record *rec)
{
	if (!rec->open)
		return;
	out_end_array();
	out_end_record();
	rec->open = false;
}

static int comm_print(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[FABRIQ_A_COMM_MAX + 1], *a;
	struct comm_open_record *rec = arg;
	uint32_t rank, port;
	uint64_t id;
	int rem;

	if (fq_nl_parse(msg, tb, FABRIQ_A_COMM_MAX, comm_policy) || !tb[FABRIQ_A_COMM_ID])
		return 0;
	id = nla_get_u64(tb[FABRIQ_A_COMM_ID]);
	rank = tb[FABRIQ_A_COMM_RANK] ? nla_get_u32(tb[FABRIQ_A_COMM_RANK]) : 0;
	port = tb[FABRIQ_A_COMM_PORT] ? nla_get_u32(tb[FABRIQ_A_COMM_PORT]) : 0;
	if (rec->open && rec->id == id && rec->rank == rank && rec->port == port)
		goto peers;
	comm_close_record(rec);
	*rec = (struct comm_open_record){ .open = true, .id = id, .rank = rank, .port = port };
	out_begin_object(NULL);
	out_hex("id", "comm %s ", nla_get_u64(tb[FABRIQ_A_COMM_ID]));
	if (tb[FABRIQ_A_COMM_RANK])
		out_uint("rank", "rank %llu ", nla_get_u32(tb[FABRIQ_A_COMM_RANK]));
	if (tb[FABRIQ_A_COMM_NRANKS])
		out_uint("nranks", "nranks %llu ", nla_get_u32(tb[FABRIQ_A_COMM_NRANKS]));
	if (tb[FABRIQ_A_COMM_STATE])
		out_str("state", "state %s ", nla_get_string(tb[FABRIQ_A_COMM_STATE]));
	if (tb[FABRIQ_A_COMM_ERROR] && nla_get_u32(tb[FABRIQ_A_COMM_ERROR]))
		out_str("error", "error \"%s\" ", strerror(-(int)nla_get_u32(tb[FABRIQ_A_COMM_ERROR])));
	if (tb[FABRIQ_A_COMM_DEV_NAME])
		out_str("dev", "dev %s ", nla_get_string(tb[FABRIQ_A_COMM_DEV_NAME]));
	if (tb[FABRIQ_A_COMM_ADDR])
		print_addr("address", "address %s ", tb[FABRIQ_A_COMM_ADDR]);
	if (tb[FABRIQ_A_COMM_PORT])
		out_uint("port", "port %llu ", nla_get_u32(tb[FABRIQ_A_COMM_PORT]));
	if (tb[FABRIQ_A_COMM_ALGO] && nla_get_u8(tb[FABRIQ_A_COMM_ALGO]) < 5)
		out_str("algo", "algo %s ", algo_names[nla_get_u8(tb[FABRIQ_A_COMM_ALGO])]);
	if (tb[FABRIQ_A_COMM_CHUNK])
		out_uint("chunk_bytes", "chunk %llu ", nla_get_u32(tb[FABRIQ_A_COMM_CHUNK]));
	if (tb[FABRIQ_A_COMM_CHANNELS])
		out_uint("channels", "channels %llu ", nla_get_u32(tb[FABRIQ_A_COMM_CHANNELS]));
	if (tb[FABRIQ_A_COMM_QPS])
		out_uint("qps", "qps %llu ", nla_get_u32(tb[FABRIQ_A_COMM_QPS]));
	if (tb[FABRIQ_A_COMM_OPS_DONE])
		out_uint("ops_done", "ops_done %llu ", nla_get_u64(tb[FABRIQ_A_COMM_OPS_DONE]));
	if (tb[FABRIQ_A_COMM_OPS_FAILED])
		out_uint("ops_failed", "ops_failed %llu ", nla_get_u64(tb[FABRIQ_A_COMM_OPS_FAILED]));
	if (tb[FABRIQ_A_COMM_OPS_QUEUED])
		out_uint("ops_queued", "ops_queued %llu ", nla_get_u32(tb[FABRIQ_A_COMM_OPS_QUEUED]));
	if (tb[FABRIQ_A_COMM_BYTES])
		out_uint("bytes", "bytes %llu ", nla_get_u64(tb[FABRIQ_A_COMM_BYTES]));
	out_begin_array("peers");
peers:
	fq_msg_for_each_attr(a, msg, rem)
		if (nla_type(a) == FABRIQ_A_COMM_PEER)
			print_peer(a);
	return 0;
}

static int comm_show(int argc, char **argv)
{
	struct comm_open_record rec = { .open = false };
	uint64_t id = 0;
	struct nl_msg *msg;
	int err;

	if (argc >= 1 && match(argv[0], "id")) {
		if (!fq_parse_u64(argc > 1 ? argv[1] : NULL, 0, 1, UINT64_MAX, &id)) {
			fprintf(stderr, "%s: comm show: id '%s' is not valid "
				"(valid: 1-0xffffffffffffffff)\n", prog, argc > 1 ? argv[1] : "");
			return 1;
		}
		argc -= 2, argv += 2;
	}
	if (argc > 0)
		return usage_error("comm", "show: unexpected argument '%s' (expected: [id ID])",
				   argv[0]);
	if (fq_nl_open())
		return 1;
	msg = fq_nl_new(FABRIQ_CMD_COMM_GET, NLM_F_DUMP);
	if (!msg || (id && nla_put_u64(msg, FABRIQ_A_COMM_ID, id))) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	out_begin_array(NULL);
	err = fq_nl_request(msg, comm_print, &rec, "comm show");
	comm_close_record(&rec);
	out_end_array();
	fq_nl_close();
	return err ? 1 : 0;
}

int do_comm(int argc, char **argv)
{
	if (argc == 0 || match(argv[0], "show") || match(argv[0], "list"))
		return comm_show(argc ? argc - 1 : 0, argc ? argv + 1 : argv);
	if (match(argv[0], "help")) {
		comm_usage();
		return 0;
	}
	return usage_error("comm", "unknown command '%s' (valid: show, help)", argv[0]);
}
