// SPDX-License-Identifier: GPL-2.0
/*
 * rds-info's tables: one printer per record type.  IPv6 tables list every
 * connection, IPv4 ones included (as v4-mapped addresses); those are left
 * out here because the IPv4 table already shows them, unless -a asked for
 * the IPv6 tables alone (info_all_v6).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <linux/rds.h>
#include <linux/rds_uek.h>

#include "info/tables.h"

bool info_all_v6;

#define A4(a) inet_ntop(AF_INET, &(a), (char[INET_ADDRSTRLEN]){0}, INET_ADDRSTRLEN)
#define A6(a) inet_ntop(AF_INET6, &(a), (char[INET6_ADDRSTRLEN]){0}, INET6_ADDRSTRLEN)

/* Transport names arrive as fixed arrays that may lack a NUL. */
static const char *trans_name(const __u8 *t, char *buf)
{
	memcpy(buf, t, TRANSNAMSIZ);
	buf[TRANSNAMSIZ] = 0;
	return buf;
}

static int v4mapped(const void *a)
{
	struct in6_addr x;

	memcpy(&x, a, sizeof(x));
	return IN6_IS_ADDR_V4MAPPED(&x);
}

static const char *conn_flags(__u8 f)
{
	static char s[4];

	s[0] = f & RDS_INFO_CONNECTION_FLAG_SENDING ? 's' : '-';
	s[1] = f & RDS_INFO_CONNECTION_FLAG_CONNECTING ? 'c' : '-';
	s[2] = f & RDS_INFO_CONNECTION_FLAG_CONNECTED ? 'C' : '-';
	return s;
}

/* A macro, like A6: the buffer must live until the caller's printf. */
#define gid_str(g) inet_ntop(AF_INET6, (g), (char[INET6_ADDRSTRLEN]){0}, INET6_ADDRSTRLEN)

static int print_counter(const void *p)
{
	struct rds_info_counter c;
	char name[sizeof(c.name) + 1];

	memcpy(&c, p, sizeof(c));
	memcpy(name, c.name, sizeof(c.name));
	name[sizeof(c.name)] = 0;
	printf("%32s %llu\n", name, (unsigned long long)c.value);
	return 1;
}

static int print_conn(const void *p)
{
	struct rds_info_connection c;
	char t[TRANSNAMSIZ + 1];

	memcpy(&c, p, sizeof(c));
	printf("%15s %15s %4u %16llu %16llu %-10s %s\n", A4(c.laddr), A4(c.faddr),
	       c.tos, (unsigned long long)c.next_tx_seq,
	       (unsigned long long)c.next_rx_seq, trans_name(c.transport, t),
	       conn_flags(c.flags));
	return 1;
}

static int print_conn6(const void *p)
{
	struct rds6_info_connection c;
	char t[TRANSNAMSIZ + 1];

	memcpy(&c, p, sizeof(c));
	if (!info_all_v6 && v4mapped(&c.laddr))
		return 0;
	printf("%39s %39s %16llu %16llu %-10s %s\n", A6(c.laddr), A6(c.faddr),
	       (unsigned long long)c.next_tx_seq,
	       (unsigned long long)c.next_rx_seq, trans_name(c.transport, t),
	       conn_flags(c.flags));
	return 1;
}

static int print_msg(const void *p)
{
	struct rds_info_message m;

	memcpy(&m, p, sizeof(m));
	printf("%15s %5u %15s %5u %4u %16llu %8u\n", A4(m.laddr), ntohs(m.lport),
	       A4(m.faddr), ntohs(m.fport), m.tos, (unsigned long long)m.seq, m.len);
	return 1;
}

static int print_msg6(const void *p)
{
	struct rds6_info_message m;

	memcpy(&m, p, sizeof(m));
	if (!info_all_v6 && v4mapped(&m.laddr))
		return 0;
	printf("%39s %5u %39s %5u %4u %16llu %8u\n", A6(m.laddr), ntohs(m.lport),
	       A6(m.faddr), ntohs(m.fport), m.tos, (unsigned long long)m.seq, m.len);
	return 1;
}

static int print_sock(const void *p)
{
	struct rds_info_socket s;

	memcpy(&s, p, sizeof(s));
	printf("%15s %5u %15s %5u %10u %10u %10llu\n", A4(s.bound_addr),
	       ntohs(s.bound_port), A4(s.connected_addr), ntohs(s.connected_port),
	       s.sndbuf, s.rcvbuf, (unsigned long long)s.inum);
	return 1;
}

static int print_sock6(const void *p)
{
	struct rds6_info_socket s;

	memcpy(&s, p, sizeof(s));
	if (!info_all_v6 && v4mapped(&s.bound_addr))
		return 0;
	printf("%39s %5u %39s %5u %10u %10u %10llu\n", A6(s.bound_addr),
	       ntohs(s.bound_port), A6(s.connected_addr), ntohs(s.connected_port),
	       s.sndbuf, s.rcvbuf, (unsigned long long)s.inum);
	return 1;
}

