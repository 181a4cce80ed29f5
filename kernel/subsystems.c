// SPDX-License-Identifier: GPL-2.0
/*
 * subsystems.c - the subsystems of fabriq.ko, in init order: the one place
 * that names them all.
 *
 * The core (kernel/core/) includes no subsystem header; it reaches each
 * subsystem through its struct fabriq_subsys (core/subsys.h).  Order
 * matters: init and start run in this order, stop and exit in reverse, and
 * a device's dev_remove hooks run in reverse, so communicators (coll) let
 * go of a device before its samplers (telemetry) stop.
 */
#include <linux/build_bug.h>
#include <linux/kernel.h>

#include "core/subsys.h"
#include "telemetry/telemetry.h"
#include "qos/qos.h"
#include "ping/ping.h"
#include "coll/comm.h"

struct fabriq_subsys *const fabriq_subsystems[] = {
	&fq_telemetry_subsys,
	&fabriq_qos_subsys,
	&fabriq_ping_subsys,
	&fq_coll_subsys,
};

const unsigned int fabriq_n_subsystems = ARRAY_SIZE(fabriq_subsystems);
static_assert(ARRAY_SIZE(fabriq_subsystems) <= FABRIQ_SUBSYS_MAX);
