/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * rvtsw: a software HCA on the public rdmavt API. No hardware: its ports
 * are always up, and traffic between its QPs goes by loopback.
 */
#ifndef RVTSW_H
#define RVTSW_H

#include <rdma/rdma_vt.h>
#include <rdma/rdmavt_qp.h>

#define RVTSW_NAME "rvtsw"
#define RVTSW_NPKEYS 1
#define RVTSW_MTU IB_MTU_4096

/**
 * struct rvtsw_port - one port of an rvtsw device
 * @rvp: rdmavt's port structure; its lock guards the fields below that
 *	 change after registration
 * @dev: the device this port belongs to
 * @lid: base LID, unique among all rvtsw ports, never 0; fixed
 * @guid: port GUID; fixed
 * @state: IB_PORT_ACTIVE, or IB_PORT_DOWN after a shutdown request;
 *	   guarded by @rvp.lock
 * @pkeys: the P_Key table handed to rdmavt
 */
struct rvtsw_port {
	struct rvt_ibport rvp;
	struct rvtsw_dev *dev;
	u16 lid;
	__be64 guid;
	enum ib_port_state state;
	u16 pkeys[RVTSW_NPKEYS];
};

/**
 * struct rvtsw_dev - an rvtsw device
 * @rdi: the rdmavt device; must stay first (rvt_alloc_device())
 * @unit: device number, the N of rvtsw_N
 * @parent: PCI device reported by get_pci_dev(), or NULL; rdmavt cores
 *	    that print through it need one
 * @debugfs: the device's debugfs directory, while registered
 * @ports: the ports, dparms.nports of them
 */
struct rvtsw_dev {
	struct rvt_dev_info rdi;
	unsigned int unit;
	struct pci_dev *parent;
	struct dentry *debugfs;
	struct rvtsw_port ports[];
};

/**
 * struct rvtsw_qp_priv - rvtsw's per-QP state (qp->priv)
 * @qp: the QP this belongs to
 * @send_work: runs the send engine in process context
 */
struct rvtsw_qp_priv {
	struct rvt_qp *qp;
	struct work_struct send_work;
};

static inline struct rvtsw_dev *rdi_to_rvtsw(struct rvt_dev_info *rdi)
{
	return container_of(rdi, struct rvtsw_dev, rdi);
}

static inline struct rvtsw_port *rvtsw_port(struct rvt_dev_info *rdi,
					    u32 port_num)
{
	return &rdi_to_rvtsw(rdi)->ports[port_num - 1];
}

/* port.c */
void rvtsw_init_port(struct rvtsw_dev *dev, unsigned int index);
int rvtsw_query_port_state(struct rvt_dev_info *rdi, u32 port_num,
			   struct ib_port_attr *props);
int rvtsw_get_guid_be(struct rvt_dev_info *rdi, struct rvt_ibport *rvp,
		      int guid_index, __be64 *guid);
int rvtsw_shut_down_port(struct rvt_dev_info *rdi, u32 port_num);
void rvtsw_cap_mask_chg(struct rvt_dev_info *rdi, u32 port_num);
int rvtsw_modify_device(struct ib_device *ibdev, int mask,
			struct ib_device_modify *modify);

/* qp.c */
int rvtsw_qp_init(void);
void rvtsw_qp_exit(void);
void rvtsw_set_qp_callbacks(struct rvt_driver_provided *f);

/* debugfs.c */
void rvtsw_debugfs_init(void);
void rvtsw_debugfs_exit(void);
void rvtsw_debugfs_add(struct rvtsw_dev *dev);
void rvtsw_debugfs_remove(struct rvtsw_dev *dev);

/* ops.c */
extern const struct rvt_operation_params rvtsw_post_parms[RVT_OPERATION_MAX];
extern const enum ib_wc_opcode rvtsw_wc_opcode[];

#endif /* RVTSW_H */
