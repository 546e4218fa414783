/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rds-stress control connection (TCP): the active side sends its options,
 * both sides then report whether their tasks are ready (or why not), and
 * closing the connection tells the other side to stop.
 */
#ifndef RDS_STRESS_CONTROL_H
#define RDS_STRESS_CONTROL_H

#include <stddef.h>
#include <stdint.h>

#include "lib/addr.h"
#include "stress/opts.h"

/* Passive: listen on @local (may be unset: any) : port, accept one. */
int ctl_accept(const struct stress_opts *o);
/* Active: connect to -s:port, retrying for a while if refused. */
int ctl_connect(const struct stress_opts *o);
/* The local address of the control connection (port 0). */
void ctl_local_addr(int fd, struct rds_ep *ep);

void ctl_send_opts(int fd, const struct stress_opts *o,
		   const struct rds_ep *addr, uint16_t port_base);
/* Read the active side's options into the shared part of @o. */
void ctl_recv_opts(int fd, struct stress_opts *o, struct rds_ep *peer,
		   uint16_t *peer_base);

/* Tell the peer whether we are ready; @msg is the reason if not. */
void ctl_send_status(int fd, int ok, int unsupported, const char *msg);
/* Returns 1 if the peer is ready; else copies its reason to @msg and sets
 * *@unsupported when the peer's kernel lacks a feature. */
int ctl_recv_status(int fd, char *msg, size_t len, int *unsupported);

#endif
