/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the verbs engine (trace system rds_rdma): work
 * completions, RDMA CM events and our refusals, memory registration,
 * and the states in which the engine waits (send ring full, RDMA
 * operations at their limit, an empty receive ring). rds_rdma_trace.c
 * instantiates them, in rds_rdma.ko only: rds_iwarp.ko runs on the
 * engine of that module, so iWARP connections fire the same events with
 * trans=iwarp. Documentation/rdma.rst lists them.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rds_rdma

#if !defined(_RDS_RDMA_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _RDS_RDMA_TRACE_H

#include <linux/tracepoint.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>
#include <net/rds/connection.h>
#include <net/rds/transport.h>

#include "rds_rdma.h"

#ifndef _RDS_RDMA_TRACE_ENUMS
#define _RDS_RDMA_TRACE_ENUMS
/* Why we refused a peer's connection request (rds_rdma_cm.c). */
enum rds_rdma_refusal {
	RDS_RDMA_REFUSE_ADDR,		/* not an IPv4 or IPv6 address */
	RDS_RDMA_REFUSE_PDATA,		/* private data too short */
	RDS_RDMA_REFUSE_VERSION,	/* no protocol version in common */
	RDS_RDMA_REFUSE_SPOOF,		/* addresses differ from the CM's */
	RDS_RDMA_REFUSE_NO_FLAVOR,	/* no transport for the device */
	RDS_RDMA_REFUSE_NO_CONN,	/* the connection could not be made */
	RDS_RDMA_REFUSE_RACE,		/* ours is up or connecting */
	RDS_RDMA_REFUSE_SETUP,		/* queue pair or accept failed */
	RDS_RDMA_REFUSE_LOCAL,		/* between local addresses, not ours */
	RDS_RDMA_REFUSE_ROUTE,		/* a route for no connection we gave */
};

/* What the transmit path waits for (rds_rdma_tx_stall/_resume). */
enum rds_rdma_stall {
	RDS_RDMA_STALL_SEND_RING,	/* no free send slot */
	RDS_RDMA_STALL_RDMA,		/* RDMA work requests at the limit,
					 * or a message waits for its RDMA
					 */
};
#endif

TRACE_DEFINE_ENUM(IB_WC_SUCCESS);
TRACE_DEFINE_ENUM(IB_WC_LOC_LEN_ERR);
TRACE_DEFINE_ENUM(IB_WC_LOC_QP_OP_ERR);
TRACE_DEFINE_ENUM(IB_WC_LOC_EEC_OP_ERR);
TRACE_DEFINE_ENUM(IB_WC_LOC_PROT_ERR);
TRACE_DEFINE_ENUM(IB_WC_WR_FLUSH_ERR);
TRACE_DEFINE_ENUM(IB_WC_MW_BIND_ERR);
TRACE_DEFINE_ENUM(IB_WC_BAD_RESP_ERR);
TRACE_DEFINE_ENUM(IB_WC_LOC_ACCESS_ERR);
TRACE_DEFINE_ENUM(IB_WC_REM_INV_REQ_ERR);
TRACE_DEFINE_ENUM(IB_WC_REM_ACCESS_ERR);
TRACE_DEFINE_ENUM(IB_WC_REM_OP_ERR);
TRACE_DEFINE_ENUM(IB_WC_RETRY_EXC_ERR);
TRACE_DEFINE_ENUM(IB_WC_RNR_RETRY_EXC_ERR);
TRACE_DEFINE_ENUM(IB_WC_LOC_RDD_VIOL_ERR);
TRACE_DEFINE_ENUM(IB_WC_REM_INV_RD_REQ_ERR);
TRACE_DEFINE_ENUM(IB_WC_REM_ABORT_ERR);
TRACE_DEFINE_ENUM(IB_WC_INV_EECN_ERR);
TRACE_DEFINE_ENUM(IB_WC_INV_EEC_STATE_ERR);
TRACE_DEFINE_ENUM(IB_WC_FATAL_ERR);
TRACE_DEFINE_ENUM(IB_WC_RESP_TIMEOUT_ERR);
TRACE_DEFINE_ENUM(IB_WC_GENERAL_ERR);

