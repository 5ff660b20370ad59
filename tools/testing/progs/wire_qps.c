// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Live QPs for the wire fuzzer (83-wirefuzz, tools/testing/py/wire_fuzz.py):
 * RC, UC and UD QPs on one port, the RC and UC ones connected to a remote
 * that is the fuzzer, kept busy until told to stop.
 *
 * Usage: wire_qps DEVICE PEER_LID INFO_FILE
 *
 * Makes two RC QPs, one UC QP and one UD QP on DEVICE port 1, the
 * connected ones to PEER_LID, remote QPN 0x100 + their index (RC 0 and 1,
 * UC 2), starting PSN 0 both ways, path MTU 256, and one MR of 64 KiB
 * at a fixed address that allows remote writes, reads and atomics. Writes what the fuzzer
 * needs to INFO_FILE, one line:
 *   rc=QPN,QPN uc=QPN ud=QPN qkey=Q rkey=R addr=A len=L
 * Then, until SIGTERM or SIGINT: keeps every receive queue full, posts a
 * SEND, an RDMA READ or an atomic on the first RC QP and a SEND on the UC
 * QP toward the peer now and then (nobody answers them but the fuzzer: the
 * retry timers run out, the QP goes to the error state), and puts any QP
 * found in the error state back to RTS (PSN 0 again). At the end prints
 * what it saw and destroys everything; exits 0 if every destroy succeeded.
 */
#include <infiniband/verbs.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "verbs_device.h"

#define QKEY 0x11111111
#define NQP 4
#define RECVS 64
#define SLOT 1024
#define MR_LEN 65536
#define REMOTE_QPN 0x100
/*
 * The MR's address, the same in every run: the fuzzer's frames name it,
 * and a seed must give the same frames on every boot.
 */
#define MR_ADDR 0x10000000000UL

