// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * In-kernel checks of rdmavt's memory-region key validation, the part of
 * the data path that decides which bytes a work request may touch.
 *
 * Loading the module with dev=NAME (an rdmavt device, rvtsw_0 by default)
 * runs every check against that device; each failure is logged and the
 * load then fails with -EINVAL, so `insmod` itself is the verdict. The
 * QP-facing checks need only the QP's device and PD, so a zeroed struct
 * rvt_qp stands in for a real QP.
 */
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_vt.h>
#include <rdma/rdmavt_qp.h>

MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("Self-test of rdmavt's memory region checks");

static char *dev = "rvtsw_0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "rdmavt device to test (default rvtsw_0)");

#define NPAGES 4
#define MR_OFFSET 100U		/* the registration starts inside page 0 */
#define MR_LEN (3 * PAGE_SIZE)

static int failures;

#define EXPECT(cond) do {						\
	if (!(cond)) {							\
		failures++;						\
		pr_err("rvt_mr_selftest: %s:%d: expected %s\n",		\
		       __func__, __LINE__, #cond);			\
	}								\
} while (0)

/**
 * struct selftest - what the checks share
 * @ibdev: the device under test
 * @rdi: its rdmavt view
 * @pd: a kernel PD
 * @other_pd: another kernel PD
 * @global_pd: a PD created with IB_PD_UNSAFE_GLOBAL_RKEY
 * @qp: stands in for a QP of @pd
 * @other_qp: stands in for a QP of @other_pd
 * @global_qp: stands in for a QP of @global_pd
 * @buf: NPAGES pages of memory to register
 * @sg: @buf's registered part, DMA mapped
 * @mr: a fast-registration MR of @pd mapping @sg
 */
struct selftest {
	struct ib_device *ibdev;
	struct rvt_dev_info *rdi;
	struct ib_pd *pd, *other_pd, *global_pd;
	struct rvt_qp *qp, *other_qp, *global_qp;
	void *buf;
	struct scatterlist sg;
	struct ib_mr *mr;
};

/* rvt_rkey_ok() without keeping the reference; *vaddr gets the SGE's. */
static int rkey_ok(struct rvt_qp *qp, u64 va, u32 len, u32 key, int acc,
		   void **vaddr)
{
	struct rvt_sge sge;
	int ok = rvt_rkey_ok(qp, &sge, len, va, key, acc);

	if (ok) {
		if (vaddr)
			*vaddr = sge.vaddr;
		rvt_put_mr(sge.mr);
	}
	return ok;
}

/* rvt_lkey_ok() for a single SGE, without keeping the reference. */
static int lkey_ok(struct selftest *t, struct ib_pd *pd, u64 addr, u32 len,
		   u32 key, int acc)
{
	struct ib_sge sge = { .addr = addr, .length = len, .lkey = key };
	struct rvt_sge isge;
	int ret;

	ret = rvt_lkey_ok(&t->rdi->lkey_table, ibpd_to_rvtpd(pd), &isge, NULL,
			  &sge, acc);
	if (ret == 1)
		rvt_put_mr(isge.mr);
	return ret;
}

static void check_dma_lkey(struct selftest *t)
{
	u64 addr = (uintptr_t)t->buf;
	struct ib_sge next = { .addr = addr + 64, .length = 32, .lkey = 0 };
	struct ib_sge first = { .addr = addr, .length = 64, .lkey = 0 };
	struct rvt_pd *pd = ibpd_to_rvtpd(t->pd);
	struct rvt_sge isge[2];

	EXPECT(t->pd->local_dma_lkey == 0);
	if (rvt_lkey_ok(&t->rdi->lkey_table, pd, &isge[0], NULL, &first,
			IB_ACCESS_LOCAL_WRITE) != 1) {
		EXPECT(!"lkey 0 for a kernel PD");
		return;
	}
	EXPECT(isge[0].vaddr == t->buf && isge[0].sge_length == 64);
	/* A DMA SGE continuing the previous one is merged into it. */
	EXPECT(rvt_lkey_ok(&t->rdi->lkey_table, pd, &isge[1], &isge[0], &next,
			   IB_ACCESS_LOCAL_WRITE) == 0);
	EXPECT(isge[0].sge_length == 96 && isge[0].length == 96);
	rvt_put_mr(isge[0].mr);

	/* lkey 0 is for kernel PDs only. */
	pd->user = true;
	EXPECT(lkey_ok(t, t->pd, addr, 64, 0, 0) == -EINVAL);
	pd->user = false;
	EXPECT(lkey_ok(t, t->pd, addr, 0, 0, 0) == -EINVAL);
}

