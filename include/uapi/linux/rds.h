/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * User-visible interface of RDS (Reliable Datagram Sockets, AF_RDS).
 *
 * Everything in this file is ABI: option numbers, control message types,
 * info query identifiers and the layout of every structure must match what
 * applications built against other Linux RDS headers expect.  Only add
 * things; never renumber, resize or reorder.
 *
 * The guard name is deliberately the same one the in-kernel copy uses, so
 * that whichever copy is seen first wins and the other one is skipped.
 */
#ifndef _LINUX_RDS_H
#define _LINUX_RDS_H

#include <linux/types.h>
#include <linux/socket.h>	/* struct __kernel_sockaddr_storage */
#include <linux/in6.h>		/* struct in6_addr */
#include <linux/sockios.h>	/* SIOCPROTOPRIVATE */

/* Version of the ABI spoken between RDS and the InfiniBand transport. */
#define RDS_IB_ABI_VERSION		0x301

/* Level argument for setsockopt()/getsockopt() and cmsg_level. */
#define SOL_RDS				276

/*
 * Socket option names at level SOL_RDS.
 */
/* Drop queued, unsent messages to one peer (sockaddr_in or sockaddr_in6). */
#define RDS_CANCEL_SENT_TO		1
/* Register a memory region; argument is struct rds_get_mr_args. */
#define RDS_GET_MR			2
/* Release a memory region; argument is struct rds_free_mr_args. */
#define RDS_FREE_MR			3
/* Value 4 was once RDS_BARRIER and must not be reused. */
/* Enable RDS_CMSG_RDMA_STATUS reports on recvmsg(); argument is an int. */
#define RDS_RECVERR			5
/* Enable congestion notifications (see below); argument is an int. */
#define RDS_CONG_MONITOR		6
/* Like RDS_GET_MR but for a given peer; struct rds_get_mr_for_dest_args. */
#define RDS_GET_MR_FOR_DEST		7
/* Pin the socket to one transport (RDS_TRANS_*); int argument. */
#define SO_RDS_TRANSPORT		8
/* Value 9 is unused. */
/* Request receive-path timestamps; argument is struct rds_rx_trace_so. */
#define SO_RDS_MSG_RXPATH_LATENCY	10

/*
 * Transport identifiers used with SO_RDS_TRANSPORT.
 */
#define RDS_TRANS_IB			0
#define RDS_TRANS_GAP			1	/* formerly iWARP; a hole now */
#define RDS_TRANS_TCP			2
#define RDS_TRANS_COUNT			3
#define RDS_TRANS_NONE			(~0)	/* not yet bound to one */
/* Obsolete alias kept so that old sources still build. */
#define RDS_TRANS_IWARP			RDS_TRANS_GAP

/*
 * ioctl() requests on an RDS socket: set or read the type of service used
 * for its outgoing messages.  The argument points to an rds_tos_t.
 */
#define SIOCRDSSETTOS			(SIOCPROTOPRIVATE)
#define SIOCRDSGETTOS			(SIOCPROTOPRIVATE + 1)

typedef __u8 rds_tos_t;

/*
 * Ancillary data (cmsg_type at level SOL_RDS).
 *
 * RDS_CMSG_RDMA_ARGS		sendmsg: carry out an RDMA read or write;
 *				payload is struct rds_rdma_args.
 * RDS_CMSG_RDMA_DEST		sendmsg/recvmsg: the rds_rdma_cookie_t naming
 *				the remote region a message refers to.
 * RDS_CMSG_RDMA_MAP		sendmsg: register a region and pass its key to
 *				the peer; payload is struct rds_get_mr_args.
 * RDS_CMSG_RDMA_STATUS		recvmsg: outcome of an RDMA operation that asked
 *				for notification; struct rds_rdma_notify.
 * RDS_CMSG_CONG_UPDATE		recvmsg: __u64 mask of ports that became
 *				uncongested (see RDS_CONG_MONITOR).
 * RDS_CMSG_ATOMIC_*		sendmsg: remote atomic operations;
 *				payload is struct rds_atomic_args.
 * RDS_CMSG_RXPATH_LATENCY	recvmsg: per-stage receive latencies in
 *				nanoseconds; struct rds_cmsg_rx_trace.
 * RDS_CMSG_ZCOPY_COOKIE	sendmsg: __u32 tag for a zero-copy send.
 * RDS_CMSG_ZCOPY_COMPLETION	recvmsg: tags of finished zero-copy sends;
 *				struct rds_zcopy_cookies.
 */
