// SPDX-License-Identifier: GPL-2.0
/*
 * qos_path.c - the port's QoS intent on fabriq's own rdma_cm connections
 * (collectives and ping): the traffic class is asked for before the route
 * is resolved, and on InfiniBand the service level replaces the one the
 * SA's path record chose, before the connect request carries it.  The
 * accepting side takes both from the request, so both directions of a
 * connection use them.  What a connection's route carries is read back
 * for `fabriq comm show`.
 *
 * Pure rdma_cm route handling, with no lock and no state of its own:
 * selftests/fabriq_qos_path builds this file in userspace against a
 * model of the route.
 */
#include <rdma/rdma_cm.h>

#include "qos_path.h"

/**
 * fabriq_qos_path_ask() - ask for @want's traffic class on @id
 * @id: an rdma_cm id whose address is resolved, route not yet
 * @want: the class of service wanted
 *
 * Context: process context.
 */
void fabriq_qos_path_ask(struct rdma_cm_id *id, const struct fabriq_qos_path *want)
{
	if (want->has_tclass)
		rdma_set_service_type(id, want->tclass);
}

/**
 * fabriq_qos_path_route() - put @want's service level on @id's route
 * @id: an rdma_cm id whose route is resolved, not yet connected
 * @want: the class of service wanted
 *
 * On an InfiniBand port every path of the route (primary, alternate, and
 * the outbound record when the SA gave one) gets @want->sl; rdma_connect()
 * then sends it in the connect request and puts it in the QP's address
 * vector.  On RoCE the service level follows the traffic class, and
 * nothing changes.
 *
 * Context: process context, before rdma_connect().
 */
void fabriq_qos_path_route(struct rdma_cm_id *id, const struct fabriq_qos_path *want)
{
	struct rdma_route *route = &id->route;
	int i;

	if (!want->has_sl || !rdma_protocol_ib(id->device, id->port_num) || !route->path_rec)
		return;
	for (i = 0; i < route->num_pri_alt_paths; i++)
		route->path_rec[i].sl = want->sl;
	if (route->path_rec_outbound)
		route->path_rec_outbound->sl = want->sl;
}

/**
 * fabriq_qos_path_used() - the class of service @id's route carries
 * @id: a connecting or connected rdma_cm id, either side
 * @used: its primary path's traffic class and service level; none of
 *	either before a route exists
 *
 * Context: any; the route must not change meanwhile (rdma_cm changes it
 * only while resolving or connecting, which the caller serialises).
 */
void fabriq_qos_path_used(const struct rdma_cm_id *id, struct fabriq_qos_path *used)
{
	const struct sa_path_rec *rec = id->route.path_rec;

	*used = (struct fabriq_qos_path){ };
	if (!rec || id->route.num_pri_alt_paths < 1)
		return;
	*used = (struct fabriq_qos_path){
		.tclass = rec->traffic_class, .has_tclass = true,
		.sl = rec->sl, .has_sl = true,
	};
}
