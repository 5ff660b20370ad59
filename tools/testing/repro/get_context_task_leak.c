// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Reproduces ib_uverbs' leak of a task reference (ib_core's, in no
 * rdmavt; found by uverbs_fuzz, suite 68-fuzz, under kmemleak): the
 * ioctl method UVERBS_METHOD_GET_CONTEXT allocates a ucontext, whose
 * restrack entry takes a reference to the calling task, and when
 * ib_init_ucontext() then fails (EINVAL: the file has a context
 * already) it frees the ucontext with kfree() alone, so the reference
 * is never dropped and the process's task_struct outlives it for good.
 * The write() command GET_CONTEXT unwinds the same failure correctly.
 *
 * Usage: get_context_task_leak UVERBS_DEV [N]: a context by write(),
 * then N (default 0) ioctl GET_CONTEXTs, each of which must fail.
 * Return: 0 if all went as described, 1 otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/rdma_user_ioctl.h>

/* rvtsw registers as a qib device; ib_uverbs refuses another driver id */
#define RVTSW_DRIVER_ID RDMA_DRIVER_QIB

static int context_by_write(int fd)
{
	struct ib_uverbs_get_context_resp resp;
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_get_context cmd;
	} req = {
		.hdr = {
			.command = IB_USER_VERBS_CMD_GET_CONTEXT,
			.in_words = sizeof(req) / 4,
			.out_words = sizeof(resp) / 4,
		},
		.cmd.response = (unsigned long)&resp,
	};

	return write(fd, &req, sizeof(req)) == sizeof(req) ? 0 : -errno;
}

static int context_by_ioctl(int fd)
{
	struct ib_uverbs_ioctl_hdr hdr = {
		.length = sizeof(hdr),
		.object_id = UVERBS_OBJECT_DEVICE,
		.method_id = UVERBS_METHOD_GET_CONTEXT,
		.driver_id = RVTSW_DRIVER_ID,
	};

	return ioctl(fd, RDMA_VERBS_IOCTL, &hdr) ? -errno : 0;
}

int main(int argc, char **argv)
{
	int fd, ret, i, n = argc > 2 ? atoi(argv[2]) : 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s UVERBS_DEV [N]\n", argv[0]);
		return 1;
	}
	fd = open(argv[1], O_RDWR | O_CLOEXEC);
	if (fd < 0 || context_by_write(fd)) {
		perror(argv[1]);
		return 1;
	}
	for (i = 0; i < n; i++) {
		ret = context_by_ioctl(fd);
		printf("ioctl GET_CONTEXT on a file with a context: %s\n",
		       ret ? strerror(-ret) : "taken");
		if (ret != -EINVAL)
			return 1;
	}
	close(fd);
	return 0;
}
