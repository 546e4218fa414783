// SPDX-License-Identifier: GPL-2.0
/*
 * Routes: a connection between two of ours carried over another pair of
 * ports when its own fails (Documentation/transports.rst, "High
 * availability").
 *
 * A connection's primary route is its own two addresses. Each side of a
 * connection between two of ours (our private data says so: a mark in
 * Linux's zero tail padding) sends the other, once the connection is up,
 * an advert: its addresses on its other RDMA devices of the same kind and
 * a random token. The advert is a header-only-sized frame with ports 0/0
 * and a flag Linux never sets, and it goes only to peers that said they
 * are ours: a Linux peer never sees one.
 *
 * When the route fails (its port goes down, a send or the queue pair
 * fails) the connection drops as before; the next attempt starts on an
 * alternate route: a local address on another device, up, in the subnet
 * of one of the peer's addresses. Its request names the connection by
 * its own addresses and shows the peer's token; the peer accepts it for
 * that connection (never a new one). The core's reconnect does the rest:
 * sequence numbers are the connection's, what the peer did not ack goes
 * again, flagged, and the peer drops what it had (seq < next). RDMA
 * operations in flight are reported dropped, as with any reconnect.
 * Nothing is set up before it is needed: no standby queue pair.
 *
 * While on an alternate route, both sides advert once a second whether
 * their primary port has been up for net.rds.ib.ha_failback_ms; once
 * both say so, the side with the lower address drops the connection and
 * both come back on the primary route.
 *
 * Lock order: i_cm_mutex, then i_rx_lock, then i_route.lock (a leaf).
 */
#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <crypto/algapi.h>
#include <net/addrconf.h>
#include <net/if_inet6.h>
#include <net/ipv6.h>

#include "rds_rdma.h"

/* Our mark in the private data's tail and what it offers. */
#define RDS_RDMA_OURS0		0x52
#define RDS_RDMA_OURS1		0x68
#define RDS_RDMA_CAP_ROUTES	0x01

/* An advert's h_flags: no Linux or UEK frame has it. */
#define RDS_RDMA_FLAG_ROUTE	0x80

#define RDS_RDMA_ADV_VERSION	1
#define RDS_RDMA_ADV_STABLE	0x01	/* primary port up long enough */

#define RDS_RDMA_ROUTE_PERIOD	msecs_to_jiffies(1000)
#define RDS_RDMA_ROUTE_HEARD	(3 * RDS_RDMA_ROUTE_PERIOD)

/* Local addresses looked at per pick or advert. */
#define RDS_RDMA_ROUTE_CANDS	32

/**
 * struct rds_rdma_route_advert - what an advert carries
 * @token: show it to open a route to the sender for this connection
 * @version: RDS_RDMA_ADV_VERSION; others are ignored
 * @flags: RDS_RDMA_ADV_*
 * @naddrs: addresses in @addrs
 * @pad: zero
 * @addrs: the sender's addresses on its other devices (v4-mapped)
 */
struct rds_rdma_route_advert {
	__be64		token;
	u8		version;
	u8		flags;
	u8		naddrs;
	u8		pad[5];
	struct in6_addr	addrs[RDS_RDMA_ROUTE_MAX];
} __packed;

static_assert(sizeof(struct rds_rdma_route_advert) == 144);

struct rds_rdma_route_frame {
	struct rds_header		hdr;
	struct rds_rdma_route_advert	adv;
} __packed;

static bool rds_rdma_routes_on(const struct rds_connection *conn)
{
	return READ_ONCE(rds_rdma_sysctl_ha_routes) && !conn->c_loopback;
}

static void rds_rdma_route_worker(struct work_struct *work);

void rds_rdma_route_conn_init(struct rds_rdma_conn *ic)
{
	struct rds_rdma_route *rt = &ic->i_route;

	spin_lock_init(&rt->lock);
	rt->token_mine = get_random_u64() | 1;
	INIT_DELAYED_WORK(&rt->w, rds_rdma_route_worker);
}

void rds_rdma_route_conn_free(struct rds_rdma_conn *ic)
{
	cancel_delayed_work_sync(&ic->i_route.w);
}

static void rds_rdma_adv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rds_rdma_conn *ic = cq->cq_context;

	clear_bit(RDS_RDMA_ADV_IN_FLIGHT, &ic->i_flags);
	rds_rdma_wc_failed(rds_conn_from_tdata(ic), wc, "route advert to");
}

/**
 * rds_rdma_route_qp_init - the advert's slot of a new queue pair
 * @ic: the connection; i_dev is set
 *
 * Context: process context.
 */
