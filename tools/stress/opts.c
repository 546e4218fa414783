// SPDX-License-Identifier: GPL-2.0
/* rds-stress command line. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/rds.h>

#include "lib/sock.h"
#include "lib/util.h"
#include "stress/opts.h"

enum {
	OPT_RDMA_ONCE = 1000, OPT_RDMA_GET_MR, OPT_RDMA_FENCE, OPT_RDMA_NOTIFY,
	OPT_RDMA_CACHE, OPT_CONG_MON, OPT_HIST, OPT_PERF, OPT_JSON, OPT_TRANSPORT,
};

static void usage(void)
{
	printf(
"Usage: passive side: %s [-r ADDRESS] [-p PORT]\n"
"       active side:  %s -s ADDRESS [-r ADDRESS] [-p PORT] [options]\n"
"Exchange request/ack messages between tasks over RDS sockets and report\n"
"rates each second.  The active side sends its options to the passive side\n"
"over a TCP connection to -s ADDRESS:PORT; each task binds an RDS socket to\n"
"PORT+1+task on its own address.\n\n"
"  -r ADDRESS   local address to bind (default: the control connection's)\n"
"  -s ADDRESS   passive side to connect to (makes this the active side)\n"
"  -p PORT      control port; RDS ports follow it (default 4000)\n"
"  -t TASKS     tasks (processes) per side (default 1)\n"
"  -d DEPTH     outstanding requests per task (default 1)\n"
"  -q BYTES     request size (default 1024, at least %u)\n"
"  -a BYTES     ack size (default %u, at least %u)\n"
"  -T SECONDS   run time (default 0: until interrupted)\n"
"  -o           one way: only the active side sends requests\n"
"  -Q TOS       type of service (0-255)\n"
"  -v           verify every payload byte, and that each peer's requests\n"
"               and acks arrive once and in order\n"
"  -z           print only the summary\n"
"  -c           measure CPU use (system-wide, %% of all CPUs)\n"
"  -D BYTES     RDMA this many bytes per request\n"
"  -I IOVECS    local iovecs per RDMA (default 1)\n"
"  -M MODE      RDMA mode: 0 read and write, 1 read, 2 write (default 0)\n"
"  --rdma-use-once     registrations valid for one RDMA only\n"
"  --rdma-use-get-mr   register with RDS_GET_MR (default: RDS_CMSG_RDMA_MAP)\n"
"  --rdma-use-fence    fence each RDMA after the previous ones\n"
"  --rdma-use-notify   ask for RDS_CMSG_RDMA_STATUS completions\n"
"  --rdma-cache-mrs    register each buffer once and reuse it\n"
"  --use-cong-monitor  use RDS_CONG_MONITOR congestion notifications\n"
"  --transport tcp|ib|iwarp  pin the sockets to one transport\n"
"  --show-histogram    print a round-trip time histogram at the end\n"
"  --show-perfdata     print key=value performance data at the end\n"
"  --json              machine-readable output (one JSON object) on stdout\n"
"  -h, --help          this text\n",
	progname, progname, STRESS_MIN_MSG, 64, STRESS_MIN_MSG);
}

/* Options that only change what this side prints or where it listens. */
static bool is_local_opt(int opt)
{
	switch (opt) {
	case 'r': case 's': case 'p': case 'z': case 'c': case 'h':
	case OPT_HIST: case OPT_PERF: case OPT_JSON:
		return true;
	}
	return false;
}