static int print_tcp(const void *p)
{
	struct rds_info_tcp_socket t;

	memcpy(&t, p, sizeof(t));
	printf("%15s %5u %15s %5u %4u %10llu %10llu %10u %10u %10u\n",
	       A4(t.local_addr), ntohs(t.local_port), A4(t.peer_addr),
	       ntohs(t.peer_port), t.tos, (unsigned long long)t.hdr_rem,
	       (unsigned long long)t.data_rem, t.last_sent_nxt,
	       t.last_expected_una, t.last_seen_una);
	return 1;
}

static int print_tcp6(const void *p)
{
	struct rds6_info_tcp_socket t;

	memcpy(&t, p, sizeof(t));
	if (!info_all_v6 && v4mapped(&t.local_addr))
		return 0;
	printf("%39s %5u %39s %5u %10llu %10llu %10u %10u %10u\n",
	       A6(t.local_addr), ntohs(t.local_port), A6(t.peer_addr),
	       ntohs(t.peer_port), (unsigned long long)t.hdr_rem,
	       (unsigned long long)t.data_rem, t.last_sent_nxt,
	       t.last_expected_una, t.last_seen_una);
	return 1;
}

static int print_rdma(const void *p)
{
	struct rds_info_rdma_connection c;

	memcpy(&c, p, sizeof(c));
	printf("%15s %15s %4u %3u %-39s %-39s %6u %6u %4u %8u %8u %8u\n",
	       A4(c.src_addr), A4(c.dst_addr), c.tos, c.sl, gid_str(c.src_gid),
	       gid_str(c.dst_gid), c.max_send_wr, c.max_recv_wr, c.max_send_sge,
	       c.rdma_mr_max, c.rdma_mr_size, c.cache_allocs);
	return 1;
}

static int print_rdma6(const void *p)
{
	struct rds6_info_rdma_connection c;

	memcpy(&c, p, sizeof(c));
	if (!info_all_v6 && v4mapped(&c.src_addr))
		return 0;
	printf("%39s %39s %4u %3u %-39s %-39s %6u %6u %4u %8u %8u %8u\n",
	       A6(c.src_addr), A6(c.dst_addr), c.tos, c.sl, gid_str(c.src_gid),
	       gid_str(c.dst_gid), c.max_send_wr, c.max_recv_wr, c.max_send_sge,
	       c.rdma_mr_max, c.rdma_mr_size, c.cache_allocs);
	return 1;
}

#define H4 "%15s %5s %15s %5s "
#define H6 "%39s %5s %39s %5s "
#define MSG_COLS "LocalAddr", "LPort", "RemoteAddr", "RPort"

static char hdr_conn[160], hdr_conn6[200], hdr_msg[160], hdr_msg6[200],
	    hdr_sock[160], hdr_sock6[200], hdr_tcp[200], hdr_tcp6[240],
	    hdr_rdma[240], hdr_rdma6[280], hdr_paths[240];

static void __attribute__((constructor)) make_headers(void)
{
	snprintf(hdr_conn, sizeof(hdr_conn), "%15s %15s %4s %16s %16s %-10s %s",
		 "LocalAddr", "RemoteAddr", "Tos", "NextTX", "NextRX", "Transport",
		 "Flg");
	snprintf(hdr_conn6, sizeof(hdr_conn6), "%39s %39s %16s %16s %-10s %s",
		 "LocalAddr", "RemoteAddr", "NextTX", "NextRX", "Transport", "Flg");
	snprintf(hdr_msg, sizeof(hdr_msg), H4 "%4s %16s %8s", MSG_COLS, "Tos",
		 "Seq", "Bytes");
	snprintf(hdr_msg6, sizeof(hdr_msg6), H6 "%4s %16s %8s", MSG_COLS, "Tos",
		 "Seq", "Bytes");
	snprintf(hdr_sock, sizeof(hdr_sock), H4 "%10s %10s %10s", "BoundAddr",
		 "BPort", "ConnAddr", "CPort", "SndBuf", "RcvBuf", "Inode");
	snprintf(hdr_sock6, sizeof(hdr_sock6), H6 "%10s %10s %10s", "BoundAddr",
		 "BPort", "ConnAddr", "CPort", "SndBuf", "RcvBuf", "Inode");
	snprintf(hdr_tcp, sizeof(hdr_tcp), H4 "%4s %10s %10s %10s %10s %10s",
		 MSG_COLS, "Tos", "HdrRemain", "DataRemain", "SentNxt",
		 "ExpectUna", "SeenUna");
	snprintf(hdr_tcp6, sizeof(hdr_tcp6), H6 "%10s %10s %10s %10s %10s",
		 MSG_COLS, "HdrRemain", "DataRemain", "SentNxt", "ExpectUna",
		 "SeenUna");
	snprintf(hdr_rdma, sizeof(hdr_rdma),
		 "%15s %15s %4s %3s %-39s %-39s %6s %6s %4s %8s %8s %8s",
		 "LocalAddr", "RemoteAddr", "Tos", "SL", "LocalGID", "RemoteGID",
		 "MaxSWR", "MaxRWR", "SGE", "MRMax", "MRSize", "CacheAl");
	snprintf(hdr_rdma6, sizeof(hdr_rdma6),
		 "%39s %39s %4s %3s %-39s %-39s %6s %6s %4s %8s %8s %8s",
		 "LocalAddr", "RemoteAddr", "Tos", "SL", "LocalGID", "RemoteGID",
		 "MaxSWR", "MaxRWR", "SGE", "MRMax", "MRSize", "CacheAl");
	snprintf(hdr_paths, sizeof(hdr_paths),
		 "%15s %15s %4s %-10s %4s %-13s %s %8s %8s %6s %6s %-23s %-23s %s",
		 "LocalAddr", "RemoteAddr", "Tos", "Transport", "Lane", "State",
		 "Flg ", "Attempts", "AllTries", "Resets", "Drops",
		 "Connected@ (UTC)", "Reset@ (UTC)", "Last drop reason");
}

