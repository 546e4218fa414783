// SPDX-License-Identifier: GPL-2.0
/*
 * A registration queue pair per device: memory for peers' RDMA is
 * registered (REG_MR) and invalidated (LOCAL_INV) by work requests, which
 * need a queue pair in RTS, and RDS_GET_MR may come before any connection
 * exists (Linux 6.1 answers EOPNOTSUPP there). So each device gets an RC
 * queue pair connected to a sink on the same device through the RDMA CM:
 * a private listener on the registering socket's address and an
 * ephemeral port, which accepts one request, from that address only.
 * Nothing ever travels on it; iWARP devices, which accept posts only on
 * a connected queue pair, get theirs the same way.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/slab.h>
#include <net/ipv6.h>

#include "rds_rdma.h"

#define RDS_RDMA_REGQP_WRS	256
#define RDS_RDMA_REGQP_WAIT	(10 * HZ)

/**
 * struct rds_rdma_regqp - a device's registration queue pair
 * @dev: the device
 * @laddr: the address it was connected on
 * @listen: the private listener, until the sink is accepted
 * @active: the id whose queue pair we post to
 * @passive: the sink's id
 * @cq: completions of @active's queue pair
 * @sink_cq: completions of the sink (never any)
 * @ready: completed when @active is established or failed
 * @status: 0 once established, else why not
 * @broken: it failed after being established: make a new one
 */
struct rds_rdma_regqp {
	struct rds_rdma_dev	*dev;
	struct in6_addr		laddr;
	struct rdma_cm_id	*listen;
	struct rdma_cm_id	*active;
	struct rdma_cm_id	*passive;
	struct ib_cq		*cq;
	struct ib_cq		*sink_cq;
	struct completion	ready;
	int			status;
	bool			broken;
};

static void rds_rdma_regqp_event(struct ib_event *ev, void *ctx)
{
	struct rds_rdma_regqp *rq = ctx;

	WRITE_ONCE(rq->broken, true);
}

static int rds_rdma_regqp_create_qp(struct rds_rdma_regqp *rq,
				    struct rdma_cm_id *id, struct ib_cq **cq,
				    int send_wr)
{
	struct ib_qp_init_attr attr = {};
	int ret;

	*cq = ib_alloc_cq_any(id->device, rq, send_wr + 3, IB_POLL_SOFTIRQ);
	if (IS_ERR(*cq)) {
		ret = PTR_ERR(*cq);
		*cq = NULL;
		return ret;
	}
	attr.event_handler = rds_rdma_regqp_event;
	attr.qp_context = rq;
	attr.send_cq = *cq;
	attr.recv_cq = *cq;
	attr.cap.max_send_wr = send_wr + 1;	/* + ib_drain_qp()'s */
	attr.cap.max_recv_wr = 1;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.qp_type = IB_QPT_RC;
	return rdma_create_qp(id, rq->dev->pd, &attr);
}

/* The sink side: accept the one request that comes from ourselves. */
static int rds_rdma_regqp_accept(struct rds_rdma_regqp *rq,
				 struct rdma_cm_id *id)
{
	struct rdma_conn_param param = { .rnr_retry_count = 7 };
	struct sockaddr *sa = (struct sockaddr *)&id->route.addr.dst_addr;
	bool self;
	int ret;

	if (sa->sa_family == AF_INET)
		self = ipv6_addr_v4mapped(&rq->laddr) &&
		       ((struct sockaddr_in *)sa)->sin_addr.s_addr ==
		       rq->laddr.s6_addr32[3];
	else
		self = ipv6_addr_equal(&((struct sockaddr_in6 *)sa)->sin6_addr,
				       &rq->laddr);
	if (!self || rq->passive || id->device != rq->dev->ibdev) {
		rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
		return 1;
	}
	ret = rds_rdma_regqp_create_qp(rq, id, &rq->sink_cq, 1);
	if (!ret)
		ret = rdma_accept(id, &param);
	if (ret) {
		if (id->qp)
			rdma_destroy_qp(id);
		if (rq->sink_cq)
			ib_free_cq(rq->sink_cq);
		rq->sink_cq = NULL;
		return 1;
	}
	rq->passive = id;
	return 0;
}

static void rds_rdma_regqp_done(struct rds_rdma_regqp *rq, int status)
{
	if (!completion_done(&rq->ready)) {
		rq->status = status;
		complete(&rq->ready);
	} else if (status) {
		WRITE_ONCE(rq->broken, true);
	}
}

static int rds_rdma_regqp_handler(struct rdma_cm_id *id,
				  struct rdma_cm_event *ev)
{
	struct rds_rdma_regqp *rq = id->context;
	struct rdma_conn_param param = {
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
	int ret = 0;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return rds_rdma_regqp_accept(rq, id);
	if (id != rq->active) {
		/* The listener or the sink: only failures matter. */
		if (ev->event == RDMA_CM_EVENT_DISCONNECTED ||
		    ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
			WRITE_ONCE(rq->broken, true);
		return 0;
	}
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		ret = rdma_resolve_route(id, RDS_RDMA_RESOLVE_MS);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		ret = rds_rdma_regqp_create_qp(rq, id, &rq->cq,
					       RDS_RDMA_REGQP_WRS);
		if (!ret)
			ret = rdma_connect_locked(id, &param);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		rds_rdma_regqp_done(rq, 0);
		break;
	default:
		ret = -ECONNREFUSED;
		break;
	}
	if (ret)
		rds_rdma_regqp_done(rq, ret);
	return 0;
}

static void rds_rdma_sockaddr_of(struct sockaddr_storage *ss,
				 const struct in6_addr *addr, __be16 port)
{
	memset(ss, 0, sizeof(*ss));
	if (ipv6_addr_v4mapped(addr)) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = addr->s6_addr32[3];
		sin->sin_port = port;
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = *addr;
		sin6->sin6_port = port;
	}
}

