// SPDX-License-Identifier: GPL-2.0
/*
 * ibdev.c - the simulated HCA as an RDMA device: allocation, the verbs it
 * implements, registration with the RDMA core, and teardown.
 *
 * Only the control plane is simulated.  PDs and CQs can be created (the
 * core and its clients expect that); QP verbs and memory registration
 * refuse with -EOPNOTSUPP.  The ports do not advertise MAD/CM capability,
 * so the core's MAD, CM and SA clients leave them alone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>

#include "core/compat.h"
#include "fqsim.h"

struct fqsim_pd {
	struct ib_pd ibpd;
};

struct fqsim_cq {
	struct ib_cq ibcq;
};

static int fqsim_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
			      struct ib_udata *udata)
{
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = 1;
	attr->sys_image_guid = ibdev->node_guid;
	attr->vendor_id = 0xfab;
	attr->vendor_part_id = 1;
	attr->max_pd = 64;
	attr->max_cq = 64;
	attr->max_cqe = 256;
	attr->max_pkeys = 1;
	attr->max_mr_size = ~0ULL;
	attr->page_size_cap = PAGE_SIZE;
	return 0;
}

static int fqsim_query_port(struct ib_device *ibdev, u32 port_num,
			    struct ib_port_attr *attr)
{
	struct fqsim_dev *sdev = to_fqsim(ibdev);
	struct fqsim_port *port = &sdev->ports[port_num - 1];
	bool up;

	/* The core zeroes *attr before calling. */
	spin_lock(&port->lock);
	up = !port->link_down;
	attr->active_width = port->width;
	attr->active_speed = port->speed;
	spin_unlock(&port->lock);
	if (sdev->link_layer == IB_LINK_LAYER_ETHERNET) {
		up = up && fqsim_netdev_link_up(port->netdev);
		attr->gid_tbl_len = 16;
		attr->port_cap_flags = IB_PORT_CM_SUP;
	} else {
		attr->gid_tbl_len = 1;
		attr->lid = port->lid;
		attr->sm_lid = 1;
		attr->max_vl_num = 4;		/* VLCap: VL0-7 */
		attr->port_cap_flags = IB_PORT_SM_DISABLED | IB_PORT_SL_MAP_SUP;
	}
	attr->state = up ? IB_PORT_ACTIVE : IB_PORT_DOWN;
	attr->phys_state = up ? IB_PORT_PHYS_STATE_LINK_UP : IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = IB_MTU_4096;
	attr->pkey_tbl_len = 1;
	attr->max_msg_sz = 1U << 31;
	return 0;
}

static int fqsim_get_port_immutable(struct ib_device *ibdev, u32 port_num,
				    struct ib_port_immutable *immutable)
{
	struct fqsim_dev *sdev = to_fqsim(ibdev);
	struct ib_port_attr attr;
	int err;

	immutable->core_cap_flags = sdev->link_layer == IB_LINK_LAYER_ETHERNET ?
		RDMA_CORE_CAP_PROT_ROCE_UDP_ENCAP | RDMA_CORE_CAP_ETH_AH :
		RDMA_CORE_CAP_PROT_IB;
	err = ib_query_port(ibdev, port_num, &attr);
	if (err)
		return err;
	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	/* No MAD capability advertised, so no MAD size (verify_immutable()). */
	immutable->max_mad_size = 0;
	return 0;
}

static enum rdma_link_layer fqsim_get_link_layer(struct ib_device *ibdev, u32 port_num)
{
	return to_fqsim(ibdev)->link_layer;
}

static int fqsim_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index, u16 *pkey)
{
	if (index > 0)
		return -EINVAL;
	*pkey = 0xffff;
	return 0;
}

static int fqsim_query_gid(struct ib_device *ibdev, u32 port_num, int index,
			   union ib_gid *gid)
{
	if (index > 0)
		return -EINVAL;
	gid->global.subnet_prefix = cpu_to_be64(0xfe80000000000000ULL);
	gid->global.interface_id = cpu_to_be64(fqsim_port_guid(to_fqsim(ibdev), port_num));
	return 0;
}

static int fqsim_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	return 0;
}

