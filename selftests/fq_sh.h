/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fq_sh.h - run a shell command with the selftests' lib.sh sourced, so C
 * tests set up devices (fq_insmod, fq_sim_new, fq_veth_add...) the same
 * way the shell tests do.  lib.sh is found next to the test binary.
 */
#ifndef FQ_SH_H
#define FQ_SH_H

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Returns system()'s status, or -1 if lib.sh cannot be located. */
static inline int fq_sh(const char *cmd)
{
	static char lib[512];
	char exe[512], buf[2048];
	ssize_t n;

	if (!lib[0]) {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n <= 0)
			return -1;
		exe[n] = '\0';
		snprintf(lib, sizeof(lib), "%s/lib.sh", dirname(exe));
	}
	snprintf(buf, sizeof(buf), "bash -c '. %s; %s'", lib, cmd);
	return system(buf);
}

#endif
