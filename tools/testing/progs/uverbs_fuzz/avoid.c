// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * uverbs_fuzz: known kernel bugs the fuzzer can be told to keep away from
 * (--avoid), so that a run finds the next one instead of the same crash
 * again.
 */
#include "fuzz.h"

static const struct {
	const char *name;
	unsigned int bit;
} avoidable[] = {
	/* rvt_post_send() dereferences wr, NULL for a POST_SEND of no WR */
	{ "post-send-no-wr", AV_POST_SEND_NO_WR },
	/*
	 * upstream's rvt_resize_cq() takes the kind of ring from the udata:
	 * resize only CQs whose kind is sure, with room for a cookie
	 * exactly when they have a ring
	 */
	{ "resize-cq-no-cookie", AV_RESIZE_CQ_COOKIE },
	/* upstream trusts a user ring's SGE counts */
	{ "rq-sge-count", AV_RQ_SGE_COUNT },
	/* rvt_attach_mcast() indexes rdi->ports[port_num - 1], port 0 too */
	{ "mcast-no-port", AV_MCAST_NO_PORT },
	/*
	 * upstream's rvt_create_qp() frees a user RQ ring twice when it
	 * cannot write the ring's cookie (an invalid response pointer)
	 */
	{ "create-qp-response", AV_CREATE_QP_RESP },
	/*
	 * upstream deadlocks when a destroy or a modify of an RC or UC QP
	 * meets the loopback engine still sending on it (r_lock and s_lock
	 * taken in the two orders): only UD QPs get sends, on live handles
	 */
	{ "rc-send", AV_RC_SEND },
	/*
	 * ib_uverbs (ib_core, not rdmavt) leaks a reference to the calling
	 * task when the ioctl GET_CONTEXT fails in ib_init_ucontext(), as
	 * on a file that has its context already: the context is freed
	 * without rdma_restrack_put() (uverbs_std_types_device.c)
	 */
	{ "ioctl-get-context", AV_IOCTL_GET_CONTEXT },
};

unsigned int avoid;

bool parse_avoid(const char *list)
{
	char *copy = strdup(list), *name, *save = NULL;
	unsigned int i;
	bool ok = true;

	for (name = strtok_r(copy, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < NELEMS(avoidable); i++)
			if (!strcmp(name, avoidable[i].name))
				break;
		if (i == NELEMS(avoidable)) {
			fprintf(stderr, "unknown bug to avoid: %s\n", name);
			ok = false;
		} else {
			avoid |= avoidable[i].bit;
		}
	}
	free(copy);
	return ok;
}

/* A write() command number that would run into an avoided bug. */
bool cmd_avoided(__u32 cmd)
{
	return ((avoid & (AV_POST_SEND_NO_WR | AV_RC_SEND)) &&
		cmd == IB_USER_VERBS_CMD_POST_SEND) ||
	       ((avoid & AV_RESIZE_CQ_COOKIE) &&
		cmd == IB_USER_VERBS_CMD_RESIZE_CQ) ||
	       ((avoid & AV_MCAST_NO_PORT) &&
		(cmd == IB_USER_VERBS_CMD_ATTACH_MCAST ||
		 cmd == IB_USER_VERBS_CMD_DETACH_MCAST)) ||
	       ((avoid & AV_CREATE_QP_RESP) &&
		cmd == IB_USER_VERBS_CMD_CREATE_QP);
}