static int fqsim_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	return 0;
}

static int fqsim_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
			   FABRIQ_CREATE_CQ_UARG)
{
	if (attr->flags)
		return -EOPNOTSUPP;
	ibcq->cqe = attr->cqe;
	return 0;
}

static int fqsim_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	return 0;
}

static int fqsim_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	return 0;	/* no QPs, so never a completion */
}

static int fqsim_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	return 0;
}

static int fqsim_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init_attr,
			   struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int fqsim_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
			   struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int fqsim_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	return 0;
}

static int fqsim_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			   const struct ib_send_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

static int fqsim_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			   const struct ib_recv_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

static struct ib_mr *fqsim_get_dma_mr(struct ib_pd *ibpd, int access)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static struct ib_mr *fqsim_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				       u64 iova, int access, struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static int fqsim_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static const struct ib_device_ops fqsim_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = 1,

	.query_device = fqsim_query_device,
	.query_port = fqsim_query_port,
	.get_port_immutable = fqsim_get_port_immutable,
	.get_link_layer = fqsim_get_link_layer,
	.query_pkey = fqsim_query_pkey,
	.query_gid = fqsim_query_gid,
	.alloc_pd = fqsim_alloc_pd,
	.dealloc_pd = fqsim_dealloc_pd,
	.create_cq = fqsim_create_cq,
	.destroy_cq = fqsim_destroy_cq,
	.poll_cq = fqsim_poll_cq,
	.req_notify_cq = fqsim_req_notify_cq,
	.create_qp = fqsim_create_qp,
	.modify_qp = fqsim_modify_qp,
	.destroy_qp = fqsim_destroy_qp,
	.post_send = fqsim_post_send,
	.post_recv = fqsim_post_recv,
	.get_dma_mr = fqsim_get_dma_mr,
	.reg_user_mr = fqsim_reg_user_mr,
	.dereg_mr = fqsim_dereg_mr,
	.process_mad = fqsim_process_mad,
	.alloc_hw_port_stats = fqsim_alloc_hw_port_stats,
	.get_hw_stats = fqsim_get_hw_stats,

	INIT_RDMA_OBJ_SIZE(ib_pd, fqsim_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_cq, fqsim_cq, ibcq),
};

/**
 * fqsim_port_set_link() - force the link of a port down or let it up
 * @port: the port
 * @up: the new state
 *
 * RoCE ports also drop or regain carrier on their netdev.  Listeners get
 * IB_EVENT_PORT_ERR or IB_EVENT_PORT_ACTIVE, as from a real HCA.
 *
 * Context: process context.
 */
void fqsim_port_set_link(struct fqsim_port *port, bool up)
{
	struct ib_event event = {
		.device = &port->sdev->ibdev,
		.element.port_num = port->num,
		.event = up ? IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR,
	};
	bool was_up;

	spin_lock(&port->lock);
	was_up = !port->link_down;
	port->link_down = !up;
	spin_unlock(&port->lock);
	if (was_up == up)
		return;
	if (!up)
		atomic64_inc(&port->ib[FQSIM_IB_LINK_DOWNED]);
	if (port->netdev) {
		if (up)
			netif_carrier_on(port->netdev);
		else
			netif_carrier_off(port->netdev);
	}
	ib_dispatch_event(&event);
}

/**
 * fqsim_port_changed() - tell listeners a port's attributes changed
 * @port: the port
 *
 * Context: process context.
 */
void fqsim_port_changed(struct fqsim_port *port)
{
	struct ib_event event = {
		.device = &port->sdev->ibdev,
		.element.port_num = port->num,
		.event = IB_EVENT_PORT_ACTIVE,
	};

	ib_dispatch_event(&event);
}