#define rds_rdma_show_wc_status(s)					\
	__print_symbolic(s,						\
			 { IB_WC_SUCCESS, "SUCCESS" },			\
			 { IB_WC_LOC_LEN_ERR, "LOC_LEN_ERR" },		\
			 { IB_WC_LOC_QP_OP_ERR, "LOC_QP_OP_ERR" },	\
			 { IB_WC_LOC_EEC_OP_ERR, "LOC_EEC_OP_ERR" },	\
			 { IB_WC_LOC_PROT_ERR, "LOC_PROT_ERR" },	\
			 { IB_WC_WR_FLUSH_ERR, "WR_FLUSH_ERR" },	\
			 { IB_WC_MW_BIND_ERR, "MW_BIND_ERR" },		\
			 { IB_WC_BAD_RESP_ERR, "BAD_RESP_ERR" },	\
			 { IB_WC_LOC_ACCESS_ERR, "LOC_ACCESS_ERR" },	\
			 { IB_WC_REM_INV_REQ_ERR, "REM_INV_REQ_ERR" },	\
			 { IB_WC_REM_ACCESS_ERR, "REM_ACCESS_ERR" },	\
			 { IB_WC_REM_OP_ERR, "REM_OP_ERR" },		\
			 { IB_WC_RETRY_EXC_ERR, "RETRY_EXC_ERR" },	\
			 { IB_WC_RNR_RETRY_EXC_ERR, "RNR_RETRY_EXC_ERR" }, \
			 { IB_WC_LOC_RDD_VIOL_ERR, "LOC_RDD_VIOL_ERR" }, \
			 { IB_WC_REM_INV_RD_REQ_ERR, "REM_INV_RD_REQ_ERR" }, \
			 { IB_WC_REM_ABORT_ERR, "REM_ABORT_ERR" },	\
			 { IB_WC_INV_EECN_ERR, "INV_EECN_ERR" },	\
			 { IB_WC_INV_EEC_STATE_ERR, "INV_EEC_STATE_ERR" }, \
			 { IB_WC_FATAL_ERR, "FATAL_ERR" },		\
			 { IB_WC_RESP_TIMEOUT_ERR, "RESP_TIMEOUT_ERR" }, \
			 { IB_WC_GENERAL_ERR, "GENERAL_ERR" })

TRACE_DEFINE_ENUM(RDMA_CM_EVENT_ADDR_RESOLVED);
TRACE_DEFINE_ENUM(RDMA_CM_EVENT_ADDR_ERROR);
TRACE_DEFINE_ENUM(RDMA_CM_EVENT_ROUTE_RESOLVED);
TRACE_DEFINE_ENUM(RDMA_CM_EVENT_ROUTE_ERROR);
TRACE_DEFINE_ENUM(RDMA_CM_EVENT_CONNECT_REQUEST);
TRACE_DEFINE_ENUM(RDMA_CM_EVENT_CONNECT_RESPONSE);
TRACE_DEFINE_ENUM(RDMA_CM_EVENT_CONNECT_ERROR);
TRACE_DEFINE_ENUM(RDMA_CM_EVENT_UNREACHABLE);
TRACE_DEFINE_ENUM(RDMA_CM_EVENT_REJECTED);
TRACE_DEFINE_ENUM(RDMA_CM_EVENT_ESTABLISHED);
TRACE_DEFINE_ENUM(RDMA_CM_EVENT_DISCONNECTED);
TRACE_DEFINE_ENUM(RDMA_CM_EVENT_DEVICE_REMOVAL);
TRACE_DEFINE_ENUM(RDMA_CM_EVENT_MULTICAST_JOIN);
TRACE_DEFINE_ENUM(RDMA_CM_EVENT_MULTICAST_ERROR);
TRACE_DEFINE_ENUM(RDMA_CM_EVENT_ADDR_CHANGE);
TRACE_DEFINE_ENUM(RDMA_CM_EVENT_TIMEWAIT_EXIT);

#define rds_rdma_show_cm_event(s)					\
	__print_symbolic(s,						\
			 { RDMA_CM_EVENT_ADDR_RESOLVED, "ADDR_RESOLVED" }, \
			 { RDMA_CM_EVENT_ADDR_ERROR, "ADDR_ERROR" },	\
			 { RDMA_CM_EVENT_ROUTE_RESOLVED, "ROUTE_RESOLVED" }, \
			 { RDMA_CM_EVENT_ROUTE_ERROR, "ROUTE_ERROR" },	\
			 { RDMA_CM_EVENT_CONNECT_REQUEST, "CONNECT_REQUEST" }, \
			 { RDMA_CM_EVENT_CONNECT_RESPONSE, "CONNECT_RESPONSE" }, \
			 { RDMA_CM_EVENT_CONNECT_ERROR, "CONNECT_ERROR" }, \
			 { RDMA_CM_EVENT_UNREACHABLE, "UNREACHABLE" },	\
			 { RDMA_CM_EVENT_REJECTED, "REJECTED" },	\
			 { RDMA_CM_EVENT_ESTABLISHED, "ESTABLISHED" },	\
			 { RDMA_CM_EVENT_DISCONNECTED, "DISCONNECTED" }, \
			 { RDMA_CM_EVENT_DEVICE_REMOVAL, "DEVICE_REMOVAL" }, \
			 { RDMA_CM_EVENT_MULTICAST_JOIN, "MULTICAST_JOIN" }, \
			 { RDMA_CM_EVENT_MULTICAST_ERROR, "MULTICAST_ERROR" }, \
			 { RDMA_CM_EVENT_ADDR_CHANGE, "ADDR_CHANGE" },	\
			 { RDMA_CM_EVENT_TIMEWAIT_EXIT, "TIMEWAIT_EXIT" })