static int map_frmr(struct selftest *t)
{
	sg_init_table(&t->sg, 1);
	sg_set_buf(&t->sg, t->buf + MR_OFFSET, MR_LEN);
	if (ib_dma_map_sg(t->ibdev, &t->sg, 1, DMA_BIDIRECTIONAL) != 1)
		return -EIO;
	t->mr = ib_alloc_mr(t->pd, IB_MR_TYPE_MEM_REG, NPAGES);
	if (IS_ERR(t->mr))
		return PTR_ERR(t->mr);
	EXPECT(ib_map_mr_sg(t->mr, &t->sg, 1, NULL, PAGE_SIZE) == 1);
	EXPECT(t->mr->iova == (uintptr_t)t->buf + MR_OFFSET);
	EXPECT(t->mr->length == MR_LEN);
	return 0;
}

/* Returns the key the MR is registered with. */
static u32 check_fast_reg(struct selftest *t)
{
	u32 old = t->mr->rkey, key = (old & ~0xffU) | ((old + 0x5a) & 0xff);
	u64 iova = t->mr->iova;

	/* Allocated and mapped is not registered. */
	EXPECT(!rkey_ok(t->qp, iova, 8, old, IB_ACCESS_REMOTE_READ, NULL));
	EXPECT(lkey_ok(t, t->pd, iova, 8, old, 0) == -EINVAL);

	EXPECT(rvt_fast_reg_mr(t->other_qp, t->mr, key, 0) == -EACCES);
	EXPECT(rvt_fast_reg_mr(t->qp, t->mr, key ^ 0x100, 0) == -EINVAL);
	EXPECT(rvt_fast_reg_mr(t->qp, t->mr, key, IB_ACCESS_LOCAL_WRITE |
			       IB_ACCESS_REMOTE_READ) == 0);
	EXPECT(t->mr->lkey == key && t->mr->rkey == key);
	/* The old key byte no longer names the region. */
	EXPECT(!rkey_ok(t->qp, iova, 8, old, IB_ACCESS_REMOTE_READ, NULL));
	return key;
}

static void check_bounds(struct selftest *t, u32 key)
{
	int rr = IB_ACCESS_REMOTE_READ;
	u64 iova = t->mr->iova;
	void *va = NULL;

	EXPECT(rkey_ok(t->qp, iova, 1, key, rr, &va) && va == t->buf +
	       MR_OFFSET);
	EXPECT(rkey_ok(t->qp, iova, MR_LEN, key, rr, NULL));
	EXPECT(rkey_ok(t->qp, iova + MR_LEN - 1, 1, key, rr, &va) &&
	       va == t->buf + MR_OFFSET + MR_LEN - 1);
	/* Into the second page: the SGE points into that segment. */
	EXPECT(rkey_ok(t->qp, iova + PAGE_SIZE, 10, key, rr, &va) &&
	       va == t->buf + MR_OFFSET + PAGE_SIZE);

	EXPECT(!rkey_ok(t->qp, iova, MR_LEN + 1, key, rr, NULL));
	EXPECT(!rkey_ok(t->qp, iova + MR_LEN - 1, 2, key, rr, NULL));
	EXPECT(!rkey_ok(t->qp, iova + MR_LEN, 1, key, rr, NULL));
	EXPECT(!rkey_ok(t->qp, iova - 1, 1, key, rr, NULL));
	EXPECT(!rkey_ok(t->qp, iova - 1, 2, key, rr, NULL));
	EXPECT(!rkey_ok(t->qp, iova, 0, key, rr, NULL));
	EXPECT(!rkey_ok(t->qp, iova + 8, U32_MAX, key, rr, NULL));
	EXPECT(!rkey_ok(t->qp, U64_MAX, 2, key, rr, NULL));
	EXPECT(!rkey_ok(t->qp, iova, 8, key ^ 0x100, rr, NULL));

	EXPECT(lkey_ok(t, t->pd, iova, MR_LEN, key, 0) == 1);
	EXPECT(lkey_ok(t, t->pd, iova + 1, MR_LEN, key, 0) == -EINVAL);
	EXPECT(lkey_ok(t, t->pd, iova - 1, 1, key, 0) == -EINVAL);
}

