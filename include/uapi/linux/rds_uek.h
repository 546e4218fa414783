/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * Oracle UEK's additions to the RDS ABI that this module serves beside
 * mainline's (<linux/rds.h> stays exactly mainline's). Every number here
 * is one mainline leaves unused.
 *
 * Per-lane history (RDS_INFO_CONN_PATHS, RDS6_INFO_CONN_PATHS): one
 * record per connection (local address, peer address, TOS, transport),
 * with one struct rds_path_info per lane ("path" in UEK's words) in
 * UEK's layout, then this module's extension (struct
 * rds_path_info_ext, one per lane, in the same order). UEK's tools
 * step through the records by the size the call returns, so they read
 * the UEK part and skip the extension. RDS_INFO_CONN_PATHS lists IPv4
 * connections only; RDS6_INFO_CONN_PATHS lists every connection
 * (IPv4 ones with v4-mapped addresses), as UEK does.
 */
#ifndef _UAPI_LINUX_RDS_UEK_H
#define _UAPI_LINUX_RDS_UEK_H

#include <linux/types.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/rds.h>

#define RDS_INFO_CONN_PATHS		10020
#define RDS6_INFO_CONN_PATHS		10021

/* UEK's fourth connection flag (mainline has the first three): the
 * connection is going down.
 */
#ifndef RDS_INFO_CONNECTION_FLAG_ERROR
#define RDS_INFO_CONNECTION_FLAG_ERROR	0x08
#endif

/* Lanes a record has room for (UEK's RDS_MPATH_WORKERS). */
#define RDS_INFO_PATHS_MAX		8

/*
 * Why a lane last went down (rds_path_info.disconnect_reason). The
 * numbers UEK's rds-info (rds-tools 2.3.x) knows are used for the same
 * causes, and print there with UEK's names; ours start at 64 (UEK's
 * tool prints those as numbers). rds-info(1) -p names each.
 */
enum rds_drop_reason {
	RDS_DROP_NONE = 0,	/* none */
	RDS_DROP_USER_RESET = 1,	/* user reset */
	RDS_DROP_BAD_STATE = 2,	/* invalid connection state */
	RDS_DROP_DESTROY = 4,	/* connection destroyed */
	RDS_DROP_CONNECT_FAIL = 5,	/* connect failed */
	RDS_DROP_HB_TIMEOUT = 6,	/* liveness timeout */
	RDS_DROP_CONNECT_TIMEOUT = 7,	/* connect timeout */
	RDS_DROP_QP_ERROR = 11,	/* QP error event */
	RDS_DROP_REQ_WHILE_UP = 12,	/* peer reconnected while up */
	RDS_DROP_CONNECT_RACE = 13,	/* lost a connect race */
	RDS_DROP_ACCEPT_FAIL = 15,	/* accept failed */
	RDS_DROP_CM_ROUTE_ERROR = 20,	/* CM: route error */
	RDS_DROP_CM_ADDR_ERROR = 21,	/* CM: address error */
	RDS_DROP_CM_UNREACHABLE = 22,	/* CM: unreachable or connect error */
	RDS_DROP_CM_REJECTED = 24,	/* CM: rejected */
	RDS_DROP_CM_ADDR_CHANGE = 25,	/* CM: address change */
	RDS_DROP_CM_DISCONNECTED = 26,	/* CM: disconnected */
	RDS_DROP_CM_TIMEWAIT_EXIT = 27,	/* CM: timewait exit */
	RDS_DROP_POST_RECV_FAIL = 28,	/* posting receives failed */
	RDS_DROP_PROTOCOL = 31,	/* protocol error from peer */
	RDS_DROP_RECV_COMP_ERR = 33,	/* receive completion error */
	RDS_DROP_SEND_COMP_ERR = 34,	/* send completion error */
	RDS_DROP_POST_SEND_FAIL = 35,	/* posting a send failed */
	RDS_DROP_MODULE_UNLOAD = 36,	/* transport module unload */
	RDS_DROP_FAILOVER = 37,	/* failover to another route */
	RDS_DROP_FAILBACK = 39,	/* failback to the first route */
	RDS_DROP_PEER_CLOSED = 40,	/* peer closed the connection */
	RDS_DROP_SEND_FAIL = 41,	/* send failed */
	RDS_DROP_CM_DEVICE_REMOVAL = 64,	/* CM: device removal */
	RDS_DROP_MEMORY = 65,	/* out of memory */
	RDS_DROP_UNSPEC = 66,	/* unspecified */
	RDS_DROP_PEER_RESET = 67,	/* peer reset the connection */
	RDS_DROP_LOCAL_ADDR_GONE = 68,	/* local address removed */
};

/* UEK's per-lane record: times in seconds since the epoch (0: never). */
struct rds_path_info {
	__s64		attempt_time;	/* last connect attempt began */
	__s64		connect_time;	/* last came up */
	__s64		reset_time;	/* last went down from up */
	__u32		disconnect_reason;	/* enum rds_drop_reason */
	__u32		connect_attempts;	/* since it last went down from up */
	__u32		index;		/* the lane */
	__u8		flags;		/* RDS_INFO_CONNECTION_FLAG_* */
} __attribute__((packed));

struct rds_info_connection_paths {
	struct in6_addr	local_addr;
	struct in6_addr	peer_addr;
	__u8		transport[TRANSNAMSIZ];
	__u8		tos;
	__u8		npaths;		/* entries of paths[] in use */
	struct rds_path_info paths[];
} __attribute__((packed));

/* This module's extension, after paths[RDS_INFO_PATHS_MAX]: the same
 * history in milliseconds (CLOCK_REALTIME; 0: never) and the totals
 * UEK's record lacks.
 */
struct rds_path_info_ext {
	__u64		attempt_ms;
	__u64		connect_ms;
	__u64		reset_ms;
	__u32		resets;		/* times it went down from up */
	__u32		attempts_total;	/* connect attempts ever */
	__u32		drops;		/* drop calls, up or not */
	__u8		state;		/* RDS_PATH_STATE_* */
	__u8		reset_reason;	/* why it last went down from up:
					 * later failed attempts replace
					 * disconnect_reason, not this
					 */
	__u8		pad[2];
} __attribute__((packed));

#define RDS_PATH_STATE_DOWN		0
#define RDS_PATH_STATE_CONNECTING	1
#define RDS_PATH_STATE_UP		2
#define RDS_PATH_STATE_DISCONNECTING	3
#define RDS_PATH_STATE_ERROR		4

/* The size of one record, the value the call returns. */
#define RDS_INFO_CONN_PATHS_SIZE					\
	(sizeof(struct rds_info_connection_paths) +			\
	 RDS_INFO_PATHS_MAX * (sizeof(struct rds_path_info) +		\
			       sizeof(struct rds_path_info_ext)))

/*
 * Socket options at SOL_RDS where UEK's numbers differ from mainline's.
 * Mainline's SO_RDS_TRANSPORT is 8, UEK's is 9; UEK's 8 is
 * RDS_CONN_RESET, told apart from mainline's option by its length (an
 * int there, a struct rds_reset here). Both are served.
 */
#define RDS_CONN_RESET			8
#define RDS_UEK_SO_RDS_TRANSPORT	9
#define RDS6_CONN_RESET			11

/*
 * RDS_CMSG_ASYNC_SEND (sendmsg): report how this message ended as an
 * RDS_CMSG_RDMA_STATUS notification (struct rds_rdma_notify) carrying
 * @user_token: RDS_RDMA_SUCCESS once the peer acked it, only if @flags
 * has RDS_SEND_NOTIFY_ME; RDS_RDMA_CANCELED (RDS_CANCEL_SENT_TO) and
 * RDS_RDMA_DROPPED (given up) always. No other flag is defined (EINVAL).
 */
#define RDS_CMSG_ASYNC_SEND		10
#define RDS_SEND_NOTIFY_ME		0x0100

struct rds_asend_args {
	__u64		user_token;
	__u64		flags;
};

/* struct rds_rdma_args.flags: report the operation's success when the
 * message carrying it was acked, rather than when it completed here.
 */
#define RDS_RDMA_REMOTE_COMPLETE	0x0080

/*
 * RDS_CONN_RESET, RDS6_CONN_RESET: drop and reconnect every lane of the
 * connections from @src to @dst (every peer of @src if @dst is 0 or ::)
 * with TOS @tos, in the socket's network namespace; needs CAP_NET_ADMIN
 * there. Messages not yet acked are sent again, never thrown away.
 */
struct rds_reset {
	__u8		tos;
	struct in_addr	src;
	struct in_addr	dst;
};

struct rds6_reset {
	__u8		tos;
	struct in6_addr	src;
	struct in6_addr	dst;
};

#endif /* _UAPI_LINUX_RDS_UEK_H */
