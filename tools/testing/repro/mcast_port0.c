// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Reproduces rvt_attach_mcast()'s read of rdi->ports[-1] (found by
 * uverbs_fuzz, suite 68-fuzz, on the KASAN kernel): a user QP has no
 * port until it is modified to INIT, and rvt_attach_mcast() (and
 * rvt_detach_mcast()) read rdi->ports[qp->port_num - 1] before they
 * look at the QP's state (upstream's mcast.c). For a UD QP in RESET that
 * is the word before the ports array: KASAN reports slab-out-of-bounds,
 * then the call returns EINVAL as it should. Ours (mcast.c) refuses a QP
 * without a port first; 68-fuzz's mcast-no-port runs this on it. (Only
 * RESET has port 0: Linux takes a QP out of RESET to INIT only, and INIT
 * needs a port.)
 *
 * Usage: mcast_port0 DEVICE
 */
#include <stdio.h>
#include <string.h>
#include "../progs/verbs_device.h"

int main(int argc, char **argv)
{
	union ibv_gid gid = { .raw = { 0xff, 0x12, [15] = 1 } };
	struct ibv_qp *qp;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DEVICE\n", argv[0]);
		return 2;
	}
	qp = reset_qp_on(argv[1], IBV_QPT_UD);
	if (!qp)
		return 2;
	printf("attaching UD QP %u (RESET, no port) to ff12::1, LID 0xc001\n",
	       qp->qp_num);
	fflush(stdout);
	ret = ibv_attach_mcast(qp, &gid, 0xc001);
	printf("ibv_attach_mcast: %s\n", ret ? strerror(ret) : "ok");
	ret = ibv_detach_mcast(qp, &gid, 0xc001);
	printf("ibv_detach_mcast: %s\n", ret ? strerror(ret) : "ok");
	return 0;
}
