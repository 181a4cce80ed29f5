// SPDX-License-Identifier: GPL-2.0
/*
 * qos.c - `fabriq qos`: fabric QoS held by fabriq.ko as intent per port.
 *
 *   fabriq qos show [dev DEV [port N]]
 *   fabriq qos set dev DEV [port N] SETTING...
 *   fabriq qos apply -f FILE [dev DEV | present]
 *   fabriq qos save [-f FILE]
 *   fabriq qos export opensm dev DEV [port N]
 *
 * show prints intent and read-back side by side in aligned columns; the
 * FIELD and INTENT cells of each row are valid `qos set` input.  apply
 * checks every line with the kernel (validate-only) before it changes
 * anything.  save writes every port's intent as an apply file, which
 * fabriq-qos.service applies again at boot.  qos_event_print() is how
 * `fabriq monitor` shows drift and coherence events.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <netlink/genl/genl.h>

#include "fabriq.h"
#include "qos.h"

#define QOS_MAX_PORTS	256
#define QOS_VAL_LEN	512
#define QOS_SAVE_DIR	"/etc/fabriq"
#define QOS_SAVE_FILE	QOS_SAVE_DIR "/qos.conf"	/* fabriq-qos.service applies it */

void qos_usage(void)
{
	fprintf(stdout,
		"Usage: fabriq qos show [dev DEV [port N]]\n"
		"       fabriq qos set dev DEV [port N] SETTING...\n"
		"       fabriq qos apply -f FILE [dev DEV | present]\n"
		"       fabriq qos save [-f FILE]\n"
		"       fabriq qos export opensm dev DEV [port N]\n"
		"       fabriq qos help\n"
		"where  SETTING := InfiniBand ports:\n"
		"                    sl2vl SL:VL,...  vlarb-high VL:WEIGHT,...|none\n"
		"                    vlarb-low VL:WEIGHT,...|none  vl-high-limit 0-255\n"
		"                    oper-vls 1|2|4|8|15  sl 0-15\n"
		"                  RoCE ports:\n"
		"                    pfc PRIO,...|none  trust pcp|dscp  dscp-prio DSCP:PRIO,...|none\n"
		"                    ets [prio-tc PRIO:TC,...] [tc-bw TC:PCT,...]"
		" [tc-tsa TC:strict|cbs|ets|vendor,...]\n"
		"                    ecn prio 0-7 min SIZE max SIZE prob 1-100 | ecn prio 0-7 off\n"
		"                    tc 0-255\n"
		"       SL 0-15, VL 0-14 (below oper-vls), WEIGHT 0-255, PRIO and TC 0-7,\n"
		"       DSCP 0-63, SIZE bytes with K or M (1024), port defaults to 1.\n"
		"       FILE holds one 'dev DEV [port N] SETTING...' per line; # starts a comment;\n"
		"       - is standard input or output.  apply with 'dev DEV' applies DEV's lines only,\n"
		"       with 'present' the lines of the devices that are here (the others: a note).\n"
		"       save writes every port's intent as such a file (default " QOS_SAVE_FILE "),\n"
		"       which fabriq-qos.service applies at boot.\n"
		"       sl2vl and ets change only the entries given; the other lists replace.\n"
		"       A running subnet manager may overwrite SL2VL and VLArb tables;\n"
		"       'export opensm' prints them as opensm.conf settings.\n");
}

/* ---- talking to the kernel ---- */

struct port_list {
	struct qos_port *p;
	int n;
	const char *dev;	/* only this device, or NULL */
};

static int collect_port(struct nl_msg *msg, void *arg)
{
	struct port_list *l = arg;
	struct qos_port *p;

	if (l->n >= QOS_MAX_PORTS)
		return 0;
	p = &l->p[l->n];
	if (qos_port_from_msg(msg, p))
		return 0;
	if (!l->dev || !strcmp(l->dev, p->dev))
		l->n++;
	return 0;
}

static struct nl_msg *qos_msg(uint8_t cmd, int flags, const char *dev, uint32_t port)
{
	struct nl_msg *msg = fq_nl_new(cmd, flags);