int rds_rdma_route_qp_init(struct rds_rdma_conn *ic)
{
	struct rds_rdma_route *rt = &ic->i_route;
	struct ib_device *ibdev = ic->i_dev->ibdev;

	rt->adv = kzalloc(sizeof(*rt->adv), GFP_KERNEL);
	if (!rt->adv)
		return -ENOMEM;
	rt->adv_dma = ib_dma_map_single(ibdev, rt->adv, sizeof(*rt->adv),
					DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ibdev, rt->adv_dma)) {
		kfree(rt->adv);
		rt->adv = NULL;
		return -ENOMEM;
	}
	rt->adv_cqe.done = rds_rdma_adv_done;
	rt->adv_sge.addr = rt->adv_dma;
	rt->adv_sge.length = sizeof(*rt->adv);
	rt->adv_sge.lkey = ic->i_dev->pd->local_dma_lkey;
	rt->adv_wr.wr_cqe = &rt->adv_cqe;
	rt->adv_wr.sg_list = &rt->adv_sge;
	rt->adv_wr.num_sge = 1;
	rt->adv_wr.opcode = IB_WR_SEND;
	rt->adv_wr.send_flags = IB_SEND_SIGNALED | IB_SEND_SOLICITED;
	return 0;
}

/* After the drain: nothing of it is posted any more. */
void rds_rdma_route_qp_free(struct rds_rdma_conn *ic)
{
	struct rds_rdma_route *rt = &ic->i_route;

	if (rt->adv) {
		ib_dma_unmap_single(ic->i_dev->ibdev, rt->adv_dma,
				    sizeof(*rt->adv), DMA_TO_DEVICE);
		kfree(rt->adv);
		rt->adv = NULL;
	}
	clear_bit(RDS_RDMA_ADV_IN_FLIGHT, &ic->i_flags);
}

/**
 * rds_rdma_route_fill_cdata - our part of the private data
 * @conn: the connection; i_cm_mutex held
 * @c: its common block, zeroed, the rest filled
 * @request: a request (not a reply)
 *
 * A request on an alternate route carries the mark and the peer's token
 * where Linux has its (unused) credits and padding; anything else says
 * we are ours and offer routes, in the padding.
 */
void rds_rdma_route_fill_cdata(struct rds_connection *conn,
			       struct rds_rdma_cdata_common *c, bool request)
{
	struct rds_rdma_route *rt = &rds_rdma_conn(conn)->i_route;
	u64 token;

	if (!rds_rdma_routes_on(conn))
		return;
	if (request && rt->alt) {
		spin_lock_bh(&rt->lock);
		token = rt->token_peer;
		spin_unlock_bh(&rt->lock);
		c->route = RDS_RDMA_ROUTE_MARK;
		put_unaligned_be64(token, &c->token);
		return;
	}
	c->ours[0] = RDS_RDMA_OURS0;
	c->ours[1] = RDS_RDMA_OURS1;
	c->caps = RDS_RDMA_CAP_ROUTES;
}

/**
 * rds_rdma_route_peer_cdata - what the peer's private data says of it
 * @conn: the connection; i_cm_mutex held
 * @c: the peer's common block
 *
 * A peer that offers no routes (Linux, or ours with them off) gets no
 * adverts, and what it adverted before is forgotten.
 */
void rds_rdma_route_peer_cdata(struct rds_connection *conn,
			       const struct rds_rdma_cdata_common *c)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);
	struct rds_rdma_route *rt = &ic->i_route;
	bool ha;

	ha = rds_rdma_routes_on(conn) &&
	     (c->route == RDS_RDMA_ROUTE_MARK ||
	      (c->ours[0] == RDS_RDMA_OURS0 && c->ours[1] == RDS_RDMA_OURS1 &&
	       (c->caps & RDS_RDMA_CAP_ROUTES)));
	if (ha) {
		WRITE_ONCE(rt->peer_ha, true);
		return;
	}
	/* Receives may be posted (the requester's are, before the reply)
	 * and remember keys while peer_ha is on: under their lock.
	 */
	if (rt->peer_ha) {
		spin_lock_bh(&ic->i_rx_lock);
		WRITE_ONCE(rt->peer_ha, false);
		rds_rdma_keys_forget(ic);
		spin_unlock_bh(&ic->i_rx_lock);
	}
	spin_lock_bh(&rt->lock);
	rt->token_peer = 0;
	rt->naddrs = 0;
	rt->hint = false;
	spin_unlock_bh(&rt->lock);
}

