// SPDX-License-Identifier: GPL-2.0
/* Parsing, comparing and printing RDS endpoint addresses. */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "addr.h"
#include "util.h"

int rds_ep_parse(struct rds_ep *ep, const char *host, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC }, *res;
	int rc;

	memset(ep, 0, sizeof(*ep));
	if (!host || !*host) {
		snprintf(err, errlen, "empty address");
		return -1;
	}
	rc = getaddrinfo(host, NULL, &hints, &res);
	if (rc) {
		snprintf(err, errlen, "cannot resolve '%s': %s", host, gai_strerror(rc));
		return -1;
	}
	if (res->ai_addrlen > sizeof(ep->ss) ||
	    (res->ai_family != AF_INET && res->ai_family != AF_INET6)) {
		freeaddrinfo(res);
		snprintf(err, errlen, "'%s' is not an IPv4 or IPv6 address", host);
		return -1;
	}
	memcpy(&ep->ss, res->ai_addr, res->ai_addrlen);
	ep->len = res->ai_addrlen;
	freeaddrinfo(res);
	rds_ep_set_port(ep, 0);
	return 0;
}

void rds_ep_parse_opt(struct rds_ep *ep, const char *opt, const char *host)
{
	char err[256];

	if (rds_ep_parse(ep, host, err, sizeof(err)))
		usage_error("option %s: %s", opt, err);
}

void rds_ep_any(struct rds_ep *ep, int family)
{
	memset(ep, 0, sizeof(*ep));
	ep->ss.ss_family = family;
	ep->len = family == AF_INET6 ? sizeof(struct sockaddr_in6)
				     : sizeof(struct sockaddr_in);
}

void rds_ep_set_port(struct rds_ep *ep, uint16_t port)
{
	if (ep->ss.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&ep->ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)&ep->ss)->sin_port = htons(port);
}

uint16_t rds_ep_port(const struct rds_ep *ep)
{
	if (ep->ss.ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)&ep->ss)->sin6_port);
	return ntohs(((const struct sockaddr_in *)&ep->ss)->sin_port);
}

int rds_ep_family(const struct rds_ep *ep)
{
	return ep->ss.ss_family;
}

bool rds_ep_same_addr(const struct rds_ep *a, const struct rds_ep *b)
{
	if (a->ss.ss_family != b->ss.ss_family)
		return false;
	if (a->ss.ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)&a->ss)->sin6_addr,
			       &((const struct sockaddr_in6 *)&b->ss)->sin6_addr,
			       sizeof(struct in6_addr));
	return ((const struct sockaddr_in *)&a->ss)->sin_addr.s_addr ==
	       ((const struct sockaddr_in *)&b->ss)->sin_addr.s_addr;
}

bool rds_ep_is_any(const struct rds_ep *ep)
{
	if (ep->ss.ss_family == AF_INET6)
		return IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)&ep->ss)->sin6_addr);
	return ((const struct sockaddr_in *)&ep->ss)->sin_addr.s_addr == htonl(INADDR_ANY);
}

char *rds_ep_addr_str(const struct rds_ep *ep, char *buf)
{
	const void *a;

	if (ep->ss.ss_family == AF_INET6)
		a = &((const struct sockaddr_in6 *)&ep->ss)->sin6_addr;
	else
		a = &((const struct sockaddr_in *)&ep->ss)->sin_addr;
	if (!inet_ntop(ep->ss.ss_family, a, buf, RDS_EP_STRLEN))
		snprintf(buf, RDS_EP_STRLEN, "?");
	return buf;
}

char *rds_ep_str(const struct rds_ep *ep, char *buf)
{
	char a[INET6_ADDRSTRLEN];

	if (!inet_ntop(ep->ss.ss_family, ep->ss.ss_family == AF_INET6 ?
		       (const void *)&((const struct sockaddr_in6 *)&ep->ss)->sin6_addr :
		       (const void *)&((const struct sockaddr_in *)&ep->ss)->sin_addr,
		       a, sizeof(a)))
		snprintf(a, sizeof(a), "?");
	if (ep->ss.ss_family == AF_INET6)
		snprintf(buf, RDS_EP_STRLEN, "[%s]:%u", a, rds_ep_port(ep));
	else
		snprintf(buf, RDS_EP_STRLEN, "%s:%u", a, rds_ep_port(ep));
	return buf;
}
