// SPDX-License-Identifier: GPL-2.0
/*
 * Stress: many socket pairs (IPv4 and IPv6 loopback) each carrying a
 * stream of messages of random sizes from 0 to 1 MiB.  Every message
 * carries its pair, sequence number, length and the SHA-256 of its body;
 * the receiver checks all of them, the order, and the source address.
 *
 *	RDS_STRESS_PAIRS	pairs (default 32)
 *	RDS_STRESS_MSGS		messages per pair (default 300)
 *	RDS_STRESS_MAX		largest message (default 1 MiB)
 *	RDS_STRESS_SEED		size/content seed (default 1)
 *
 * The defaults take ~15 s on the 2-vCPU TCG guest with in-tree RDS.
 * Senders keep their sockets open until every receiver is done: closing
 * a socket drops what it has not transmitted yet (as upstream does).  Sizes are
 * skewed: 80% up to 2 KiB, 18% up to 64 KiB, 2% up to the maximum (and
 * the maximum itself and 0 always occur).
 */
#include <signal.h>

#include "../lib/rds_test.h"
#include "../lib/rds_util.h"
#include "../lib/sha256.h"

#define MAGIC	0x52445378u	/* "RDSx" */

struct hdr {
	uint32_t magic;
	uint32_t pair;
	uint64_t seq;
	uint32_t len;
	uint32_t pad;
	uint8_t sha[32];
};

static unsigned long env(const char *name, unsigned long def)
{
	const char *v = getenv(name);

	return v && *v ? strtoul(v, NULL, 0) : def;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static size_t msg_size(unsigned int pair, uint64_t seq, size_t max,
		       uint64_t seed)
{
	uint64_t r = mix(seed * 0x9e3779b97f4a7c15ULL ^ (uint64_t)pair << 40 ^
			 seq);
	unsigned int b = r % 100;

	if (seq == 3)
		return max;
	if (seq == 5)
		return 0;
	r = mix(r);
	if (b < 80)
		return r % (max < 2048 ? max + 1 : 2049);
	if (b < 98)
		return r % (max < 65536 ? max + 1 : 65537);
	return r % (max + 1);
}

/* Deterministic content for (pair, seq). */
static void gen(uint8_t *p, size_t len, unsigned int pair, uint64_t seq)
{
	uint64_t x = mix((uint64_t)pair << 32 ^ seq ^ 0x1234567) | 1;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(p + i, &x, 8);
	}
	for (; i < len; i++)
		p[i] = (uint8_t)(x >> (8 * (i & 7)));
}

static void build(uint8_t *buf, size_t len, unsigned int pair, uint64_t seq)
{
	struct hdr h;

	gen(buf, len, pair, seq);
	if (len < sizeof(h))
		return;
	memset(&h, 0, sizeof(h));
	h.magic = MAGIC;
	h.pair = pair;
	h.seq = seq;
	h.len = len;
	sha256(buf + sizeof(h), len - sizeof(h), h.sha);
	memcpy(buf, &h, sizeof(h));
}

static void check(const uint8_t *buf, size_t got, size_t want,
		  unsigned int pair, uint64_t seq, uint8_t *scratch)
{
	struct hdr h;
	uint8_t sha[32];

	if (got != want)
		RDS_FAIL("pair %u seq %llu: %zu bytes, expected %zu", pair,
			 (unsigned long long)seq, got, want);
	if (got < sizeof(h)) {
		gen(scratch, got, pair, seq);
		if (memcmp(scratch, buf, got))
			RDS_FAIL("pair %u seq %llu: short message corrupt",
				 pair, (unsigned long long)seq);
		return;
	}
	memcpy(&h, buf, sizeof(h));
	if (h.magic != MAGIC || h.pair != pair || h.len != got)
		RDS_FAIL("pair %u seq %llu: bad header (magic %#x pair %u "
			 "len %u)", pair, (unsigned long long)seq, h.magic,
			 h.pair, h.len);
	if (h.seq != seq)
		RDS_FAIL("pair %u: got seq %llu, expected %llu (order)", pair,
			 (unsigned long long)h.seq, (unsigned long long)seq);
	sha256(buf + sizeof(h), got - sizeof(h), sha);
	if (memcmp(sha, h.sha, 32))
		RDS_FAIL("pair %u seq %llu: SHA-256 mismatch", pair,
			 (unsigned long long)seq);
}