static void check_access(struct selftest *t, u32 key)
{
	u64 iova = t->mr->iova;

	EXPECT(rkey_ok(t->qp, iova, 8, key, IB_ACCESS_REMOTE_READ, NULL));
	EXPECT(!rkey_ok(t->qp, iova, 8, key, IB_ACCESS_REMOTE_WRITE, NULL));
	EXPECT(!rkey_ok(t->qp, iova, 8, key, IB_ACCESS_REMOTE_ATOMIC, NULL));
	EXPECT(!rkey_ok(t->qp, iova, 8, key, IB_ACCESS_REMOTE_READ |
			IB_ACCESS_REMOTE_WRITE, NULL));
	EXPECT(lkey_ok(t, t->pd, iova, 8, key, IB_ACCESS_LOCAL_WRITE) == 1);
	EXPECT(lkey_ok(t, t->pd, iova, 8, key, IB_ACCESS_REMOTE_WRITE) ==
	       -EINVAL);
	/* Another PD's QP cannot use the region at all. */
	EXPECT(!rkey_ok(t->other_qp, iova, 8, key, IB_ACCESS_REMOTE_READ,
			NULL));
	EXPECT(lkey_ok(t, t->other_pd, iova, 8, key, 0) == -EINVAL);
}

static void check_invalidate(struct selftest *t, u32 key)
{
	u64 iova = t->mr->iova;

	EXPECT(rvt_invalidate_rkey(t->qp, 0) == -EINVAL);
	EXPECT(rvt_invalidate_rkey(t->other_qp, key) == -EINVAL);
	EXPECT(rvt_invalidate_rkey(t->qp, key ^ 1) == -EINVAL);
	EXPECT(rvt_invalidate_rkey(t->qp, key) == 0);
	EXPECT(!rkey_ok(t->qp, iova, 8, key, IB_ACCESS_REMOTE_READ, NULL));
	EXPECT(lkey_ok(t, t->pd, iova, 8, key, 0) == -EINVAL);
	/* Registered again, it is usable again. */
	EXPECT(rvt_fast_reg_mr(t->qp, t->mr, key, IB_ACCESS_LOCAL_WRITE |
			       IB_ACCESS_REMOTE_WRITE) == 0);
	EXPECT(rkey_ok(t->qp, iova, 8, key, IB_ACCESS_REMOTE_WRITE, NULL));
}

static void check_global_rkey(struct selftest *t)
{
	u64 addr = (uintptr_t)t->buf;
	void *va = NULL;

	EXPECT(!rkey_ok(t->qp, addr, 8, 0, IB_ACCESS_REMOTE_READ, NULL));
	EXPECT(!rkey_ok(t->qp, addr, 8, 0, IB_ACCESS_REMOTE_WRITE, NULL));
	EXPECT(rkey_ok(t->global_qp, addr, 8, 0, IB_ACCESS_REMOTE_WRITE,
		       &va) && va == t->buf);
	EXPECT(rkey_ok(t->global_qp, addr, 8, 0, IB_ACCESS_REMOTE_READ,
		       NULL));
	EXPECT(!rkey_ok(t->global_qp, addr, 8, 0, IB_ACCESS_REMOTE_ATOMIC,
			NULL));
}

/* A region still referenced cannot be freed; dereg says so, then works. */
static void check_dereg_busy(struct selftest *t, u32 key)
{
	struct rvt_sge held;

	if (!rvt_rkey_ok(t->qp, &held, 8, t->mr->iova, key,
			 IB_ACCESS_REMOTE_WRITE)) {
		EXPECT(!"reference for the dereg check");
		return;
	}
	EXPECT(t->ibdev->ops.dereg_mr(t->mr, NULL) == -EBUSY);
	/* Unpublished meanwhile: no new references. */
	EXPECT(!rkey_ok(t->qp, t->mr->iova, 8, key, IB_ACCESS_REMOTE_WRITE,
			NULL));
	rvt_put_mr(held.mr);
	EXPECT(ib_dereg_mr(t->mr) == 0);
	t->mr = NULL;
}