/* An address the connection's family may use for a route. */
static bool rds_rdma_route_addr_ok(const struct rds_connection *conn,
				   const struct in6_addr *a)
{
	if (ipv6_addr_v4mapped(a)) {
		__be32 v4 = a->s6_addr32[3];

		return !conn->c_isv6 && !ipv4_is_zeronet(v4) &&
		       !ipv4_is_loopback(v4) && !ipv4_is_multicast(v4) &&
		       !ipv4_is_lbcast(v4);
	}
	return conn->c_isv6 && !ipv6_addr_any(a) && !ipv6_addr_loopback(a) &&
	       !(ipv6_addr_type(a) & (IPV6_ADDR_MULTICAST | IPV6_ADDR_LINKLOCAL));
}

/**
 * struct rds_rdma_route_cand - a local address a route may leave from
 * @addr: the address
 * @ifindex: its interface
 * @up: the interface is running with a carrier
 * @match: the peer address of the same subnet, if one was asked for
 */
struct rds_rdma_route_cand {
	struct in6_addr	addr;
	int		ifindex;
	bool		up;
	int		match;
};

/* Is @name in net.rds.ib.ha_exclude (@list, a copy)? */
static bool rds_rdma_route_excluded(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, " ,\t\n");

		if (len == n && !strncmp(p, name, n))
			return true;
		p += len;
		p += strspn(p, " ,\t\n");
	}
	return false;
}

/* A copy of net.rds.ib.ha_exclude, whole (a writer may be at work). */
static void rds_rdma_route_exclude_copy(char *list)
{
	spin_lock_bh(&rds_rdma_ha_exclude_lock);
	memcpy(list, rds_rdma_sysctl_ha_exclude, RDS_RDMA_HA_EXCLUDE_LEN);
	spin_unlock_bh(&rds_rdma_ha_exclude_lock);
	list[RDS_RDMA_HA_EXCLUDE_LEN - 1] = 0;
}

/* Does an interface in net.rds.ib.ha_exclude hold local address @addr
 * (any of them: a VRF's slave, a tentative IPv6 address included)?
 */
static bool rds_rdma_route_addr_excluded(const struct in6_addr *addr)
{
	char exclude[RDS_RDMA_HA_EXCLUDE_LEN];
	struct net_device *ndev;
	bool excluded = false;

	rds_rdma_route_exclude_copy(exclude);
	if (!exclude[0])
		return false;
	rcu_read_lock();
	for_each_netdev_rcu(&init_net, ndev) {
		if (rds_rdma_route_excluded(exclude, ndev->name) &&
		    rds_rdma_addr_held(addr, ndev)) {
			excluded = true;
			break;
		}
	}
	rcu_read_unlock();
	return excluded;
}

/*
 * Local addresses of @conn's family, up to @max, in @c (link-local
 * IPv6 ones never: a route needs no scope); with @peers (@npeers of
 * them), only those in the subnet of one (its index in @match); with
 * @only, only that one. Under RCU: nothing here sleeps.
 */
static int rds_rdma_route_local(const struct rds_connection *conn,
				struct rds_rdma_route_cand *c, int max,
				const struct in6_addr *peers, int npeers,
				const struct in6_addr *only)
{
	char exclude[RDS_RDMA_HA_EXCLUDE_LEN];
	struct net_device *ndev;
	int n = 0, i;

	rds_rdma_route_exclude_copy(exclude);
	rcu_read_lock();
	for_each_netdev_rcu(&init_net, ndev) {
		bool up = netif_running(ndev) && netif_carrier_ok(ndev);

		if (ndev->flags & IFF_LOOPBACK)
			continue;
		/* Excluded: no route over it (the primary is never one). */
		if (!only && rds_rdma_route_excluded(exclude, ndev->name))
			continue;
		if (!conn->c_isv6) {
			struct in_device *in_dev = __in_dev_get_rcu(ndev);
			const struct in_ifaddr *ifa;

			if (!in_dev)
				continue;
			in_dev_for_each_ifa_rcu(ifa, in_dev) {
				if (n == max)
					break;
				ipv6_addr_set_v4mapped(ifa->ifa_local,
						       &c[n].addr);
				if (only && !ipv6_addr_equal(only, &c[n].addr))
					continue;
				c[n].match = -1;
				for (i = 0; i < npeers; i++)
					if (inet_ifa_match(peers[i].s6_addr32[3],
							   ifa))
						c[n].match = i;
				if (npeers && c[n].match < 0)
					continue;
				c[n].ifindex = ndev->ifindex;
				c[n].up = up;
				n++;
			}
		} else {
			struct inet6_dev *idev = __in6_dev_get(ndev);
			struct inet6_ifaddr *ifa;

			if (!idev)
				continue;
			read_lock_bh(&idev->lock);
			list_for_each_entry(ifa, &idev->addr_list, if_list) {
				if (n == max)
					break;
				if ((ifa->flags & (IFA_F_TENTATIVE |
						   IFA_F_DADFAILED)) ||
				    (ipv6_addr_type(&ifa->addr) &
				     IPV6_ADDR_LINKLOCAL) ||
				    (only && !ipv6_addr_equal(only, &ifa->addr)))
					continue;
				c[n].addr = ifa->addr;
				c[n].match = -1;
				for (i = 0; i < npeers; i++)
					if (ipv6_prefix_equal(&peers[i],
							      &ifa->addr,
							      ifa->prefix_len))
						c[n].match = i;
				if (npeers && c[n].match < 0)
					continue;
				c[n].ifindex = ndev->ifindex;
				c[n].up = up;
				n++;
			}
			read_unlock_bh(&idev->lock);
		}
	}
	rcu_read_unlock();
	return n;
}

