// SPDX-License-Identifier: GPL-2.0
/*
 * rds-cm-spoof: a local user who opens an RDMA CM connection between two
 * of the host's own addresses and offers RDS's connection data, posing as
 * an RDS/IB (or iWARP) peer at LOCAL. rds_rdma must refuse it: only its
 * own connections may meet themselves between local addresses.
 *
 *   rds-cm-spoof LOCAL TARGET [PORT]
 *
 * Prints what the target answered and exits 0 when it refused the
 * request, 1 when it took it, 2 when the attempt failed before asking
 * (no route, no device).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/rdma_cma.h>

/* RDS's IPv4 connection data (rds_rdma.h's struct rds_rdma_cdata4). */
struct cdata4 {
	uint32_t saddr;
	uint32_t daddr;
	uint8_t major;
	uint8_t minor;
	uint16_t minor_mask;
	uint8_t tos;
	uint8_t reserved1;
	uint16_t frag_sz;
	uint64_t ack_seq;
	uint32_t credit;
	uint8_t pad[4];
} __attribute__((packed));

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr qpa = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_all = 1,
	};
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP };
	struct sockaddr_in src = { .sin_family = AF_INET };
	struct rdma_addrinfo *ai;
	struct rdma_conn_param p = {
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
	};
	struct rdma_cm_id *id;
	struct cdata4 cd;
	int r;

	if (argc < 3 || inet_pton(AF_INET, argv[1], &src.sin_addr) != 1) {
		fprintf(stderr, "usage: rds-cm-spoof LOCAL TARGET [PORT]\n");
		return 2;
	}
	hints.ai_src_addr = (struct sockaddr *)&src;
	hints.ai_src_len = sizeof(src);
	r = rdma_getaddrinfo(argv[2], argc > 3 ? argv[3] : "18634", &hints,
			     &ai);
	if (r) {
		fprintf(stderr, "rdma_getaddrinfo: %s\n", strerror(errno));
		return 2;
	}
	if (rdma_create_ep(&id, ai, NULL, &qpa)) {
		fprintf(stderr, "rdma_create_ep: %s\n", strerror(errno));
		return 2;
	}
	memset(&cd, 0, sizeof(cd));
	cd.saddr = src.sin_addr.s_addr;
	cd.daddr = ((struct sockaddr_in *)ai->ai_dst_addr)->sin_addr.s_addr;
	cd.major = 3;
	cd.minor = 1;
	cd.minor_mask = htons(0x3);
	p.private_data = &cd;
	p.private_data_len = sizeof(cd);
	r = rdma_connect(id, &p);
	if (r) {
		printf("refused: %s\n", strerror(errno));
		rdma_destroy_ep(id);
		return 0;
	}
	printf("established: RDS took %s as a peer\n", argv[1]);
	rdma_disconnect(id);
	rdma_destroy_ep(id);
	return 1;
}