/* lkey 0 keeps working while any kernel PD, hence DMA MR, is left. */
static void check_dma_mr_chain(struct selftest *t)
{
	struct ib_pd *a = ib_alloc_pd(t->ibdev, 0);
	struct ib_pd *b = ib_alloc_pd(t->ibdev, 0);
	u64 addr = (uintptr_t)t->buf;

	if (IS_ERR(a) || IS_ERR(b)) {
		EXPECT(!"two more PDs");
		goto out;
	}
	ib_dealloc_pd(a);
	a = NULL;
	EXPECT(lkey_ok(t, b, addr, 16, 0, 0) == 1);
	/*
	 * The first PD's DMA MR holds lkey 0 unless a kernel client had one
	 * before; either way b's must serve once it is gone.
	 */
	if (!t->mr) {
		ib_dealloc_pd(t->pd);
		t->pd = NULL;
		EXPECT(lkey_ok(t, b, addr, 16, 0, 0) == 1);
	}
out:
	if (!IS_ERR_OR_NULL(a))
		ib_dealloc_pd(a);
	if (!IS_ERR_OR_NULL(b))
		ib_dealloc_pd(b);
}

static struct rvt_qp *fake_qp(struct ib_device *ibdev, struct ib_pd *pd)
{
	struct rvt_qp *qp = kzalloc(sizeof(*qp), GFP_KERNEL);

	if (qp) {
		qp->ibqp.device = ibdev;
		qp->ibqp.pd = pd;
	}
	return qp;
}

static void teardown(struct selftest *t)
{
	if (!IS_ERR_OR_NULL(t->mr))
		ib_dereg_mr(t->mr);
	if (sg_dma_address(&t->sg))
		ib_dma_unmap_sg(t->ibdev, &t->sg, 1, DMA_BIDIRECTIONAL);
	kfree(t->qp);
	kfree(t->other_qp);
	kfree(t->global_qp);
	if (!IS_ERR_OR_NULL(t->pd))
		ib_dealloc_pd(t->pd);
	if (!IS_ERR_OR_NULL(t->other_pd))
		ib_dealloc_pd(t->other_pd);
	if (!IS_ERR_OR_NULL(t->global_pd))
		ib_dealloc_pd(t->global_pd);
	if (t->buf)
		free_pages((unsigned long)t->buf, get_order(NPAGES * PAGE_SIZE));
}

static int setup(struct selftest *t)
{
	t->rdi = ib_to_rvt(t->ibdev);
	t->buf = (void *)__get_free_pages(GFP_KERNEL | __GFP_ZERO,
					  get_order(NPAGES * PAGE_SIZE));
	t->pd = ib_alloc_pd(t->ibdev, 0);
	t->other_pd = ib_alloc_pd(t->ibdev, 0);
	t->global_pd = ib_alloc_pd(t->ibdev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (!t->buf || IS_ERR(t->pd) || IS_ERR(t->other_pd) ||
	    IS_ERR(t->global_pd))
		return -ENOMEM;
	t->qp = fake_qp(t->ibdev, t->pd);
	t->other_qp = fake_qp(t->ibdev, t->other_pd);
	t->global_qp = fake_qp(t->ibdev, t->global_pd);
	if (!t->qp || !t->other_qp || !t->global_qp)
		return -ENOMEM;
	return map_frmr(t);
}

static int run_checks(struct ib_device *ibdev)
{
	struct selftest t = { .ibdev = ibdev };
	int ret = setup(&t);
	u32 key;

	if (ret) {
		pr_err("rvt_mr_selftest: setup failed: %d\n", ret);
		teardown(&t);
		return ret;
	}
	check_dma_lkey(&t);
	key = check_fast_reg(&t);
	check_bounds(&t, key);
	check_access(&t, key);
	check_invalidate(&t, key);
	check_global_rkey(&t);
	check_dereg_busy(&t, key);
	check_dma_mr_chain(&t);
	teardown(&t);
	return 0;
}

static int __init rvt_mr_selftest_init(void)
{
	struct ib_device *ibdev;
	int ret;

	ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_UNKNOWN);
	if (!ibdev) {
		pr_err("rvt_mr_selftest: no device %s\n", dev);
		return -ENODEV;
	}
	ret = run_checks(ibdev);
	ib_device_put(ibdev);
	if (ret)
		return ret;
	if (failures) {
		pr_err("rvt_mr_selftest: %d check(s) failed\n", failures);
		return -EINVAL;
	}
	pr_info("rvt_mr_selftest: all checks passed on %s\n", dev);
	return 0;
}
module_init(rvt_mr_selftest_init);

static void __exit rvt_mr_selftest_exit(void)
{
}
module_exit(rvt_mr_selftest_exit);