void stress_parse(struct stress_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "rdma-use-once", no_argument, NULL, OPT_RDMA_ONCE },
		{ "rdma-use-get-mr", no_argument, NULL, OPT_RDMA_GET_MR },
		{ "rdma-use-fence", no_argument, NULL, OPT_RDMA_FENCE },
		{ "rdma-use-notify", no_argument, NULL, OPT_RDMA_NOTIFY },
		{ "rdma-cache-mrs", no_argument, NULL, OPT_RDMA_CACHE },
		{ "use-cong-monitor", no_argument, NULL, OPT_CONG_MON },
		{ "show-histogram", no_argument, NULL, OPT_HIST },
		{ "show-perfdata", no_argument, NULL, OPT_PERF },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "transport", required_argument, NULL, OPT_TRANSPORT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int opt, shared_opts = 0;
	const char *bad = NULL;

	memset(o, 0, sizeof(*o));
	o->tasks = 1;
	o->depth = 1;
	o->req_size = 1024;
	o->ack_size = 64;
	o->iovecs = 1;
	o->transport = -1;
	o->port = STRESS_DEFAULT_PORT;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":r:s:p:t:d:q:a:T:oQ:vzcD:I:M:h",
				  longopts, NULL)) != -1) {
		shared_opts += !is_local_opt(opt);
		switch (opt) {
		case 'r': rds_ep_parse_opt(&o->local, "-r", optarg); o->have_local = true; break;
		case 's': rds_ep_parse_opt(&o->peer, "-s", optarg); o->active = true; break;
		case 'p': o->port = parse_u64("-p", optarg, 1, 65535); break;
		case 't': o->tasks = parse_u64("-t", optarg, 1, STRESS_MAX_TASKS); break;
		case 'd': o->depth = parse_u64("-d", optarg, 1, STRESS_MAX_DEPTH); break;
		case 'q': o->req_size = parse_u64("-q", optarg, STRESS_MIN_MSG, STRESS_MAX_MSG); break;
		case 'a': o->ack_size = parse_u64("-a", optarg, STRESS_MIN_MSG, STRESS_MAX_MSG); break;
		case 'T': o->seconds = parse_u64("-T", optarg, 0, 86400 * 365); break;
		case 'o': o->flags |= SF_ONE_WAY; break;
		case 'Q': o->tos = parse_u64("-Q", optarg, 0, 255); break;
		case 'v': o->flags |= SF_VERIFY; break;
		case 'z': o->summary_only = true; break;
		case 'c': o->cpu = true; break;
		case 'D': o->rdma_size = parse_u64("-D", optarg, 1, 64u << 20); break;
		case 'I': o->iovecs = parse_u64("-I", optarg, 1, STRESS_MAX_IOVECS); break;
		case 'M': o->rdma_mode = parse_u64("-M", optarg, 0, 2); break;
		case OPT_RDMA_ONCE: o->flags |= SF_RDMA_ONCE; break;
		case OPT_RDMA_GET_MR: o->flags |= SF_RDMA_GET_MR; break;
		case OPT_RDMA_FENCE: o->flags |= SF_RDMA_FENCE; break;
		case OPT_RDMA_NOTIFY: o->flags |= SF_RDMA_NOTIFY; break;
		case OPT_RDMA_CACHE: o->flags |= SF_RDMA_CACHE; break;
		case OPT_CONG_MON: o->flags |= SF_CONG_MON; break;
		case OPT_HIST: o->histogram = true; break;
		case OPT_PERF: o->perfdata = true; break;
		case OPT_JSON: o->json = true; break;
		case OPT_TRANSPORT:
			o->transport = rds_transport_parse(optarg);
			if (o->transport < 0)
				usage_error("--transport: unknown transport '%s' (tcp, ib, iwarp)", optarg);
			break;
		case 'h': usage(); exit(0);
		default: getopt_error(opt, argv);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (!o->active && shared_opts)
		usage_error("test options (-t -d -q -a -T -o -Q -v -D -I -M, --rdma-*, --transport) "
			    "are given to the active side (-s ADDRESS); the passive side takes them from it");
	if (o->have_local && o->active &&
	    rds_ep_family(&o->local) != rds_ep_family(&o->peer))
		usage_error("-r and -s must be of the same address family");
	if (o->iovecs > 1 && !o->rdma_size)
		usage_error("-I only applies to RDMA (-D)");
	bad = stress_check(o);
	if (bad)
		usage_error("%s", bad);
}

const char *stress_check(const struct stress_opts *o)
{
	if (!o->tasks || o->tasks > STRESS_MAX_TASKS)
		return "task count out of range";
	if (!o->depth || o->depth > STRESS_MAX_DEPTH)
		return "depth out of range";
	if (o->req_size < STRESS_MIN_MSG || o->req_size > STRESS_MAX_MSG ||
	    o->ack_size < STRESS_MIN_MSG || o->ack_size > STRESS_MAX_MSG)
		return "message size out of range";
	if (o->iovecs < 1 || o->iovecs > STRESS_MAX_IOVECS || o->rdma_mode > 2)
		return "RDMA options out of range";
	if (o->rdma_size && o->rdma_size < o->iovecs)
		return "-D must be at least the number of iovecs (-I)";
	if ((uint32_t)o->port + 1 + 2 * o->tasks > 65535)
		return "-p plus twice the task count exceeds the port range";
	if (o->tos > 255)
		return "tos out of range";
	if ((o->flags & SF_RDMA_ONCE) && (o->flags & SF_RDMA_CACHE))
		return "--rdma-use-once and --rdma-cache-mrs exclude each other";
	if (!o->rdma_size && (o->flags & (SF_RDMA_ONCE | SF_RDMA_GET_MR | SF_RDMA_FENCE |
					   SF_RDMA_NOTIFY | SF_RDMA_CACHE)))
		return "--rdma-* options need -D BYTES";
	return NULL;
}
