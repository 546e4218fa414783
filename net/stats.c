// SPDX-License-Identifier: GPL-2.0
/*
 * The module-wide state every core file reads (set up by af_rds.c's
 * init, which calls into every file: defined here, below them all, so
 * that reading it makes no file depend on the module's top), and the
 * counter names for RDS_INFO_COUNTERS.
 */
#include "rds_core.h"

unsigned int rds_net_id __read_mostly;
struct rds_net *rds_init_rn __read_mostly;
struct workqueue_struct *rds_wq;
DEFINE_PER_CPU(struct rds_obj_counts, rds_obj_counts);

/* In enum rds_stat order. */

const char *const rds_stat_names[RDS_STAT_MAX] = {
	[RDS_STAT_CONN_RESET]			= "conn_reset",
	[RDS_STAT_RECV_DROP_BAD_CHECKSUM]	= "recv_drop_bad_checksum",
	[RDS_STAT_RECV_DROP_OLD_SEQ]		= "recv_drop_old_seq",
	[RDS_STAT_RECV_DROP_NO_SOCK]		= "recv_drop_no_sock",
	[RDS_STAT_RECV_DROP_DEAD_SOCK]		= "recv_drop_dead_sock",
	[RDS_STAT_RECV_DELIVER_RACED]		= "recv_deliver_raced",
	[RDS_STAT_RECV_DELIVERED]		= "recv_delivered",
	[RDS_STAT_RECV_QUEUED]			= "recv_queued",
	[RDS_STAT_RECV_IMMEDIATE_RETRY]		= "recv_immediate_retry",
	[RDS_STAT_RECV_DELAYED_RETRY]		= "recv_delayed_retry",
	[RDS_STAT_RECV_ACK_REQUIRED]		= "recv_ack_required",
	[RDS_STAT_RECV_RDMA_BYTES]		= "recv_rdma_bytes",
	[RDS_STAT_RECV_PING]			= "recv_ping",
	[RDS_STAT_SEND_QUEUE_EMPTY]		= "send_queue_empty",
	[RDS_STAT_SEND_QUEUE_FULL]		= "send_queue_full",
	[RDS_STAT_SEND_LOCK_CONTENTION]		= "send_lock_contention",
	[RDS_STAT_SEND_LOCK_QUEUE_RACED]	= "send_lock_queue_raced",
	[RDS_STAT_SEND_IMMEDIATE_RETRY]		= "send_immediate_retry",
	[RDS_STAT_SEND_DELAYED_RETRY]		= "send_delayed_retry",
	[RDS_STAT_SEND_DROP_ACKED]		= "send_drop_acked",
	[RDS_STAT_SEND_ACK_REQUIRED]		= "send_ack_required",
	[RDS_STAT_SEND_QUEUED]			= "send_queued",
	[RDS_STAT_SEND_RDMA]			= "send_rdma",
	[RDS_STAT_SEND_RDMA_BYTES]		= "send_rdma_bytes",
	[RDS_STAT_SEND_PONG]			= "send_pong",
	[RDS_STAT_PAGE_REMAINDER_HIT]		= "page_remainder_hit",
	[RDS_STAT_PAGE_REMAINDER_MISS]		= "page_remainder_miss",
	[RDS_STAT_COPY_TO_USER]			= "copy_to_user",
	[RDS_STAT_COPY_FROM_USER]		= "copy_from_user",
	[RDS_STAT_CONG_UPDATE_QUEUED]		= "cong_update_queued",
	[RDS_STAT_CONG_UPDATE_RECEIVED]		= "cong_update_received",
	[RDS_STAT_CONG_SEND_ERROR]		= "cong_send_error",
	[RDS_STAT_CONG_SEND_BLOCKED]		= "cong_send_blocked",
	[RDS_STAT_RECV_BYTES_ADDED_TO_SOCK]	= "recv_bytes_added_to_sock",
	[RDS_STAT_RECV_BYTES_FREED_FROMSOCK]	= "recv_bytes_freed_fromsock",
	[RDS_STAT_SEND_STUCK_RM]		= "send_stuck_rm",
	[RDS_STAT_CONN_REAPED]			= "conn_reaped",
	[RDS_STAT_RECV_DROP_BAD_HEADER]		= "recv_drop_bad_header",
	[RDS_STAT_RECV_PING_UNANSWERED]		= "recv_ping_unanswered",
	[RDS_STAT_SEND_MPATH_PROBE]		= "send_mpath_probe",
	[RDS_STAT_SEND_DROP_ORPHAN]		= "send_drop_orphan",
	[RDS_STAT_SEND_DROP_CONN_KILLED]	= "send_drop_conn_killed",
	[RDS_STAT_SEND_DROP_RDMA]		= "send_drop_rdma",
	[RDS_STAT_CONN_CONNECT_TIMEOUT]		= "conn_connect_timeout",
	[RDS_STAT_RECV_ACK_STALE]		= "recv_ack_stale",
	[RDS_STAT_RECV_DROP_CONG_LOCAL]		= "recv_drop_cong_local",
	[RDS_STAT_CONN_PEER_OVER_CAP]		= "conn_peer_over_cap",
	[RDS_STAT_RECV_DROP_RCVBUF]		= "recv_drop_rcvbuf",
	[RDS_STAT_SEND_DEST_FULL]		= "send_dest_full",
	[RDS_STAT_SEND_DEST_CAP]		= "send_dest_cap",
	[RDS_STAT_SEND_SOCK_FULL]		= "send_sock_full",
	[RDS_STAT_RDMA_KEY_REFUSED]		= "rdma_key_refused",
	[RDS_STAT_RDMA_KEY_THROTTLED]		= "rdma_key_throttled",
	[RDS_STAT_LANES_REPROBE]		= "lanes_reprobe",
	[RDS_STAT_RECV_DROP_MEMCG]		= "recv_drop_memcg",
	[RDS_STAT_CONG_MONITOR_VISITS]		= "cong_monitor_visits",
	[RDS_STAT_SEND_LANES_WALKS]		= "send_lanes_walks",
	[RDS_STAT_CONN_PER_PEER_OVER_CAP]	= "conn_per_peer_over_cap",
	[RDS_STAT_CONN_PEER_EVICTED]		= "conn_peer_evicted",
	[RDS_STAT_CONN_PEER_RESTARTED]		= "conn_peer_restarted",
};
