/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * rvt_contract: a test driver that registers an rdmavt device as hfi1 or
 * qib do (one port as hfi1, two as a dual-port qib), runs scripted
 * sequences on it and logs every call rdmavt makes into the driver, with
 * its context, and after each step what a driver reads of rdmavt's
 * structures. The same module runs on our core
 * and on the distro's; tools/testing/suites/58-contract.sh compares the two
 * logs.
 *
 * Everything logged must be the same on two runs of the same core: no
 * pointers, no times, no values that depend on scheduling. Objects are
 * named by labels the script gives them.
 */
#ifndef RVT_CONTRACT_H
#define RVT_CONTRACT_H

#include <linux/pci.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_vt.h>
#include <rdma/rdmavt_qp.h>
#include <rdma/rdmavt_cq.h>

/* The most ports a personality has (qib's dual-port HCAs). */
#define CT_MAX_PORTS 2
#define CT_MAX_PKEYS 16
#define CT_LABEL_LEN 16
/* The subnet manager's LID: no port of the device has it, so traps leave. */
#define CT_SM_LID 0x40
/* A LID no port of the device has: requests to it go out on the "wire". */
#define CT_WIRE_LID 0x30
/* The first port's LID; port n has CT_BASE_LID + n - 1. */
#define CT_BASE_LID 1
/* A wr_id the test drivers' setup_wqe() refuses (the script's veto). */
#define CT_VETO_WRID 0x7e70ULL

/* Every callback of struct rvt_driver_provided, in its order. */
enum ct_cb {
	CB_SCHEDULE_SEND,
	CB_SCHEDULE_SEND_NO_LOCK,
	CB_SETUP_WQE,
	CB_DO_SEND,
	CB_GET_PCI_DEV,
	CB_QP_PRIV_ALLOC,
	CB_QP_PRIV_INIT,
	CB_QP_PRIV_FREE,
	CB_NOTIFY_QP_RESET,
	CB_GET_PMTU_FROM_ATTR,
	CB_FLUSH_QP_WAITERS,
	CB_STOP_SEND_QUEUE,
	CB_QUIESCE_QP,
	CB_NOTIFY_ERROR_QP,
	CB_MTU_FROM_QP,
	CB_MTU_TO_PATH_MTU,
	CB_GET_GUID_BE,
	CB_QUERY_PORT_STATE,
	CB_SHUT_DOWN_PORT,
	CB_CAP_MASK_CHG,
	CB_FREE_ALL_QPS,
	CB_CHECK_AH,
	CB_NOTIFY_NEW_AH,
	CB_ALLOC_QPN,
	CB_CHECK_MODIFY_QP,
	CB_MODIFY_QP,
	CB_NOTIFY_CREATE_MAD_AGENT,
	CB_NOTIFY_FREE_MAD_AGENT,
	CB_NOTIFY_RESTART_RC,
	CB_COMP_VECT_CPU_LOOKUP,
	CB_MAX
};

/* Every symbol rdmavt exports, in Documentation/abi.rst's order. */
enum ct_export {
	EX_ALLOC_DEVICE,
	EX_DEALLOC_DEVICE,
	EX_REGISTER_DEVICE,
	EX_UNREGISTER_DEVICE,
	EX_INIT_PORT,
	EX_CHECK_AH,
	EX_CQ_ENTER,
	EX_FAST_REG_MR,
	EX_INVALIDATE_RKEY,
	EX_LKEY_OK,
	EX_RKEY_OK,
	EX_STATE_OPS,
	EX_ERROR_QP,
	EX_GET_RWQE,
	EX_COMM_EST,
	EX_RC_ERROR,
	EX_RNR_TBL_TO_USEC,
	EX_ADD_RETRY_TIMER_EXT,
	EX_ADD_RNR_TIMER,
	EX_STOP_RC_TIMERS,
	EX_DEL_TIMERS_SYNC,
	EX_RC_RNR_RETRY,
	EX_QP_ITER_INIT,
	EX_QP_ITER_NEXT,
	EX_QP_ITER,
	EX_SEND_COMPLETE,
	EX_COPY_SGE,
	EX_RUC_LOOPBACK,
	EX_MCAST_FIND,
	EX_COMPUTE_AETH,
	EX_GET_CREDIT,
	EX_RESTART_SGE,
	EX_MAX
};

/**
 * struct ct_port - a port of the test device
 * @rvp: rdmavt's view, handed over with rvt_init_port()
 * @pkeys: the P_Key table
 * @lid: base LID
 * @lmc: LID mask count
 * @down: shut down through modify_port
 * @trap_tid: transaction ID of the last trap sent
 */
