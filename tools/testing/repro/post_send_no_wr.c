// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Reproduces a NULL dereference in rvt_post_send() (found by
 * uverbs_fuzz, suite 68-fuzz): a POST_SEND of no work request. Any
 * process that may open the uverbs device can do it with plain
 * libibverbs: ipathverbs' post_send is ibv_cmd_post_send(), which
 * writes the command with wr_count 0 for a NULL list, and
 * ib_uverbs_post_send() hands the driver wr == NULL. rvt_post_send()
 * reads wr->next under s_hlock (upstream's qp.c), so the task dies with
 * the lock held and interrupts off, and the next destroy of the QP spins
 * forever. Ours (qp_send.c) posts nothing and returns 0; 68-fuzz's
 * post-send-no-wr runs this on it.
 *
 * Usage: post_send_no_wr DEVICE   (a QP in the error state will do:
 * posting is allowed there, to be flushed; it goes through INIT)
 */
#include <stdio.h>
#include <string.h>
#include "../progs/verbs_device.h"

int main(int argc, char **argv)
{
	struct ibv_qp_attr init_attr = { .qp_state = IBV_QPS_INIT,
					 .port_num = 1 };
	struct ibv_qp_attr err_attr = { .qp_state = IBV_QPS_ERR };
	struct ibv_send_wr *bad = NULL;
	struct ibv_qp *qp;
	int i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DEVICE\n", argv[0]);
		return 2;
	}
	qp = reset_qp_on(argv[1], IBV_QPT_RC);
	if (!qp)
		return 2;
	i = ibv_modify_qp(qp, &init_attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (!i)
		i = ibv_modify_qp(qp, &err_attr, IBV_QP_STATE);
	if (i) {
		fprintf(stderr, "modify to INIT, then ERR: %s\n", strerror(i));
		return 2;
	}
	printf("posting no work request to QP %u\n", qp->qp_num);
	fflush(stdout);
	i = ibv_post_send(qp, NULL, &bad);
	printf("ibv_post_send: %s\n", i ? strerror(i) : "ok");
	return 0;
}