static __be16 rds_rdma_bound_port(struct rdma_cm_id *id)
{
	struct sockaddr *sa = (struct sockaddr *)&id->route.addr.src_addr;

	if (sa->sa_family == AF_INET)
		return ((struct sockaddr_in *)sa)->sin_port;
	return ((struct sockaddr_in6 *)sa)->sin6_port;
}

static void rds_rdma_regqp_destroy_id(struct rdma_cm_id *id, struct ib_cq *cq)
{
	if (!id)
		return;
	if (id->qp) {
		rdma_disconnect(id);
		ib_drain_qp(id->qp);
		rdma_destroy_qp(id);
	}
	rdma_destroy_id(id);
	if (cq)
		ib_free_cq(cq);
}

/**
 * rds_rdma_regqp_free - tear a registration queue pair down
 * @rq: it, or NULL
 *
 * Context: process context; nothing is posted to it any more.
 */
void rds_rdma_regqp_free(struct rds_rdma_regqp *rq)
{
	if (!rq)
		return;
	if (rq->listen)
		rdma_destroy_id(rq->listen);
	rds_rdma_regqp_destroy_id(rq->active, rq->cq);
	rds_rdma_regqp_destroy_id(rq->passive, rq->sink_cq);
	kfree(rq);
}

/**
 * rds_rdma_regqp_create - connect a registration queue pair on @dev
 * @dev: the device
 * @net: namespace of @laddr
 * @laddr: an address of @dev (the registering socket's)
 *
 * Context: process context, may sleep (up to the CM's timeouts).
 * Return: the queue pair or an ERR_PTR.
 */
struct rds_rdma_regqp *rds_rdma_regqp_create(struct rds_rdma_dev *dev,
					     struct net *net,
					     const struct in6_addr *laddr)
{
	struct sockaddr_storage src, dst;
	struct rds_rdma_regqp *rq;
	int ret;

	rq = kzalloc(sizeof(*rq), GFP_KERNEL);
	if (!rq)
		return ERR_PTR(-ENOMEM);
	rq->dev = dev;
	rq->laddr = *laddr;
	init_completion(&rq->ready);

	rq->listen = rdma_create_id(net, rds_rdma_regqp_handler, rq,
				    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(rq->listen)) {
		ret = PTR_ERR(rq->listen);
		rq->listen = NULL;
		goto err;
	}
	rds_rdma_sockaddr_of(&src, laddr, 0);
	ret = rdma_bind_addr(rq->listen, (struct sockaddr *)&src);
	if (!ret && rq->listen->device != dev->ibdev)
		ret = -ENODEV;
	if (!ret)
		ret = rdma_listen(rq->listen, 1);
	if (ret)
		goto err;

	rq->active = rdma_create_id(net, rds_rdma_regqp_handler, rq,
				    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(rq->active)) {
		ret = PTR_ERR(rq->active);
		rq->active = NULL;
		goto err;
	}
	rds_rdma_sockaddr_of(&dst, laddr, rds_rdma_bound_port(rq->listen));
	ret = rdma_resolve_addr(rq->active, (struct sockaddr *)&src,
				(struct sockaddr *)&dst, RDS_RDMA_RESOLVE_MS);
	if (ret)
		goto err;
	if (!wait_for_completion_timeout(&rq->ready, RDS_RDMA_REGQP_WAIT))
		ret = -ETIMEDOUT;
	else
		ret = rq->status;
	if (ret)
		goto err;
	/* The one request it takes has come. */
	rdma_destroy_id(rq->listen);
	rq->listen = NULL;
	return rq;

err:
	rds_rdma_regqp_free(rq);
	return ERR_PTR(ret);
}

/**
 * rds_rdma_regqp_post - post one registration request
 * @rq: the queue pair
 * @wr: a signaled REG_MR or LOCAL_INV; its completion handler tells the
 *	poster
 *
 * Context: any.
 * Return: 0 when posted, or -errno.
 */
int rds_rdma_regqp_post(struct rds_rdma_regqp *rq, struct ib_send_wr *wr)
{
	if (READ_ONCE(rq->broken))
		return -EIO;
	return ib_post_send(rq->active->qp, wr, NULL);
}

/* Has it failed since it was made? */
bool rds_rdma_regqp_broken(struct rds_rdma_regqp *rq)
{
	return READ_ONCE(rq->broken);
}

/* It failed a request: the next user makes a new one. */
void rds_rdma_regqp_set_broken(struct rds_rdma_regqp *rq)
{
	WRITE_ONCE(rq->broken, true);
}
