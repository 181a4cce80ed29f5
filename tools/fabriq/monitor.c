// SPDX-License-Identifier: GPL-2.0
/*
 * monitor.c - `fabriq monitor`: print events from the "events" group as
 * they happen, one line (or one JSON object) each.
 *
 *   fabriq monitor [count N]
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/genl/genl.h>

#include "fabriq.h"

void monitor_usage(void)
{
	fprintf(stdout,
		"Usage: fabriq monitor [count N]\n"
		"       fabriq monitor help\n"
		"where  N := events to print before exiting (1-%d; default: until interrupted)\n"
		"Events: dev-add, dev-del, dev-rename, port-change, qos-drift, qos-warn.\n"
		"Needs CAP_NET_ADMIN.\n",
		INT_MAX);
}

static const char *const event_names[] = {
	[FABRIQ_CMD_DEV_ADD_NTF] = "dev-add",
	[FABRIQ_CMD_DEV_DEL_NTF] = "dev-del",
	[FABRIQ_CMD_DEV_RENAME_NTF] = "dev-rename",
	[FABRIQ_CMD_PORT_CHANGE_NTF] = "port-change",
	[FABRIQ_CMD_QOS_DRIFT_NTF] = "qos-drift",
	[FABRIQ_CMD_QOS_WARN_NTF] = "qos-warn",
};

static long remaining = -1;

static int on_event(struct nl_msg *msg, void *arg)
{
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));

	if (gh->cmd >= sizeof(event_names) / sizeof(event_names[0]) || !event_names[gh->cmd])
		return 0;
	if (gh->cmd == FABRIQ_CMD_QOS_DRIFT_NTF || gh->cmd == FABRIQ_CMD_QOS_WARN_NTF)
		qos_event_print(msg, event_names[gh->cmd]);
	else
		dev_print(msg, event_names[gh->cmd]);
	return remaining > 0 && --remaining == 0;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

int do_monitor(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	int err;

	while (argc > 0) {
		if (match(argv[0], "help")) {
			monitor_usage();
			return 0;
		} else if (match(argv[0], "count")) {
			char *end;

			if (argc < 2)
				return usage_error("monitor", "count: missing value (valid: 1-%d)", INT_MAX);
			errno = 0;
			remaining = strtol(argv[1], &end, 10);
			if (errno || *end || end == argv[1] || remaining < 1 || remaining > INT_MAX) {
				fprintf(stderr, "%s: monitor: count '%s' is not valid (valid: 1-%d)\n",
					prog, argv[1], INT_MAX);
				return 1;
			}
			argc -= 2, argv += 2;
		} else {
			return usage_error("monitor", "unknown argument '%s' (valid: count, help)",
					   argv[0]);
		}
	}

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (fq_nl_open())
		return 1;
	if (fq_nl_subscribe_events()) {
		fq_nl_close();
		return 1;
	}
	err = fq_nl_listen(on_event, NULL, &stop);
	fq_nl_close();
	if (err) {
		fprintf(stderr, "%s: monitor: %s\n", prog, nl_geterror(err));
		return 1;
	}
	return 0;
}
