// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_qp_test: deregistering an MR a QP still holds.
 */
#include <linux/scatterlist.h>
#include "qp.h"

/* A registered fast-registration MR over the mapped page @sg. */
static struct ib_mr *frmr(struct rvt_qp *qp, struct scatterlist *sg)
{
	struct ib_mr *mr;

	mr = ib_alloc_mr(env.kt.pd, IB_MR_TYPE_MEM_REG, 1);
	if (IS_ERR(mr))
		return mr;
	if (ib_map_mr_sg(mr, sg, 1, NULL, PAGE_SIZE) != 1 ||
	    rvt_fast_reg_mr(qp, mr, mr->rkey, IB_ACCESS_LOCAL_WRITE)) {
		ib_dereg_mr(mr);
		return ERR_PTR(-EINVAL);
	}
	return mr;
}

/* As the receive path does: validate an SGE into the QP's r_sge. */
static bool hold_in_r_sge(struct rvt_qp *qp, struct ib_mr *mr)
{
	struct ib_sge isge = {
		.addr = mr->iova, .length = 64, .lkey = mr->lkey,
	};
	int ret;

	spin_lock_irq(&qp->r_lock);
	qp->r_sge.sg_list = qp->r_sg_list;
	ret = rvt_lkey_ok(&env.rdi->lkey_table, ibpd_to_rvtpd(env.kt.pd),
			  &qp->r_sge.sge, NULL, &isge, IB_ACCESS_LOCAL_WRITE);
	qp->r_sge.num_sge = ret == 1;
	spin_unlock_irq(&qp->r_lock);
	return ret == 1;
}

/* Deregister an MR @user holds; report what happened to both QPs. */
static void dereg_held_mr(struct kt_test *t, struct ib_qp *user, struct ib_qp *bystander,
			  struct scatterlist *sg)
{
	struct rvt_qp *rqp = ibqp_to_rvtqp(user);
	unsigned long start;
	struct ib_mr *mr;
	bool held;
	int ret;

	mr = frmr(rqp, sg);
	if (IS_ERR(mr)) {
		kt_result(t, false, "MR: %ld", PTR_ERR(mr));
		return;
	}
	held = hold_in_r_sge(rqp, mr);
	start = jiffies;
	ret = ib_dereg_mr(mr);
	if (ret) {	/* not cleaned: let go ourselves, then free it */
		spin_lock_irq(&rqp->r_lock);
		rvt_put_ss(&rqp->r_sge);
		spin_unlock_irq(&rqp->r_lock);
		ib_dereg_mr(mr);
	}
	kt_result(t, held && !ret && qpt_check_state(user, IB_QPS_ERR) &&
		  qpt_check_state(bystander, IB_QPS_INIT) &&
		  !rqp->r_sge.num_sge, "held %d, dereg %d after %u ms", held,
		  ret, jiffies_to_msecs(jiffies - start));
}

/*
 * Deregistering an MR that a QP still uses moves that QP (only) to ERR,
 * which drops the reference, instead of waiting for it in vain.
 */
void qp_dereg_cleans_qps(struct kt_test *t)
{
	struct ib_qp *user, *bystander;
	struct scatterlist sg;
	void *buf;

	buf = kzalloc(PAGE_SIZE, GFP_KERNEL);
	user = qpt_qp(IB_QPT_RC, 1, NULL);
	bystander = qpt_qp(IB_QPT_RC, 1, NULL);
	if (!buf || IS_ERR(user) || IS_ERR(bystander)) {
		kt_result(t, false, "setup failed");
		goto out;
	}
	qpt_to_init(user, 0);
	qpt_to_rtr(user);
	qpt_to_init(bystander, 0);
	sg_init_one(&sg, buf, PAGE_SIZE);
	if (ib_dma_map_sg(env.kt.ibdev, &sg, 1, DMA_BIDIRECTIONAL) != 1) {
		kt_result(t, false, "DMA mapping failed");
		goto out;
	}
	dereg_held_mr(t, user, bystander, &sg);
	ib_dma_unmap_sg(env.kt.ibdev, &sg, 1, DMA_BIDIRECTIONAL);
out:
	if (!IS_ERR(user))
		ib_destroy_qp(user);
	if (!IS_ERR(bystander))
		ib_destroy_qp(bystander);
	kfree(buf);
}
