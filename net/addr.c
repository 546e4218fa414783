// SPDX-License-Identifier: GPL-2.0
/*
 * The sockaddr every entry point takes (bind(), sendmsg()'s destination,
 * an RDMA's destination in RDS_GET_MR_FOR_DEST): one parser, one set of
 * rules for which addresses RDS accepts.
 */
#include <net/ipv6.h>

#include "rds_core.h"

/**
 * rds_parse_addr - validate a user sockaddr as bind() and sendmsg() do
 * @uaddr: sockaddr_in or sockaddr_in6 from user space (already copied)
 * @addr_len: its length
 * @addr: out: the address, v4-mapped for IPv4
 * @port: out: the port
 * @scope_id: out: scope id (link-local IPv6 only), else 0
 *
 * Return: 0, or -EINVAL for a short or unusable address (ANY, broadcast,
 * multicast, non-unicast IPv6, link-local without scope) or another
 * family.
 */
int rds_parse_addr(const struct sockaddr *uaddr, int addr_len,
		   struct in6_addr *addr, __be16 *port, u32 *scope_id)
{
	const struct sockaddr_in6 *sin6;
	const struct sockaddr_in *sin;
	__be32 a4;
	int type;

	if (addr_len < (int)offsetofend(struct sockaddr, sa_family))
		return -EINVAL;

	*scope_id = 0;
	switch (uaddr->sa_family) {
	case AF_INET:
		sin = (const struct sockaddr_in *)uaddr;
		if (addr_len < (int)sizeof(*sin))
			return -EINVAL;
		a4 = sin->sin_addr.s_addr;
		if (a4 == htonl(INADDR_ANY) || a4 == htonl(INADDR_BROADCAST) ||
		    ipv4_is_multicast(a4))
			return -EINVAL;
		ipv6_addr_set_v4mapped(a4, addr);
		*port = sin->sin_port;
		return 0;
	case AF_INET6:
		sin6 = (const struct sockaddr_in6 *)uaddr;
		if (addr_len < (int)sizeof(*sin6))
			return -EINVAL;
		type = ipv6_addr_type(&sin6->sin6_addr);
		if (!(type & IPV6_ADDR_UNICAST)) {
			if (!(type & IPV6_ADDR_MAPPED))
				return -EINVAL;
			a4 = sin6->sin6_addr.s6_addr32[3];
			if (a4 == htonl(INADDR_ANY) ||
			    a4 == htonl(INADDR_BROADCAST) ||
			    ipv4_is_multicast(a4))
				return -EINVAL;
		}
		if (type & IPV6_ADDR_LINKLOCAL) {
			if (!sin6->sin6_scope_id)
				return -EINVAL;
			*scope_id = sin6->sin6_scope_id;
		}
		*addr = sin6->sin6_addr;
		*port = sin6->sin6_port;
		return 0;
	default:
		return -EINVAL;
	}
}