/* The interface of @conn's own address, and whether it is up (0: none). */
static int rds_rdma_route_primary(const struct rds_connection *conn, bool *up)
{
	struct rds_rdma_route_cand c;

	*up = false;
	if (!rds_rdma_route_local(conn, &c, 1, NULL, 0, &conn->c_laddr))
		return 0;
	*up = c.up;
	return c.ifindex;
}

/* Is @a one of the peer's adverted addresses? Under the route lock. */
static bool rds_rdma_route_peer_has(const struct rds_rdma_route *rt,
				    const struct in6_addr *a)
{
	int i;

	for (i = 0; i < rt->naddrs; i++)
		if (ipv6_addr_equal(&rt->addrs[i], a))
			return true;
	return false;
}

/**
 * rds_rdma_route_pick - the route the next attempt takes
 * @conn: the connection
 * @laddr: set to our address of it (the connection's own by default)
 * @faddr: set to the peer's
 *
 * An alternate route when the peer adverted some and the primary is down,
 * failed last time, or the peer moved us: the peer's own choice first,
 * then the first of its addresses that shares a subnet with one of ours
 * on another interface that is up and has a device of this flavor.
 *
 * Context: the core's connect worker, may sleep.
 * Return: true for an alternate route.
 */
bool rds_rdma_route_pick(struct rds_connection *conn, struct in6_addr *laddr,
			 struct in6_addr *faddr)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);
	struct rds_rdma_route *rt = &ic->i_route;
	struct in6_addr peers[RDS_RDMA_ROUTE_MAX], hl, hf;
	unsigned int type = rds_rdma_flavor_of(conn)->node_type;
	struct rds_rdma_route_cand *c;
	int npeers = 0, n, i, primary;
	bool up, hint, found = false;
	u64 token;

	*laddr = conn->c_laddr;
	*faddr = conn->c_faddr;
	if (!rds_rdma_routes_on(conn))
		return false;
	spin_lock_bh(&rt->lock);
	token = rt->token_peer;
	for (i = 0; i < rt->naddrs; i++) {
		/* Every guest of a bed, or a cluster, may share some. */
		if (!rds_addr_is_local(&init_net, &rt->addrs[i], 0))
			peers[npeers++] = rt->addrs[i];
	}
	hint = rt->hint;
	hl = rt->hint_laddr;
	hf = rt->hint_faddr;
	rt->hint = false;
	spin_unlock_bh(&rt->lock);
	if (!token || !npeers)
		return false;

	primary = rds_rdma_route_primary(conn, &up);
	if (up && !hint && !rt->prefer_alt)
		return false;

	c = kmalloc_array(RDS_RDMA_ROUTE_CANDS, sizeof(*c), GFP_KERNEL);
	if (!c)
		return false;
	n = rds_rdma_route_local(conn, c, RDS_RDMA_ROUTE_CANDS, peers, npeers,
				 NULL);
	/* The peer's choice, if it is still one of ours that is up. */
	for (i = 0; hint && i < n; i++) {
		if (c[i].up && ipv6_addr_equal(&c[i].addr, &hl) &&
		    ipv6_addr_equal(&peers[c[i].match], &hf) &&
		    !rds_rdma_laddr_check(&init_net, &hl, 0, type)) {
			*laddr = hl;
			*faddr = hf;
			found = true;
			break;
		}
	}
	for (i = 0; !found && i < n; i++) {
		if (!c[i].up || c[i].ifindex == primary ||
		    rds_rdma_laddr_check(&init_net, &c[i].addr, 0, type))
			continue;
		*laddr = c[i].addr;
		*faddr = peers[c[i].match];
		found = true;
	}
	kfree(c);
	if (found)
		rds_rdma_stat_inc(RDS_RDMA_STAT_ROUTE_CONNECT);
	return found;
}