struct ct_port {
	struct rvt_ibport rvp;
	u16 pkeys[CT_MAX_PKEYS];
	u32 lid;
	u8 lmc;
	bool down;
	u64 trap_tid;
};

struct ct_pers;

/**
 * struct ct_dev - the test device
 * @rdi: rdmavt's device; first, as rdmavt requires
 * @pers: the personality it was registered with
 * @pdev: the PCI device reported by get_pci_dev(), or NULL
 * @nosmi: ports without a subnet management interface (the MAD layer then
 *	   leaves QP0 to the script)
 * @port: the ports
 * @qps_lock: guards @qps
 * @qps: every QP that has our private structure, in creation order
 * @pend_lock: guards @pending and each QP's pending link
 * @pending: QPs whose send engine a schedule_send() asked for
 */
struct ct_dev {
	struct rvt_dev_info rdi;
	const struct ct_pers *pers;
	struct pci_dev *pdev;
	bool nosmi;
	struct ct_port port[CT_MAX_PORTS];
	spinlock_t qps_lock;	/* guards qps */
	struct list_head qps;
	spinlock_t pend_lock;	/* guards pending and every ct_qp.pend */
	struct list_head pending;
	/* the personality's post_send table, rdi.post_parms */
	struct rvt_operation_params post[RVT_OPERATION_MAX];
	/* its completion opcodes, rdi.wc_opcode */
	enum ib_wc_opcode wc[RVT_OPERATION_MAX];
};

/**
 * struct ct_qp - the test driver's private part of a QP (qp->priv)
 * @qp: the QP
 * @dev: its device
 * @label: the name the log uses for it
 * @all: link in dev->qps
 * @pend: link in dev->pending, empty when not pending
 * @snap_hash: hash of the last snapshot logged for it
 * @wire: RC requests handed to the "wire" whose ACK has not come
 */
struct ct_qp {
	struct rvt_qp *qp;
	struct ct_dev *dev;
	char label[CT_LABEL_LEN];
	struct list_head all;
	struct list_head pend;
	u32 snap_hash;
	u32 wire;
};

/**
 * struct ct_wr_op - a work request opcode, as a driver handles it
 * @post: how post_send takes it (rdi.post_parms); length 0: not posted
 * @wc: the opcode its completion reports (rdi.wc_opcode)
 */
struct ct_wr_op {
	struct rvt_operation_params post;
	enum ib_wc_opcode wc;
};

/**
 * struct ct_pers - what tells an hfi1-like driver from a qib-like one
 * @name: "hfi1" or "qib"
 * @driver_id: the ib_device_ops driver_id
 * @opa: the ports are Omni-Path ports (OPA address handles)
 * @nports: how many ports the driver registers
 * @port_cap_flags: the capability mask the driver gives each port
 * @set_params: fills dparms and the device attributes
 * @set_callbacks: fills driver_f with this driver's set of callbacks
 * @init_pkeys: fills a port's P_Key table
 * @wr_ops: the opcodes both drivers handle, indexed by enum ib_wr_opcode
 * @more_wr_ops: those this driver handles beyond them (a row not all
 *		 zero replaces @wr_ops' row), or NULL
 */
struct ct_pers {
	const char *name;
	enum rdma_driver_id driver_id;
	bool opa;
	u32 nports;
	u32 port_cap_flags;
	void (*set_params)(struct ct_dev *dev, unsigned int qp_table_size);
	void (*set_callbacks)(struct rvt_driver_provided *f);
	void (*init_pkeys)(u16 *pkeys);
	const struct ct_wr_op *wr_ops;
	const struct ct_wr_op *more_wr_ops;
};

extern const struct ct_pers ct_hfi1;
extern const struct ct_pers ct_qib;

/**
 * struct ct_state - the one running script
 * @dev: the device of the current round, or NULL
 * @script: the task running the script
 * @round: name of the current round, the prefix of its steps
 * @step: name of the current step
 * @label: label for the next QP the script creates, or NULL
 * @pd: the script's kernel PD
 * @cq: the script's directly polled CQ
 * @cb_hits: callbacks called at least once in any round
 * @cb_set: callbacks the personality sets
 * @ex_hits: exports the script called
 * @nqp: QPs created by the MAD layer and other clients so far (labels)
 */
struct ct_state {
	struct ct_dev *dev;
	struct task_struct *script;
	char round[16];
	char step[64];
	const char *label;
	struct ib_pd *pd;
	struct ib_cq *cq;
	DECLARE_BITMAP(cb_hits, CB_MAX);
	DECLARE_BITMAP(cb_set, CB_MAX);
	DECLARE_BITMAP(ex_hits, EX_MAX);
	unsigned int nqp;
};

extern struct ct_state ct;