const struct info_table info_tables[] = {
	{ 'c', RDS_INFO_COUNTERS, "Counters", NULL,
	  sizeof(struct rds_info_counter), print_counter, false },
	{ 'k', RDS_INFO_SOCKETS, "Sockets", hdr_sock,
	  sizeof(struct rds_info_socket), print_sock, false },
	{ 'k', RDS6_INFO_SOCKETS, "IPv6 sockets", hdr_sock6,
	  sizeof(struct rds6_info_socket), print_sock6, true },
	{ 'n', RDS_INFO_CONNECTIONS, "Connections", hdr_conn,
	  sizeof(struct rds_info_connection), print_conn, false },
	{ 'n', RDS6_INFO_CONNECTIONS, "IPv6 connections", hdr_conn6,
	  sizeof(struct rds6_info_connection), print_conn6, true },
	{ 'r', RDS_INFO_RECV_MESSAGES, "Receive queue", hdr_msg,
	  sizeof(struct rds_info_message), print_msg, false },
	{ 'r', RDS6_INFO_RECV_MESSAGES, "IPv6 receive queue", hdr_msg6,
	  sizeof(struct rds6_info_message), print_msg6, true },
	{ 's', RDS_INFO_SEND_MESSAGES, "Send queue", hdr_msg,
	  sizeof(struct rds_info_message), print_msg, false },
	{ 's', RDS6_INFO_SEND_MESSAGES, "IPv6 send queue", hdr_msg6,
	  sizeof(struct rds6_info_message), print_msg6, true },
	{ 't', RDS_INFO_RETRANS_MESSAGES, "Retransmit queue", hdr_msg,
	  sizeof(struct rds_info_message), print_msg, false },
	{ 't', RDS6_INFO_RETRANS_MESSAGES, "IPv6 retransmit queue", hdr_msg6,
	  sizeof(struct rds6_info_message), print_msg6, true },
	{ 'T', RDS_INFO_TCP_SOCKETS, "TCP sockets", hdr_tcp,
	  sizeof(struct rds_info_tcp_socket), print_tcp, false },
	{ 'T', RDS6_INFO_TCP_SOCKETS, "IPv6 TCP sockets", hdr_tcp6,
	  sizeof(struct rds6_info_tcp_socket), print_tcp6, true },
	{ 'I', RDS_INFO_IB_CONNECTIONS, "InfiniBand connections", hdr_rdma,
	  sizeof(struct rds_info_rdma_connection), print_rdma, false },
	{ 'I', RDS6_INFO_IB_CONNECTIONS, "IPv6 InfiniBand connections", hdr_rdma6,
	  sizeof(struct rds6_info_rdma_connection), print_rdma6, true },
	{ 'W', RDS_INFO_IWARP_CONNECTIONS, "iWARP connections", hdr_rdma,
	  sizeof(struct rds_info_rdma_connection), print_rdma, false },
	{ 'p', RDS6_INFO_CONN_PATHS, "Lanes (paths) and their history", hdr_paths,
	  sizeof(struct rds_info_connection_paths) +
	  RDS_INFO_PATHS_MAX * sizeof(struct rds_path_info), print_paths, false },
};
const size_t info_tables_nr = sizeof(info_tables) / sizeof(info_tables[0]);
