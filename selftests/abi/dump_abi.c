// SPDX-License-Identifier: GPL-2.0
/*
 * Print every constant and every structure layout that <linux/rds.h>
 * defines, one fact per line, in a fixed order.
 *
 * check_abi.sh builds this file twice, once so that <linux/rds.h> is the
 * project's include/uapi/linux/rds.h and once so that it is the copy
 * installed by linux-libc-dev, and compares the two outputs.  Anything
 * that can differ between two ABI-compatible headers (comments, spelling
 * of expressions, layout of the source) must not show up here; anything
 * that would break applications (a value, a type, a size, an offset, an
 * alignment, a missing name) must.
 */
#include <stddef.h>
#include <stdio.h>

#include <linux/rds.h>
#include <linux/sockios.h>	/* the SIOCRDS* values need SIOCPROTOPRIVATE */

/*
 * Name of a scalar's type, so that e.g. __u32 vs __s32 or __u64 vs long
 * show up.  There is deliberately no default: any other type fails to build.
 */
#define TYPE_NAME(x) _Generic((x),					\
	__u8 : "__u8", __s8 : "__s8", char : "char",			\
	__u16 : "__u16", __s16 : "__s16",				\
	__u32 : "__u32", __s32 : "__s32",				\
	__u64 : "__u64", __s64 : "__s64",				\
	unsigned long : "ulong", long : "long")

/* True if the integer expression x has a signed type (after promotion). */
#define IS_SIGNED(x)	((x) * 0 - 1 < 0)

/* An object-like integer macro: its value, and the size/signedness of it. */
#define CONST(m)							\
	printf("const %s 0x%llx size=%zu signed=%d\n", #m,		\
	       (unsigned long long)(m), sizeof(m), IS_SIGNED(m))

/* A function-like macro evaluated at one argument. */
#define CALL(m, arg)							\
	printf("call %s(%s) 0x%llx size=%zu signed=%d\n", #m, #arg,	\
	       (unsigned long long)m(arg), sizeof(m(arg)), IS_SIGNED(m(arg)))

/* An enumerator. */
#define ENUMVAL(e)	printf("enum %s %lld\n", #e, (long long)(e))

/* A typedef of an integer type. */
#define TYPEDEF(t)							\
	printf("typedef %s size=%zu type=%s\n", #t, sizeof(t),		\
	       TYPE_NAME((t)0))