#define RDS_CMSG_RDMA_ARGS		1
#define RDS_CMSG_RDMA_DEST		2
#define RDS_CMSG_RDMA_MAP		3
#define RDS_CMSG_RDMA_STATUS		4
#define RDS_CMSG_CONG_UPDATE		5
#define RDS_CMSG_ATOMIC_FADD		6
#define RDS_CMSG_ATOMIC_CSWP		7
#define RDS_CMSG_MASKED_ATOMIC_FADD	8
#define RDS_CMSG_MASKED_ATOMIC_CSWP	9
/* Value 10 is unused. */
#define RDS_CMSG_RXPATH_LATENCY		11
#define RDS_CMSG_ZCOPY_COOKIE		12
#define RDS_CMSG_ZCOPY_COMPLETION	13

/*
 * Information queries: getsockopt(fd, SOL_RDS, RDS_INFO_*, buf, &len)
 * fills buf with an array of fixed-size records describing global state.
 */
#define RDS_INFO_FIRST			10000
#define RDS_INFO_COUNTERS		10000	/* rds_info_counter */
#define RDS_INFO_CONNECTIONS		10001	/* rds_info_connection */
/* 10002 (the old "flows" query) is retired. */
#define RDS_INFO_SEND_MESSAGES		10003	/* rds_info_message */
#define RDS_INFO_RETRANS_MESSAGES	10004	/* rds_info_message */
#define RDS_INFO_RECV_MESSAGES		10005	/* rds_info_message */
#define RDS_INFO_SOCKETS		10006	/* rds_info_socket */
#define RDS_INFO_TCP_SOCKETS		10007	/* rds_info_tcp_socket */
#define RDS_INFO_IB_CONNECTIONS		10008	/* rds_info_rdma_connection */
#define RDS_INFO_CONNECTION_STATS	10009	/* rds_info_counter */
#define RDS_INFO_IWARP_CONNECTIONS	10010	/* rds_info_rdma_connection */

/* IPv6-aware variants: the records carry 128-bit addresses. */
#define RDS6_INFO_CONNECTIONS		10011	/* rds6_info_connection */
#define RDS6_INFO_SEND_MESSAGES		10012	/* rds6_info_message */
#define RDS6_INFO_RETRANS_MESSAGES	10013	/* rds6_info_message */
#define RDS6_INFO_RECV_MESSAGES		10014	/* rds6_info_message */
#define RDS6_INFO_SOCKETS		10015	/* rds6_info_socket */
#define RDS6_INFO_TCP_SOCKETS		10016	/* rds6_info_tcp_socket */
#define RDS6_INFO_IB_CONNECTIONS	10017	/* rds6_info_rdma_connection */

#define RDS_INFO_LAST			10017

/* One named statistic. */
struct rds_info_counter {
	__u8	name[32];
	__u64	value;
} __attribute__((packed));

/* Bits of rds_info_connection.flags and rds6_info_connection.flags. */
#define RDS_INFO_CONNECTION_FLAG_SENDING	0x01
#define RDS_INFO_CONNECTION_FLAG_CONNECTING	0x02
#define RDS_INFO_CONNECTION_FLAG_CONNECTED	0x04

/* Room for a NUL-terminated transport name. */
#define TRANSNAMSIZ			16

struct rds_info_connection {
	__u64	next_tx_seq;
	__u64	next_rx_seq;
	__be32	laddr;
	__be32	faddr;
	__u8	transport[TRANSNAMSIZ];
	__u8	flags;
	__u8	tos;
} __attribute__((packed));

struct rds6_info_connection {
	__u64		next_tx_seq;
	__u64		next_rx_seq;
	struct in6_addr	laddr;
	struct in6_addr	faddr;
	__u8		transport[TRANSNAMSIZ];
	__u8		flags;
} __attribute__((packed));

/* Bits of rds_info_message.flags and rds6_info_message.flags. */
#define RDS_INFO_MESSAGE_FLAG_ACK	0x01
#define RDS_INFO_MESSAGE_FLAG_FAST_ACK	0x02

struct rds_info_message {
	__u64	seq;
	__u32	len;
	__be32	laddr;
	__be32	faddr;
	__be16	lport;
	__be16	fport;
	__u8	flags;
	__u8	tos;
} __attribute__((packed));

