// SPDX-License-Identifier: GPL-2.0
/*
 * The RDS header on the wire, for every remote transport: extension
 * headers, the checks a received header must pass before anything trusts
 * it, and the header checksum of the RDMA transports.
 *
 * Extension headers fill h_exthdr as [type][fixed-size body]..., ended by
 * type 0 or the end of the area. Linux 6.1 sends at most one per message
 * but parses several, so we may send several; newer Linux and UEK send
 * several (RDMA_BYTES before the RDMA cookie): every type whose length is
 * known is stepped over, so none hides the ones after it.
 */
#include <linux/bitops.h>
#include <linux/string.h>
#include <net/ip.h>
#include <net/rds/wire.h>

#include "rds_core.h"

/**
 * rds_exthdr_size - body length of an extension header type
 * @type: RDS_EXTHDR_*
 *
 * Return: the length, or 0 for RDS_EXTHDR_NONE and unknown types (whose
 * length nobody can know, so parsing stops there).
 */
unsigned int rds_exthdr_size(u8 type)
{
	switch (type) {
	case RDS_EXTHDR_VERSION:
		return sizeof(struct rds_ext_header_version);
	case RDS_EXTHDR_RDMA:
		return sizeof(struct rds_ext_header_rdma);
	case RDS_EXTHDR_RDMA_DEST:
		return sizeof(struct rds_ext_header_rdma_dest);
	case RDS_EXTHDR_RDMA_BYTES:
		return sizeof(struct rds_ext_header_rdma_bytes);
	case RDS_EXTHDR_NPATHS:
		return sizeof(struct rds_ext_header_npaths);
	case RDS_EXTHDR_GEN_NUM:
		return sizeof(struct rds_ext_header_gen_num);
	case RDS_EXTHDR_CAP_BITS:
		return sizeof(struct rds_ext_header_cap_bits);
	case RDS_EXTHDR_SPORT_IDX:
		return sizeof(struct rds_ext_header_sport_idx);
	case RDS_EXTHDR_CSUM:
		return sizeof(struct rds_ext_header_csum);
	case RDS_EXTHDR_LANES:
		return sizeof(struct rds_ext_header_lanes);
	default:
		return 0;
	}
}

/* Offset of the first free byte of @hdr's extension area, or of the
 * first entry we cannot parse (nothing may be appended after that).
 */
static unsigned int rds_hdr_ext_end(const struct rds_header *hdr,
				    bool *parsable)
{
	unsigned int pos = 0, len;
	u8 type;

	*parsable = true;
	while (pos < RDS_HEADER_EXT_SPACE) {
		type = hdr->h_exthdr[pos];
		if (type == RDS_EXTHDR_NONE)
			break;
		len = rds_exthdr_size(type);
		if (!len || pos + 1 + len > RDS_HEADER_EXT_SPACE) {
			*parsable = false;
			break;
		}
		pos += 1 + len;
	}
	return pos;
}

/**
 * rds_hdr_add_ext - append an extension header
 * @hdr: a header being built (its extension area starts zeroed)
 * @type: RDS_EXTHDR_*
 * @data: the body, rds_exthdr_size(@type) bytes
 * @len: must equal rds_exthdr_size(@type)
 *
 * Return: 0, -EINVAL for a bad @len, -ENOSPC when it does not fit.
 */
int rds_hdr_add_ext(struct rds_header *hdr, u8 type, const void *data,
		    unsigned int len)
{
	bool parsable;
	unsigned int pos = rds_hdr_ext_end(hdr, &parsable);

	if (!len || len != rds_exthdr_size(type))
		return -EINVAL;
	if (!parsable || pos + 1 + len > RDS_HEADER_EXT_SPACE)
		return -ENOSPC;
	hdr->h_exthdr[pos] = type;
	memcpy(&hdr->h_exthdr[pos + 1], data, len);
	return 0;
}

/**
 * rds_hdr_find_ext - the body of the first extension header of a type
 * @hdr: a received header (any bytes: nothing is trusted)
 * @type: RDS_EXTHDR_*
 * @body: receives rds_exthdr_size(@type) bytes
 *
 * Return: true if found.
 */
bool rds_hdr_find_ext(const struct rds_header *hdr, u8 type, void *body)
{
	unsigned int pos = 0, len;
	u8 t;

	while (pos < RDS_HEADER_EXT_SPACE) {
		t = hdr->h_exthdr[pos];
		len = rds_exthdr_size(t);
		if (t == RDS_EXTHDR_NONE || !len ||
		    pos + 1 + len > RDS_HEADER_EXT_SPACE)
			return false;
		if (t == type) {
			memcpy(body, &hdr->h_exthdr[pos + 1], len);
			return true;
		}
		pos += 1 + len;
	}
	return false;
}

/**
 * rds_hdr_check - may a header received from a peer be used?
 * @hdr: the header
 *
 * A transport calls this before it allocates anything for the payload.
 * A congestion map is exactly what Linux sends: flags 0x01 alone, ports
 * 0/0, RDS_CONG_MAP_BYTES of payload. Unknown flags and extension headers
 * are tolerated (Oracle's UEK sends some).
 *
 * Return: 0, or -EMSGSIZE / -EPROTO: the peer is broken or hostile and
 * the connection should be dropped.
 */
int rds_hdr_check(const struct rds_header *hdr)
{
	u32 len = be32_to_cpu(hdr->h_len);

	if (len > RDS_MAX_MSG_SIZE)
		return -EMSGSIZE;
	if (hdr->h_flags & RDS_FLAG_CONG_BITMAP) {
		if (hdr->h_flags != RDS_FLAG_CONG_BITMAP ||
		    len != RDS_CONG_MAP_BYTES || hdr->h_sport || hdr->h_dport)
			return -EPROTO;
	}
	return 0;
}
EXPORT_SYMBOL_GPL(rds_hdr_check);

/**
 * rds_hdr_csum_set - checksum a header (RDMA transports)
 * @hdr: the header, complete
 *
 * The sum covers the 48 header bytes with h_csum zero.
 */
void rds_hdr_csum_set(struct rds_header *hdr)
{
	hdr->h_csum = 0;
	hdr->h_csum = ip_fast_csum(hdr, sizeof(*hdr) / 4);
}
EXPORT_SYMBOL_GPL(rds_hdr_csum_set);

/**
 * rds_hdr_csum_ok - does a received header's checksum hold?
 * @hdr: the header
 *
 * Summed with its checksum in place, a header that holds folds to zero:
 * no copy with the field cleared is needed.
 *
 * Return: true if it holds or the sender sent none (0), as Linux accepts.
 */
bool rds_hdr_csum_ok(const struct rds_header *hdr)
{
	return !hdr->h_csum || !ip_fast_csum(hdr, sizeof(*hdr) / 4);
}
EXPORT_SYMBOL_GPL(rds_hdr_csum_ok);
