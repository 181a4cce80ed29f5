// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - the fabriq CLI's entry: global options and object dispatch.
 *
 * Grammar: fabriq [OPTIONS] OBJECT { COMMAND | help }.  Keywords match
 * exactly; anything unknown is named in the error, which goes to stderr
 * with a non-zero exit status.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabriq.h"

const char *prog = "fabriq";

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: fabriq [OPTIONS] OBJECT { COMMAND | help }\n"
		"       fabriq help\n"
		"where  OBJECT := { dev | qos | ping | monitor | bench | comm | stats | top }\n"
		"       OPTIONS := { -j[son] | -p[retty] | -V[ersion] | -h[elp] }\n"
		"\n"
		"  -j, -json     JSON output\n"
		"  -p, -pretty   indented JSON output (implies -j)\n"
		"  -V, -Version  print the version\n");
}

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} objects[] = {
	{ "dev", do_dev },
	{ "qos", do_qos },
	{ "ping", do_ping },
	{ "monitor", do_monitor },
	{ "bench", do_bench },
	{ "comm", do_comm },
	{ "stats", do_stats },
	{ "top", do_top },
};

int main(int argc, char **argv)
{
	enum out_mode mode = OUT_TEXT;
	size_t i;

	for (argc--, argv++; argc > 0 && argv[0][0] == '-'; argc--, argv++) {
		const char *opt = argv[0] + (argv[0][1] == '-' ? 2 : 1);

		if (match(opt, "j") || match(opt, "json")) {
			if (mode == OUT_TEXT)
				mode = OUT_JSON;
		} else if (match(opt, "p") || match(opt, "pretty")) {
			mode = OUT_JSON_PRETTY;
		} else if (match(opt, "V") || match(opt, "Version") || match(opt, "version")) {
			printf("fabriq %s (uapi family %s version %d)\n",
			       FABRIQ_VERSION, FABRIQ_GENL_NAME, FABRIQ_GENL_VERSION);
			return 0;
		} else if (match(opt, "h") || match(opt, "help")) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "%s: unknown option '%s' (valid: -j, -p, -V, -h)\n",
				prog, argv[0]);
			return 1;
		}
	}
	out_init(mode);

	if (argc == 0 || match(argv[0], "help")) {
		usage(argc == 0 ? stderr : stdout);
		return argc == 0;
	}
	for (i = 0; i < sizeof(objects) / sizeof(objects[0]); i++)
		if (match(argv[0], objects[i].name))
			return objects[i].run(argc - 1, argv + 1);

	fprintf(stderr, "%s: unknown object '%s' (valid: dev, qos, ping, monitor, bench, comm, stats, top)\n"
		"Try '%s help'.\n",
		prog, argv[0], prog);
	return 1;
}