struct rds6_info_message {
	__u64		seq;
	__u32		len;
	struct in6_addr	laddr;
	struct in6_addr	faddr;
	__be16		lport;
	__be16		fport;
	__u8		flags;
	__u8		tos;
} __attribute__((packed));

struct rds_info_socket {
	__u32	sndbuf;
	__be32	bound_addr;
	__be32	connected_addr;
	__be16	bound_port;
	__be16	connected_port;
	__u32	rcvbuf;
	__u64	inum;
} __attribute__((packed));

struct rds6_info_socket {
	__u32		sndbuf;
	struct in6_addr	bound_addr;
	struct in6_addr	connected_addr;
	__be16		bound_port;
	__be16		connected_port;
	__u32		rcvbuf;
	__u64		inum;
} __attribute__((packed));

struct rds_info_tcp_socket {
	__be32	local_addr;
	__be16	local_port;
	__be32	peer_addr;
	__be16	peer_port;
	__u64	hdr_rem;
	__u64	data_rem;
	__u32	last_sent_nxt;
	__u32	last_expected_una;
	__u32	last_seen_una;
	__u8	tos;
} __attribute__((packed));

/* Note: unlike the IPv4 record this one has no tos byte. */
struct rds6_info_tcp_socket {
	struct in6_addr	local_addr;
	__be16		local_port;
	struct in6_addr	peer_addr;
	__be16		peer_port;
	__u64		hdr_rem;
	__u64		data_rem;
	__u32		last_sent_nxt;
	__u32		last_expected_una;
	__u32		last_seen_una;
} __attribute__((packed));

/* Size of an InfiniBand GID in bytes. */
#define RDS_IB_GID_LEN			16

/* The RDMA connection records are naturally aligned, not packed. */
struct rds_info_rdma_connection {
	__be32	src_addr;
	__be32	dst_addr;
	__u8	src_gid[RDS_IB_GID_LEN];
	__u8	dst_gid[RDS_IB_GID_LEN];
	__u32	max_send_wr;
	__u32	max_recv_wr;
	__u32	max_send_sge;
	__u32	rdma_mr_max;
	__u32	rdma_mr_size;
	__u8	tos;
	__u8	sl;
	__u32	cache_allocs;
};

struct rds6_info_rdma_connection {
	struct in6_addr	src_addr;
	struct in6_addr	dst_addr;
	__u8		src_gid[RDS_IB_GID_LEN];
	__u8		dst_gid[RDS_IB_GID_LEN];
	__u32		max_send_wr;
	__u32		max_recv_wr;
	__u32		max_send_sge;
	__u32		rdma_mr_max;
	__u32		rdma_mr_size;
	__u8		tos;
	__u8		sl;
	__u32		cache_allocs;
};

/*
 * Receive-path latency tracing.
 *
 * Points along the receive path at which a timestamp can be taken.  A
 * socket selects up to RDS_MSG_RX_DGRAM_TRACE_MAX of them, in order, with
 * SO_RDS_MSG_RXPATH_LATENCY; each received message then carries an
 * RDS_CMSG_RXPATH_LATENCY cmsg with the measured delays.
 */
enum rds_message_rxpath_latency {
	RDS_MSG_RX_HDR_TO_DGRAM_START = 0,	/* header in -> reassembly */
	RDS_MSG_RX_DGRAM_REASSEMBLE,		/* time spent reassembling */
	RDS_MSG_RX_DGRAM_DELIVERED,		/* until queued to socket */
	RDS_MSG_RX_DGRAM_TRACE_MAX
};

/* Option value: how many points are wanted and which ones. */
struct rds_rx_trace_so {
	__u8	rx_traces;
	__u8	rx_trace_pos[RDS_MSG_RX_DGRAM_TRACE_MAX];
};

/* Control message: the selected points and their latencies in ns. */
struct rds_cmsg_rx_trace {
	__u8	rx_traces;
	__u8	rx_trace_pos[RDS_MSG_RX_DGRAM_TRACE_MAX];
	__u64	rx_trace[RDS_MSG_RX_DGRAM_TRACE_MAX];
};

