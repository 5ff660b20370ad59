// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Multicast delivery by rvtsw (pyverbs has no ibv_attach_mcast).
 *
 * Usage: mcast_test SENDER MEMBER... (each DEVICE:PORT)
 *
 * Attaches one UD QP per MEMBER to a group and sends to it from a UD QP
 * on SENDER: every member receives the datagram once, with the GRH the
 * sender's AH describes. Then detaches the first member and sends again:
 * only the others receive. Then sends to a group nobody joined: nobody
 * receives, and the sender's port counts a drop_unknown_lid. Exits 0 if
 * all of that holds.
 */
#include <infiniband/verbs.h>
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "verbs_device.h"

#define QKEY 0x11111111
#define MLID 0xc001
#define EMPTY_MLID 0xc002
#define GRH_BYTES 40
#define BUF 4096
#define MAX_MEMBERS 8

struct endpoint {
	const char *dev;
	int port;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char buf[BUF];
};

static union ibv_gid mgid, empty_mgid;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("mcast_test: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void to_rts(struct endpoint *ep)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.port_num = ep->port,
		.qkey = QKEY,
	};

	if (ibv_modify_qp(ep->qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		die("%s: INIT failed", ep->dev);
	attr.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(ep->qp, &attr, IBV_QP_STATE))
		die("%s: RTR failed", ep->dev);
	attr.qp_state = IBV_QPS_RTS;
	if (ibv_modify_qp(ep->qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN))
		die("%s: RTS failed", ep->dev);
}

static void setup(struct endpoint *ep, const char *spec)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	const char *colon = strchr(spec, ':');

	ep->dev = strndup(spec, colon ? (size_t)(colon - spec) : strlen(spec));
	ep->port = colon ? atoi(colon + 1) : 1;
	ep->ctx = open_named_device(ep->dev);
	if (!ep->ctx)
		die("cannot open %s", ep->dev);
	ep->pd = ibv_alloc_pd(ep->ctx);
	ep->cq = ibv_create_cq(ep->ctx, 8, NULL, NULL, 0);
	ep->mr = ep->pd ? ibv_reg_mr(ep->pd, ep->buf, BUF,
				     IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!ep->pd || !ep->cq || !ep->mr)
		die("%s: PD, CQ or MR failed", ep->dev);
	init.send_cq = ep->cq;
	init.recv_cq = ep->cq;
	ep->qp = ibv_create_qp(ep->pd, &init);
	if (!ep->qp)
		die("%s: create QP failed", ep->dev);
	to_rts(ep);
}

static void post_recv(struct endpoint *ep)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)ep->buf, .length = BUF, .lkey = ep->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	memset(ep->buf, 0xee, BUF);
	if (ibv_post_recv(ep->qp, &wr, &bad))
		die("%s: posting a receive failed", ep->dev);
}

static int poll_one(struct endpoint *ep, struct ibv_wc *wc, int seconds)
{
	time_t end = time(NULL) + seconds;

	do {
		int n = ibv_poll_cq(ep->cq, 1, wc);

		if (n)
			return n;
	} while (time(NULL) <= end);
	return 0;
}

