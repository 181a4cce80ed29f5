/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qos.h - the CLI's model of one port's QoS ("qos-cfg" of the uapi) and
 * the calls between qos.c (the `fabriq qos` commands) and qos_cfg.c (the
 * grammar of QoS values and their netlink form).
 */
#ifndef FABRIQ_CLI_QOS_H
#define FABRIQ_CLI_QOS_H

#include <stdbool.h>
#include <stdint.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <linux/fabriq.h>

struct qos_vlarb {
	uint8_t len;
	uint8_t vl[FABRIQ_QOS_VLARB_MAX];
	uint8_t weight[FABRIQ_QOS_VLARB_MAX];
};

struct qos_ecn {
	uint8_t enable;
	uint8_t prob;
	uint32_t min;
	uint32_t max;
};

/* @present: BIT of enum fabriq_qos_field; @ecn_prios: which ecn[] are set. */
struct qos_cfg {
	uint32_t present;
	uint8_t sl2vl[FABRIQ_QOS_NUM_SL];
	struct qos_vlarb vlarb_high;
	struct qos_vlarb vlarb_low;
	uint8_t vl_high_limit;
	uint8_t oper_vls;
	uint8_t pfc;
	uint8_t trust;
	uint8_t dscp_prio[FABRIQ_QOS_NUM_DSCP];
	uint8_t prio_tc[FABRIQ_QOS_NUM_PRIO];
	uint8_t tc_bw[FABRIQ_QOS_NUM_PRIO];
	uint8_t tc_tsa[FABRIQ_QOS_NUM_PRIO];
	uint8_t ecn_prios;
	struct qos_ecn ecn[FABRIQ_QOS_NUM_PRIO];
	uint8_t tclass;
	uint8_t sl;
};

/* One QOS_GET reply. */
struct qos_port {
	char dev[FABRIQ_DEV_NAME_MAX];
	uint32_t port;
	uint8_t link_layer;
	uint8_t vl_cap;
	uint8_t vlarb_high_cap;
	uint8_t vlarb_low_cap;
	char netdev[32];
	char ecn_backend[32];
	char warning[256];
	uint32_t drift;
	struct qos_cfg intent;
	struct qos_cfg hw;
};

#define QOS_BIT(f)	(1u << (f))
#define QOS_IB_FIELDS	(QOS_BIT(FABRIQ_QOS_F_SL2VL) | QOS_BIT(FABRIQ_QOS_F_VLARB_HIGH) | \
			 QOS_BIT(FABRIQ_QOS_F_VLARB_LOW) | QOS_BIT(FABRIQ_QOS_F_VL_HIGH_LIMIT) | \
			 QOS_BIT(FABRIQ_QOS_F_OPER_VLS) | QOS_BIT(FABRIQ_QOS_F_SL))

/* qos_cfg.c: netlink */
int qos_cfg_from_nest(struct nlattr *nest, struct qos_cfg *c);
int qos_cfg_put(struct nl_msg *msg, int type, const struct qos_cfg *c);
int qos_port_from_msg(struct nl_msg *msg, struct qos_port *p);

/* qos_cfg.c: text */
extern const char *const qos_field_names[FABRIQ_QOS_F_NUM];
void qos_fmt_field(char *buf, size_t len, const struct qos_cfg *c, int field);
void qos_fmt_ecn(char *buf, size_t len, const struct qos_cfg *c, int prio);
int qos_parse_settings(int argc, char **argv, const struct qos_port *cur,
		       struct qos_cfg *req, const char *where);
void qos_effective(const struct qos_port *p, struct qos_cfg *out);

#endif