/* Size and alignment of a struct (or other) type. */
#define TYPE(t)								\
	printf("type %s size=%zu align=%zu\n", #t, sizeof(t), _Alignof(t))

#define MEMBER(t, f)	(((t *)0)->f)

/* A scalar integer member. */
#define SCALAR(t, f)							\
	printf("field %s.%s off=%zu size=%zu type=%s\n", #t, #f,	\
	       offsetof(t, f), sizeof(MEMBER(t, f)), TYPE_NAME(MEMBER(t, f)))

/* An array member of integers. */
#define ARRAY(t, f)							\
	printf("field %s.%s off=%zu size=%zu elem=%s n=%zu\n", #t, #f,	\
	       offsetof(t, f), sizeof(MEMBER(t, f)),			\
	       TYPE_NAME(MEMBER(t, f)[0]),				\
	       sizeof(MEMBER(t, f)) / sizeof(MEMBER(t, f)[0]))

/* A member of aggregate type et (e.g. struct in6_addr). */
#define AGGR(t, f, et)							\
	printf("field %s.%s off=%zu size=%zu is=%s:%d\n", #t, #f,	\
	       offsetof(t, f), sizeof(MEMBER(t, f)), #et,		\
	       __builtin_types_compatible_p(__typeof__(MEMBER(t, f)), et))

/* A member of anonymous aggregate type: only where it is and how big. */
#define ANON(t, f)							\
	printf("field %s.%s off=%zu size=%zu\n", #t, #f,		\
	       offsetof(t, f), sizeof(MEMBER(t, f)))

static void dump_constants(void)
{
	CONST(RDS_IB_ABI_VERSION);
	CONST(SOL_RDS);

	/* socket options */
	CONST(RDS_CANCEL_SENT_TO);
	CONST(RDS_GET_MR);
	CONST(RDS_FREE_MR);
	CONST(RDS_RECVERR);
	CONST(RDS_CONG_MONITOR);
	CONST(RDS_GET_MR_FOR_DEST);
	CONST(SO_RDS_TRANSPORT);
	CONST(SO_RDS_MSG_RXPATH_LATENCY);

	/* transports */
	CONST(RDS_TRANS_IB);
	CONST(RDS_TRANS_GAP);
	CONST(RDS_TRANS_TCP);
	CONST(RDS_TRANS_COUNT);
	CONST(RDS_TRANS_NONE);
	CONST(RDS_TRANS_IWARP);

	/* ioctls */
	CONST(SIOCRDSSETTOS);
	CONST(SIOCRDSGETTOS);

	/* control messages */
	CONST(RDS_CMSG_RDMA_ARGS);
	CONST(RDS_CMSG_RDMA_DEST);
	CONST(RDS_CMSG_RDMA_MAP);
	CONST(RDS_CMSG_RDMA_STATUS);
	CONST(RDS_CMSG_CONG_UPDATE);
	CONST(RDS_CMSG_ATOMIC_FADD);
	CONST(RDS_CMSG_ATOMIC_CSWP);
	CONST(RDS_CMSG_MASKED_ATOMIC_FADD);
	CONST(RDS_CMSG_MASKED_ATOMIC_CSWP);
	CONST(RDS_CMSG_RXPATH_LATENCY);
	CONST(RDS_CMSG_ZCOPY_COOKIE);
	CONST(RDS_CMSG_ZCOPY_COMPLETION);

	/* info queries */
	CONST(RDS_INFO_FIRST);
	CONST(RDS_INFO_COUNTERS);
	CONST(RDS_INFO_CONNECTIONS);
	CONST(RDS_INFO_SEND_MESSAGES);
	CONST(RDS_INFO_RETRANS_MESSAGES);
	CONST(RDS_INFO_RECV_MESSAGES);
	CONST(RDS_INFO_SOCKETS);
	CONST(RDS_INFO_TCP_SOCKETS);
	CONST(RDS_INFO_IB_CONNECTIONS);
	CONST(RDS_INFO_CONNECTION_STATS);
	CONST(RDS_INFO_IWARP_CONNECTIONS);
	CONST(RDS6_INFO_CONNECTIONS);
	CONST(RDS6_INFO_SEND_MESSAGES);
	CONST(RDS6_INFO_RETRANS_MESSAGES);
	CONST(RDS6_INFO_RECV_MESSAGES);
	CONST(RDS6_INFO_SOCKETS);
	CONST(RDS6_INFO_TCP_SOCKETS);
	CONST(RDS6_INFO_IB_CONNECTIONS);
	CONST(RDS_INFO_LAST);

	/* info record details */
	CONST(RDS_INFO_CONNECTION_FLAG_SENDING);
	CONST(RDS_INFO_CONNECTION_FLAG_CONNECTING);
	CONST(RDS_INFO_CONNECTION_FLAG_CONNECTED);
	CONST(TRANSNAMSIZ);
	CONST(RDS_INFO_MESSAGE_FLAG_ACK);
	CONST(RDS_INFO_MESSAGE_FLAG_FAST_ACK);
	CONST(RDS_IB_GID_LEN);

	/* congestion monitor */
	CONST(RDS_CONG_MONITOR_SIZE);
	CALL(RDS_CONG_MONITOR_BIT, 0);
	CALL(RDS_CONG_MONITOR_BIT, 1);
	CALL(RDS_CONG_MONITOR_BIT, 63);
	CALL(RDS_CONG_MONITOR_BIT, 64);
	CALL(RDS_CONG_MONITOR_BIT, 4000);
	CALL(RDS_CONG_MONITOR_BIT, 65535);
	CALL(RDS_CONG_MONITOR_BIT, -1);
	CALL(RDS_CONG_MONITOR_MASK, 0);
	CALL(RDS_CONG_MONITOR_MASK, 1);
	CALL(RDS_CONG_MONITOR_MASK, 31);
	CALL(RDS_CONG_MONITOR_MASK, 32);
	CALL(RDS_CONG_MONITOR_MASK, 63);
	CALL(RDS_CONG_MONITOR_MASK, 64);
	CALL(RDS_CONG_MONITOR_MASK, 4000);
	CALL(RDS_CONG_MONITOR_MASK, 65535);

	/* RDMA */
	CONST(RDS_RDMA_SUCCESS);
	CONST(RDS_RDMA_REMOTE_ERROR);
	CONST(RDS_RDMA_CANCELED);
	CONST(RDS_RDMA_DROPPED);
	CONST(RDS_RDMA_OTHER_ERROR);
	CONST(RDS_MAX_ZCOOKIES);
	CONST(RDS_RDMA_READWRITE);
	CONST(RDS_RDMA_FENCE);
	CONST(RDS_RDMA_INVALIDATE);
	CONST(RDS_RDMA_USE_ONCE);
	CONST(RDS_RDMA_DONTWAIT);
	CONST(RDS_RDMA_NOTIFY_ME);
	CONST(RDS_RDMA_SILENT);
}

static void dump_types(void)
{
	TYPEDEF(rds_tos_t);
	TYPEDEF(rds_rdma_cookie_t);

	TYPE(enum rds_message_rxpath_latency);
	ENUMVAL(RDS_MSG_RX_HDR_TO_DGRAM_START);
	ENUMVAL(RDS_MSG_RX_DGRAM_REASSEMBLE);
	ENUMVAL(RDS_MSG_RX_DGRAM_DELIVERED);
	ENUMVAL(RDS_MSG_RX_DGRAM_TRACE_MAX);
}

static void dump_info_structs(void)
{
	TYPE(struct rds_info_counter);
	ARRAY(struct rds_info_counter, name);
	SCALAR(struct rds_info_counter, value);

	TYPE(struct rds_info_connection);
	SCALAR(struct rds_info_connection, next_tx_seq);
	SCALAR(struct rds_info_connection, next_rx_seq);
	SCALAR(struct rds_info_connection, laddr);
	SCALAR(struct rds_info_connection, faddr);
	ARRAY(struct rds_info_connection, transport);
	SCALAR(struct rds_info_connection, flags);
	SCALAR(struct rds_info_connection, tos);

	TYPE(struct rds6_info_connection);
	SCALAR(struct rds6_info_connection, next_tx_seq);
	SCALAR(struct rds6_info_connection, next_rx_seq);
	AGGR(struct rds6_info_connection, laddr, struct in6_addr);
	AGGR(struct rds6_info_connection, faddr, struct in6_addr);
	ARRAY(struct rds6_info_connection, transport);
	SCALAR(struct rds6_info_connection, flags);

	TYPE(struct rds_info_message);
	SCALAR(struct rds_info_message, seq);
	SCALAR(struct rds_info_message, len);
	SCALAR(struct rds_info_message, laddr);
	SCALAR(struct rds_info_message, faddr);
	SCALAR(struct rds_info_message, lport);
	SCALAR(struct rds_info_message, fport);
	SCALAR(struct rds_info_message, flags);
	SCALAR(struct rds_info_message, tos);

	TYPE(struct rds6_info_message);
	SCALAR(struct rds6_info_message, seq);
	SCALAR(struct rds6_info_message, len);
	AGGR(struct rds6_info_message, laddr, struct in6_addr);
	AGGR(struct rds6_info_message, faddr, struct in6_addr);
	SCALAR(struct rds6_info_message, lport);
	SCALAR(struct rds6_info_message, fport);
	SCALAR(struct rds6_info_message, flags);
	SCALAR(struct rds6_info_message, tos);

	TYPE(struct rds_info_socket);
	SCALAR(struct rds_info_socket, sndbuf);
	SCALAR(struct rds_info_socket, bound_addr);
	SCALAR(struct rds_info_socket, connected_addr);
	SCALAR(struct rds_info_socket, bound_port);
	SCALAR(struct rds_info_socket, connected_port);
	SCALAR(struct rds_info_socket, rcvbuf);
	SCALAR(struct rds_info_socket, inum);

	TYPE(struct rds6_info_socket);
	SCALAR(struct rds6_info_socket, sndbuf);
	AGGR(struct rds6_info_socket, bound_addr, struct in6_addr);
	AGGR(struct rds6_info_socket, connected_addr, struct in6_addr);
	SCALAR(struct rds6_info_socket, bound_port);
	SCALAR(struct rds6_info_socket, connected_port);
	SCALAR(struct rds6_info_socket, rcvbuf);
	SCALAR(struct rds6_info_socket, inum);

	TYPE(struct rds_info_tcp_socket);
	SCALAR(struct rds_info_tcp_socket, local_addr);
	SCALAR(struct rds_info_tcp_socket, local_port);
	SCALAR(struct rds_info_tcp_socket, peer_addr);
	SCALAR(struct rds_info_tcp_socket, peer_port);
	SCALAR(struct rds_info_tcp_socket, hdr_rem);
	SCALAR(struct rds_info_tcp_socket, data_rem);
	SCALAR(struct rds_info_tcp_socket, last_sent_nxt);
	SCALAR(struct rds_info_tcp_socket, last_expected_una);
	SCALAR(struct rds_info_tcp_socket, last_seen_una);
	SCALAR(struct rds_info_tcp_socket, tos);

	TYPE(struct rds6_info_tcp_socket);
	AGGR(struct rds6_info_tcp_socket, local_addr, struct in6_addr);
	SCALAR(struct rds6_info_tcp_socket, local_port);
	AGGR(struct rds6_info_tcp_socket, peer_addr, struct in6_addr);
	SCALAR(struct rds6_info_tcp_socket, peer_port);
	SCALAR(struct rds6_info_tcp_socket, hdr_rem);
	SCALAR(struct rds6_info_tcp_socket, data_rem);
	SCALAR(struct rds6_info_tcp_socket, last_sent_nxt);
	SCALAR(struct rds6_info_tcp_socket, last_expected_una);
	SCALAR(struct rds6_info_tcp_socket, last_seen_una);

	TYPE(struct rds_info_rdma_connection);
	SCALAR(struct rds_info_rdma_connection, src_addr);
	SCALAR(struct rds_info_rdma_connection, dst_addr);
	ARRAY(struct rds_info_rdma_connection, src_gid);
	ARRAY(struct rds_info_rdma_connection, dst_gid);
	SCALAR(struct rds_info_rdma_connection, max_send_wr);
	SCALAR(struct rds_info_rdma_connection, max_recv_wr);
	SCALAR(struct rds_info_rdma_connection, max_send_sge);
	SCALAR(struct rds_info_rdma_connection, rdma_mr_max);
	SCALAR(struct rds_info_rdma_connection, rdma_mr_size);
	SCALAR(struct rds_info_rdma_connection, tos);
	SCALAR(struct rds_info_rdma_connection, sl);
	SCALAR(struct rds_info_rdma_connection, cache_allocs);

	TYPE(struct rds6_info_rdma_connection);
	AGGR(struct rds6_info_rdma_connection, src_addr, struct in6_addr);
	AGGR(struct rds6_info_rdma_connection, dst_addr, struct in6_addr);
	ARRAY(struct rds6_info_rdma_connection, src_gid);
	ARRAY(struct rds6_info_rdma_connection, dst_gid);
	SCALAR(struct rds6_info_rdma_connection, max_send_wr);
	SCALAR(struct rds6_info_rdma_connection, max_recv_wr);
	SCALAR(struct rds6_info_rdma_connection, max_send_sge);
	SCALAR(struct rds6_info_rdma_connection, rdma_mr_max);
	SCALAR(struct rds6_info_rdma_connection, rdma_mr_size);
	SCALAR(struct rds6_info_rdma_connection, tos);
	SCALAR(struct rds6_info_rdma_connection, sl);
	SCALAR(struct rds6_info_rdma_connection, cache_allocs);
}

static void dump_trace_structs(void)
{
	TYPE(struct rds_rx_trace_so);
	SCALAR(struct rds_rx_trace_so, rx_traces);
	ARRAY(struct rds_rx_trace_so, rx_trace_pos);

	TYPE(struct rds_cmsg_rx_trace);
	SCALAR(struct rds_cmsg_rx_trace, rx_traces);
	ARRAY(struct rds_cmsg_rx_trace, rx_trace_pos);
	ARRAY(struct rds_cmsg_rx_trace, rx_trace);
}

static void dump_rdma_structs(void)
{
	TYPE(struct rds_iovec);
	SCALAR(struct rds_iovec, addr);
	SCALAR(struct rds_iovec, bytes);

	TYPE(struct rds_get_mr_args);
	AGGR(struct rds_get_mr_args, vec, struct rds_iovec);
	SCALAR(struct rds_get_mr_args, cookie_addr);
	SCALAR(struct rds_get_mr_args, flags);

	TYPE(struct rds_get_mr_for_dest_args);
	AGGR(struct rds_get_mr_for_dest_args, dest_addr,
	     struct __kernel_sockaddr_storage);
	AGGR(struct rds_get_mr_for_dest_args, vec, struct rds_iovec);
	SCALAR(struct rds_get_mr_for_dest_args, cookie_addr);
	SCALAR(struct rds_get_mr_for_dest_args, flags);

	TYPE(struct rds_free_mr_args);
	SCALAR(struct rds_free_mr_args, cookie);
	SCALAR(struct rds_free_mr_args, flags);

	TYPE(struct rds_rdma_args);
	SCALAR(struct rds_rdma_args, cookie);
	AGGR(struct rds_rdma_args, remote_vec, struct rds_iovec);
	SCALAR(struct rds_rdma_args, local_vec_addr);
	SCALAR(struct rds_rdma_args, nr_local);
	SCALAR(struct rds_rdma_args, flags);
	SCALAR(struct rds_rdma_args, user_token);

	TYPE(struct rds_atomic_args);
	SCALAR(struct rds_atomic_args, cookie);
	SCALAR(struct rds_atomic_args, local_addr);
	SCALAR(struct rds_atomic_args, remote_addr);
	ANON(struct rds_atomic_args, cswp);
	SCALAR(struct rds_atomic_args, cswp.compare);
	SCALAR(struct rds_atomic_args, cswp.swap);
	ANON(struct rds_atomic_args, fadd);
	SCALAR(struct rds_atomic_args, fadd.add);
	ANON(struct rds_atomic_args, m_cswp);
	SCALAR(struct rds_atomic_args, m_cswp.compare);
	SCALAR(struct rds_atomic_args, m_cswp.swap);
	SCALAR(struct rds_atomic_args, m_cswp.compare_mask);
	SCALAR(struct rds_atomic_args, m_cswp.swap_mask);
	ANON(struct rds_atomic_args, m_fadd);
	SCALAR(struct rds_atomic_args, m_fadd.add);
	SCALAR(struct rds_atomic_args, m_fadd.nocarry_mask);
	SCALAR(struct rds_atomic_args, flags);
	SCALAR(struct rds_atomic_args, user_token);

	TYPE(struct rds_rdma_notify);
	SCALAR(struct rds_rdma_notify, user_token);
	SCALAR(struct rds_rdma_notify, status);

	TYPE(struct rds_zcopy_cookies);
	SCALAR(struct rds_zcopy_cookies, num);
	ARRAY(struct rds_zcopy_cookies, cookies);
}

int main(void)
{
	dump_constants();
	dump_types();
	dump_info_structs();
	dump_trace_structs();
	dump_rdma_structs();
	return 0;
}
