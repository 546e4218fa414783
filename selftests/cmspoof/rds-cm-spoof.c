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
 *
 *   rds-cm-spoof -T FIRST-LAST [-H SECONDS] LOCAL TARGET [PORT]
 *
 * The TOS fan-out (issue 25, item 6): a peer at LOCAL (any address the
 * target does not own) asks for one connection per TOS value from FIRST
 * to LAST, all from LOCAL, keeps those the target took for SECONDS
 * (default 10, or until SIGTERM/SIGINT), then disconnects them. Prints
 * "tos FIRST-LAST: N established, M refused" once all were asked and
 * exits 0 (2 if one failed before asking).
 *
 *   rds-cm-spoof -R CONN_LOCAL,CONN_PEER[,TOKEN] [-O TOS] LOCAL TARGET [PORT]
 *
 * A forged route request (Documentation/transports.rst, "High
 * availability"): from LOCAL to TARGET, claiming to move the connection
 * CONN_LOCAL -> CONN_PEER (as the peer at CONN_LOCAL names it) with TOS
 * (default 0) to this route, showing TOKEN (default: random). The target
 * must refuse it unless TOKEN is the one it adverted. Exits as above.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
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

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Ask TARGET for one RDS connection from @src with @tos: 1 taken (*@id
 * holds it), 0 refused, -1 failed before asking.
 */
static int ask(struct sockaddr_in *src, const char *target, const char *port,
	       uint8_t tos, struct rdma_cm_id **id)
{
	struct ibv_qp_init_attr qpa = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_all = 1,
	};
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP };
	struct rdma_conn_param p = {
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
	};
	struct rdma_addrinfo *ai;
	struct cdata4 cd;

	hints.ai_src_addr = (struct sockaddr *)src;
	hints.ai_src_len = sizeof(*src);
	if (rdma_getaddrinfo(target, port, &hints, &ai)) {
		fprintf(stderr, "rdma_getaddrinfo: %s\n", strerror(errno));
		return -1;
	}
	if (rdma_create_ep(id, ai, NULL, &qpa)) {
		fprintf(stderr, "rdma_create_ep: %s\n", strerror(errno));
		rdma_freeaddrinfo(ai);
		return -1;
	}
	memset(&cd, 0, sizeof(cd));
	cd.saddr = src->sin_addr.s_addr;
	cd.daddr = ((struct sockaddr_in *)ai->ai_dst_addr)->sin_addr.s_addr;
	cd.major = 3;
	cd.minor = 1;
	cd.minor_mask = htons(0x3);
	cd.tos = tos;
	rdma_freeaddrinfo(ai);
	p.private_data = &cd;
	p.private_data_len = sizeof(cd);
	if (rdma_connect(*id, &p)) {
		rdma_destroy_ep(*id);
		*id = NULL;
		return 0;
	}
	return 1;
}

static int fan_out(int first, int last, int hold, struct sockaddr_in *src,
		   const char *target, const char *port)
{
	static struct rdma_cm_id *ids[256];
	int t, r, up = 0, refused = 0;

	for (t = first; t <= last; t++) {
		r = ask(src, target, port, (uint8_t)t, &ids[t]);
		if (r < 0)
			return 2;
		if (r)
			up++;
		else
			refused++;
	}
	printf("tos %d-%d: %d established, %d refused\n", first, last, up,
	       refused);
	fflush(stdout);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	while (hold-- > 0 && !stop)
		sleep(1);
	for (t = first; t <= last; t++) {
		if (!ids[t])
			continue;
		rdma_disconnect(ids[t]);
		rdma_destroy_ep(ids[t]);
	}
	return 0;
}

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
	int r, first = -1, last = -1, hold = 10, c, route = 0, tos = 0;
	char claim_l[64] = "", claim_p[64] = "";
	unsigned long long token = 0;
	struct in_addr cl, cp;

	while ((c = getopt(argc, argv, "T:H:R:O:")) != -1) {
		switch (c) {
		case 'R':
			r = sscanf(optarg, "%63[^,],%63[^,],%llx", claim_l,
				   claim_p, &token);
			if (r < 2 || inet_pton(AF_INET, claim_l, &cl) != 1 ||
			    inet_pton(AF_INET, claim_p, &cp) != 1)
				first = -2;
			if (r < 3 && getrandom(&token, sizeof(token), 0) !=
				     sizeof(token))
				first = -2;
			route = 1;
			break;
		case 'O':
			tos = atoi(optarg);
			break;
		case 'T':
			if (sscanf(optarg, "%d-%d", &first, &last) != 2 ||
			    first < 0 || last > 255 || first > last)
				first = -2;
			break;
		case 'H':
			hold = atoi(optarg);
			break;
		default:
			first = -2;
		}
	}
	argc -= optind - 1;
	argv += optind - 1;
	if (first == -2 || argc < 3 ||
	    inet_pton(AF_INET, argv[1], &src.sin_addr) != 1) {
		fprintf(stderr, "usage: rds-cm-spoof [-T FIRST-LAST [-H SECONDS]] "
			"[-R CONN_LOCAL,CONN_PEER[,TOKEN] [-O TOS]] "
			"LOCAL TARGET [PORT]\n");
		return 2;
	}
	if (first >= 0)
		return fan_out(first, last, hold, &src, argv[2],
			       argc > 3 ? argv[3] : "18634");
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
	if (route) {
		/* The connection's own addresses, the mark, the token. */
		cd.saddr = cl.s_addr;
		cd.daddr = cp.s_addr;
		cd.tos = (uint8_t)tos;
		cd.reserved1 = 0xa5;
		memcpy(&cd.credit, &token, sizeof(token));
		printf("route request for %s -> %s tos %d, token %016llx\n",
		       claim_l, claim_p, tos, token);
	}
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
