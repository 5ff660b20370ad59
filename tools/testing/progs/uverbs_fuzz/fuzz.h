/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * uverbs_fuzz's internal header: the ABI constants it speaks, and what its
 * files share. What the program does is in main.c. Each file builds only
 * on the ones listed before it, so there is no circle between them:
 *
 *   draw.c       the random sequence, and the mode of a step (sane, exact)
 *   memory.c     the memory the program owns, and pointers drawn into it
 *   report.c     what is counted and reported: failures, the call being
 *                made and its timer, the summary
 *   avoid.c      the known kernel bugs to keep away from (--avoid)
 *   objects.c    the objects of the current context; SGEs in its MRs
 *   device.c     the device: its uverbs file, event files and limits
 *   rings.c      mappings of the uverbs file: rings, and the provider's
 *                side of them
 *   frame.c      write() commands: framing, submission, judgement
 *   writes.c     write() commands: context, device, PD, MR, AH,
 *                multicast, the extended and random ones
 *   writes_cq.c  write() commands on CQs
 *   writes_qp.c  write() commands on QPs and SRQs
 *   writes_post.c  posting work through write()
 *   ioctls.c     RDMA_VERBS_IOCTL methods
 *   rounds.c     steps, rounds and forked children
 *   datacheck.c  the RC SEND that must arrive after fuzzing
 *   main.c       options, setup, the run
 */
#ifndef UVERBS_FUZZ_H
#define UVERBS_FUZZ_H

#define _GNU_SOURCE
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <linux/types.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#define PAGE			4096UL
#define RESP_BYTES		(4UL << 20)	/* room for any response */
#define SCRATCH_BYTES		(64UL << 10)
#define ARENA_BYTES		(4UL << 20)	/* memory for MRs */
#define MEMLOCK_BYTES		(16UL << 20)
#define KMEM_BUDGET		(160UL << 20)	/* rings and queues asked for */
#define CALL_TIMEOUT		20		/* seconds a call may take */
#define PATTERN			0xa5
#define PATTERN32		0xa5a5a5a5u
#define PATTERN64		0xa5a5a5a5a5a5a5a5ull
#define CANARY			64
#define MAX_OBJS		256
#define MAX_LIVE		40		/* live objects of one kind */
#define MAX_RINGS		96
#define MAX_COOKIES		256
#define MAX_CHANS		4
#define MAX_ERRNO		134
#define WBUF_BYTES		(64UL << 10)
#define UVERBS_WC_BYTES		sizeof(struct ib_uverbs_wc)
#define RWQE_BYTES		16		/* struct rvt_rwqe without SGEs */
#define SGE_BYTES		16		/* struct rvt_wqe_sge */
#define RING_HDR		8		/* head and tail */
#define EXIT_HANG		3
#define EXIT_CRASH		4
#define KERNEL_PTR		0xffff888000000000ull
#define NONCANON_PTR		0x0000800000000000ull
#define QKEY			0x11111111u
#define MCAST_LID_BASE		0xc000

#define NELEMS(a)		(sizeof(a) / sizeof((a)[0]))
#define FLAG(n)			(1u << (n))

/* IB QP states and attribute mask bits (enum ib_qp_state, ib_qp_attr_mask) */
enum { QPS_RESET, QPS_INIT, QPS_RTR, QPS_RTS, QPS_SQD, QPS_SQE, QPS_ERR };
#define QPA_STATE		FLAG(0)
#define QPA_CUR_STATE		FLAG(1)
#define QPA_EN_SQD_ASYNC	FLAG(2)
#define QPA_ACCESS		FLAG(3)
#define QPA_PKEY		FLAG(4)
#define QPA_PORT		FLAG(5)
#define QPA_QKEY		FLAG(6)
#define QPA_AV			FLAG(7)
#define QPA_PATH_MTU		FLAG(8)
#define QPA_TIMEOUT		FLAG(9)
#define QPA_RETRY		FLAG(10)
#define QPA_RNR_RETRY		FLAG(11)
#define QPA_RQ_PSN		FLAG(12)
#define QPA_MAX_RD		FLAG(13)
#define QPA_ALT_PATH		FLAG(14)
#define QPA_MIN_RNR		FLAG(15)
#define QPA_SQ_PSN		FLAG(16)
#define QPA_MAX_DEST_RD		FLAG(17)
#define QPA_DEST_QPN		FLAG(20)
#define ACC_LOCAL_WRITE		1u
#define ACC_REMOTE_WRITE	2u
#define ACC_REMOTE_READ		4u
#define ACC_REMOTE_ATOMIC	8u
#define ACC_MW_BIND		16u
#define ACC_WRITABLE		(ACC_LOCAL_WRITE | ACC_REMOTE_WRITE | \
				 ACC_REMOTE_ATOMIC | ACC_MW_BIND)
