/* SPDX-License-Identifier: GPL-2.0 */
/* Per-namespace, per-cpu counters exported through RDS_INFO_COUNTERS. */
#ifndef _RDS_STATS_H
#define _RDS_STATS_H

#include <linux/percpu.h>

/* Names (stats.c) follow Linux's RDS where the meaning is the same. */
enum rds_stat {
	RDS_STAT_CONN_RESET,
	RDS_STAT_RECV_DROP_BAD_CHECKSUM,
	RDS_STAT_RECV_DROP_OLD_SEQ,
	RDS_STAT_RECV_DROP_NO_SOCK,
	RDS_STAT_RECV_DROP_DEAD_SOCK,
	RDS_STAT_RECV_DELIVER_RACED,
	RDS_STAT_RECV_DELIVERED,
	RDS_STAT_RECV_QUEUED,
	RDS_STAT_RECV_IMMEDIATE_RETRY,
	RDS_STAT_RECV_DELAYED_RETRY,
	RDS_STAT_RECV_ACK_REQUIRED,
	RDS_STAT_RECV_RDMA_BYTES,
	RDS_STAT_RECV_PING,
	RDS_STAT_SEND_QUEUE_EMPTY,
	RDS_STAT_SEND_QUEUE_FULL,
	RDS_STAT_SEND_LOCK_CONTENTION,
	RDS_STAT_SEND_LOCK_QUEUE_RACED,
	RDS_STAT_SEND_IMMEDIATE_RETRY,
	RDS_STAT_SEND_DELAYED_RETRY,
	RDS_STAT_SEND_DROP_ACKED,
	RDS_STAT_SEND_ACK_REQUIRED,
	RDS_STAT_SEND_QUEUED,
	RDS_STAT_SEND_RDMA,
	RDS_STAT_SEND_RDMA_BYTES,
	RDS_STAT_SEND_PONG,
	RDS_STAT_PAGE_REMAINDER_HIT,
	RDS_STAT_PAGE_REMAINDER_MISS,
	RDS_STAT_COPY_TO_USER,
	RDS_STAT_COPY_FROM_USER,
	RDS_STAT_CONG_UPDATE_QUEUED,
	RDS_STAT_CONG_UPDATE_RECEIVED,
	RDS_STAT_CONG_SEND_ERROR,
	RDS_STAT_CONG_SEND_BLOCKED,
	RDS_STAT_RECV_BYTES_ADDED_TO_SOCK,
	RDS_STAT_RECV_BYTES_FREED_FROMSOCK,
	RDS_STAT_SEND_STUCK_RM,
	RDS_STAT_CONN_REAPED,		/* ours: idle connections reaped */
	RDS_STAT_RECV_DROP_BAD_HEADER,	/* ours: malformed frame, conn dropped */
	RDS_STAT_RECV_PING_UNANSWERED,	/* ours: too many pongs unread */
	RDS_STAT_SEND_MPATH_PROBE,	/* ours: multipath probes sent */
	/* Ours: messages retired without the peer's ack, by reason. */
	RDS_STAT_SEND_DROP_ORPHAN,	/* a closed socket's, given up */
	RDS_STAT_SEND_DROP_CONN_KILLED,	/* their connection was destroyed */
	RDS_STAT_SEND_DROP_RDMA,	/* carried RDMA: not resent after a
					 * reconnect or a refused RDMA
					 */
	RDS_STAT_CONN_CONNECT_TIMEOUT,	/* ours: attempts that timed out */
	RDS_STAT_RECV_ACK_STALE,	/* ours: acks beyond what we numbered */
	RDS_STAT_RECV_DROP_CONG_LOCAL,	/* ours: a wire's map for a local address */
	RDS_STAT_CONN_PEER_OVER_CAP,	/* ours: a peer's attempt at the peers' cap */
	RDS_STAT_RECV_DROP_RCVBUF,	/* ours: receiver over its hard limit */
	/* Ours: which send budget refused a message (send_queue_full too). */
	RDS_STAT_SEND_DEST_FULL,	/* the destination's half SO_SNDBUF */
	RDS_STAT_SEND_DEST_CAP,		/* net.rds.sock_max_peers */
	RDS_STAT_SEND_SOCK_FULL,	/* the socket total */
	RDS_STAT_RDMA_KEY_REFUSED,	/* ours: loopback RDMA key named nothing */
	RDS_STAT_RDMA_KEY_THROTTLED,	/* ours: RDMA refused after too many */
	RDS_STAT_LANES_REPROBE,		/* ours: full count offered to SPORT_IDX */
	RDS_STAT_RECV_DROP_MEMCG,	/* ours: receiver's memory cgroup full */
	RDS_STAT_CONG_MONITOR_VISITS,	/* ours: monitors looked at for a freed port */
	RDS_STAT_SEND_LANES_WALKS,	/* ours: send queue walks after a lane change */
	RDS_STAT_CONN_PER_PEER_OVER_CAP, /* ours: a peer at its own cap */
	RDS_STAT_CONN_PEER_EVICTED,	/* ours: idle peer-made ones evicted */
	RDS_STAT_CONN_PEER_RESTARTED,	/* ours: a peer's GEN_NUM changed */
	RDS_STAT_MAX,
};

struct rds_stats {
	u64	val[RDS_STAT_MAX];
};

extern const char *const rds_stat_names[RDS_STAT_MAX];

#define rds_stats_inc(rn, stat)		this_cpu_inc((rn)->stats->val[stat])
#define rds_stats_add(rn, stat, n)	this_cpu_add((rn)->stats->val[stat], n)

#endif /* _RDS_STATS_H */
