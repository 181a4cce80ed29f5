// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ports.c - this host's RDMA devices and the IPv4 address a communicator
 * reaches each by: the address of the netdev behind the GID table of the
 * device's first active port (RoCE), as sysfs (/sys/class/infiniband)
 * and getifaddrs() show them.  What `fabriq bench --ranks N` and
 * libfabriq_mpi.so find their ranks' addresses with.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>

#include "libfabriq.h"

static int fq_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fgets(buf, len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* the first IPv4 address of netdev @ifname into @addr; 0 or -errno */
static int fq_if_ipv4(const char *ifname, char *addr, size_t addrlen)
{
	struct ifaddrs *ifa, *i;
	int err = -EADDRNOTAVAIL;

	if (getifaddrs(&ifa))
		return -errno;
	for (i = ifa; i; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && !strcmp(i->ifa_name, ifname)) {
			err = inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr,
					addr, addrlen) ? 0 : -ENOSPC;
			break;
		}
	freeifaddrs(ifa);
	return err;
}

int fabriq_dev_ipv4(const char *dev, char *addr, size_t addrlen, char *netdev, size_t netdevlen)
{
	char path[FABRIQ_DEV_NAME_MAX + 96], state[64], ifname[IF_NAMESIZE + 1];
	int port, err = -ENODEV;

	if (!dev || !*dev || strchr(dev, '/') || strlen(dev) >= FABRIQ_DEV_NAME_MAX || !addr)
		return -EINVAL;
	for (port = 1; port <= 255; port++) {
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/state", dev, port);
		if (fq_read_line(path, state, sizeof(state)))
			break;		/* no such port: the device has no more */
		if (err == -ENODEV)
			err = -ENETDOWN;
		if (!strstr(state, "ACTIVE"))
			continue;
		err = -EADDRNOTAVAIL;	/* active, but no netdev (InfiniBand) or no address */
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/gid_attrs/ndevs/0",
			 dev, port);
		if (fq_read_line(path, ifname, sizeof(ifname)) || fq_if_ipv4(ifname, addr, addrlen))
			continue;
		if (netdev && snprintf(netdev, netdevlen, "%s", ifname) >= (int)netdevlen)
			return -ENOSPC;
		return 0;
	}
	return err;
}

static int fq_name_cmp(const void *a, const void *b)
{
	return strverscmp(a, b);
}

int fabriq_dev_list(char (*names)[FABRIQ_DEV_NAME_MAX], int max)
{
	struct dirent *de;
	int n = 0;
	DIR *d;

	if (max < 0 || (max && !names))
		return -EINVAL;
	d = opendir("/sys/class/infiniband");
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d)) && n < max)
		if (de->d_name[0] != '.' && strlen(de->d_name) < FABRIQ_DEV_NAME_MAX)
			strcpy(names[n++], de->d_name);
	closedir(d);
	qsort(names, n, sizeof(names[0]), fq_name_cmp);
	return n;
}
