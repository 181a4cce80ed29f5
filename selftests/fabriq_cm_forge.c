// SPDX-License-Identifier: GPL-2.0
/*
 * fabriq_cm_forge - an impostor that speaks fabriq's connect handshake
 * (uapi/linux/fabriq_wire.h) with librdmacm instead of fabriq: it claims a
 * rank of a communicator and sends a request whose MAC is forged (random
 * bytes), or one of another version, or too short to be one.  It prints
 * what the listener answered:
 *
 *   refused: key        refused with fabriq's reason "the key is not proven"
 *   refused: version N  refused for speaking another version (N: the
 *                       listener's)
 *   refused: params     refused for another data path (chunk, channels...)
 *   ..., with its data path   the refusal told the listener's data path,
 *                       which only a key holder may learn
 *   refused             refused without a reason
 *   established         accepted (the attack worked)
 *   unreachable         no answer
 *
 * Or it plays the listening rank of a fabriq of another version: it takes
 * one connect request on ADDR:PORT and refuses it for its version, saying
 * it speaks VERSION; it prints "refused version V rank R" (the request's).
 *
 * Usage: fabriq_cm_forge SRC DST PORT ID RANK NRANKS [version N | short]
 *        fabriq_cm_forge listen ADDR PORT VERSION
 * Exit: 0 when it got an answer (refused a request), 1 when none came
 * (listen), 2 on a usage or set-up error.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>
#include <linux/fabriq_wire.h>

#define WAIT_MS 20000

static int parse_addr(const char *s, struct sockaddr_storage *ss, unsigned short port)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, s, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons(port);
		return 0;
	}
	if (inet_pton(AF_INET6, s, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		return 0;
	}
	return -1;
}

/* The next event of @ch, or NULL after WAIT_MS. */
static struct rdma_cm_event *next_event(struct rdma_event_channel *ch)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&pfd, 1, WAIT_MS) <= 0 || rdma_get_cm_event(ch, &ev))
		return NULL;
	return ev;
}

/* Wait for @want; any other event (or none) is an error. */
static int expect(struct rdma_event_channel *ch, enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev = next_event(ch);
	int ok;

	if (!ev)
		return -1;
	ok = ev->event == want;
	if (!ok)
		fprintf(stderr, "fabriq_cm_forge: %s, %s expected\n", rdma_event_str(ev->event),
			rdma_event_str(want));
	rdma_ack_cm_event(ev);
	return ok ? 0 : -1;
}

static void forge_mac(unsigned char *mac)
{
	int fd = open("/dev/urandom", O_RDONLY);

	if (fd < 0 || read(fd, mac, FABRIQ_CM_MAC_LEN) != FABRIQ_CM_MAC_LEN)
		memset(mac, 0xa5, FABRIQ_CM_MAC_LEN);
	if (fd >= 0)
		close(fd);
}

/*
 * Does a refusal tell the listener's data path?  Only a key holder may
 * learn it, and the forge holds no key.
 */
static int tells_data_path(const struct rdma_cm_event *ev)
{
	const struct fabriq_cm_rej *rej = ev->param.conn.private_data;

	return ev->param.conn.private_data_len >= sizeof(*rej) &&
	       (rej->chunk || rej->small_bytes || rej->channels || rej->algo);
}

/* What the listener's answer was. */
static const char *answer(struct rdma_cm_event *ev)
{
	static char said[64];
	const struct fabriq_cm_rej *rej = ev->param.conn.private_data;
	const char *leak = tells_data_path(ev) ? ", with its data path" : "";

	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		return "established";
	case RDMA_CM_EVENT_REJECTED:
		/* a refusal before version 4 has no version */
		if (!rej || ev->param.conn.private_data_len < 8 ||
		    ntohl(rej->magic) != FABRIQ_CM_REJ_MAGIC)
			return "refused";
		if (ntohl(rej->reason) == FABRIQ_CM_REJ_KEY) {
			snprintf(said, sizeof(said), "refused: key%s", leak);
			return said;
		}
		if (ntohl(rej->reason) == FABRIQ_CM_REJ_PARAMS)
			return "refused: params";
		if (ntohl(rej->reason) == FABRIQ_CM_REJ_VERSION &&
		    ev->param.conn.private_data_len >=
		    offsetof(struct fabriq_cm_rej, version) + sizeof(rej->version)) {
			snprintf(said, sizeof(said), "refused: version %u%s", ntohl(rej->version),
				 leak);
			return said;
		}
		return "refused";
	default:
		return "unreachable";
	}
}