/**
 * rds_rdma_route_request - the connection a route request is for
 * @fl: the flavor of the device it came to
 * @c: its private data's common block (with RDS_RDMA_ROUTE_MARK)
 * @laddr: the connection's local address, from the private data
 * @faddr: the connection's peer address, likewise
 * @cm_laddr: where it came to
 * @cm_faddr: where it came from
 *
 * Only an existing connection, to a peer that adverted @cm_faddr and
 * shows the token we gave it: a route never makes a connection. Nor one
 * to an interface excluded since we adverted it.
 *
 * Context: a CM handler.
 * Return: the connection with a reference, or NULL to refuse.
 */
struct rds_connection *
rds_rdma_route_request(const struct rds_rdma_flavor *fl,
		       const struct rds_rdma_cdata_common *c,
		       const struct in6_addr *laddr,
		       const struct in6_addr *faddr,
		       const struct in6_addr *cm_laddr,
		       const struct in6_addr *cm_faddr)
{
	struct rds_connection *conn;
	struct rds_rdma_route *rt;
	__be64 mine;
	bool ok;

	if (!READ_ONCE(rds_rdma_sysctl_ha_routes) ||
	    !rds_addr_is_local(&init_net, laddr, 0) ||
	    rds_addr_is_local(&init_net, faddr, 0))
		goto refuse;
	conn = rds_conn_find(&init_net, laddr, faddr, &fl->trans, c->tos, 0);
	if (!conn)
		goto refuse;
	rt = &rds_rdma_conn(conn)->i_route;
	spin_lock_bh(&rt->lock);
	mine = cpu_to_be64(rt->token_mine);
	ok = !crypto_memneq(&mine, &c->token, sizeof(mine)) &&
	     rds_rdma_route_peer_has(rt, cm_faddr);
	spin_unlock_bh(&rt->lock);
	/* The walk over interfaces only for a request that showed the token. */
	if (ok && rds_rdma_route_addr_ok(conn, cm_faddr) &&
	    (ipv6_addr_equal(cm_laddr, laddr) ||
	     !rds_rdma_route_addr_excluded(cm_laddr)))
		return conn;
	rds_conn_put(conn);
refuse:
	rds_rdma_stat_inc(RDS_RDMA_STAT_ROUTE_REFUSED);
	return NULL;
}

/**
 * rds_rdma_route_wins - does the peer's request beat our own attempt?
 * @conn: the connection, CONNECTING with a request of ours out
 * @route_req: the peer's request is on an alternate route
 *
 * Both ends apply the same order, so exactly one request wins: one on an
 * alternate route (the other end found the primary broken) beats one on
 * the primary; between equals, the lower address's (Linux's rule).
 */
bool rds_rdma_route_wins(struct rds_connection *conn, bool route_req)
{
	if (route_req != rds_rdma_conn(conn)->i_route.alt)
		return route_req;
	return rds_conn_peer_is_lower(conn);
}

/**
 * rds_rdma_route_accepted - we accepted a request for @conn
 * @conn: the connection; i_cm_mutex held
 * @cm_laddr: the request's local address
 * @cm_faddr: its peer address
 */
void rds_rdma_route_accepted(struct rds_connection *conn,
			     const struct in6_addr *cm_laddr,
			     const struct in6_addr *cm_faddr)
{
	struct rds_rdma_route *rt = &rds_rdma_conn(conn)->i_route;
	bool alt = !ipv6_addr_equal(cm_laddr, &conn->c_laddr) ||
		   !ipv6_addr_equal(cm_faddr, &conn->c_faddr);

	WRITE_ONCE(rt->alt, alt);
	rt->laddr = *cm_laddr;
	rt->faddr = *cm_faddr;
	WRITE_ONCE(rt->faddr_id, rds_rdma_keys_route_id(cm_faddr));
	rt->was_up = false;
	if (alt)
		rds_rdma_stat_inc(RDS_RDMA_STAT_ROUTE_ACCEPTED);
}

/**
 * rds_rdma_route_stale - a route request found @conn up
 * @conn: the connection, being dropped
 * @cm_laddr: the request's local address
 * @cm_faddr: its peer address
 *
 * The peer found our route broken before we did: our own next attempt
 * goes where its request came.
 */