	if (!msg)
		return NULL;
	if (dev && (nla_put_string(msg, FABRIQ_A_QOS_DEV_NAME, dev) ||
		    nla_put_u32(msg, FABRIQ_A_QOS_PORT, port))) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* QOS_GET of one port into @p; prints the error. */
static int qos_get_port(const char *dev, uint32_t port, struct qos_port *p, const char *what)
{
	struct port_list l = { .p = p, .dev = dev };
	struct nl_msg *msg = qos_msg(FABRIQ_CMD_QOS_GET, 0, dev, port);
	int err;

	if (!msg)
		return -ENOMEM;
	err = fq_nl_request(msg, collect_port, &l, what);
	if (!err && l.n != 1)
		err = -EIO;
	return err;
}

static int qos_send_set(const char *dev, uint32_t port, const struct qos_cfg *req,
			bool validate_only, const char *what)
{
	struct nl_msg *msg = qos_msg(FABRIQ_CMD_QOS_SET, 0, dev, port);

	if (!msg || qos_cfg_put(msg, FABRIQ_A_QOS_INTENT, req) ||
	    (validate_only && nla_put_flag(msg, FABRIQ_A_QOS_VALIDATE_ONLY))) {
		nlmsg_free(msg);
		fprintf(stderr, "%s: %s: out of memory\n", prog, what);
		return -ENOMEM;
	}
	return fq_nl_request(msg, NULL, NULL, what);
}

/* "dev DEV [port N]" at argv; returns the words used or -1. */
static int parse_selector(int argc, char **argv, const char **dev, uint32_t *port,
			  bool port_optional, const char *where)
{
	uint64_t v;
	int used = 0;

	*dev = NULL;
	*port = 1;
	if (argc >= 2 && match(argv[0], "dev")) {
		if (!argv[1][0] || strlen(argv[1]) >= FABRIQ_DEV_NAME_MAX) {
			fprintf(stderr, "%s: %s: dev: name '%s' is %zu characters (valid: 1-%d)\n",
				prog, where, argv[1], strlen(argv[1]), FABRIQ_DEV_NAME_MAX - 1);
			return -1;
		}
		*dev = argv[1];
		used = 2;
	} else {
		fprintf(stderr, "%s: %s: expected 'dev DEV' first\n", prog, where);
		return -1;
	}
	if (argc - used >= 2 && match(argv[used], "port")) {
		if (!fq_parse_u64(argv[used + 1], 10, 1, 255, &v)) {
			fprintf(stderr, "%s: %s: port: '%s' is not a port number (valid: 1-255)\n",
				prog, where, argv[used + 1]);
			return -1;
		}
		*port = v;
		used += 2;
	} else if (!port_optional) {
		*port = 0;
	}
	return used;
}

/* ---- show ---- */

static const char *link_word(uint8_t ll)
{
	return fq_link_layer_name(ll);
}

/* Rows of the text table of one port: FIELD, INTENT, HARDWARE, drift mark. */
struct show_rows {
	int n;
	struct {
		char name[32];
		char intent[QOS_VAL_LEN];
		char hw[QOS_VAL_LEN];
		bool drift;
	} r[FABRIQ_QOS_F_NUM + FABRIQ_QOS_NUM_PRIO + 1];
};

static void show_add(struct show_rows *t, const char *name, const char *intent,
		     const char *hw, bool drift)
{
	snprintf(t->r[t->n].name, sizeof(t->r[t->n].name), "%s", name);
	snprintf(t->r[t->n].intent, sizeof(t->r[t->n].intent), "%s", intent);
	snprintf(t->r[t->n].hw, sizeof(t->r[t->n].hw), "%s", hw);
	t->r[t->n].drift = drift;
	t->n++;
}

/* Columns as wide as their widest cell, so every row lines up. */
static void show_print(const struct show_rows *t)
{
	int i, wn = 0, wi = 0, l;

	for (i = 0; i < t->n; i++) {
		l = strlen(t->r[i].name);
		wn = l > wn ? l : wn;
		l = strlen(t->r[i].intent);
		wi = l > wi ? l : wi;
	}
	for (i = 0; i < t->n; i++)
		out_text("%-*s  %-*s  %s%s\n", wn, t->r[i].name, wi, t->r[i].intent, t->r[i].hw,
			 t->r[i].drift ? "  <- drift" : "");
}

static void json_field(const char *key, const struct qos_cfg *c, int f)
{
	char buf[QOS_VAL_LEN];

	if (!(c->present & QOS_BIT(f)))
		return;
	qos_fmt_field(buf, sizeof(buf), c, f);
	out_str(key, NULL, buf);
}

static void json_cfg(const char *key, const struct qos_cfg *c)
{
	char buf[QOS_VAL_LEN], name[32];
	int f, p;

	out_begin_object(key);
	for (f = 0; f < FABRIQ_QOS_F_NUM; f++)
		if (f != FABRIQ_QOS_F_ECN)
			json_field(qos_field_names[f], c, f);
	for (p = 0; p < FABRIQ_QOS_NUM_PRIO; p++) {
		if (!(c->ecn_prios & (1u << p)))
			continue;
		snprintf(name, sizeof(name), "ecn prio %d", p);
		qos_fmt_ecn(buf, sizeof(buf), c, p);
		out_str(name, NULL, buf);
	}
	out_end_object();
}

static void show_port(const struct qos_port *p, struct show_rows *rows)
{
	bool ib = p->link_layer == FABRIQ_LINK_LAYER_INFINIBAND;
	char a[QOS_VAL_LEN], b[QOS_VAL_LEN], name[32];
	int f, prio;

	out_begin_object(NULL);
	out_str("dev", "dev %s ", p->dev);
	out_uint("port", "port %llu ", p->port);
	out_str("link_layer", "link_layer %s", link_word(p->link_layer));
	if (ib) {
		out_uint("vl_cap", " vl-cap %llu", p->vl_cap);
		out_uint("vlarb_high_cap", " vlarb-high-cap %llu", p->vlarb_high_cap);
		out_uint("vlarb_low_cap", " vlarb-low-cap %llu", p->vlarb_low_cap);
	} else {
		if (p->netdev[0])
			out_str("netdev", " netdev %s", p->netdev);
		if (p->ecn_backend[0])
			out_str("ecn_backend", " ecn-backend %s", p->ecn_backend);
	}
	out_text("\n");
	if (out_is_json()) {
		json_cfg("intent", &p->intent);
		json_cfg("hardware", &p->hw);
		out_begin_array("drift");
		for (f = 0; f < FABRIQ_QOS_F_NUM; f++)
			if (p->drift & QOS_BIT(f))
				out_str(NULL, NULL, qos_field_names[f]);
		out_end_array();
		if (p->warning[0])
			out_str("warning", NULL, p->warning);
		out_end_object();
		return;
	}
	rows->n = 0;
	show_add(rows, "FIELD", "INTENT", "HARDWARE", false);
	for (f = 0; f < FABRIQ_QOS_F_NUM; f++) {
		if (f == FABRIQ_QOS_F_ECN || ib != !!(QOS_IB_FIELDS & QOS_BIT(f)))
			continue;
		qos_fmt_field(a, sizeof(a), &p->intent, f);
		if (f == FABRIQ_QOS_F_TCLASS)
			snprintf(b, sizeof(b), "(fabriq's own QPs)");
		else if (f == FABRIQ_QOS_F_SL)
			snprintf(b, sizeof(b), "(held by fabriq)");
		else
			qos_fmt_field(b, sizeof(b), &p->hw, f);
		show_add(rows, qos_field_names[f], a, b, p->drift & QOS_BIT(f));
	}
	for (prio = 0; !ib && prio < FABRIQ_QOS_NUM_PRIO; prio++) {
		if (!((p->intent.ecn_prios | p->hw.ecn_prios) & (1u << prio)))
			continue;
		snprintf(name, sizeof(name), "ecn prio %d", prio);
		qos_fmt_ecn(a, sizeof(a), &p->intent, prio);
		qos_fmt_ecn(b, sizeof(b), &p->hw, prio);
		show_add(rows, name, a, b, (p->drift & QOS_BIT(FABRIQ_QOS_F_ECN)) &&
			 (p->intent.ecn_prios & (1u << prio)) && strcmp(a, b));
	}
	show_print(rows);
	if (p->warning[0])
		out_text("warning: %s\n", p->warning);
	out_end_object();
}

/*
 * The ports of @dev (every device's: NULL), port @port (every one: 0),
 * into @l->p (freed by the caller); prints the error.  Return: 0 or -errno.
 */
static int qos_get_ports(const char *dev, uint32_t port, struct port_list *l, const char *what)
{
	struct nl_msg *msg;
	int err;

	l->p = calloc(QOS_MAX_PORTS, sizeof(*l->p));
	if (!l->p)
		return -ENOMEM;
	if (fq_nl_open())
		return -EIO;
	l->dev = dev;
	msg = port ? qos_msg(FABRIQ_CMD_QOS_GET, 0, dev, port) :
		     fq_nl_new(FABRIQ_CMD_QOS_GET, NLM_F_DUMP);
	err = msg ? fq_nl_request(msg, collect_port, l, what) : -ENOMEM;
	fq_nl_close();
	if (!err && dev && !l->n) {
		fprintf(stderr, "%s: %s: no RDMA device named '%s' (see 'fabriq dev')\n",
			prog, what, dev);
		err = -ENODEV;
	}
	return err;
}

static int qos_show(int argc, char **argv)
{
	struct show_rows *rows;
	struct port_list l = {};
	const char *dev = NULL;
	uint32_t port = 0;
	int used, err, i;

	if (argc > 0) {
		used = parse_selector(argc, argv, &dev, &port, false, "qos show");
		if (used < 0)
			return 1;
		if (argc > used)
			return usage_error("qos", "show: unexpected argument '%s'", argv[used]);
	}
	err = qos_get_ports(dev, port, &l, "qos show");
	rows = malloc(sizeof(*rows));
	if (!err && !rows)
		err = -ENOMEM;
	if (!err) {
		out_begin_array(NULL);
		for (i = 0; i < l.n; i++) {
			if (i)
				out_text("\n");
			show_port(&l.p[i], rows);
		}
		out_end_array();
	}
	free(rows);
	free(l.p);
	return err ? 1 : 0;
}

/* ---- set ---- */

static void sm_note(const struct qos_cfg *req, const char *dev)
{
	if (!(req->present & QOS_IB_FIELDS & ~QOS_BIT(FABRIQ_QOS_F_SL)))
		return;
	fprintf(stderr, "%s: note: a running subnet manager may overwrite SL2VL, VLArb and "
		"PortInfo settings; 'fabriq qos export opensm dev %s' prints them for "
		"opensm.conf\n", prog, dev);
}

static int qos_set(int argc, char **argv)
{
	struct qos_cfg req = {};
	struct qos_port cur;
	const char *dev;
	uint32_t port;
	int used, err;

	used = parse_selector(argc, argv, &dev, &port, true, "qos set");
	if (used < 0)
		return 1;
	if (fq_nl_open())
		return 1;
	err = qos_get_port(dev, port, &cur, "qos set");
	if (!err && qos_parse_settings(argc - used, argv + used, &cur, &req, "qos set"))
		err = -EINVAL;
	else if (!err)
		err = qos_send_set(dev, port, &req, false, "qos set");
	fq_nl_close();
	if (!err)
		sm_note(&req, dev);
	return err ? 1 : 0;
}

/* ---- apply ---- */

struct apply_port {
	char dev[FABRIQ_DEV_NAME_MAX];
	uint32_t port;
	struct qos_port cur;
	struct qos_cfg req;	/* every line for this port so far */
};

/* Merge @line into @acc: fields of @line replace those of @acc. */
static void req_merge(struct qos_cfg *acc, const struct qos_cfg *line)
{
	struct qos_port tmp = { .hw = *acc, .intent = *line };

	qos_effective(&tmp, acc);
}

static int split_words(char *line, char **words, int max)
{
	char *save = NULL, *w;
	int n = 0;

	for (w = strtok_r(line, " \t\r\n", &save); w && n < max;
	     w = strtok_r(NULL, " \t\r\n", &save)) {
		if (w[0] == '#')
			break;
		words[n++] = w;
	}
	return n;
}

static struct apply_port *apply_port_find(struct apply_port *ports, int *n, const char *dev,
					  uint32_t port, const char *where)
{
	int i;

	for (i = 0; i < *n; i++)
		if (ports[i].port == port && !strcmp(ports[i].dev, dev))
			return &ports[i];
	if (*n >= QOS_MAX_PORTS) {
		fprintf(stderr, "%s: %s: more than %d ports in one file\n", prog, where,
			QOS_MAX_PORTS);
		return NULL;
	}
	memset(&ports[*n], 0, sizeof(ports[*n]));
	snprintf(ports[*n].dev, sizeof(ports[*n].dev), "%s", dev);
	ports[*n].port = port;
	if (qos_get_port(dev, port, &ports[*n].cur, where))
		return NULL;
	return &ports[(*n)++];
}

/* Which lines apply applies: every one, one device's, or the present devices'. */
struct apply_filter {
	const char *dev;		/* this device's alone, or NULL */
	struct port_list present;	/* with .p: the devices here now */
};

static bool apply_wants(const struct apply_filter *w, const char *dev, const char *where)
{
	int i;

	if (w->dev)
		return !strcmp(dev, w->dev);
	if (!w->present.p)
		return true;
	for (i = 0; i < w->present.n; i++)
		if (!strcmp(w->present.p[i].dev, dev))
			return true;
	fprintf(stderr, "%s: note: %s: no RDMA device %s here now, skipped\n", prog, where, dev);
	return false;
}

/*
 * Parse and validate every line that @w wants; nothing is changed.
 * Returns 0 or -1.
 */
static int apply_check(FILE *f, const char *file, const struct apply_filter *w,
		       struct apply_port *ports, int *nports)
{
	char line[4096], where[512], *words[256];
	struct qos_cfg req;
	struct apply_port *ap;
	const char *dev;
	uint32_t port;
	int lineno = 0, n, used;