/* Send @msg to the group (@lid, @gid) and wait for the send completion. */
static void send_to_group(struct endpoint *tx, const char *msg, uint16_t lid,
			  const union ibv_gid *gid)
{
	struct ibv_ah_attr ah_attr = {
		.dlid = lid, .port_num = tx->port, .is_global = 1,
		.grh = { .dgid = *gid, .sgid_index = 0, .hop_limit = 1 },
	};
	struct ibv_sge sge = {
		.addr = (uintptr_t)tx->buf, .length = strlen(msg),
		.lkey = tx->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 2, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;
	struct ibv_wc wc;

	wr.wr.ud.ah = ibv_create_ah(tx->pd, &ah_attr);
	if (!wr.wr.ud.ah)
		die("create AH for LID %#x failed", lid);
	wr.wr.ud.remote_qpn = 0xffffff;
	wr.wr.ud.remote_qkey = QKEY;
	memcpy(tx->buf, msg, strlen(msg));
	if (ibv_post_send(tx->qp, &wr, &bad))
		die("posting the send failed");
	if (!poll_one(tx, &wc, 10) || wc.status != IBV_WC_SUCCESS)
		die("no successful send completion");
	ibv_destroy_ah(wr.wr.ud.ah);
}

/* Did @ep receive @msg (once), or nothing if !@msg? */
static int check_member(struct endpoint *ep, int i, const char *msg)
{
	struct ibv_wc wc;
	int n = poll_one(ep, &wc, 0);

	if (!msg) {
		printf("member %d (%s:%d): %s\n", i, ep->dev, ep->port,
		       n ? "received, want nothing" : "nothing, ok");
		return !n;
	}
	if (!n || wc.status != IBV_WC_SUCCESS) {
		printf("member %d: no successful receive\n", i);
		return 0;
	}
	if (wc.byte_len != strlen(msg) + GRH_BYTES ||
	    !(wc.wc_flags & IBV_WC_GRH) ||
	    memcmp(ep->buf + 24, &mgid, sizeof(mgid)) ||
	    memcmp(ep->buf + GRH_BYTES, msg, strlen(msg))) {
		printf("member %d: wrong completion or data (byte_len %u)\n",
		       i, wc.byte_len);
		return 0;
	}
	printf("member %d (%s:%d): \"%s\" with GRH, ok\n", i, ep->dev,
	       ep->port, msg);
	post_recv(ep);
	return 1;
}

static long counter(struct endpoint *ep, const char *name)
{
	struct timespec jiffy = { .tv_nsec = 20 * 1000 * 1000 };
	char path[256];
	long value = -1;
	FILE *f;

	/* The IB core serves the file from a copy up to a jiffy old. */
	nanosleep(&jiffy, NULL);
	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/%d/hw_counters/%s",
		 ep->dev, ep->port, name);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%ld", &value) != 1)
		die("cannot read %s", path);
	fclose(f);
	return value;
}

int main(int argc, char **argv)
{
	static struct endpoint tx, members[MAX_MEMBERS];
	int n = argc - 2, i, ok = 1;
	long drops;

	if (n < 1 || n > MAX_MEMBERS)
		die("usage: mcast_test SENDER MEMBER... (DEVICE:PORT, 1-%d members)",
		    MAX_MEMBERS);
	inet_pton(AF_INET6, "ff12:401b:ffff::1", &mgid);
	inet_pton(AF_INET6, "ff12:401b:ffff::2", &empty_mgid);
	setup(&tx, argv[1]);
	for (i = 0; i < n; i++) {
		setup(&members[i], argv[i + 2]);
		if (ibv_attach_mcast(members[i].qp, &mgid, MLID))
			die("member %d: attach failed", i);
		post_recv(&members[i]);
	}

	send_to_group(&tx, "to all members", MLID, &mgid);
	for (i = 0; i < n; i++)
		ok &= check_member(&members[i], i, "to all members");

	if (ibv_detach_mcast(members[0].qp, &mgid, MLID))
		die("member 0: detach failed");
	send_to_group(&tx, "member 0 left", MLID, &mgid);
	for (i = 0; i < n; i++)
		ok &= check_member(&members[i], i, i ? "member 0 left" : NULL);

	drops = counter(&tx, "drop_unknown_lid");
	send_to_group(&tx, "to nobody", EMPTY_MLID, &empty_mgid);
	for (i = 0; i < n; i++)
		ok &= check_member(&members[i], i, NULL);
	drops = counter(&tx, "drop_unknown_lid") - drops;
	printf("group without members: drop_unknown_lid +%ld\n", drops);
	ok &= drops == 1;

	for (i = 1; i < n; i++)
		ibv_detach_mcast(members[i].qp, &mgid, MLID);
	printf("%s\n", ok ? "multicast ok" : "multicast FAILED");
	return !ok;
}