static unsigned long completions, errors, resets, posted;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("wire_qps: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

struct holder {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	char *buf;
	struct ibv_qp *qp[NQP];
	enum ibv_qp_type type[NQP];
	int peer_lid;
	unsigned int outstanding[NQP];
};

static const enum ibv_qp_type types[NQP] = {
	IBV_QPT_RC, IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD
};

static void post_recvs(struct holder *h, int i, int n)
{
	struct ibv_sge sge = { .lkey = h->mr->lkey, .length = SLOT };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

	while (n--) {
		/* Each QP's receives in its own 1/8 of the MR's first half. */
		sge.addr = (uintptr_t)h->buf + i * 4096 + (n % 4) * SLOT;
		wr.wr_id = i;
		if (ibv_post_recv(h->qp[i], &wr, &bad))
			return;
	}
}

static int to_rts(struct holder *h, int i)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	struct ibv_qp *qp = h->qp[i];
	int mask;

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.pkey_index = 0;
	mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
	if (h->type[i] == IBV_QPT_UD) {
		a.qkey = QKEY;
		mask |= IBV_QP_QKEY;
	} else {
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
		if (h->type[i] == IBV_QPT_RC)
			a.qp_access_flags |= IBV_ACCESS_REMOTE_READ |
					     IBV_ACCESS_REMOTE_ATOMIC;
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	if (ibv_modify_qp(qp, &a, mask))
		return -1;
	h->outstanding[i] = 0;
	post_recvs(h, i, RECVS);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	mask = IBV_QP_STATE;
	if (h->type[i] != IBV_QPT_UD) {
		a.path_mtu = IBV_MTU_256;
		a.dest_qp_num = REMOTE_QPN + i;
		a.rq_psn = 0;
		a.ah_attr.dlid = h->peer_lid;
		a.ah_attr.port_num = 1;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN;
		if (h->type[i] == IBV_QPT_RC) {
			a.max_dest_rd_atomic = 4;
			a.min_rnr_timer = 1;
			mask |= IBV_QP_MAX_DEST_RD_ATOMIC |
				IBV_QP_MIN_RNR_TIMER;
		}
	}
	if (ibv_modify_qp(qp, &a, mask))
		return -1;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (h->type[i] == IBV_QPT_RC) {
		a.timeout = 12;
		a.retry_cnt = 3;
		a.rnr_retry = 3;
		a.max_rd_atomic = 4;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	return ibv_modify_qp(qp, &a, mask);
}

/* One request toward the peer: RC (SEND, READ or atomic) or UC (SEND). */
static void post_one(struct holder *h, int i, unsigned int n)
{
	char *local = h->buf + MR_LEN / 2 + i * 4096;
	struct ibv_sge sge = { .addr = (uintptr_t)local, .length = 64,
			       .lkey = h->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	if (h->type[i] == IBV_QPT_RC) {
		switch (n % 3) {
		case 1:
			wr.opcode = IBV_WR_RDMA_READ;
			sge.length = 600;
			wr.wr.rdma.remote_addr = 0x10000;
			wr.wr.rdma.rkey = 0x1234;
			break;
		case 2:
			wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
			sge.length = 8;
			wr.wr.atomic.remote_addr = 0x10000;
			wr.wr.atomic.rkey = 0x1234;
			wr.wr.atomic.compare_add = 1;
			break;
		}
	}
	if (!ibv_post_send(h->qp[i], &wr, &bad)) {
		h->outstanding[i]++;
		posted++;
	}
}

static void drain_cq(struct holder *h)
{
	struct ibv_wc wc[16];
	int n, k;

	while ((n = ibv_poll_cq(h->cq, 16, wc)) > 0) {
		for (k = 0; k < n; k++) {
			int i = wc[k].wr_id;

			completions++;
			if (wc[k].status != IBV_WC_SUCCESS)
				errors++;
			if (i < 0 || i >= NQP)
				continue;
			if (wc[k].opcode & IBV_WC_RECV) {
				if (wc[k].status == IBV_WC_SUCCESS)
					post_recvs(h, i, 1);
			} else if (h->outstanding[i]) {
				h->outstanding[i]--;
			}
		}
	}
}

/* Any QP in the error state (or stuck in SQD/SQE) back to RTS. */
static void revive(struct holder *h)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;
	int i;

	for (i = 0; i < NQP; i++) {
		if (ibv_query_qp(h->qp[i], &a, IBV_QP_STATE, &init))
			die("query QP %u: %s", h->qp[i]->qp_num, strerror(errno));
		if (a.qp_state == IBV_QPS_RTS)
			continue;
		drain_cq(h);
		if (to_rts(h, i))
			die("QP %u back to RTS: %s", h->qp[i]->qp_num,
			    strerror(errno));
		resets++;
	}
}

/* The device, PD, CQ, the MR at its fixed address, and the QPs at RTS. */
static void holder_open(struct holder *h, const char *dev)
{
	struct ibv_qp_init_attr init = {
		.cap = { .max_send_wr = 16, .max_recv_wr = RECVS,
			 .max_send_sge = 1, .max_recv_sge = 1 } };
	int i;

	h->ctx = open_named_device(dev);
	if (!h->ctx)
		die("no device %s", dev);
	h->pd = ibv_alloc_pd(h->ctx);
	h->cq = h->pd ? ibv_create_cq(h->ctx, 4 * NQP * RECVS, NULL, NULL, 0) :
			NULL;
	h->buf = mmap((void *)MR_ADDR, MR_LEN, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (h->buf == MAP_FAILED)
		die("no memory at %#lx: %s", MR_ADDR, strerror(errno));
	memset(h->buf, 0, MR_LEN);
	h->mr = h->cq ? ibv_reg_mr(h->pd, h->buf, MR_LEN,
				   IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC) : NULL;
	if (!h->mr)
		die("PD, CQ or MR: %s", strerror(errno));
	init.send_cq = h->cq;
	init.recv_cq = h->cq;
	for (i = 0; i < NQP; i++) {
		h->type[i] = types[i];
		init.qp_type = types[i];
		h->qp[i] = ibv_create_qp(h->pd, &init);
		if (!h->qp[i] || to_rts(h, i))
			die("QP %d: %s", i, strerror(errno));
	}
}

/* What the fuzzer needs to aim at the QPs and the MR, into @path. */
static void write_info(const struct holder *h, const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		die("%s: %s", path, strerror(errno));
	fprintf(f, "rc=%u,%u uc=%u ud=%u qkey=%u rkey=%u addr=%lu len=%u\n",
		h->qp[0]->qp_num, h->qp[1]->qp_num, h->qp[2]->qp_num,
		h->qp[3]->qp_num, QKEY, h->mr->rkey,
		(unsigned long)(uintptr_t)h->buf, MR_LEN);
	if (fclose(f))
		die("%s: %s", path, strerror(errno));
}

/* Everything destroyed. Return: 0, or 1 if something could not be. */
static int holder_close(struct holder *h)
{
	int i, rc = 0;

	for (i = 0; i < NQP; i++)
		if (ibv_destroy_qp(h->qp[i])) {
			fprintf(stderr, "wire_qps: destroy QP %d: %s\n", i,
				strerror(errno));
			rc = 1;
		}
	if (ibv_dereg_mr(h->mr) || ibv_destroy_cq(h->cq) ||
	    ibv_dealloc_pd(h->pd) || ibv_close_device(h->ctx)) {
		fprintf(stderr, "wire_qps: teardown: %s\n", strerror(errno));
		rc = 1;
	}
	munmap(h->buf, MR_LEN);
	if (!rc)
		printf("wire_qps: every QP, the MR, CQ and PD destroyed\n");
	return rc;
}

int main(int argc, char **argv)
{
	struct holder h = { 0 };
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	sigset_t stop;
	unsigned int n = 0;

	if (argc != 4)
		die("usage: wire_qps DEVICE PEER_LID INFO_FILE");
	h.peer_lid = atoi(argv[2]);
	/* SIGTERM and SIGINT end the loop: its tick waits for them. */
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	holder_open(&h, argv[1]);
	write_info(&h, argv[3]);

	while (sigtimedwait(&stop, NULL, &tick) < 0) {
		drain_cq(&h);
		if (++n % 5 == 0)
			revive(&h);
		if (n % 10 == 0 && h.outstanding[0] < 8)
			post_one(&h, 0, n / 10);
		if (n % 10 == 5 && h.outstanding[2] < 8)
			post_one(&h, 2, n / 10);
	}
	drain_cq(&h);
	printf("wire_qps: %lu requests posted, %lu completions ", posted,
	       completions);
	printf("(%lu not successful), %lu QPs put back to RTS\n", errors,
	       resets);
	return holder_close(&h);
}