TRACE_DEFINE_ENUM(RDS_RDMA_REFUSE_ADDR);
TRACE_DEFINE_ENUM(RDS_RDMA_REFUSE_PDATA);
TRACE_DEFINE_ENUM(RDS_RDMA_REFUSE_VERSION);
TRACE_DEFINE_ENUM(RDS_RDMA_REFUSE_SPOOF);
TRACE_DEFINE_ENUM(RDS_RDMA_REFUSE_NO_FLAVOR);
TRACE_DEFINE_ENUM(RDS_RDMA_REFUSE_NO_CONN);
TRACE_DEFINE_ENUM(RDS_RDMA_REFUSE_RACE);
TRACE_DEFINE_ENUM(RDS_RDMA_REFUSE_SETUP);
TRACE_DEFINE_ENUM(RDS_RDMA_REFUSE_LOCAL);
TRACE_DEFINE_ENUM(RDS_RDMA_REFUSE_ROUTE);

#define rds_rdma_show_refusal(s)					\
	__print_symbolic(s,						\
			 { RDS_RDMA_REFUSE_ADDR, "addr" },		\
			 { RDS_RDMA_REFUSE_PDATA, "private_data" },	\
			 { RDS_RDMA_REFUSE_VERSION, "version" },	\
			 { RDS_RDMA_REFUSE_SPOOF, "spoofed_addr" },	\
			 { RDS_RDMA_REFUSE_NO_FLAVOR, "no_transport" },	\
			 { RDS_RDMA_REFUSE_NO_CONN, "no_conn" },	\
			 { RDS_RDMA_REFUSE_RACE, "race" },		\
			 { RDS_RDMA_REFUSE_SETUP, "setup" },		\
			 { RDS_RDMA_REFUSE_LOCAL, "local_not_ours" },	\
			 { RDS_RDMA_REFUSE_ROUTE, "route_unknown" })

TRACE_DEFINE_ENUM(RDS_RDMA_STALL_SEND_RING);
TRACE_DEFINE_ENUM(RDS_RDMA_STALL_RDMA);

#define rds_rdma_show_stall(s)						\
	__print_symbolic(s,						\
			 { RDS_RDMA_STALL_SEND_RING, "send_ring" },	\
			 { RDS_RDMA_STALL_RDMA, "rdma" })

TRACE_DEFINE_ENUM(RDS_TRANS_TYPE_IB);
TRACE_DEFINE_ENUM(RDS_TRANS_TYPE_IWARP);

#define rds_rdma_show_trans(s)						\
	__print_symbolic(s,						\
			 { RDS_TRANS_TYPE_IB, "ib" },			\
			 { RDS_TRANS_TYPE_IWARP, "iwarp" })

#ifndef _RDS_RDMA_TRACE_HELPERS
#define _RDS_RDMA_TRACE_HELPERS
/* What connection events record about their connection. */
static inline void rds_rdma_trace_conn(const struct rds_connection *conn,
				       u8 *laddr, u8 *faddr, u8 *trans,
				       u8 *tos)
{
	memcpy(laddr, &conn->c_laddr, sizeof(struct in6_addr));
	memcpy(faddr, &conn->c_faddr, sizeof(struct in6_addr));
	*trans = conn->c_trans->type;
	*tos = conn->c_tos;
}

/* The first word of a peer's reject data, or 0. */
static inline int rds_rdma_trace_rej_data(const struct rdma_cm_id *id,
					  const struct rdma_cm_event *ev)
{
	if (ev->event != RDMA_CM_EVENT_REJECTED)
		return 0;
	return rds_rdma_cm_rej_word(id, ev);
}
#endif