RDS_TEST(many_pairs_random_sizes_sha256)
{
	unsigned int pairs = env("RDS_STRESS_PAIRS", 32);
	unsigned long msgs = env("RDS_STRESS_MSGS", 300);
	size_t max = env("RDS_STRESS_MAX", RDS_MAX_MSG);
	uint64_t seed = env("RDS_STRESS_SEED", 1);
	pid_t *pids = calloc(2 * pairs, sizeof(pid_t));
	unsigned int p, failed = 0, done = 0;
	long long t0 = rds_now_ms();
	uint64_t total = 0;
	int hold[2];

	RDS_EXPECT_OK(pipe(hold));
	if (max > RDS_MAX_MSG)
		max = RDS_MAX_MSG;
	printf("# %u pairs x %lu messages, sizes 0..%zu\n", pairs, msgs, max);
	for (p = 0; p < pairs; p++) {
		const char *ip = p % 2 ? "::1" : "127.0.0.1";
		struct rds_addr ra, sa;
		int r = rds_bound(ip, 0, &ra);
		int s = rds_bound(ip, 0, &sa);

		rds_set_int(r, SOL_SOCKET, SO_RCVBUFFORCE, 4 << 20);
		rds_set_int(s, SOL_SOCKET, SO_SNDBUFFORCE, 2 << 20);
		pids[2 * p] = fork();
		if (pids[2 * p] == 0) {		/* receiver */
			uint8_t *buf = malloc(max + 1);
			uint8_t *scratch = malloc(64);
			struct rds_addr from;
			uint64_t seq;

			for (seq = 0; seq < msgs; seq++) {
				ssize_t got = rds_recv(r, buf, max + 1, 0,
						       &from, NULL, 60000);

				check(buf, got, msg_size(p, seq, max, seed), p,
				      seq, scratch);
				if (!rds_addr_eq(&from, &sa))
					RDS_FAIL("pair %u: source %s", p,
						 rds_addr_str(&from));
			}
			RDS_EXPECT(!rds_wait_readable(r, 100));
			_exit(0);
		}
		pids[2 * p + 1] = fork();
		if (pids[2 * p + 1] == 0) {	/* sender */
			uint8_t *buf = malloc(max + 1);
			uint64_t seq;

			for (seq = 0; seq < msgs; seq++) {
				size_t len = msg_size(p, seq, max, seed);

				build(buf, len, p, seq);
				rds_send(s, &ra, buf, len, 0);
			}
			close(hold[1]);
			/* Keep the socket until the receivers are done. */
			while (read(hold[0], buf, 1) > 0)
				;
			_exit(0);
		}
		close(r);
		close(s);
	}
	for (p = 0; p < pairs; p++) {
		uint64_t seq;

		for (seq = 0; seq < msgs; seq++)
			total += msg_size(p, seq, max, seed);
	}
	close(hold[0]);
	while (done < 2 * pairs) {
		int st;
		pid_t w;
		unsigned int i;

		/* Receivers first; then release the senders. */
		if (done < pairs) {
			w = waitpid(pids[2 * done], &st, 0);
			if (done == pairs - 1)
				close(hold[1]);
		} else {
			w = waitpid(pids[2 * (done - pairs) + 1], &st, 0);
		}
		if (w < 0)
			break;
		done++;
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
			continue;
		failed++;
		for (i = 0; i < 2 * pairs; i++)
			if (pids[i] == w)
				printf("# pair %u %s failed (status %#x)\n",
				       i / 2, i % 2 ? "sender" : "receiver",
				       st);
	}
	printf("# %llu bytes in %lld ms\n", (unsigned long long)total,
	       rds_now_ms() - t0);
	if (failed)
		RDS_FAIL("%u of %u processes failed", failed, 2 * pairs);
}

/* Many senders into one receiver: per-sender order holds. */
RDS_TEST(fan_in_order_per_sender)
{
	unsigned int senders = env("RDS_STRESS_PAIRS", 32);
	unsigned long msgs = env("RDS_STRESS_MSGS", 300);
	struct rds_addr ra, from;
	int r = rds_bound("127.0.0.1", 0, &ra);
	/* The next number expected from each sender, by address and port. */
	uint64_t *next = calloc(2 * 65536, sizeof(uint64_t));
	unsigned int i;
	unsigned long n;
	char buf[64];
	int hold[2];

	RDS_EXPECT_OK(pipe(hold));
	rds_set_int(r, SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20);
	for (i = 0; i < senders; i++) {
		if (fork() == 0) {
			int s = rds_bound(i % 2 ? "127.0.0.2" : "127.0.0.1",
					  0, NULL);

			for (n = 0; n < msgs; n++) {
				snprintf(buf, sizeof(buf), "%lu", n);
				rds_send(s, &ra, buf, strlen(buf) + 1, 0);
			}
			close(hold[1]);
			while (read(hold[0], buf, 1) > 0)
				;
			_exit(0);
		}
	}
	for (n = 0; n < senders * msgs; n++) {
		unsigned int key;

		RDS_EXPECT(rds_recv(r, buf, sizeof(buf), 0, &from, NULL,
				    30000) > 0);
		/* Ports are unique per address: key by both (a port with
		 * its top bit flipped once stood for 127.0.0.2, and two
		 * senders' ports could meet there).
		 */
		key = rds_addr_port(&from) +
		      (from.in.sin_addr.s_addr == inet_addr("127.0.0.2") ?
		       65536 : 0);
		if (strtoull(buf, NULL, 10) != next[key])
			RDS_FAIL("sender %s: got %s, expected %llu",
				 rds_addr_str(&from), buf,
				 (unsigned long long)next[key]);
		next[key]++;
	}
	close(hold[1]);
	while (wait(NULL) > 0)
		;
}

RDS_TEST_MAIN()