void rds_rdma_route_stale(struct rds_connection *conn,
			  const struct in6_addr *cm_laddr,
			  const struct in6_addr *cm_faddr)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);
	struct rds_rdma_route *rt = &ic->i_route;

	set_bit(RDS_RDMA_ROUTE_FAILED, &ic->i_flags);
	spin_lock_bh(&rt->lock);
	rt->hint = true;
	rt->hint_laddr = *cm_laddr;
	rt->hint_faddr = *cm_faddr;
	spin_unlock_bh(&rt->lock);
}

/*
 * Our addresses on other devices of @conn's flavor, for its adverts.
 * Binding CM ids to them finds their devices: never from a CM handler
 * (their handler mutexes are one lock class to lockdep).
 */
static void rds_rdma_route_mine(struct rds_connection *conn,
				struct rds_rdma_route *rt)
{
	unsigned int type = rds_rdma_flavor_of(conn)->node_type;
	struct rds_rdma_route_cand *c;
	int n, i;

	rt->my_naddrs = 0;
	c = kmalloc_array(RDS_RDMA_ROUTE_CANDS, sizeof(*c), GFP_KERNEL);
	if (!c)
		return;
	n = rds_rdma_route_local(conn, c, RDS_RDMA_ROUTE_CANDS, NULL, 0, NULL);
	for (i = 0; i < n && rt->my_naddrs < RDS_RDMA_ROUTE_MAX; i++) {
		if (ipv6_addr_equal(&c[i].addr, &conn->c_laddr) ||
		    !rds_rdma_route_addr_ok(conn, &c[i].addr) ||
		    rds_rdma_laddr_check(&init_net, &c[i].addr, 0, type))
			continue;
		rt->my_addrs[rt->my_naddrs++] = c[i].addr;
	}
	kfree(c);
}

/* Post an advert unless one is in flight. */
static void rds_rdma_route_post(struct rds_connection *conn, u8 flags)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);
	struct rds_rdma_route *rt = &ic->i_route;
	struct rds_rdma_route_advert *adv;
	struct rds_header *hdr;
	u64 ack;

	spin_lock_bh(&ic->i_rx_lock);
	if (test_bit(RDS_RDMA_RX_DYING, &ic->i_flags) || !ic->i_qp ||
	    !rt->adv || test_and_set_bit(RDS_RDMA_ADV_IN_FLIGHT, &ic->i_flags))
		goto out;
	hdr = &rt->adv->hdr;
	memset(hdr, 0, sizeof(*hdr));
	ack = rds_rdma_ack_seq(conn);
	hdr->h_ack = cpu_to_be64(ack);
	hdr->h_flags = RDS_RDMA_FLAG_ROUTE;
	hdr->h_len = cpu_to_be32(sizeof(*adv));
	rds_hdr_csum_set(hdr);
	adv = &rt->adv->adv;
	memset(adv, 0, sizeof(*adv));
	adv->token = cpu_to_be64(rt->token_mine);
	adv->version = RDS_RDMA_ADV_VERSION;
	adv->flags = flags;
	adv->naddrs = rt->my_naddrs;
	memcpy(adv->addrs, rt->my_addrs, sizeof(adv->addrs));
	ib_dma_sync_single_for_device(ic->i_dev->ibdev, rt->adv_dma,
				      sizeof(*rt->adv), DMA_TO_DEVICE);
	if (ib_post_send(ic->i_qp, &rt->adv_wr, NULL)) {
		clear_bit(RDS_RDMA_ADV_IN_FLIGHT, &ic->i_flags);
		goto out;
	}
	WRITE_ONCE(ic->i_ack_sent, ack);
	rds_rdma_stat_inc(RDS_RDMA_STAT_ROUTE_ADVERT_SENT);
out:
	spin_unlock_bh(&ic->i_rx_lock);
}

/**
 * rds_rdma_route_established - @conn came up: advert, watch the route
 * @conn: the connection; i_cm_mutex held
 *
 * Context: a CM handler, or i_est_w (rds_rdma_cm.c).
 */
void rds_rdma_route_established(struct rds_connection *conn)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);
	struct rds_rdma_route *rt = &ic->i_route;

	rt->was_up = true;
	rt->up_since = 0;
	rt->mine_known = false;
	if (rt->alt)
		rds_rdma_stat_inc(RDS_RDMA_STAT_ROUTE_FAILOVER);
	/* The worker adverts (it may bind CM ids; a handler may not). */
	if (READ_ONCE(rt->peer_ha) && rds_rdma_routes_on(conn))
		queue_delayed_work(rds_rdma_wq, &rt->w, 0);
}