#define SEND_SIGNALED		2u
#define SRQ_MAX_WR		1u
#define SRQ_LIMIT		2u
#define MTU_4096		5

static inline size_t min_sz(size_t a, size_t b)
{
	return a < b ? a : b;
}

static inline size_t div_up(size_t n, size_t d)
{
	return (n + d - 1) / d;
}

/* ---- draw.c: the random sequence ---------------------------------------- */

extern __u64 rng;
extern bool sane, exact_mode;

__u64 next64(void);
__u32 rnd(__u32 n);
bool chance(unsigned int pct);
__u32 boundary(__u32 max);
__u32 pick_u32(__u32 lo, __u32 hi, __u32 max);
__u8 pick_u8(__u8 sensible, __u8 max);

/* ---- memory.c: memory the program owns ---------------------------------- */

enum ptr_kind { PK_VALID, PK_NULL, PK_GUARD, PK_RO, PK_KERNEL, PK_NONCANON,
		PK_EDGE, PK_LOW, NR_PK };

extern char *resp_buf, *guard, *ro_page, *scratch, *arena;
extern unsigned long *child_failures;

void setup_memory(void);
__u64 ptr_of(enum ptr_kind k, void *valid);
enum ptr_kind pick_ptr_kind(void);
__u64 safe_word(void);
void fill_safe(void *p, size_t len);

/* ---- report.c: what is counted and reported ----------------------------- */

/* One entry per call kind, for the summary. */
enum fuzz_op {
	OP_GET_CONTEXT,
	OP_QUERY_DEVICE,
	OP_QUERY_PORT,
	OP_ALLOC_PD,
	OP_DEALLOC_PD,
	OP_CREATE_AH,
	OP_DESTROY_AH,
	OP_REG_MR,
	OP_REREG_MR,
	OP_DEREG_MR,
	OP_ALLOC_MW,
	OP_CREATE_COMP_CHANNEL,
	OP_CREATE_CQ,
	OP_RESIZE_CQ,
	OP_DESTROY_CQ,
	OP_POLL_CQ,
	OP_REQ_NOTIFY_CQ,
	OP_CREATE_QP,
	OP_QUERY_QP,
	OP_MODIFY_QP,
	OP_DESTROY_QP,
	OP_POST_SEND,
	OP_POST_RECV,
	OP_ATTACH_MCAST,
	OP_DETACH_MCAST,
	OP_CREATE_SRQ,
	OP_MODIFY_SRQ,
	OP_QUERY_SRQ,
	OP_DESTROY_SRQ,
	OP_POST_SRQ_RECV,
	OP_OPEN_XRCD,
	OP_OPEN_QP,
	OP_EX_QUERY_DEVICE,
	OP_EX_CREATE_CQ,
	OP_EX_CREATE_QP,
	OP_EX_MODIFY_QP,
	OP_EX_MODIFY_CQ,
	OP_EX_OTHER,
	OP_RANDOM_CMD,
	OP_RAW_WRITE,
	OP_IOCTL_RANDOM,
	OP_IOCTL_QUERY_CONTEXT,
	OP_IOCTL_QUERY_PORT,
	OP_IOCTL_INFO_HANDLES,
	OP_IOCTL_GID,
	OP_IOCTL_INVOKE_WRITE,
	OP_IOCTL_CREATE_CQ,
	OP_IOCTL_CREATE_QP,
	OP_IOCTL_DESTROY,
	OP_IOCTL_OTHER,
	OP_MMAP_RING,
	OP_MMAP_RANDOM,
	OP_MUNMAP,
	OP_EVENT_READ,
	OP_OPEN,
	NR_OPS
};

extern const char *const op_names[];
extern unsigned long failures, step, rounds, scribbles, ring_posts;
extern unsigned long wcs_polled, ring_wcs;
extern unsigned long children, children_killed, children_exited;
extern bool verbose, is_child;
extern char desc[384];

const char *who(void);
void failf(const char *fmt, ...);
void describe(const char *fmt, ...);
void install_handlers(void);
void timer_on(void);
void timer_off(void);
void count(enum fuzz_op op, bool ok, int err);
double now(void);
void print_summary(__u64 seed);

/* ---- avoid.c: known kernel bugs to keep away from ----------------------- */

#define AV_POST_SEND_NO_WR	FLAG(0)
#define AV_RESIZE_CQ_COOKIE	FLAG(1)
#define AV_RQ_SGE_COUNT		FLAG(2)
#define AV_MCAST_NO_PORT	FLAG(3)
#define AV_CREATE_QP_RESP	FLAG(4)
#define AV_RC_SEND		FLAG(5)
#define AV_IOCTL_GET_CONTEXT	FLAG(6)

extern unsigned int avoid;

