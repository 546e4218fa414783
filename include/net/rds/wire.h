/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RDS protocol 3.1 on the wire: the header every message and fragment
 * carries, shared by all transports so nodes running Linux's in-tree RDS
 * and ours understand each other.
 */
#ifndef _NET_RDS_WIRE_H
#define _NET_RDS_WIRE_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/types.h>

#define RDS_PROTOCOL_MAJOR	3
#define RDS_PROTOCOL_MINOR	1
#define RDS_PROTOCOL_VERSION	((RDS_PROTOCOL_MAJOR << 8) | RDS_PROTOCOL_MINOR)

/* RDMA transports cut messages into fragments of this size. */
#define RDS_FRAG_SHIFT		12
#define RDS_FRAG_SIZE		BIT(RDS_FRAG_SHIFT)

/* Largest payload (and largest RDMA) one sendmsg() may carry. */
#define RDS_MAX_MSG_SIZE	BIT(20)

/* h_flags */
#define RDS_FLAG_CONG_BITMAP	0x01	/* payload is a congestion map */
#define RDS_FLAG_ACK_REQUIRED	0x02	/* peer should ack soon */
#define RDS_FLAG_RETRANSMITTED	0x04	/* sent before, may be a duplicate */

/* The multipath probe pair uses this source port with dport 0. */
#define RDS_FLAG_PROBE_PORT	1

#define RDS_HEADER_EXT_SPACE	16

/**
 * struct rds_header - the 48-byte RDS header, all fields big endian
 * @h_sequence: sender's per-connection sequence number of this message
 * @h_ack: highest sequence the sender has received from us (piggy-back)
 * @h_len: payload length in bytes
 * @h_sport: source RDS port
 * @h_dport: destination RDS port (0: ping, answered with a pong)
 * @h_flags: RDS_FLAG_*
 * @h_credit: flow-control credits granted (RDMA transports)
 * @h_padding: reserved, zero
 * @h_csum: header checksum (RDMA transports)
 * @h_exthdr: extension headers: type byte then the type's fixed body
 */
struct rds_header {
	__be64	h_sequence;
	__be64	h_ack;
	__be32	h_len;
	__be16	h_sport;
	__be16	h_dport;
	u8	h_flags;
	u8	h_credit;
	u8	h_padding[4];
	__sum16	h_csum;
	u8	h_exthdr[RDS_HEADER_EXT_SPACE];
};

static_assert(sizeof(struct rds_header) == 48);

/* Extension header types. */
#define RDS_EXTHDR_NONE		0
#define RDS_EXTHDR_VERSION	1
#define RDS_EXTHDR_RDMA		2
#define RDS_EXTHDR_RDMA_DEST	3
#define RDS_EXTHDR_RDMA_BYTES	4	/* Linux 6.19+, UEK */
#define RDS_EXTHDR_NPATHS	5
#define RDS_EXTHDR_GEN_NUM	6
#define RDS_EXTHDR_CAP_BITS	7	/* UEK */
#define RDS_EXTHDR_SPORT_IDX	8	/* Linux 6.19+, UEK */
#define RDS_EXTHDR_CSUM		9	/* UEK */
/* Ours, not Linux's: lanes with ids (net/lanes.c). Linux 6.1 stops parsing
 * silently at a type of 16 or more, so it goes last in a header.
 */
#define RDS_EXTHDR_LANES	0xd1

struct rds_ext_header_version {
	__be32	h_version;
};

static_assert(sizeof(struct rds_ext_header_version) == 4);

struct rds_ext_header_rdma {
	__be32	h_rdma_rkey;
};

static_assert(sizeof(struct rds_ext_header_rdma) == 4);

struct rds_ext_header_rdma_dest {
	__be32	h_rdma_rkey;
	__be32	h_rdma_offset;
};

static_assert(sizeof(struct rds_ext_header_rdma_dest) == 8);

struct rds_ext_header_npaths {
	__be16	h_npaths;
};

static_assert(sizeof(struct rds_ext_header_npaths) == 2);

struct rds_ext_header_gen_num {
	__be32	h_gen_num;
};

static_assert(sizeof(struct rds_ext_header_gen_num) == 4);

/**
 * struct rds_ext_header_rdma_bytes - bytes an RDMA operation moved
 * @h_rdma_bytes: the count
 * @h_rflags: RDS_FLAG_RDMA_WR_BYTES or RDS_FLAG_RDMA_RD_BYTES
 * @h_pad: zero
 *
 * Sent by newer Linux and UEK with the message that follows an RDMA
 * operation, before the RDMA cookie; we only step over it.
 */
struct rds_ext_header_rdma_bytes {
	__be32	h_rdma_bytes;
	u8	h_rflags;
	u8	h_pad[3];
};

static_assert(sizeof(struct rds_ext_header_rdma_bytes) == 8);

/* UEK's capability bits (heartbeats); stepped over. */
struct rds_ext_header_cap_bits {
	__be32	h_cap_bits;
};

static_assert(sizeof(struct rds_ext_header_cap_bits) == 4);

/**
 * struct rds_ext_header_sport_idx - "I name my lanes by source port"
 * @h_zero: zero
 *
 * In a multipath probe or pong (Linux 6.19+ and UEK): the sender binds
 * lane k's TCP socket to a source port that is k modulo the lane count,
 * and accepts lanes the same way.
 */
struct rds_ext_header_sport_idx {
	u8	h_zero;
};

static_assert(sizeof(struct rds_ext_header_sport_idx) == 1);

/* UEK's RDMA payload checksum (a be32 and a flag, padded); stepped over. */
struct rds_ext_header_csum {
	__be32	h_csum;
	u8	h_enabled;
	u8	h_pad[3];
};

static_assert(sizeof(struct rds_ext_header_csum) == 8);

/**
 * struct rds_ext_header_lanes - lanes offered to a peer that has lane ids
 * @h_lanes: how many lanes the sender opens to a peer sending this too
 *	(1..RDS_MPATH_WORKERS); NPATHS beside it is the count for a peer
 *	without lane ids
 * @h_flags: zero when sent, ignored when received (room for later)
 *
 * Its presence says: my connecting side names each lane when it opens it
 * (TCP: the lane is the low bits of the source port), so accept each
 * lane by its id, not first-free.
 */
struct rds_ext_header_lanes {
	u8	h_lanes;
	u8	h_flags;
};

static_assert(sizeof(struct rds_ext_header_lanes) == 2);

/* Congestion maps: one bit per port, 8 KiB per address, LE bit order. */
#define RDS_CONG_MAP_BYTES	(65536 / 8)

/* RDS over TCP listens here (IANA "rds-tcp"); Linux's IPv6 RDMA CM
 * listener uses the same number.
 */
#define RDS_TCP_PORT		16385

/* Most lanes (parallel transport connections) one peer pair may use. */
#define RDS_MPATH_WORKERS	8

struct rds_message;

int rds_hdr_check(const struct rds_header *hdr);
void rds_hdr_csum_set(struct rds_header *hdr);
bool rds_hdr_csum_ok(const struct rds_header *hdr);

#endif /* _NET_RDS_WIRE_H */
