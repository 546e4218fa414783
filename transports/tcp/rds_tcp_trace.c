// SPDX-License-Identifier: GPL-2.0
/* Instantiates the tracepoints of rds_tcp_trace.h. */
#define CREATE_TRACE_POINTS
#include "rds_tcp_trace.h"