#define RDS_RDMA_TP_CONN_ASSIGN(conn)					\
	rds_rdma_trace_conn(conn, __entry->laddr, __entry->faddr,	\
			    &__entry->trans, &__entry->tos)

/*
 * A work completion: the CQ's restrack id, the ring slot it completes
 * (-1: no ring, as for RDMA operations and registrations), its status,
 * and the device's vendor error (only meaningful on a failure; 0 else).
 */
DECLARE_EVENT_CLASS(rds_rdma_completion_class,
		    TP_PROTO(const struct ib_cq *cq, const struct ib_wc *wc,
			     int slot),
		    TP_ARGS(cq, wc, slot),
		    TP_STRUCT__entry(__field(u32, cq_id)
				     __field(int, slot)
				     __field(u32, status)
				     __field(u32, vendor_err)),
		    TP_fast_assign(__entry->cq_id = cq->res.id;
				   __entry->slot = slot;
				   __entry->status = wc->status;
				   __entry->vendor_err = wc->status ?
							 wc->vendor_err : 0;),
		    TP_printk("cq.id=%u slot=%d status=%s (%u) vendor_err=0x%x",
			      __entry->cq_id, __entry->slot,
			      rds_rdma_show_wc_status(__entry->status),
			      __entry->status, __entry->vendor_err));

#define DEFINE_RDS_RDMA_COMPLETION_EVENT(name)				\
	DEFINE_EVENT(rds_rdma_completion_class, name,			\
		     TP_PROTO(const struct ib_cq *cq,			\
			      const struct ib_wc *wc, int slot),	\
		     TP_ARGS(cq, wc, slot))

/* A SEND of the send ring (a fragment, or the idle loop's ack). */
DEFINE_RDS_RDMA_COMPLETION_EVENT(rds_rdma_send_done);
/* The explicit ack's SEND (slot: the ring's size, the ack's own). */
DEFINE_RDS_RDMA_COMPLETION_EVENT(rds_rdma_ack_done);
/* A receive of the receive ring. */
DEFINE_RDS_RDMA_COMPLETION_EVENT(rds_rdma_recv_done);
/* The last work request of an RDMA READ, WRITE or atomic. */
DEFINE_RDS_RDMA_COMPLETION_EVENT(rds_rdma_rw_done);
/* A REG_MR or LOCAL_INV on the device's registration queue pair. */
DEFINE_RDS_RDMA_COMPLETION_EVENT(rds_rdma_reg_done);

/*
 * An RDMA CM event on one of the engine's ids. For REJECTED, status is
 * the reject reason (IB CM's, e.g. 28 consumer defined; iWARP gives a
 * -errno) and rej_data the first word of the peer's reject data.
 */
TRACE_EVENT(rds_rdma_cm_event,
	    TP_PROTO(const struct rdma_cm_id *id,
		     const struct rdma_cm_event *ev),
	    TP_ARGS(id, ev),
	    TP_STRUCT__entry(__array(u8, srcaddr,
				     sizeof(struct sockaddr_in6))
			     __array(u8, dstaddr,
				     sizeof(struct sockaddr_in6))
			     __field(u32, event)
			     __field(int, status)
			     __field(int, rej_data)),
	    TP_fast_assign(memcpy(__entry->srcaddr, &id->route.addr.src_addr,
				  sizeof(struct sockaddr_in6));
			   memcpy(__entry->dstaddr, &id->route.addr.dst_addr,
				  sizeof(struct sockaddr_in6));
			   __entry->event = ev->event;
			   __entry->status = ev->status;
			   __entry->rej_data = rds_rdma_trace_rej_data(id, ev);),
	    TP_printk("%pISpc -> %pISpc %s status=%d rej_data=%d",
		      __entry->srcaddr, __entry->dstaddr,
		      rds_rdma_show_cm_event(__entry->event),
		      __entry->status, __entry->rej_data));

/* We refused a peer's connection request, for @why. */
TRACE_EVENT(rds_rdma_cm_refuse,
	    TP_PROTO(const struct rdma_cm_id *id, enum rds_rdma_refusal why),
	    TP_ARGS(id, why),
	    TP_STRUCT__entry(__array(u8, srcaddr,
				     sizeof(struct sockaddr_in6))
			     __array(u8, dstaddr,
				     sizeof(struct sockaddr_in6))
			     __field(u8, why)),
	    TP_fast_assign(memcpy(__entry->srcaddr, &id->route.addr.src_addr,
				  sizeof(struct sockaddr_in6));
			   memcpy(__entry->dstaddr, &id->route.addr.dst_addr,
				  sizeof(struct sockaddr_in6));
			   __entry->why = why;),
	    TP_printk("%pISpc -> %pISpc why=%s", __entry->srcaddr,
		      __entry->dstaddr, rds_rdma_show_refusal(__entry->why)));

