// SPDX-License-Identifier: GPL-2.0
/*
 * fabriq_qos_path - unit test of kernel/qos/qos_path.c, built in userspace
 * against a model of the rdma_cm route (kshim/rdma/rdma_cm.h): the port's
 * "sl" intent reaches every path of an InfiniBand route and nothing of a
 * RoCE one, the SA's service level stays without an intent, the traffic
 * class is asked for only when there is one, and what a route carries is
 * read back (for `fabriq comm show`).  No IB fabric with an SA exists in
 * the test guests (rxe is RoCE, fabriq_sim's IB ports answer no CM MADs),
 * so the path setup is tested here and the RoCE end to end in
 * fabriq_coll.sh.
 */
#include "fq_tap.h"
#include <rdma/rdma_cm.h>
#include "../kernel/qos/qos_path.h"

/* a route as rdma_cm resolves it: @n paths of SL @sa_sl, a sentinel after */
struct model {
	struct ib_device dev;
	struct sa_path_rec rec[3];
	struct sa_path_rec outbound;
	struct rdma_cm_id id;
};

static void model_init(struct model *m, bool ib, int n, bool outbound, u8 sa_sl)
{
	int i;

	memset(m, 0, sizeof(*m));
	m->dev.ib = ib;
	m->id.device = &m->dev;
	m->id.port_num = 1;
	for (i = 0; i < 3; i++)
		m->rec[i] = (struct sa_path_rec){ .traffic_class = 0, .sl = i < n ? sa_sl : 0xee };
	m->outbound.sl = sa_sl;
	m->id.route.path_rec = n ? m->rec : NULL;
	m->id.route.num_pri_alt_paths = n;
	m->id.route.path_rec_outbound = outbound ? &m->outbound : NULL;
}

int main(void)
{
	const struct fabriq_qos_path sl5 = { .sl = 5, .has_sl = true };
	const struct fabriq_qos_path tc106 = { .tclass = 106, .has_tclass = true };
	const struct fabriq_qos_path none = { 0 };
	struct fabriq_qos_path used;
	struct model m;

	printf("TAP version 13\n1..13\n");

	model_init(&m, true, 1, false, 0);
	fabriq_qos_path_route(&m.id, &sl5);
	check("IB: the sl intent replaces the SA's service level", 5, m.rec[0].sl);
	check("... and writes no path the route does not have", 0xee, m.rec[1].sl);
	fabriq_qos_path_used(&m.id, &used);
	check("... and is what the route carries", 5, used.has_sl ? used.sl : -1);

	model_init(&m, true, 2, true, 2);
	fabriq_qos_path_route(&m.id, &sl5);
	check("IB with an alternate path: the primary gets it", 5, m.rec[0].sl);
	check("... the alternate too", 5, m.rec[1].sl);
	check("... and the SA's outbound record", 5, m.outbound.sl);
	check("... nothing past the route", 0xee, m.rec[2].sl);

	model_init(&m, true, 1, false, 3);
	fabriq_qos_path_route(&m.id, &none);
	check("IB without an sl intent: the SA's service level stays", 3, m.rec[0].sl);

	model_init(&m, false, 1, false, 0);
	fabriq_qos_path_route(&m.id, &sl5);
	check("RoCE: the sl intent changes nothing (priority follows the traffic class)", 0,
	      m.rec[0].sl);

	model_init(&m, false, 0, false, 0);
	fabriq_qos_path_ask(&m.id, &tc106);
	check("a tc intent is asked for before the route", 106, m.id.tos_set ? m.id.tos : -1);
	model_init(&m, false, 0, false, 0);
	fabriq_qos_path_ask(&m.id, &none);
	check("no tc intent: rdma_cm's default stays", 0, m.id.tos_set);

	model_init(&m, true, 0, false, 0);
	fabriq_qos_path_route(&m.id, &sl5);
	fabriq_qos_path_used(&m.id, &used);
	check("no route yet: nothing written, nothing carried", 0, used.has_sl || used.has_tclass);

	model_init(&m, false, 1, false, 0);
	m.rec[0].traffic_class = 106;
	fabriq_qos_path_used(&m.id, &used);
	check("the traffic class a route carries is read back", 106,
	      used.has_tclass ? used.tclass : -1);
	return tap_totals();
}
