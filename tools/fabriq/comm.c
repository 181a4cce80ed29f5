// SPDX-License-Identifier: GPL-2.0
/*
 * comm.c - `fabriq comm`: the communicators on this host (COMM_GET dump).
 *
 *   fabriq comm show [id ID]
 *   fabriq comm status [id ID]: every rank of each, as this host's fabriq
 *	knows it from the heartbeats on the control connections: alive or
 *	dead, the call and step it is in, whom it waits on and for how
 *	long, and the rank whose hold-up the others' waits come from
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
	[FABRIQ_A_COMM_STATUS] = { .type = NLA_NESTED },
	[FABRIQ_A_COMM_PEER_TIMEOUT_MS] = { .type = NLA_U32 },
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
	[FABRIQ_A_COMM_PEER_STATUS] = { .type = NLA_NESTED },
};

static struct nla_policy rstat_policy[FABRIQ_A_RSTAT_MAX + 1] = {
	[FABRIQ_A_RSTAT_STATE] = { .type = NLA_U8 },
	[FABRIQ_A_RSTAT_HEARD_MS] = { .type = NLA_U32 },
	[FABRIQ_A_RSTAT_RUNNING] = { .type = NLA_U8 },
	[FABRIQ_A_RSTAT_OP_SEQ] = { .type = NLA_U64 },
	[FABRIQ_A_RSTAT_OPS_DONE] = { .type = NLA_U64 },
	[FABRIQ_A_RSTAT_STEP] = { .type = NLA_U32 },
	[FABRIQ_A_RSTAT_WAIT_RANK] = { .type = NLA_U32 },
	[FABRIQ_A_RSTAT_WAIT_NS] = { .type = NLA_U64 },
	[FABRIQ_A_RSTAT_INHERITED_NS] = { .type = NLA_U64 },
	[FABRIQ_A_RSTAT_ORIGIN] = { .type = NLA_U8 },
	[FABRIQ_A_RSTAT_BLOCKS] = { .type = NLA_U32 },
	[FABRIQ_A_RSTAT_SLOW_LINKS] = { .type = NLA_U32 },
	[FABRIQ_A_RSTAT_SLOW_RANK] = { .type = NLA_U32 },
	[FABRIQ_A_RSTAT_SLOW_RATIO] = { .type = NLA_U32 },
	[FABRIQ_A_RSTAT_LINK_BLAME] = { .type = NLA_U32 },
	[FABRIQ_A_RSTAT_LINK_SUSPECT] = { .type = NLA_U8 },
};

static const char *const rank_state_names[] = FABRIQ_RANK_STATE_NAMES;

static const char *const algo_names[] = { "auto", "ring", "rd", "tree", "direct" };

void comm_usage(void)
{
	fprintf(stdout,
		"Usage: fabriq comm show [id ID]\n"
		"       fabriq comm status [id ID]\n"
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
 * One rank's line of `comm status`: @rank, its address and its status
 * nest (set "rank-status").
 */