/* A region registered (REG_MR) for @nents pages, or not (@err). */
TRACE_EVENT(rds_rdma_mr_reg,
	    TP_PROTO(const struct ib_mr *mr, unsigned int nents, int err),
	    TP_ARGS(mr, nents, err),
	    TP_STRUCT__entry(__field(u32, rkey)
			     __field(u64, length)
			     __field(unsigned int, nents)
			     __field(int, err)),
	    TP_fast_assign(__entry->rkey = mr->rkey;
			   __entry->length = mr->length;
			   __entry->nents = nents;
			   __entry->err = err;),
	    TP_printk("rkey=0x%08x length=%llu nents=%u err=%d",
		      __entry->rkey, __entry->length, __entry->nents,
		      __entry->err));

/* A region invalidated (LOCAL_INV), or destroyed instead (@err). */
TRACE_EVENT(rds_rdma_mr_inv,
	    TP_PROTO(u32 rkey, int err),
	    TP_ARGS(rkey, err),
	    TP_STRUCT__entry(__field(u32, rkey)
			     __field(int, err)),
	    TP_fast_assign(__entry->rkey = rkey;
			   __entry->err = err;),
	    TP_printk("rkey=0x%08x err=%d", __entry->rkey, __entry->err));

/* The transmit path stops (stall) or may go on (resume), for @kind. */
DECLARE_EVENT_CLASS(rds_rdma_stall_class,
		    TP_PROTO(const struct rds_connection *conn,
			     enum rds_rdma_stall kind),
		    TP_ARGS(conn, kind),
		    TP_STRUCT__entry(__array(u8, laddr, sizeof(struct in6_addr))
				     __array(u8, faddr, sizeof(struct in6_addr))
				     __field(u8, trans)
				     __field(u8, tos)
				     __field(u8, kind)),
		    TP_fast_assign(RDS_RDMA_TP_CONN_ASSIGN(conn);
				   __entry->kind = kind;),
		    TP_printk("%pI6c -> %pI6c tos %u %s: kind=%s",
			      __entry->laddr, __entry->faddr, __entry->tos,
			      rds_rdma_show_trans(__entry->trans),
			      rds_rdma_show_stall(__entry->kind)));

DEFINE_EVENT(rds_rdma_stall_class, rds_rdma_tx_stall,
	     TP_PROTO(const struct rds_connection *conn,
		      enum rds_rdma_stall kind),
	     TP_ARGS(conn, kind));
DEFINE_EVENT(rds_rdma_stall_class, rds_rdma_tx_resume,
	     TP_PROTO(const struct rds_connection *conn,
		      enum rds_rdma_stall kind),
	     TP_ARGS(conn, kind));

/* Receive-side states, with the slots posted at the time. */
DECLARE_EVENT_CLASS(rds_rdma_rx_class,
		    TP_PROTO(const struct rds_connection *conn, u32 posted),
		    TP_ARGS(conn, posted),
		    TP_STRUCT__entry(__array(u8, laddr, sizeof(struct in6_addr))
				     __array(u8, faddr, sizeof(struct in6_addr))
				     __field(u8, trans)
				     __field(u8, tos)
				     __field(u32, posted)),
		    TP_fast_assign(RDS_RDMA_TP_CONN_ASSIGN(conn);
				   __entry->posted = posted;),
		    TP_printk("%pI6c -> %pI6c tos %u %s: posted=%u",
			      __entry->laddr, __entry->faddr, __entry->tos,
			      rds_rdma_show_trans(__entry->trans), __entry->posted));

#define DEFINE_RDS_RDMA_RX_EVENT(name)					\
	DEFINE_EVENT(rds_rdma_rx_class, name,				\
		     TP_PROTO(const struct rds_connection *conn, u32 posted), \
		     TP_ARGS(conn, posted))

/* No receive posted: the peer's next SEND meets an RNR NAK (IB) */
DEFINE_RDS_RDMA_RX_EVENT(rds_rdma_rx_rnr_enter);
/* Receives posted again after rds_rdma_rx_rnr_enter. */
DEFINE_RDS_RDMA_RX_EVENT(rds_rdma_rx_rnr_exit);

#endif /* _RDS_RDMA_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE rds_rdma_trace
#include <trace/define_trace.h>
