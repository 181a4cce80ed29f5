/* SPDX-License-Identifier: GPL-2.0 */
/*
 * subsys.h - what a subsystem of fabriq.ko offers the core, and what the
 * core calls back.
 *
 * The core (kernel/core/) knows no feature.  Each subsystem (qos, ping,
 * coll, telemetry) describes itself with one struct fabriq_subsys;
 * kernel/subsystems.c lists them, in init order, in fabriq_subsystems[].
 * The core runs the init ladder over that list, assembles the generic
 * netlink family from their op tables, and calls their per-device hooks
 * as RDMA devices come, go and change.
 */
#ifndef _FABRIQ_SUBSYS_H
#define _FABRIQ_SUBSYS_H

#include <linux/types.h>

struct dentry;
struct fabriq_dev;
struct fabriq_port;
struct genl_ops;
struct ib_device;
struct seq_file;

/* at most this many subsystems; each has one private pointer per port */
#define FABRIQ_SUBSYS_MAX	8

/**
 * struct fabriq_subsys - one subsystem, as the core sees it
 * @name: for messages
 * @init: before the netlink family and the ib_client exist (may be NULL)
 * @exit: undoes @init, after the ib_client and the family are gone
 * @start: after the ib_client attached to every device: listeners, files
 *	   users open (may be NULL)
 * @stop: undoes @start, before the ib_client goes
 * @nl_ops: generic netlink commands, ended by an empty entry (may be NULL)
 * @port_init: a port of a new device; may fail, which fails the device
 * @port_release: the port's device is freed (its last reference went)
 * @dev_add: a supported device was listed, its debugfs tree made
 * @dev_remove: a device goes; called in reverse list order, while its
 *		ib_device is still set
 * @dev_gone: after the device let go of its ib_device
 * @dev_rename: the device has a new name (@fdev->name); @old_name was it
 * @port_active: a port came up (its link may have lost state)
 * @debugfs_port: add files to its own directory of a port,
 *	devices/<dev>/port<N>/<name>/ (made by the core)
 * @port_info: add "key value" lines to a port's debugfs info file;
 *	       fabriq_dev.lock held, the ib_device is set
 * @id: index in fabriq_subsystems[], set by the core
 *
 * Hooks may be NULL.  All run in process context and may sleep.
 */
struct fabriq_subsys {
	const char *name;
	int (*init)(void);
	void (*exit)(void);
	int (*start)(void);
	void (*stop)(void);
	const struct genl_ops *nl_ops;
	int (*port_init)(struct fabriq_port *port);
	void (*port_release)(struct fabriq_port *port);
	void (*dev_add)(struct fabriq_dev *fdev);
	void (*dev_remove)(struct fabriq_dev *fdev);
	void (*dev_gone)(struct ib_device *ibdev);
	void (*dev_rename)(struct fabriq_dev *fdev, const char *old_name);
	void (*port_active)(struct fabriq_dev *fdev, struct fabriq_port *port);
	void (*debugfs_port)(struct fabriq_port *port, struct dentry *dir);
	void (*port_info)(struct seq_file *s, struct fabriq_dev *fdev);
	unsigned int id;
};

/* kernel/subsystems.c: every subsystem, in init order */
extern struct fabriq_subsys *const fabriq_subsystems[];
extern const unsigned int fabriq_n_subsystems;

#define fabriq_for_each_subsys(i, s) \
	for ((i) = 0; (i) < fabriq_n_subsystems && ((s) = fabriq_subsystems[i]); (i)++)

#endif /* _FABRIQ_SUBSYS_H */