/*
 * Congestion monitoring.
 *
 * A peer that runs out of receive space for a port marks that port as
 * congested and tells its neighbours; senders to the port then block or
 * get an error.  By default every congestion map change wakes pollers.
 * Instead, a socket may enable RDS_CONG_MONITOR: each port its sends found
 * congested is remembered as bit RDS_CONG_MONITOR_BIT(port) (a bit stands
 * for every port with the same residue modulo 64), and when such a port
 * becomes uncongested an RDS_CMSG_CONG_UPDATE control message carrying the
 * __u64 of those bits is queued on the socket.
 */
#define RDS_CONG_MONITOR_SIZE		64
#define RDS_CONG_MONITOR_BIT(port)	\
	(((unsigned int)(port)) % RDS_CONG_MONITOR_SIZE)
#define RDS_CONG_MONITOR_MASK(port)	(1ULL << RDS_CONG_MONITOR_BIT(port))

/*
 * Remote memory access.
 */

/*
 * Opaque handle for a registered memory region of a peer, as returned by
 * RDS_GET_MR: it combines the region's remote key with an offset into it.
 */
typedef __u64 rds_rdma_cookie_t;

/* A range of user memory. */
struct rds_iovec {
	__u64	addr;
	__u64	bytes;
};

/* RDS_GET_MR / RDS_CMSG_RDMA_MAP: cookie_addr is where to store the cookie. */
struct rds_get_mr_args {
	struct rds_iovec	vec;
	__u64			cookie_addr;
	__u64			flags;		/* RDS_RDMA_* */
};

struct rds_get_mr_for_dest_args {
	struct __kernel_sockaddr_storage	dest_addr;
	struct rds_iovec			vec;
	__u64					cookie_addr;
	__u64					flags;
};

/* RDS_FREE_MR: a zero cookie asks to flush all unused MRs. */
struct rds_free_mr_args {
	rds_rdma_cookie_t	cookie;
	__u64			flags;
};

/*
 * RDS_CMSG_RDMA_ARGS: local_vec_addr points to nr_local struct rds_iovec
 * entries; user_token comes back in struct rds_rdma_notify.
 */
struct rds_rdma_args {
	rds_rdma_cookie_t	cookie;
	struct rds_iovec	remote_vec;
	__u64			local_vec_addr;
	__u64			nr_local;
	__u64			flags;
	__u64			user_token;
};

/* RDS_CMSG_*ATOMIC_*: the operands depend on the cmsg type. */
struct rds_atomic_args {
	rds_rdma_cookie_t	cookie;
	__u64			local_addr;
	__u64			remote_addr;
	union {
		struct {		/* compare and swap */
			__u64	compare;
			__u64	swap;
		} cswp;
		struct {		/* fetch and add */
			__u64	add;
		} fadd;
		struct {		/* masked compare and swap */
			__u64	compare;
			__u64	swap;
			__u64	compare_mask;
			__u64	swap_mask;
		} m_cswp;
		struct {		/* masked fetch and add */
			__u64	add;
			__u64	nocarry_mask;
		} m_fadd;
	};
	__u64			flags;
	__u64			user_token;
};

/* RDS_CMSG_RDMA_STATUS payload. */
struct rds_rdma_notify {
	__u64	user_token;
	__s32	status;		/* RDS_RDMA_SUCCESS or an error below */
};

#define RDS_RDMA_SUCCESS		0
#define RDS_RDMA_REMOTE_ERROR		1
#define RDS_RDMA_CANCELED		2
#define RDS_RDMA_DROPPED		3
#define RDS_RDMA_OTHER_ERROR		4

/* RDS_CMSG_ZCOPY_COMPLETION payload: num valid entries in cookies[]. */
#define RDS_MAX_ZCOOKIES		8

struct rds_zcopy_cookies {
	__u32	num;
	__u32	cookies[RDS_MAX_ZCOOKIES];
};

/*
 * Flags shared by the RDMA argument structures.
 */
#define RDS_RDMA_READWRITE		0x0001	/* write to peer, else read */
#define RDS_RDMA_FENCE			0x0002	/* order after prior RDMA */
#define RDS_RDMA_INVALIDATE		0x0004	/* drop the key when freeing */
#define RDS_RDMA_USE_ONCE		0x0008	/* free MR after one use */
#define RDS_RDMA_DONTWAIT		0x0010	/* do not block (legacy) */
#define RDS_RDMA_NOTIFY_ME		0x0020	/* report via RDMA_STATUS */
#define RDS_RDMA_SILENT			0x0040	/* do not wake up the peer */

#endif /* _LINUX_RDS_H */