bool parse_avoid(const char *list);
bool cmd_avoided(__u32 cmd);

/* ---- objects.c: the objects of the current context ---------------------- */

enum kind { K_PD, K_MR, K_CQ, K_QP, K_SRQ, K_AH, NR_KINDS };

/**
 * struct obj - an object this process created, live or destroyed
 * @used: the slot holds an object
 * @live: not destroyed (as far as this process knows)
 * @kind: what it is
 * @handle: its uverbs handle; handles are reused once freed
 * @pd: the handle of the PD it was made in (MR, QP, SRQ, AH)
 * @cost: kernel memory its queues take, estimated, for KMEM_BUDGET
 * @mr: an MR's IOVA range, keys and access
 * @cq: a CQ's size, and whether the kernel polls it (no user ring)
 * @qp: a QP's number, type, state as last set, whether it was given a
 *	port, and whether it has an SRQ
 * @srq: an SRQ's size
 */
struct obj {
	bool used, live;
	enum kind kind;
	__u32 handle, pd;
	size_t cost;
	union {
		struct {
			__u64 iova, len;
			__u32 lkey, rkey, access;
		} mr;
		struct {
			__u32 cqe;
			bool kernel_polled;
			/*
			 * kernel_polled is sure: not after a damaged ioctl
			 * create, which may have sent the ring's cookie
			 * where the fuzzer does not look
			 */
			bool ring_known;
		} cq;
		struct {
			__u32 qpn, type, state;
			bool has_port, has_srq;
		} qp;
		struct {
			__u32 max_wr, max_sge;
		} srq;
	};
};

extern __u32 post_pd;

struct obj *pick_live(enum kind k);
struct obj *pick_qp_in(int state);
struct obj *pick_peer(struct obj *qp);
struct obj *pick_in_pd(enum kind k, __u32 pd);
struct obj *pick_kernel_cq(void);
__u32 pick_handle(enum kind k, struct obj **op);
struct obj *find_live_handle(__u32 handle);
void kill_obj(struct obj *o);
struct obj *add_obj(enum kind k, __u32 handle, size_t cost);
void set_cost(struct obj *o, size_t cost);
bool room_for(enum kind k);
bool affordable(size_t cost);
void forget_objects(void);
void pick_sge(struct ib_uverbs_sge *s);
void pick_remote(__u64 *addr, __u32 *rkey);

/* ---- device.c: the device and its files --------------------------------- */

/**
 * struct limits - the device's limits, from QUERY_DEVICE and QUERY_PORT
 * at the start
 */
struct limits {
	__u32 max_qp_wr, max_sge, max_cqe, max_srq_wr, max_srq_sge;
	__u32 max_pd, max_ah, max_mcast_attach;
	__u16 lid;
	__u8 ports;
};

extern char dev_path[64];
extern int fd, async_fd;
extern int chans[MAX_CHANS];
extern unsigned int nchans;
extern __u32 ncomp;
extern bool fd_shared;
extern struct limits lim;

bool find_uverbs(const char *name);
bool open_device(void);
void set_nonblock(int efd);
void forget_files(void);
void act_read_events(void);

/* ---- rings.c: mappings of the uverbs file -------------------------------- */

enum ring_kind { RING_CQ, RING_RQ, RING_SRQ, RING_OTHER };

/**
 * struct ring - a mapping of the uverbs file this process made
 * @addr: where it is mapped
 * @len: bytes mapped
 * @writable: mapped with PROT_WRITE (scribbles only there)
 * @kind: what the cookie was for, or RING_OTHER
 * @slots: entries of the ring (cqe + 1, max_wr + 1)
 * @stride: bytes per entry
 * @max_sge: SGEs per receive entry
 * @pd: the PD of its QP or SRQ (receive rings)
 */
struct ring {
	char *addr;
	size_t len;
	bool writable;
	enum ring_kind kind;
	__u32 slots, stride, max_sge, pd;
};

void note_cookie(__u64 cookie);
void forget_cookies(void);
size_t rq_bytes(__u32 slots, __u32 sge);
size_t cq_bytes(__u32 cqe);
void map_new_ring(__u64 cookie, size_t bytes, enum ring_kind kind,
		  __u32 slots, __u32 stride, __u32 max_sge, __u32 pd);
void map_rq_ring(__u64 cookie, enum ring_kind kind, __u32 max_wr,
		 __u32 max_sge, __u32 pd);
struct ring *pick_ring(bool need_writable, int kind);
struct ring *newest_ring(void);
void ring_store(struct ring *r, size_t off, __u32 v);
void unmap_all_rings(void);
void scribble(void);
void act_mmap_random(void);
void act_munmap(void);
void act_ring_post_recv(void);
void act_ring_poll(void);

/* ---- frame.c: write() commands ------------------------------------------- */

