/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fabriq.h - declarations shared by the CLI's files.
 *
 * main.c dispatches objects; args.c reads the command line's words; nl.c
 * talks netlink and takes attributes apart; output.c prints text or JSON;
 * names.c turns uapi enums into words; one file per CLI object
 * (dev.c, qos.c with qos_cfg.c, ping.c, monitor.c, bench.c, comm.c,
 * stats.c with stats_model.c and stats_prom.c, top.c).
 */
#ifndef FABRIQ_CLI_H
#define FABRIQ_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <linux/fabriq.h>

/* main.c */
extern const char *prog;

/* args.c */
bool match(const char *arg, const char *keyword);
int usage_error(const char *obj, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool fq_parse_u64(const char *arg, int base, uint64_t min, uint64_t max, uint64_t *out);
int fq_parse_range(const char *obj, const char *what, const char *arg, int base,
		   uint64_t min, uint64_t max, uint64_t *out);

/* nl.c */
typedef int (*fq_msg_cb)(struct nl_msg *msg, void *arg);
int fq_nl_open(void);
void fq_nl_close(void);
struct nl_msg *fq_nl_new(uint8_t cmd, int flags);
int fq_nl_request(struct nl_msg *msg, fq_msg_cb cb, void *arg, const char *what);
int fq_nl_request_later(struct nl_msg *msg, fq_msg_cb cb, void *arg, const char *what);
int fq_nl_subscribe_events(void);
int fq_nl_listen(fq_msg_cb cb, void *arg, volatile sig_atomic_t *stop);
int fq_nl_parse(struct nl_msg *msg, struct nlattr **tb, int max, struct nla_policy *pol);
void fq_nest_tb(const struct nlattr *nest, struct nlattr **tb, int max);
bool fq_nla_addr(const struct nlattr *a, char *buf, size_t size);
/* Each top-level attribute @a of @msg: for the repeated ones a policy parse keeps one of. */
#define fq_msg_for_each_attr(a, msg, rem)						\
	nla_for_each_attr(a, genlmsg_attrdata(nlmsg_data(nlmsg_hdr(msg)), 0),		\
			  genlmsg_attrlen(nlmsg_data(nlmsg_hdr(msg)), 0), rem)

/* output.c */
enum out_mode { OUT_TEXT, OUT_JSON, OUT_JSON_PRETTY };
void out_init(enum out_mode mode);
bool out_is_json(void);
void out_begin_array(const char *key);
void out_end_array(void);
void out_begin_object(const char *key);
void out_end_object(void);
void out_str(const char *key, const char *text_fmt, const char *val);
void out_uint(const char *key, const char *text_fmt, uint64_t val);
void out_bool(const char *key, const char *text_true, bool val);
void out_double(const char *key, const char *text_fmt, double val);
void out_int(const char *key, const char *text_fmt, long long val);
void out_hex(const char *key, const char *text_fmt, uint64_t val);
void out_uint_unit(const char *key, const char *unit, uint64_t val);
void out_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void out_flush_record(void);
void out_end_record(void);

/* names.c */
const char *fq_link_layer_name(unsigned int v);
const char *fq_port_state_name(unsigned int v);
const char *fq_phys_state_name(unsigned int v);
const char *fq_node_type_name(unsigned int v);
const char *fq_transport_name(unsigned int v);
const char *fq_speed_name(unsigned int v);
const char *fq_width_name(unsigned int v);
const char *fq_attr_name(uint8_t cmd, const struct nlattr *outer, unsigned int type);
const char *fq_det_name(unsigned int v);
const char *fq_sev_name(unsigned int v);
const char *fq_ctr_name(unsigned int v);
const char *fq_pause_name(unsigned int v);
int fq_det_lookup(const char *name);

/* one entry point per object */
int do_dev(int argc, char **argv);
int do_monitor(int argc, char **argv);
int do_qos(int argc, char **argv);
int do_ping(int argc, char **argv);
int do_bench(int argc, char **argv);
int do_comm(int argc, char **argv);
int comm_status_of(uint64_t id);
int do_stats(int argc, char **argv);
int do_top(int argc, char **argv);
void stats_usage(void);
void top_usage(void);
void comm_usage(void);
void bench_usage(void);
void ping_usage(void);
void dev_usage(void);
void monitor_usage(void);
void qos_usage(void);
/* qos.c: shared by qos and monitor */
int qos_event_print(struct nl_msg *msg, const char *event);
/* dev.c: shared by dev show and monitor */
int dev_print(struct nl_msg *msg, const char *event);

#endif