static void print_rank_status(uint32_t rank, struct nlattr *addr, struct nlattr *nest)
{
	struct nlattr *tb[FABRIQ_A_RSTAT_MAX + 1];
	uint8_t state;

	if (!nest || nla_parse_nested(tb, FABRIQ_A_RSTAT_MAX, nest, rstat_policy) ||
	    !tb[FABRIQ_A_RSTAT_STATE])
		return;
	state = nla_get_u8(tb[FABRIQ_A_RSTAT_STATE]);
	out_begin_object(NULL);
	out_text("\n    ");
	out_uint("rank", "rank %llu ", rank);
	if (addr)
		print_addr("address", "address %s ", addr);
	out_str("state", "%s ", state < __FABRIQ_RANK_MAX ? rank_state_names[state] : "?");
	if (tb[FABRIQ_A_RSTAT_HEARD_MS])
		out_uint("heard_ms", "heard %llums ago ", nla_get_u32(tb[FABRIQ_A_RSTAT_HEARD_MS]));
	if (tb[FABRIQ_A_RSTAT_OP_SEQ])
		out_uint("op", "op %llu ", nla_get_u64(tb[FABRIQ_A_RSTAT_OP_SEQ]));
	if (tb[FABRIQ_A_RSTAT_RUNNING])
		out_bool("running", "running ", nla_get_u8(tb[FABRIQ_A_RSTAT_RUNNING]));
	if (tb[FABRIQ_A_RSTAT_STEP])
		out_uint("step", "step %llu ", nla_get_u32(tb[FABRIQ_A_RSTAT_STEP]));
	if (tb[FABRIQ_A_RSTAT_OPS_DONE])
		out_uint("ops_done", "ops_done %llu ", nla_get_u64(tb[FABRIQ_A_RSTAT_OPS_DONE]));
	/* whom it waits on, for how long, and how much of that it inherited */
	if (tb[FABRIQ_A_RSTAT_WAIT_RANK] && tb[FABRIQ_A_RSTAT_WAIT_NS] &&
	    tb[FABRIQ_A_RSTAT_INHERITED_NS]) {
		out_uint("waits_on", "waits_on %llu ", nla_get_u32(tb[FABRIQ_A_RSTAT_WAIT_RANK]));
		out_uint("wait_ms", "for %llums ", nla_get_u64(tb[FABRIQ_A_RSTAT_WAIT_NS]) / 1000000);
		out_uint("inherited_ms", "inherited %llums ",
			 nla_get_u64(tb[FABRIQ_A_RSTAT_INHERITED_NS]) / 1000000);
	}
	if (tb[FABRIQ_A_RSTAT_ORIGIN])
		out_bool("origin", "origin ", nla_get_u8(tb[FABRIQ_A_RSTAT_ORIGIN]));
	if (tb[FABRIQ_A_RSTAT_BLOCKS])
		out_uint("blocks", "blocks %llu ", nla_get_u32(tb[FABRIQ_A_RSTAT_BLOCKS]));
	/* its links: how many it finds slow, the slowest, and the blame */
	if (tb[FABRIQ_A_RSTAT_SLOW_LINKS])
		out_uint("slow_links", "slow_links %llu ",
			 nla_get_u32(tb[FABRIQ_A_RSTAT_SLOW_LINKS]));
	if (tb[FABRIQ_A_RSTAT_SLOW_RANK] && tb[FABRIQ_A_RSTAT_SLOW_RATIO]) {
		out_uint("slowest_link_to", "slowest to %llu ",
			 nla_get_u32(tb[FABRIQ_A_RSTAT_SLOW_RANK]));
		out_uint("slowest_link_pct", "at %llu%% ",
			 nla_get_u32(tb[FABRIQ_A_RSTAT_SLOW_RATIO]));
	}
	if (tb[FABRIQ_A_RSTAT_LINK_BLAME])
		out_uint("link_blame", "link_blame %llu ",
			 nla_get_u32(tb[FABRIQ_A_RSTAT_LINK_BLAME]));
	if (tb[FABRIQ_A_RSTAT_LINK_SUSPECT])
		out_bool("link_suspect", "link_suspect ",
			 nla_get_u8(tb[FABRIQ_A_RSTAT_LINK_SUSPECT]));
	out_end_object();
}

/*
 * The communicator whose record is open: a communicator with many peers
 * comes in several messages, each with its id, rank and port again.
 */