/**
 * struct wreq - one write() command
 * @op: its kind, for the summary
 * @cmd: the command number (the extended flag is added for @ex)
 * @ex: an extended command (ib_uverbs_ex_cmd_hdr)
 * @core: the command struct; for a non-extended command with a response
 *	the first u64 is the response pointer, which the framing fills
 * @core_len: its bytes
 * @drv_in: driver (provider) input appended, or NULL
 * @drv_in_len: its bytes
 * @resp_len: the core response's bytes; 0: the command has none
 * @drv_out: driver response bytes the provider gives room for
 * @extent: bytes after the response the kernel may write (POLL_CQ)
 * @check_off: offset of a u32 of the core response a success must write,
 *	or -1
 * @embedded_ok: every pointer inside the command is valid
 * @force_clean: frame it as the ABI says, valid pointers (no fuzzing)
 * @ok: out: the call succeeded
 * @resp: out: the response, when @ok and readable, else NULL
 * @out_len: out: core response bytes the kernel was given room for
 * @drv_out_len: out: driver response bytes the kernel was given room for
 */
struct wreq {
	enum fuzz_op op;
	__u32 cmd;
	bool ex;
	void *core;
	size_t core_len;
	const void *drv_in;
	size_t drv_in_len;
	size_t resp_len, drv_out, extent;
	int check_off;
	bool embedded_ok, force_clean;
	bool ok;
	char *resp;
	size_t out_len, drv_out_len;
};

void wreq_init(struct wreq *w, enum fuzz_op kind, __u32 cmd, void *core,
	       size_t core_len, size_t resp_len);
bool wsubmit(struct wreq *w);
bool resp_cookie(struct wreq *w, __u64 *cookie);

/* ---- writes.c: context, device, PD, MR, AH, multicast, the others -------- */

bool cmd_get_context(bool exact);
void cmd_query_device(void);
__u8 pick_port(void);
void cmd_query_port(void);
void cmd_create_comp_channel(void);
void cmd_alloc_pd(void);
void cmd_destroy(enum fuzz_op op, __u32 cmd, enum kind k, size_t resp_len);
void cmd_reg_mr(void);
void cmd_rereg_mr(void);
void cmd_alloc_mw(void);
void cmd_create_ah(void);
void cmd_mcast(bool attach);
void cmd_ex_query_device(void);
void cmd_ex_other(void);
void cmd_open_xrcd_qp(void);
void cmd_random(void);
void cmd_raw_write(void);

/* ---- writes_cq.c: CQs ----------------------------------------------------- */

__u32 pick_cqe(void);
struct obj *new_cq(struct wreq *w, __u32 handle, __u32 cqe, bool size_known);
void cmd_create_cq(void);
void cmd_ex_create_cq(void);
void cmd_resize_cq(void);
int cmd_poll_cq(__u32 handle, __u32 ne, struct ib_uverbs_wc *wc);
void cmd_req_notify_cq(void);
void cmd_ex_modify_cq(void);

/* ---- writes_qp.c: QPs and SRQs -------------------------------------------- */

/* The handles and caps of a create_qp, plain, extended or ioctl. */
struct qp_args {
	__u32 pd, scq, rcq, srq, swr, rwr, ssge, rsge, inl;
	__u8 type, is_srq, sig_all;
	bool srq_live;
};

bool pick_qp_args(struct qp_args *a);
void new_qp(struct wreq *w, const struct ib_uverbs_create_qp_resp *r,
	    __u8 type, bool srq, __u32 pd);
void cmd_create_qp(void);
void cmd_ex_create_qp(void);
bool cmd_modify_qp(struct obj *qp, __u32 to, __u32 peer_qpn, bool damage);
void act_modify_qp(void);
void act_wire_pair(void);
void cmd_query_qp(void);
void cmd_create_srq(void);
void cmd_modify_srq(void);
void cmd_query_srq(void);

/* ---- writes_post.c: posting work ------------------------------------------ */

void cmd_post(enum fuzz_op op);

/* ---- ioctls.c: RDMA_VERBS_IOCTL methods ----------------------------------- */

extern __u32 driver_id;

bool learn_driver_id(void);
void ioc_query_context(void);
void ioc_query_port(void);
void ioc_info_handles(void);
void ioc_gid(void);
void ioc_invoke_write(void);
void ioc_create_cq(void);
void ioc_create_qp(void);
void ioc_destroy(void);
void ioc_random(void);
void ioc_other(void);

/* ---- rounds.c: steps, rounds and children --------------------------------- */

void forget_context(void);
void close_context(void);
void fuzz_round(double deadline, unsigned long max);
void stop_child(void);

/* ---- datacheck.c: after fuzzing ------------------------------------------- */

void data_check(void);

#endif /* UVERBS_FUZZ_H */
