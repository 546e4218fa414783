// SPDX-License-Identifier: GPL-2.0
/*
 * Memory registration for peers' RDMA. Not yet: registering needs a
 * queue pair on the device before any connection exists.
 */
#include "rds_rdma.h"

int rds_rdma_mr_register(struct rds_mr *mr, struct net *net,
			 const struct in6_addr *laddr, struct rds_mr_keygen *kg)
{
	return -EOPNOTSUPP;
}

void rds_rdma_mr_free(struct rds_mr *mr)
{
}