struct comm_open_record {
	bool status;
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

/* a peer's line of `comm status` */
static void print_peer_status(struct nlattr *nest)
{
	struct nlattr *tb[FABRIQ_A_COMM_PEER_MAX + 1];

	if (nla_parse_nested(tb, FABRIQ_A_COMM_PEER_MAX, nest, peer_policy) ||
	    !tb[FABRIQ_A_COMM_PEER_RANK])
		return;
	print_rank_status(nla_get_u32(tb[FABRIQ_A_COMM_PEER_RANK]), tb[FABRIQ_A_COMM_PEER_ADDR],
			  tb[FABRIQ_A_COMM_PEER_STATUS]);
}

/* what both `comm show` and `comm status` start a communicator with */
static void comm_head(struct nlattr **tb)
{
	out_hex("id", "comm %s ", nla_get_u64(tb[FABRIQ_A_COMM_ID]));
	if (tb[FABRIQ_A_COMM_RANK])
		out_uint("rank", "rank %llu ", nla_get_u32(tb[FABRIQ_A_COMM_RANK]));
	if (tb[FABRIQ_A_COMM_NRANKS])
		out_uint("nranks", "nranks %llu ", nla_get_u32(tb[FABRIQ_A_COMM_NRANKS]));
	if (tb[FABRIQ_A_COMM_STATE])
		out_str("state", "state %s ", nla_get_string(tb[FABRIQ_A_COMM_STATE]));
	if (tb[FABRIQ_A_COMM_ERROR] && nla_get_u32(tb[FABRIQ_A_COMM_ERROR]))
		out_str("error", "error \"%s\" ", strerror(-(int)nla_get_u32(tb[FABRIQ_A_COMM_ERROR])));
}

/* `comm status`: a communicator's head, and its own rank's line first */
static void status_head(struct nlattr **tb)
{
	comm_head(tb);
	if (tb[FABRIQ_A_COMM_PEER_TIMEOUT_MS])
		out_uint("peer_timeout_ms", "peer_timeout %llums ",
			 nla_get_u32(tb[FABRIQ_A_COMM_PEER_TIMEOUT_MS]));
	out_begin_array("ranks");
	if (tb[FABRIQ_A_COMM_RANK])
		print_rank_status(nla_get_u32(tb[FABRIQ_A_COMM_RANK]), tb[FABRIQ_A_COMM_ADDR],
				  tb[FABRIQ_A_COMM_STATUS]);
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
	*rec = (struct comm_open_record){ .status = rec->status, .open = true, .id = id,
					  .rank = rank, .port = port };
	out_begin_object(NULL);
	if (rec->status) {
		status_head(tb);
		goto peers;
	}
	comm_head(tb);
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
			(rec->status ? print_peer_status : print_peer)(a);
	return 0;
}

static int comm_show(int argc, char **argv, bool status)
{
	const char *cmd = status ? "status" : "show";
	struct comm_open_record rec = { .status = status };
	uint64_t id = 0;
	struct nl_msg *msg;
	int err;

	if (argc >= 1 && match(argv[0], "id")) {
		if (!fq_parse_u64(argc > 1 ? argv[1] : NULL, 0, 1, UINT64_MAX, &id)) {
			fprintf(stderr, "%s: comm %s: id '%s' is not valid "
				"(valid: 1-0xffffffffffffffff)\n", prog, cmd, argc > 1 ? argv[1] : "");
			return 1;
		}
		argc -= 2, argv += 2;
	}
	if (argc > 0)
		return usage_error("comm", "%s: unexpected argument '%s' (expected: [id ID])",
				   cmd, argv[0]);
	if (fq_nl_open())
		return 1;
	msg = fq_nl_new(FABRIQ_CMD_COMM_GET, NLM_F_DUMP);
	if (!msg || (id && nla_put_u64(msg, FABRIQ_A_COMM_ID, id))) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	out_begin_array(NULL);
	err = fq_nl_request(msg, comm_print, &rec, status ? "comm status" : "comm show");
	comm_close_record(&rec);
	out_end_array();
	fq_nl_close();
	return err ? 1 : 0;
}

/**
 * comm_status_of() - `fabriq comm status id ID`, for a tool that holds
 * communicator @id open (bench, when a call failed: who held it up)
 * @id: the communicator
 *
 * Return: 0, or 1 if it could not ask.
 */
int comm_status_of(uint64_t id)
{
	char arg[24];
	char *argv[] = { "id", arg };

	snprintf(arg, sizeof(arg), "0x%llx", (unsigned long long)id);
	return comm_show(2, argv, true);
}

int do_comm(int argc, char **argv)
{
	if (argc == 0 || match(argv[0], "show") || match(argv[0], "list"))
		return comm_show(argc ? argc - 1 : 0, argc ? argv + 1 : argv, false);
	if (match(argv[0], "status"))
		return comm_show(argc - 1, argv + 1, true);
	if (match(argv[0], "help")) {
		comm_usage();
		return 0;
	}
	return usage_error("comm", "unknown command '%s' (valid: show, status, help)", argv[0]);
}
