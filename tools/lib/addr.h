/* SPDX-License-Identifier: GPL-2.0 */
/* RDS endpoint addresses (IPv4 or IPv6 + port) for the tools. */
#ifndef RDS_TOOLS_ADDR_H
#define RDS_TOOLS_ADDR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

struct rds_ep {
	struct sockaddr_storage	ss;
	socklen_t		len;	/* 0: unset */
};

/* Longest text rds_ep_str() produces, with the NUL. */
#define RDS_EP_STRLEN	(46 + 8)	/* INET6_ADDRSTRLEN + "[]:65535" */

/* Resolve @host (numeric or a name) into @ep with port 0; -1 on failure
 * with a message in @err (of @errlen bytes). */
int rds_ep_parse(struct rds_ep *ep, const char *host, char *err, size_t errlen);
/* Like rds_ep_parse() but a bad address is a command-line error. */
void rds_ep_parse_opt(struct rds_ep *ep, const char *opt, const char *host);
void rds_ep_any(struct rds_ep *ep, int family);
void rds_ep_set_port(struct rds_ep *ep, uint16_t port);
uint16_t rds_ep_port(const struct rds_ep *ep);
int rds_ep_family(const struct rds_ep *ep);
bool rds_ep_same_addr(const struct rds_ep *a, const struct rds_ep *b);
bool rds_ep_is_any(const struct rds_ep *ep);
/* "a.b.c.d" or "x:y::z" into @buf (RDS_EP_STRLEN); returns @buf. */
char *rds_ep_addr_str(const struct rds_ep *ep, char *buf);
/* "a.b.c.d:port" or "[x::y]:port". */
char *rds_ep_str(const struct rds_ep *ep, char *buf);

#endif