static int fqsim_ports_init(struct fqsim_dev *sdev)
{
	struct fqsim_port *port;
	u32 i;
	int err;

	for (i = 0; i < sdev->num_ports; i++) {
		port = &sdev->ports[i];
		port->sdev = sdev;
		port->num = i + 1;
		port->lid = (sdev->id * FQSIM_MAX_PORTS + i + 2) & 0xbfff;
		port->speed = IB_SPEED_EDR;
		port->width = IB_WIDTH_4X;
		spin_lock_init(&port->lock);
		fqsim_smp_init(&port->smp);
		INIT_DELAYED_WORK(&port->rate_work, fqsim_rate_work);
		if (sdev->link_layer != IB_LINK_LAYER_ETHERNET)
			continue;
		port->netdev = fqsim_netdev_create(sdev->id, port->num);
		if (IS_ERR(port->netdev)) {
			err = PTR_ERR(port->netdev);
			port->netdev = NULL;
			return err;
		}
		err = ib_device_set_netdev(&sdev->ibdev, port->netdev, port->num);
		if (err)
			return err;
	}
	return 0;
}

/* Detach and free the netdevs; the RDMA device must be unregistered. */
static void fqsim_ports_fini(struct fqsim_dev *sdev)
{
	u32 i;

	for (i = 0; i < sdev->num_ports; i++) {
		struct net_device *ndev = sdev->ports[i].netdev;

		if (!ndev)
			continue;
		ib_device_set_netdev(&sdev->ibdev, NULL, i + 1);
		fqsim_netdev_destroy(ndev);
		sdev->ports[i].netdev = NULL;
	}
}

/**
 * fqsim_dev_create() - allocate, populate and register one simulated HCA
 * @id: device id; the RDMA device is named fqsim<id>
 * @num_ports: 1..FQSIM_MAX_PORTS
 * @ll: IB_LINK_LAYER_INFINIBAND or IB_LINK_LAYER_ETHERNET
 * @no_backend: never offer fabriq a QoS backend for this device
 *
 * Context: process context, may sleep.
 * Return: the device, or an ERR_PTR.
 */
struct fqsim_dev *fqsim_dev_create(u32 id, u32 num_ports, enum rdma_link_layer ll,
				   bool no_backend)
{
	char name[IB_DEVICE_NAME_MAX];
	struct fqsim_dev *sdev;
	int err;

	sdev = ib_alloc_device(fqsim_dev, ibdev);
	if (!sdev)
		return ERR_PTR(-ENOMEM);
	sdev->id = id;
	sdev->num_ports = num_ports;
	sdev->link_layer = ll;
	sdev->no_backend = no_backend;
	INIT_LIST_HEAD(&sdev->list);

	sdev->ibdev.node_type = RDMA_NODE_IB_CA;
	sdev->ibdev.phys_port_cnt = num_ports;
	sdev->ibdev.num_comp_vectors = 1;
	sdev->ibdev.node_guid = cpu_to_be64(fqsim_port_guid(sdev, 0));
	strscpy(sdev->ibdev.node_desc, "fabriq_sim simulated HCA",
		sizeof(sdev->ibdev.node_desc));
	ib_set_device_ops(&sdev->ibdev, &fqsim_ops);

	err = fqsim_ports_init(sdev);
	if (err)
		goto err_ports;

	snprintf(name, sizeof(name), "fqsim%u", id);
	err = ib_register_device(&sdev->ibdev, name, NULL);
	if (err)
		goto err_ports;
	fqsim_debugfs_dev_add(sdev);
	fqsim_qos_attach(sdev);
	return sdev;

err_ports:
	fqsim_ports_fini(sdev);
	ib_dealloc_device(&sdev->ibdev);
	return ERR_PTR(err);
}

/**
 * fqsim_dev_destroy() - unregister and free a simulated HCA
 * @sdev: the device; gone on return
 *
 * The RDMA core calls every client's remove (fabriq's included) before
 * ib_unregister_device() returns.
 *
 * Context: process context, may sleep.
 */
void fqsim_dev_destroy(struct fqsim_dev *sdev)
{
	u32 i;

	fqsim_qos_detach(sdev);
	fqsim_debugfs_dev_del(sdev);
	for (i = 0; i < sdev->num_ports; i++)
		cancel_delayed_work_sync(&sdev->ports[i].rate_work);
	ib_unregister_device(&sdev->ibdev);
	fqsim_ports_fini(sdev);
	ib_dealloc_device(&sdev->ibdev);
}