/* listen ADDR PORT VERSION: refuse one request as a fabriq of VERSION would */
static int listen_refuse(char **argv)
{
	struct fabriq_cm_rej rej = {
		.magic = htonl(FABRIQ_CM_REJ_MAGIC),
		.reason = htonl(FABRIQ_CM_REJ_VERSION),
		.version = htonl(strtoul(argv[4], NULL, 0)),
	};
	const struct fabriq_cm_req *req;
	struct sockaddr_storage addr;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id, *conn = NULL;
	struct rdma_cm_event *ev;
	int rc = 0;

	if (parse_addr(argv[2], &addr, atoi(argv[3])))
		return fprintf(stderr, "fabriq_cm_forge: bad address\n"), 2;
	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(id, (struct sockaddr *)&addr) || rdma_listen(id, 4))
		return perror("fabriq_cm_forge: listen"), 2;
	ev = next_event(ch);
	if (!ev || ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
		printf("no request\n");
		rc = 1;
	} else {
		req = ev->param.conn.private_data;
		conn = ev->id;
		if (rdma_reject(conn, &rej, sizeof(rej))) {
			perror("fabriq_cm_forge: rdma_reject");
			rc = 2;
		} else if (req && ev->param.conn.private_data_len >= sizeof(*req)) {
			printf("refused version %u rank %u\n", ntohl(req->version),
			       ntohl(req->rank));
		} else {
			printf("refused a request of %u bytes\n", ev->param.conn.private_data_len);
		}
	}
	/* acked before the ids go: destroying an id waits for its events */
	if (ev)
		rdma_ack_cm_event(ev);
	if (conn)
		rdma_destroy_id(conn);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	return rc;
}

int main(int argc, char **argv)
{
	struct sockaddr_storage src, dst;
	struct fabriq_cm_req req = { 0 };
	struct rdma_conn_param param = { 0 };
	struct ibv_qp_init_attr qpa = { 0 };
	struct rdma_event_channel *ch;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	unsigned int version = FABRIQ_CM_VERSION;
	size_t len = sizeof(req);
	struct ibv_cq *cq;

	if (argc == 5 && !strcmp(argv[1], "listen"))
		return listen_refuse(argv);
	if (argc != 7 && argc != 8 && argc != 9) {
		fprintf(stderr, "usage: %s SRC DST PORT ID RANK NRANKS [version N | short]\n"
			"       %s listen ADDR PORT VERSION\n", argv[0], argv[0]);
		return 2;
	}
	if (argc >= 8 && !strcmp(argv[7], "short"))
		len = 8;
	else if (argc == 9 && !strcmp(argv[7], "version"))
		version = strtoul(argv[8], NULL, 0);
	else if (argc != 7)
		return fprintf(stderr, "fabriq_cm_forge: '%s': version N or short\n", argv[7]), 2;
	if (parse_addr(argv[1], &src, 0) || parse_addr(argv[2], &dst, atoi(argv[3])))
		return fprintf(stderr, "fabriq_cm_forge: bad address\n"), 2;
	req.version = htonl(version);
	req.comm_id = htobe64(strtoull(argv[4], NULL, 0));
	req.rank = htonl(strtoul(argv[5], NULL, 0));
	req.nranks = htonl(strtoul(argv[6], NULL, 0));
	req.chan = 0;
	forge_mac(req.mac);

	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		return perror("fabriq_cm_forge: rdma_create_id"), 2;
	if (rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000) ||
	    expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED) || rdma_resolve_route(id, 2000) ||
	    expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED))
		return fprintf(stderr, "fabriq_cm_forge: cannot resolve %s\n", argv[2]), 2;
	cq = ibv_create_cq(id->verbs, 4, NULL, NULL, 0);
	qpa.send_cq = cq;
	qpa.recv_cq = cq;
	qpa.qp_type = IBV_QPT_RC;
	qpa.cap.max_send_wr = 1;
	qpa.cap.max_recv_wr = 1;
	qpa.cap.max_send_sge = 1;
	qpa.cap.max_recv_sge = 1;
	if (!cq || rdma_create_qp(id, NULL, &qpa))
		return perror("fabriq_cm_forge: a QP"), 2;
	param.private_data = &req;
	param.private_data_len = len;
	param.retry_count = 1;
	param.rnr_retry_count = 1;
	if (rdma_connect(id, &param))
		return perror("fabriq_cm_forge: rdma_connect"), 2;
	ev = next_event(ch);
	printf("%s\n", ev ? answer(ev) : "unreachable");
	if (ev) {
		if (ev->event == RDMA_CM_EVENT_ESTABLISHED)
			rdma_disconnect(id);
		rdma_ack_cm_event(ev);
	}
	rdma_destroy_qp(id);
	ibv_destroy_cq(cq);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	return 0;
}
