// SPDX-License-Identifier: GPL-2.0
/*
 * rds-info -p: each connection's lanes with their history and why each
 * last went down (RDS_INFO_CONN_PATHS, UEK's records, <linux/rds_uek.h>).
 * One line per lane, the drop reason last (it has blanks). The table is
 * RDS6_INFO_CONN_PATHS, which lists IPv4 connections too; their
 * addresses print as IPv4. Our kernel appends an extension per lane
 * (milliseconds, totals, state); a UEK kernel's records lack it, and
 * its columns then print as "-".
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <linux/rds_uek.h>

#include "info/tables.h"

size_t info_rec_each;

static const char *drop_name(__u32 r, char *buf, size_t len)
{
	switch (r) {
	case RDS_DROP_NONE: return "none";
	case RDS_DROP_USER_RESET: return "user reset";
	case RDS_DROP_BAD_STATE: return "invalid connection state";
	case RDS_DROP_DESTROY: return "connection destroyed";
	case RDS_DROP_CONNECT_FAIL: return "connect failed";
	case RDS_DROP_HB_TIMEOUT: return "liveness timeout";
	case RDS_DROP_CONNECT_TIMEOUT: return "connect timeout";
	case RDS_DROP_QP_ERROR: return "QP error event";
	case RDS_DROP_REQ_WHILE_UP: return "peer reconnected while up";
	case RDS_DROP_CONNECT_RACE: return "lost a connect race";
	case RDS_DROP_ACCEPT_FAIL: return "accept failed";
	case RDS_DROP_CM_ROUTE_ERROR: return "CM: route error";
	case RDS_DROP_CM_ADDR_ERROR: return "CM: address error";
	case RDS_DROP_CM_UNREACHABLE: return "CM: unreachable or connect error";
	case RDS_DROP_CM_REJECTED: return "CM: rejected";
	case RDS_DROP_CM_ADDR_CHANGE: return "CM: address change";
	case RDS_DROP_CM_DISCONNECTED: return "CM: disconnected";
	case RDS_DROP_CM_TIMEWAIT_EXIT: return "CM: timewait exit";
	case RDS_DROP_POST_RECV_FAIL: return "posting receives failed";
	case RDS_DROP_PROTOCOL: return "protocol error from peer";
	case RDS_DROP_RECV_COMP_ERR: return "receive completion error";
	case RDS_DROP_SEND_COMP_ERR: return "send completion error";
	case RDS_DROP_POST_SEND_FAIL: return "posting a send failed";
	case RDS_DROP_MODULE_UNLOAD: return "transport module unload";
	case RDS_DROP_FAILOVER: return "failover to another route";
	case RDS_DROP_FAILBACK: return "failback to the first route";
	case RDS_DROP_PEER_CLOSED: return "peer closed the connection";
	case RDS_DROP_SEND_FAIL: return "send failed";
	case RDS_DROP_CM_DEVICE_REMOVAL: return "CM: device removal";
	case RDS_DROP_MEMORY: return "out of memory";
	case RDS_DROP_UNSPEC: return "unspecified";
	case RDS_DROP_PEER_RESET: return "peer reset the connection";
	case RDS_DROP_LOCAL_ADDR_GONE: return "local address removed";
	}
	snprintf(buf, len, "reason %u", r);
	return buf;
}

static const char *addr(const struct in6_addr *a, char *buf)
{
	if (IN6_IS_ADDR_V4MAPPED(a))
		return inet_ntop(AF_INET, &a->s6_addr32[3], buf, INET6_ADDRSTRLEN);
	return inet_ntop(AF_INET6, a, buf, INET6_ADDRSTRLEN);
}

/* UTC, to the millisecond when we have it; "-" for never. */
static const char *when(__u64 ms, char *buf, size_t len)
{
	time_t s = ms / 1000;
	struct tm tm;

	if (!ms || !gmtime_r(&s, &tm))
		return "-";
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03u",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, (unsigned int)(ms % 1000));
	return buf;
}

static const char *const states[] = {
	[RDS_PATH_STATE_DOWN] = "down",
	[RDS_PATH_STATE_CONNECTING] = "connecting",
	[RDS_PATH_STATE_UP] = "up",
	[RDS_PATH_STATE_DISCONNECTING] = "disconnecting",
	[RDS_PATH_STATE_ERROR] = "error",
};

static const char *path_flags(__u8 f)
{
	static char s[5];

	s[0] = f & RDS_INFO_CONNECTION_FLAG_SENDING ? 's' : '-';
	s[1] = f & RDS_INFO_CONNECTION_FLAG_CONNECTING ? 'c' : '-';
	s[2] = f & RDS_INFO_CONNECTION_FLAG_CONNECTED ? 'C' : '-';
	s[3] = f & RDS_INFO_CONNECTION_FLAG_ERROR ? 'E' : '-';
	return s;
}

int print_paths(const void *p)
{
	const struct rds_info_connection_paths *c = p;
	const struct rds_path_info_ext *x = NULL;
	struct in6_addr l6, f6;
	char la[INET6_ADDRSTRLEN], fa[INET6_ADDRSTRLEN], t[TRANSNAMSIZ + 1];
	char tc[64], tr[64], rb[24], n1[12], n2[12], n3[12];
	unsigned int i, n = c->npaths;

	if (n > RDS_INFO_PATHS_MAX)
		n = RDS_INFO_PATHS_MAX;
	if (info_rec_each >= RDS_INFO_CONN_PATHS_SIZE)
		x = (const void *)((const char *)p +
				   sizeof(*c) + RDS_INFO_PATHS_MAX * sizeof(struct rds_path_info));
	memcpy(t, c->transport, TRANSNAMSIZ);
	t[TRANSNAMSIZ] = 0;
	memcpy(&l6, p, sizeof(l6));
	memcpy(&f6, (const char *)p + sizeof(l6), sizeof(f6));
	addr(&l6, la);
	addr(&f6, fa);
	for (i = 0; i < n; i++) {
		struct rds_path_info pi;
		struct rds_path_info_ext xi = {};

		memcpy(&pi, (const char *)p + sizeof(*c) + i * sizeof(pi), sizeof(pi));
		if (x)
			memcpy(&xi, &x[i], sizeof(xi));
		else {
			xi.connect_ms = pi.connect_time * 1000ULL;
			xi.reset_ms = pi.reset_time * 1000ULL;
		}
		if (x) {
			snprintf(n1, sizeof(n1), "%u", xi.attempts_total);
			snprintf(n2, sizeof(n2), "%u", xi.resets);
			snprintf(n3, sizeof(n3), "%u", xi.drops);
		} else {
			strcpy(n1, "-");
			strcpy(n2, "-");
			strcpy(n3, "-");
		}
		printf("%15s %15s %4u %-10s %4u %-13s %s %8u %8s %6s %6s %-23s %-23s %s\n",
		       la, fa, c->tos, t, pi.index,
		       x && xi.state < sizeof(states) / sizeof(states[0]) ?
		       states[xi.state] : "-",
		       path_flags(pi.flags), pi.connect_attempts, n1, n2, n3,
		       when(xi.connect_ms, tc, sizeof(tc)),
		       when(xi.reset_ms, tr, sizeof(tr)),
		       drop_name(pi.disconnect_reason, rb, sizeof(rb)));
	}
	return n ? 1 : 0;
}
