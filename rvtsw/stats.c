// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Per-port counters, read through the IB core's hw_counters (sysfs
 * ports/N/hw_counters/ and `rdma statistic`).
 *
 * rvtsw's own counters (enum rvtsw_counter) are per CPU and summed when
 * read. The last few are the ones of struct rvt_ibport that rdmavt's
 * RC/UC loopback engine and rvtsw's packet engine keep (rdmavt's RC
 * timeouts, RNR NAKs; the engine's resends, NAKs, duplicates): plain u64s
 * each updates under one QP's lock, not the port's, read here as they
 * are (rdmavt calls them informational: two QPs may race an increment).
 */
#include "rvtsw.h"

/* rdmavt's counters, after rvtsw's own. */
enum {
	RVTSW_STAT_LOOPBACK = RVTSW_NUM_COUNTERS,
	RVTSW_STAT_LOOPBACK_DROPS,
	RVTSW_STAT_RNR_NAKS,
	RVTSW_STAT_RC_TIMEOUTS,
	RVTSW_STAT_RC_RESENDS,
	RVTSW_STAT_SEQ_NAKS,
	RVTSW_STAT_RDMA_SEQ,
	RVTSW_STAT_OTHER_NAKS,
	RVTSW_STAT_RC_DUPREQ,
	RVTSW_STAT_RC_SEQNAK,
	RVTSW_STAT_RC_CRWAITS,
	RVTSW_NUM_STATS
};

static const struct rdma_stat_desc rvtsw_stat_descs[RVTSW_NUM_STATS] = {
	[RVTSW_CNT_TX].name = "tx_packets",
	[RVTSW_CNT_TX_MCAST].name = "tx_multicast_packets",
	[RVTSW_CNT_RX].name = "rx_packets",
	[RVTSW_CNT_DROP_UNKNOWN_LID].name = "drop_unknown_lid",
	[RVTSW_CNT_DROP_NO_QP].name = "drop_no_dest_qp",
	[RVTSW_CNT_DROP_QKEY].name = "drop_bad_qkey",
	[RVTSW_CNT_DROP_PKEY].name = "drop_bad_pkey",
	[RVTSW_CNT_DROP_NO_RWQE].name = "drop_no_recv_wqe",
	[RVTSW_CNT_DROP_TOO_LONG].name = "drop_recv_too_small",
	[RVTSW_CNT_DROP_LINK].name = "drop_link_not_active",
	[RVTSW_CNT_DROP_MALFORMED].name = "drop_malformed",
	[RVTSW_CNT_DROP_SHORT].name = "drop_short",
	[RVTSW_CNT_DROP_LENGTH].name = "drop_bad_length",
	[RVTSW_CNT_DROP_VCRC].name = "drop_bad_vcrc",
	[RVTSW_CNT_DROP_ICRC].name = "drop_bad_icrc",
	[RVTSW_CNT_DROP_RX_FULL].name = "drop_rx_queue_full",
	[RVTSW_CNT_DROP_NOMEM].name = "drop_no_memory",
	[RVTSW_CNT_DROP_CONN].name = "drop_conn_packet",
	[RVTSW_CNT_DROP_FAULT].name = "drop_fault_injected",
	[RVTSW_CNT_DROP_PSN].name = "drop_psn_out_of_window",
	[RVTSW_CNT_DROP_OVERSIZE].name = "drop_oversize",
	[RVTSW_CNT_DROP_OPCODE_SEQ].name = "drop_opcode_out_of_sequence",
	[RVTSW_CNT_RC_ACK_REQS].name = "rc_ack_requests",
	[RVTSW_CNT_RC_ACKS].name = "rc_acks_sent",
	[RVTSW_CNT_RC_DELAYED_COMP].name = "rc_delayed_completions",
	[RVTSW_CNT_TX_LINK].name = "tx_link_packets",
	[RVTSW_CNT_TX_WORDS].name = "tx_link_words",
	[RVTSW_CNT_RX_LINK].name = "rx_link_packets",
	[RVTSW_CNT_RX_LINK_MCAST].name = "rx_link_multicast_packets",
	[RVTSW_CNT_RX_WORDS].name = "rx_link_words",
	[RVTSW_STAT_LOOPBACK].name = "loopback_packets",
	[RVTSW_STAT_LOOPBACK_DROPS].name = "loopback_drops",
	[RVTSW_STAT_RNR_NAKS].name = "rnr_naks",
	[RVTSW_STAT_RC_TIMEOUTS].name = "rc_timeouts",
	[RVTSW_STAT_RC_RESENDS].name = "rc_resends",
	[RVTSW_STAT_SEQ_NAKS].name = "rc_seq_naks_received",
	[RVTSW_STAT_RDMA_SEQ].name = "rc_rdma_seq",
	[RVTSW_STAT_OTHER_NAKS].name = "rc_other_naks_received",
	[RVTSW_STAT_RC_DUPREQ].name = "rc_duplicate_requests",
	[RVTSW_STAT_RC_SEQNAK].name = "rc_seq_naks_sent",
	[RVTSW_STAT_RC_CRWAITS].name = "rc_credit_waits",
};

