/* SPDX-License-Identifier: GPL-2.0 */
/* The RDS_INFO_* getsockopt protocol. */
#ifndef RDS_TOOLS_INFO_H
#define RDS_TOOLS_INFO_H

#include <stddef.h>

/*
 * Fetch table @optname: a probe with length 0 fails with ENOSPC and says
 * how many bytes are needed; a call with enough room returns the size of
 * one record.  On success *@buf (malloc'ed, caller frees) holds *@nr
 * records of *@each bytes; returns 0, or -errno.
 */
int rds_info_get(int fd, int optname, void **buf, size_t *nr, size_t *each);

#endif