static inline struct ct_dev *rdi_to_ct(struct rvt_dev_info *rdi)
{
	return container_of(rdi, struct ct_dev, rdi);
}

static inline struct ct_dev *ibdev_to_ct(struct ib_device *ibdev)
{
	return rdi_to_ct(ib_to_rvt(ibdev));
}

/* contract_log.c: the script's state, the log */
struct ct_port *ct_port(u32 port_num);
struct ib_device *ct_ibdev(void);
u32 ct_nports(void);
u32 ct_port_lid(u32 port_num);
int ct_log_init(void);
void ct_log_exit(void);
__printf(1, 2) void ct_log(const char *fmt, ...);
__printf(1, 2) void ct_step(const char *fmt, ...);
__printf(3, 4) void ct_cb(enum ct_cb cb, struct rvt_qp *qp,
			  const char *fmt, ...);
void ct_cb_context(char *buf, size_t len, struct rvt_qp *qp);
__printf(4, 5) void ct_cb_at(enum ct_cb cb, struct rvt_qp *qp,
			     const char *where, const char *fmt, ...);
void ct_ex(enum ct_export ex);
const char *ct_label(struct rvt_qp *qp);
const char *ct_ibqp_label(struct ib_qp *ibqp);
const char *ct_cb_name(enum ct_cb cb);
const char *ct_ex_name(enum ct_export ex);
const char *ct_status(enum ib_wc_status status);
const char *ct_state_name(int state);
void ct_snap(void);
void ct_snap_reset(void);
void ct_selfcheck(const char *personality);

/* contract_drv.c: callbacks every personality shares */
void ct_set_common_callbacks(struct rvt_driver_provided *f);
int ct_modify_device(struct ib_device *ibdev, int mask,
		     struct ib_device_modify *props);
void ct_send_trap(struct ct_dev *dev, u32 port_num, u16 trap_num);

/* contract_engine.c: the send engine */
void ct_engine(struct rvt_qp *qp);
bool ct_schedule(struct rvt_qp *qp, enum ct_cb cb, bool may_queue);
void ct_unpend(struct rvt_qp *qp);
void ct_pump(void);
int ct_settle(unsigned int ms);
void ct_restart_rc(struct rvt_qp *qp, u32 psn, int wait);
void ct_rc_ack(struct rvt_qp *qp, u32 aeth);

/* contract_verbs.c: the verbs the sequences use, logged */
struct ib_qp *ct_create_qp_ia(const char *label, struct ib_qp_init_attr *ia);
struct ib_qp *ct_create_qp(const char *label, enum ib_qp_type type,
			   u32 port, struct ib_srq *srq, int send_wr,
			   int recv_wr);
void ct_destroy_qp(struct ib_qp *qp);
int ct_modify(struct ib_qp *qp, struct ib_qp_attr *attr, int mask);
int ct_modify_driver(struct ib_qp *qp, struct ib_qp_attr *attr, int mask);
int ct_to_rts(struct ib_qp *qp, u32 port, u32 dlid, u32 dqpn);

/**
 * struct ct_path - what ct_ladder() sets
 * @port: the QP's port
 * @dlid: RC/UC: destination LID
 * @dqpn: RC/UC: destination QPN
 * @timeout: RC: local ACK timeout code
 * @retry: RC: retry_cnt
 * @rnr_retry: RC: rnr_retry
 * @rd_atomic: RC: max_rd_atomic and max_dest_rd_atomic
 * @min_rnr_timer: RC: the RNR NAK timer code
 */
struct ct_path {
	u32 port, dlid, dqpn;
	u8 timeout, retry, rnr_retry, rd_atomic, min_rnr_timer;
};

int ct_ladder(struct ib_qp *qp, const struct ct_path *l);
u16 ct_full_pkey(void);
void ct_query_qp(struct ib_qp *qp);
void ct_set_av(struct rdma_ah_attr *ah, u32 port, u32 dlid, u8 sl);
int ct_post_send(struct ib_qp *qp, struct ib_send_wr *wr);
int ct_post_recv(struct ib_qp *qp, u64 wr_id, void *buf, u32 len);
int ct_poll(struct ib_cq *cq);
void ct_end_step(void);

/* the sequences */
void ct_seq_device(void);
void ct_seq_qp_types(void);
void ct_seq_special_qps(void);
void ct_seq_modify(void);
void ct_seq_post(void);
void ct_seq_loopback(void);
void ct_seq_timers(void);
void ct_seq_flush(void);
void ct_seq_ud(void);
void ct_seq_srq(void);
void ct_seq_mr(void);
void ct_seq_cq(void);
void ct_seq_rc_helpers(void);
void ct_seq_iter(void);
void ct_seq_ah(void);
void ct_seq_table(void);

#endif /* RVT_CONTRACT_H */