/**
 * rvtsw_alloc_hw_port_stats - describe a port's counters to the IB core
 * @ibdev: the IB device
 * @port_num: 1-based port number
 *
 * Context: process context, at registration.
 * Return: a new counter set, or NULL if out of memory.
 */
struct rdma_hw_stats *rvtsw_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num)
{
	/* Lifespan 0: every read sees the current values. */
	return rdma_alloc_hw_stats_struct(rvtsw_stat_descs, RVTSW_NUM_STATS, 0);
}

/**
 * rvtsw_percpu_sum - the current value of a per-CPU counter
 * @count: the counter (a port's or an uplink's)
 *
 * Context: any; each CPU's part is read without a lock.
 * Return: the sum over every CPU.
 */
u64 rvtsw_percpu_sum(u64 __percpu *count)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(count, cpu);
	return sum;
}

/**
 * rvtsw_read_counter - the current value of one of a port's counters
 * @port: the port
 * @counter: which
 *
 * Context: any; a sum of per-CPU parts, each read without a lock.
 * Return: the sum over every CPU.
 */
u64 rvtsw_read_counter(struct rvtsw_port *port, enum rvtsw_counter counter)
{
	return rvtsw_percpu_sum(&port->stats->count[counter]);
}

/**
 * rvtsw_get_hw_stats - read a port's counters
 * @ibdev: the IB device
 * @stats: the set from rvtsw_alloc_hw_port_stats()
 * @port_num: 1-based port number
 * @index: the counter wanted; rvtsw always fills in all of them
 *
 * Context: process context, stats->lock held.
 * Return: the number of counters filled in.
 */
int rvtsw_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port_num, int index)
{
	struct rvtsw_port *port = rvtsw_port(ib_to_rvt(ibdev), port_num);
	struct rvt_ibport *rvp = &port->rvp;
	unsigned int i;

	if (stats->num_counters != RVTSW_NUM_STATS)
		return -EINVAL;
	for (i = 0; i < RVTSW_NUM_COUNTERS; i++)
		stats->value[i] = rvtsw_read_counter(port, i);
	stats->value[RVTSW_STAT_LOOPBACK] = READ_ONCE(rvp->n_loop_pkts);
	stats->value[RVTSW_STAT_LOOPBACK_DROPS] = READ_ONCE(rvp->n_pkt_drops);
	stats->value[RVTSW_STAT_RNR_NAKS] = READ_ONCE(rvp->n_rnr_naks);
	stats->value[RVTSW_STAT_RC_TIMEOUTS] = READ_ONCE(rvp->n_rc_timeouts);
	stats->value[RVTSW_STAT_RC_RESENDS] = READ_ONCE(rvp->n_rc_resends);
	stats->value[RVTSW_STAT_SEQ_NAKS] = READ_ONCE(rvp->n_seq_naks);
	stats->value[RVTSW_STAT_RDMA_SEQ] = READ_ONCE(rvp->n_rdma_seq);
	stats->value[RVTSW_STAT_OTHER_NAKS] = READ_ONCE(rvp->n_other_naks);
	stats->value[RVTSW_STAT_RC_DUPREQ] = READ_ONCE(rvp->n_rc_dupreq);
	stats->value[RVTSW_STAT_RC_SEQNAK] = READ_ONCE(rvp->n_rc_seqnak);
	stats->value[RVTSW_STAT_RC_CRWAITS] = READ_ONCE(rvp->n_rc_crwaits);
	return RVTSW_NUM_STATS;
}

/**
 * rvtsw_counter_name - the name a port counter goes by
 * @counter: which
 *
 * For other ends of links that keep the same counters (an uplink).
 *
 * Context: any.
 * Return: its name, as in hw_counters.
 */
const char *rvtsw_counter_name(enum rvtsw_counter counter)
{
	return rvtsw_stat_descs[counter].name;
}
