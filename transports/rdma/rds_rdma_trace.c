// SPDX-License-Identifier: GPL-2.0
/* Instantiates the tracepoints of rds_rdma_trace.h (in rds_rdma.ko). */
#include "rds_rdma.h"

#define CREATE_TRACE_POINTS
#include "rds_rdma_trace.h"