/**
 * rds_rdma_route_recv - take an advert
 * @conn: the connection
 * @ic: its transport state; i_rx_lock held
 * @hdr: the frame's header (checksum good)
 * @page: where its body landed
 * @dma: that page's mapping
 * @data_len: the body's length
 *
 * With routes off, the frame is left to the usual checks (and refused
 * there): a peer sends none unless our private data offered routes.
 *
 * Context: the receive completion.
 * Return: true if the frame was an advert (taken or refused).
 */
bool rds_rdma_route_recv(struct rds_connection *conn, struct rds_rdma_conn *ic,
			 const struct rds_header *hdr, struct page *page,
			 u64 dma, u32 data_len)
{
	struct rds_rdma_route *rt = &ic->i_route;
	struct rds_rdma_route_advert adv;
	bool restarted;
	u64 token;
	int i;

	lockdep_assert_held(&ic->i_rx_lock);
	/* Not peer_ha: the peer's first advert may overtake our handling of
	 * its reply. No Linux frame has the flag.
	 */
	if (!(hdr->h_flags & RDS_RDMA_FLAG_ROUTE) || hdr->h_sport ||
	    hdr->h_dport || !rds_rdma_routes_on(conn))
		return false;
	if (data_len != sizeof(adv) || be32_to_cpu(hdr->h_len) != sizeof(adv) ||
	    hdr->h_sequence) {
		rds_rdma_stat_inc(RDS_RDMA_STAT_RX_BAD_FRAGMENT);
		rds_conn_drop_reason(conn, RDS_DROP_PROTOCOL);
		return true;
	}
	ib_dma_sync_single_for_cpu(ic->i_dev->ibdev, dma, sizeof(adv),
				   DMA_FROM_DEVICE);
	memcpy(&adv, page_address(page), sizeof(adv));
	rds_rdma_stat_inc(RDS_RDMA_STAT_ROUTE_ADVERT_RECEIVED);
	/* A later version of ours: nothing we know how to use. */
	if (adv.version != RDS_RDMA_ADV_VERSION)
		return true;
	token = be64_to_cpu(adv.token);
	spin_lock_bh(&rt->lock);
	/* A token is one connection object's: another is a peer that
	 * restarted since its last advert.
	 */
	restarted = rt->token_peer && rt->token_peer != token;
	rt->token_peer = token;
	rt->naddrs = 0;
	for (i = 0; i < min_t(int, adv.naddrs, RDS_RDMA_ROUTE_MAX); i++)
		if (rds_rdma_route_addr_ok(conn, &adv.addrs[i]))
			rt->addrs[rt->naddrs++] = adv.addrs[i];
	rt->peer_stable = adv.flags & RDS_RDMA_ADV_STABLE;
	rt->peer_heard = jiffies;
	spin_unlock_bh(&rt->lock);
	if (restarted)
		rds_rdma_keys_forget(ic);
	return true;
}

/**
 * rds_rdma_route_failed - the current route of @conn failed
 * @conn: the connection
 *
 * Context: any.
 */
void rds_rdma_route_failed(struct rds_connection *conn)
{
	set_bit(RDS_RDMA_ROUTE_FAILED, &rds_rdma_conn(conn)->i_flags);
}

/**
 * rds_rdma_route_shutdown - the current attempt or connection ends
 * @conn: the connection
 *
 * Decides where the next attempt starts: elsewhere if this route failed
 * or never came up (nor was refused), on the same one if the peer
 * refused it (a race), else on the primary route.
 *
 * Context: the transport's shutdown, before the queue pair goes.
 */
void rds_rdma_route_shutdown(struct rds_connection *conn)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);
	struct rds_rdma_route *rt = &ic->i_route;
	bool failed;

	cancel_delayed_work_sync(&rt->w);
	mutex_lock(&ic->i_cm_mutex);
	/* A refusal is an answer: the route works (the peer raced us). */
	failed = test_and_clear_bit(RDS_RDMA_ROUTE_FAILED, &ic->i_flags) ||
		 (!rt->was_up && !rt->answered);
	if (READ_ONCE(rt->failback))
		rt->prefer_alt = false;
	else if (failed)
		rt->prefer_alt = !rt->alt;
	else
		rt->prefer_alt = !rt->was_up && rt->alt;
	WRITE_ONCE(rt->failback, false);
	rt->was_up = false;
	rt->answered = false;
	mutex_unlock(&ic->i_cm_mutex);
}

/*
 * On an alternate route, once a second: tell the peer whether our
 * primary port has been up long enough, and go back when both say so
 * (the lower address moves; the other follows its disconnect).
 */