	while (fgets(line, sizeof(line), f)) {
		lineno++;
		snprintf(where, sizeof(where), "%s:%d", file, lineno);
		n = split_words(line, words, 256);
		if (n == 0)
			continue;
		if (match(words[0], "qos") && n > 1 && match(words[1], "set")) {
			memmove(words, words + 2, (n - 2) * sizeof(words[0]));
			n -= 2;
		}
		used = parse_selector(n, words, &dev, &port, true, where);
		if (used < 0)
			return -1;
		if (!apply_wants(w, dev, where))
			continue;
		ap = apply_port_find(ports, nports, dev, port, where);
		if (!ap)
			return -1;
		memset(&req, 0, sizeof(req));
		if (qos_parse_settings(n - used, words + used, &ap->cur, &req, where))
			return -1;
		req_merge(&ap->req, &req);
		/* the kernel judges the port's lines so far, as they will be sent */
		if (qos_send_set(ap->dev, ap->port, &ap->req, true, where))
			return -1;
		/* later lines on this port build on this one */
		req_merge(&ap->cur.intent, &req);
	}
	return 0;
}

static int qos_apply(int argc, char **argv)
{
	struct apply_filter w = {};
	struct apply_port *ports;
	int nports = 0, i, err = 0;
	const char *file;
	FILE *f;

	if (argc < 2 || argc > 4 || !match(argv[0], "-f"))
		return usage_error("qos", "apply: expected '-f FILE [dev DEV | present]'");
	if (argc == 4 && match(argv[2], "dev"))
		w.dev = argv[3];
	else if (argc == 3 && match(argv[2], "present"))
		err = qos_get_ports(NULL, 0, &w.present, "qos apply");
	else if (argc > 2)
		return usage_error("qos", "apply: expected 'dev DEV' or 'present' after FILE, got '%s'",
				   argv[2]);
	if (err) {
		free(w.present.p);
		return 1;
	}
	file = argv[1];
	f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	if (!f) {
		fprintf(stderr, "%s: qos apply: cannot open '%s': %s\n", prog, file,
			strerror(errno));
		free(w.present.p);
		return 1;
	}
	ports = calloc(QOS_MAX_PORTS, sizeof(*ports));
	if (!ports || fq_nl_open()) {
		free(ports);
		free(w.present.p);
		if (f != stdin)
			fclose(f);
		return 1;
	}
	if (apply_check(f, file, &w, ports, &nports)) {
		fprintf(stderr, "%s: qos apply: nothing was changed\n", prog);
		err = 1;
	} else if (w.dev && !nports) {
		fprintf(stderr, "%s: note: qos apply: %s has no line of dev %s\n", prog, file,
			w.dev);
	}
	for (i = 0; !err && i < nports; i++) {
		char what[128];

		snprintf(what, sizeof(what), "qos apply: dev %s port %u", ports[i].dev,
			 ports[i].port);
		if (qos_send_set(ports[i].dev, ports[i].port, &ports[i].req, false, what)) {
			fprintf(stderr, "%s: qos apply: %d of %d ports were changed before this\n",
				prog, i, nports);
			err = 1;
		} else {
			sm_note(&ports[i].req, ports[i].dev);
		}
	}
	fq_nl_close();
	free(ports);
	free(w.present.p);
	if (f != stdin)
		fclose(f);
	return err;
}

/* ---- save ---- */

/*
 * The intent of @p as one `qos apply` line: the kernel judges a line with
 * the port's lines before it, so settings that depend on each other (ETS
 * bandwidths on their TSAs, SL2VL on OperVLs) go together.
 */
static void save_port(FILE *f, const struct qos_port *p)
{
	const struct qos_cfg *c = &p->intent;
	char v[QOS_VAL_LEN];
	int field, prio;

	if (!c->present && !c->ecn_prios) {
		fprintf(f, "# dev %s port %u: no intent\n", p->dev, p->port);
		return;
	}
	fprintf(f, "dev %s port %u", p->dev, p->port);
	for (field = 0; field < FABRIQ_QOS_F_NUM; field++) {
		if (field == FABRIQ_QOS_F_ECN || !(c->present & QOS_BIT(field)))
			continue;
		qos_fmt_field(v, sizeof(v), c, field);
		fprintf(f, " %s %s", qos_field_names[field], v);
	}
	for (prio = 0; prio < FABRIQ_QOS_NUM_PRIO; prio++) {
		if (!(c->ecn_prios & (1u << prio)))
			continue;
		qos_fmt_ecn(v, sizeof(v), c, prio);
		fprintf(f, " ecn prio %d %s", prio, v);
	}
	fprintf(f, "\n");
}

static void save_all(FILE *f, const struct port_list *l)
{
	char when[64];
	time_t now = time(NULL);
	int i;

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %z", localtime(&now));
	fprintf(f, "# fabriq QoS intent of every port, written by 'fabriq qos save' at %s.\n"
		"# 'fabriq qos apply -f FILE' sets it again (fabriq-qos.service does, at boot).\n",
		when);
	for (i = 0; i < l->n; i++)
		save_port(f, &l->p[i]);
}

/*
 * @l into @file, atomically: a file in the same directory, renamed over
 * @file once it is complete.  Return: 0, or -1 with the error printed.
 */
static int save_file(const char *file, const struct port_list *l)
{
	char *tmp;
	FILE *f = NULL;
	int fd, err;

	if (!strcmp(file, QOS_SAVE_FILE) && mkdir(QOS_SAVE_DIR, 0755) && errno != EEXIST) {
		fprintf(stderr, "%s: qos save: cannot create %s: %s\n", prog, QOS_SAVE_DIR,
			strerror(errno));
		return -1;
	}
	tmp = malloc(strlen(file) + sizeof(".XXXXXX"));
	if (!tmp)
		return -1;
	sprintf(tmp, "%s.XXXXXX", file);
	fd = mkstemp(tmp);
	if (fd >= 0 && !fchmod(fd, 0644))
		f = fdopen(fd, "w");
	if (f) {
		save_all(f, l);
		err = fflush(f) || fsync(fd);
		err = fclose(f) || err;
		if (!err)
			err = rename(tmp, file);
	} else {
		err = -1;
		if (fd >= 0)
			close(fd);
	}
	if (err) {
		fprintf(stderr, "%s: qos save: cannot write '%s': %s\n", prog, file,
			strerror(errno));
		if (fd >= 0)
			unlink(tmp);
	}
	free(tmp);
	return err ? -1 : 0;
}

static int qos_save(int argc, char **argv)
{
	const char *file = QOS_SAVE_FILE;
	struct port_list l = {};
	int err;

	if (argc == 2 && match(argv[0], "-f"))
		file = argv[1];
	else if (argc)
		return usage_error("qos", "save: expected '[-f FILE]', got '%s'", argv[0]);
	err = qos_get_ports(NULL, 0, &l, "qos save");
	if (!err && !strcmp(file, "-"))
		save_all(stdout, &l);
	else if (!err)
		err = save_file(file, &l);
	free(l.p);
	return err ? 1 : 0;
}

/* ---- export ---- */

static void print_opensm_vlarb(const char *key, const struct qos_vlarb *t)
{
	int i;

	printf("%s ", key);
	for (i = 0; i < t->len; i++)
		printf("%s%u:%u", i ? "," : "", t->vl[i], t->weight[i]);
	printf("%s\n", t->len ? "" : "0:0");
}

static int qos_export(int argc, char **argv)
{
	struct qos_port p;
	struct qos_cfg eff;
	const char *dev;
	uint32_t port;
	int used, err, i;

	if (argc < 1 || !match(argv[0], "opensm"))
		return usage_error("qos", "export: expected 'opensm' (the only format)");
	used = parse_selector(argc - 1, argv + 1, &dev, &port, true, "qos export");
	if (used < 0)
		return 1;
	if (argc - 1 > used)
		return usage_error("qos", "export: unexpected argument '%s'", argv[used + 1]);
	if (fq_nl_open())
		return 1;
	err = qos_get_port(dev, port, &p, "qos export");
	fq_nl_close();
	if (err)
		return 1;
	if (p.link_layer != FABRIQ_LINK_LAYER_INFINIBAND) {
		fprintf(stderr, "%s: qos export: %s port %u is %s; opensm settings exist for "
			"InfiniBand ports only\n", prog, dev, port, link_word(p.link_layer));
		return 1;
	}
	qos_effective(&p, &eff);
	printf("# opensm.conf QoS for channel adapters, from fabriq's intent for %s port %u\n"
	       "# (read-back values where fabriq holds no intent)\n", dev, port);
	printf("qos TRUE\n");
	if (eff.present & QOS_BIT(FABRIQ_QOS_F_OPER_VLS))
		printf("qos_ca_max_vls %u\n", eff.oper_vls);
	if (eff.present & QOS_BIT(FABRIQ_QOS_F_VL_HIGH_LIMIT))
		printf("qos_ca_high_limit %u\n", eff.vl_high_limit);
	if (eff.present & QOS_BIT(FABRIQ_QOS_F_VLARB_HIGH))
		print_opensm_vlarb("qos_ca_vlarb_high", &eff.vlarb_high);
	if (eff.present & QOS_BIT(FABRIQ_QOS_F_VLARB_LOW))
		print_opensm_vlarb("qos_ca_vlarb_low", &eff.vlarb_low);
	if (eff.present & QOS_BIT(FABRIQ_QOS_F_SL2VL)) {
		printf("qos_ca_sl2vl ");
		for (i = 0; i < FABRIQ_QOS_NUM_SL; i++)
			printf("%s%u", i ? "," : "", eff.sl2vl[i]);
		printf("\n");
	}
	return 0;
}

/* ---- events ---- */

/* Print a QOS_DRIFT_NTF or QOS_WARN_NTF for `fabriq monitor`. */
int qos_event_print(struct nl_msg *msg, const char *event)
{
	struct nlattr *tb[FABRIQ_A_QOS_MAX + 1];
	static struct nla_policy pol[FABRIQ_A_QOS_MAX + 1] = {
		[FABRIQ_A_QOS_DEV_NAME] = { .type = NLA_STRING },
		[FABRIQ_A_QOS_PORT] = { .type = NLA_U32 },
		[FABRIQ_A_QOS_FIELD] = { .type = NLA_STRING },
		[FABRIQ_A_QOS_MESSAGE] = { .type = NLA_STRING },
	};

	if (fq_nl_parse(msg, tb, FABRIQ_A_QOS_MAX, pol) || !tb[FABRIQ_A_QOS_DEV_NAME] ||
	    !tb[FABRIQ_A_QOS_PORT])
		return -1;
	out_begin_object(NULL);
	out_str("event", "[%s] ", event);
	out_str("dev", "dev %s ", nla_get_string(tb[FABRIQ_A_QOS_DEV_NAME]));
	out_uint("port", "port %llu ", nla_get_u32(tb[FABRIQ_A_QOS_PORT]));
	if (tb[FABRIQ_A_QOS_FIELD])
		out_str("field", "field %s ", nla_get_string(tb[FABRIQ_A_QOS_FIELD]));
	if (tb[FABRIQ_A_QOS_MESSAGE])
		out_str("message", "message \"%s\"", nla_get_string(tb[FABRIQ_A_QOS_MESSAGE]));
	out_end_record();
	return 0;
}

int do_qos(int argc, char **argv)
{
	if (argc == 0 || match(argv[0], "show") || match(argv[0], "list"))
		return qos_show(argc ? argc - 1 : 0, argc ? argv + 1 : argv);
	if (match(argv[0], "set"))
		return qos_set(argc - 1, argv + 1);
	if (match(argv[0], "apply"))
		return qos_apply(argc - 1, argv + 1);
	if (match(argv[0], "save"))
		return qos_save(argc - 1, argv + 1);
	if (match(argv[0], "export"))
		return qos_export(argc - 1, argv + 1);
	if (match(argv[0], "help")) {
		qos_usage();
		return 0;
	}
	return usage_error("qos", "unknown command '%s' (valid: show, set, apply, save, export, help)",
			   argv[0]);
}