static void rds_rdma_route_worker(struct work_struct *work)
{
	struct rds_rdma_route *rt = container_of(to_delayed_work(work),
						 struct rds_rdma_route, w);
	struct rds_rdma_conn *ic = container_of(rt, struct rds_rdma_conn,
						i_route);
	struct rds_connection *conn = rds_conn_from_tdata(ic);
	unsigned long hold;
	bool up, stable, peer;

	if (rds_conn_state(conn) != RDS_CONN_UP)
		return;
	if (!rt->mine_known) {
		rds_rdma_route_mine(conn, rt);
		rt->mine_known = true;
		/* On the primary route, the one advert is all. */
		if (!READ_ONCE(rt->alt)) {
			rds_rdma_route_post(conn, 0);
			return;
		}
	}
	if (!READ_ONCE(rt->alt))
		return;
	rds_rdma_route_primary(conn, &up);
	if (!up)
		rt->up_since = 0;
	else if (!rt->up_since)
		rt->up_since = jiffies ?: 1;
	hold = msecs_to_jiffies(READ_ONCE(rds_rdma_sysctl_ha_failback_ms));
	stable = up && time_after_eq(jiffies, rt->up_since + hold);
	rds_rdma_route_post(conn, stable ? RDS_RDMA_ADV_STABLE : 0);

	spin_lock_bh(&rt->lock);
	peer = rt->peer_stable &&
	       time_before(jiffies, rt->peer_heard + RDS_RDMA_ROUTE_HEARD);
	spin_unlock_bh(&rt->lock);
	if (stable && peer && !rds_conn_peer_is_lower(conn)) {
		WRITE_ONCE(rt->failback, true);
		rds_rdma_stat_inc(RDS_RDMA_STAT_ROUTE_FAILBACK);
		rds_conn_drop_reason(conn, RDS_DROP_FAILBACK);
		rds_conn_want_connect(conn);
		return;
	}
	queue_delayed_work(rds_rdma_wq, &rt->w, RDS_RDMA_ROUTE_PERIOD);
}

struct rds_rdma_route_port {
	struct ib_device	*ibdev;
	unsigned long		ports;
};

static void rds_rdma_route_port_down(struct rds_connection *conn, void *arg)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);
	struct rds_rdma_dev *dev = READ_ONCE(ic->i_dev);
	struct rds_rdma_route_port *p = arg;
	enum rds_conn_state state = rds_conn_state(conn);
	u32 port = READ_ONCE(ic->i_cm_port);

	if (!dev || dev->ibdev != p->ibdev || !port || port > BITS_PER_LONG ||
	    !(p->ports & BIT(port - 1)))
		return;
	if ((state != RDS_CONN_UP && state != RDS_CONN_CONNECTING) ||
	    !READ_ONCE(ic->i_route.peer_ha) || !rds_rdma_routes_on(conn))
		return;
	rds_rdma_stat_inc(RDS_RDMA_STAT_ROUTE_PORT_ERROR);
	set_bit(RDS_RDMA_ROUTE_FAILED, &ic->i_flags);
	rds_conn_drop_reason(conn, RDS_DROP_FAILOVER);
	rds_conn_want_connect(conn);
}

/**
 * rds_rdma_route_port_worker - connections of ports that went down move
 * @work: a device's port_w
 *
 * Only those with a peer that has routes: the others keep waiting for
 * their queue pair to fail, as Linux's do.
 *
 * Context: process context.
 */
void rds_rdma_route_port_worker(struct work_struct *work)
{
	struct rds_rdma_dev *dev = container_of(work, struct rds_rdma_dev,
						port_w);
	struct rds_rdma_route_port p = {
		.ibdev = dev->ibdev,
		.ports = xchg(&dev->port_err, 0),
	};

	if (p.ports)
		rds_rdma_walk_conns(rds_rdma_route_port_down, &p);
}

/**
 * rds_rdma_route_dev_event - a device's asynchronous events
 * @h: the device's handler
 * @ev: the event
 *
 * Context: any (the driver's); the work does the rest.
 */
void rds_rdma_route_dev_event(struct ib_event_handler *h, struct ib_event *ev)
{
	struct rds_rdma_dev *dev = container_of(h, struct rds_rdma_dev, ev);
	u32 port = ev->element.port_num;

	if (ev->event != IB_EVENT_PORT_ERR || !port || port > BITS_PER_LONG)
		return;
	set_bit(port - 1, &dev->port_err);
	queue_work(rds_rdma_wq, &dev->port_w);
}
