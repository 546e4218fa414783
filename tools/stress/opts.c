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
	OPT_RESET, OPT_ASYNC, OPT_OUTLIERS, OPT_RETRIES, OPT_PARAMS,
	OPT_RDMA_ALIGN, OPT_KEY_O_METER, OPT_REREQUEST,
};

static void usage(void)
{
	printf(
"Usage: passive side: %s [-r ADDRESS] [-p PORT]\n"
"       active side:  %s -s ADDRESS [-r ADDRESS] [-p PORT] [options]\n"
"       reset:        %s -s ADDRESS [-r ADDRESS] [-Q TOS] --reset\n"
"Exchange request/ack messages between tasks over RDS sockets and report\n"
"rates each second.  The active side sends its options to the passive side\n"
"over a TCP connection to -s ADDRESS:PORT; each task binds an RDS socket to\n"
"PORT+1+task on its own address.\n\n"
"  -r, --recv-addr ADDRESS  local address to bind (default: the control\n"
"                           connection's)\n"
"  -s, --send-addr ADDRESS  passive side to connect to (the active side)\n"
"  -p, --port PORT     control port; RDS ports follow it (default 4000)\n"
"  -t, --tasks TASKS   tasks (processes) per side (default 1)\n"
"  -d, --depth DEPTH   outstanding requests per task (default 1)\n"
"  -q, --req-bytes BYTES  request size (default 1024, at least %u; K, M, G)\n"
"  -a, --ack-bytes BYTES  ack size (default %u, at least %u; K, M, G)\n"
"  -T, --time SECONDS  run time (default 0: until interrupted)\n"
"  -o, --one-way       only the active side sends requests\n"
"  -Q, --tos TOS       type of service (0-255)\n"
"  -v, --verify        verify every payload byte, and that each peer's\n"
"                      requests and acks arrive once and in order\n"
"  -z, --report-summary  print only the summary\n"
"  -c, --report-cpu    measure CPU use (system-wide, %% of all CPUs)\n"
"  -R, --rtprio        run the reporting process with SCHED_RR priority\n"
"  -V, --trace         print every message sent and received (stderr)\n"
"  -D, --rdma-bytes BYTES  RDMA this many bytes per request (K, M, G)\n"
"  -I, --rdma-buffers IOVECS  local iovecs per RDMA (default 1)\n"
"  -M, --rdma-mode MODE  RDMA mode: 0 read and write, 1 read, 2 write\n"
"  --rdma-use-once [0|1]    registrations valid for one RDMA only\n"
"  --rdma-use-get-mr [0|1]  register with RDS_GET_MR (default: RDMA_MAP)\n"
"  --rdma-use-fence [0|1]   fence each RDMA after the previous ones\n"
"  --rdma-use-notify [0|1]  ask for RDS_CMSG_RDMA_STATUS completions\n"
"  --rdma-cache-mrs [0|1]   register each buffer once and reuse it\n"
"  --rdma-alignment BYTES   RDMA buffers start BYTES past a page (0-4096)\n"
"  --use-cong-monitor [0|1] use RDS_CONG_MONITOR congestion notifications\n"
"  --async             send every message with RDS_CMSG_ASYNC_SEND and\n"
"                      count its completion notifications\n"
"  --rerequest-ms MS   give up a request unacknowledged for MS ms and send\n"
"                      a new one in its place (counted; not rds-tools')\n"
"  --reset             reset the connections from -r to -s (TOS -Q) with\n"
"                      RDS_CONN_RESET and exit (needs CAP_NET_ADMIN)\n"
"  --connect-retries N retry the control connection N times, 1 s apart\n"
"  --show-outliers USEC  report every round trip above USEC (stderr)\n"
"  --show-params       print the test's parameters first\n"
"  --transport tcp|ib|iwarp  pin the sockets to one transport\n"
"  --show-histogram    print a round-trip time histogram at the end\n"
"  --show-perfdata     print key=value performance data at the end\n"
"  --json              machine-readable output (one JSON object) on stdout\n"
"  -h, --help          this text\n",
	progname, progname, progname, STRESS_MIN_MSG, 64, STRESS_MIN_MSG);
}

/* Options that only change what this side prints or where it listens. */
static bool is_local_opt(int opt)
{
	switch (opt) {
	case 'r': case 's': case 'p': case 'z': case 'c': case 'h':
	case 'R': case 'V':
	case OPT_HIST: case OPT_PERF: case OPT_JSON: case OPT_RESET:
	case OPT_OUTLIERS: case OPT_RETRIES: case OPT_PARAMS:
		return true;
	}
	return false;
}

/*
 * A size in bytes with an optional K, M or G (powers of 1024), as
 * rds-tools' rds-stress takes them.
 */
static uint64_t parse_size(const char *opt, const char *s, uint64_t min, uint64_t max)
{
	char num[32];
	size_t len = s ? strlen(s) : 0;
	unsigned int shift = 0;
	uint64_t v;

	if (len && len < sizeof(num)) {
		switch (s[len - 1]) {
		case 'k': case 'K': shift = 10; break;
		case 'm': case 'M': shift = 20; break;
		case 'g': case 'G': shift = 30; break;
		}
	}
	if (!shift)
		return parse_u64(opt, s, min, max);
	memcpy(num, s, len - 1);
	num[len - 1] = 0;
	v = parse_u64(opt, num, 0, UINT32_MAX);
	v <<= shift;
	if (v < min || v > max)
		usage_error("option %s: %s is out of range [%llu, %llu]", opt, s,
			    (unsigned long long)min, (unsigned long long)max);
	return v;
}

/*
 * rds-tools 2.3.x gives the --rdma-* switches and --use-cong-monitor a
 * 0 or 1; older versions and we take them bare. Accept "--opt", "--opt=N"
 * and "--opt N" for N 0 or 1.
 */
static bool switch_value(const char *name, int argc, char **argv)
{
	char opt[40];

	snprintf(opt, sizeof(opt), "--%s", name);
	if (optarg)
		return parse_u64(opt, optarg, 0, 1);
	if (optind < argc && (!strcmp(argv[optind], "0") || !strcmp(argv[optind], "1")))
		return argv[optind++][0] == '1';
	return true;
}

static void set_flag(struct stress_opts *o, uint32_t flag, bool on)
{
	if (on)
		o->flags |= flag;
	else
		o->flags &= ~flag;
}

void stress_parse(struct stress_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "recv-addr", required_argument, NULL, 'r' },
		{ "send-addr", required_argument, NULL, 's' },
		{ "port", required_argument, NULL, 'p' },
		{ "tasks", required_argument, NULL, 't' },
		{ "depth", required_argument, NULL, 'd' },
		{ "req-bytes", required_argument, NULL, 'q' },
		{ "ack-bytes", required_argument, NULL, 'a' },
		{ "time", required_argument, NULL, 'T' },
		{ "one-way", no_argument, NULL, 'o' },
		{ "tos", required_argument, NULL, 'Q' },
		{ "verify", no_argument, NULL, 'v' },
		{ "report-summary", no_argument, NULL, 'z' },
		{ "report-cpu", no_argument, NULL, 'c' },
		{ "rtprio", no_argument, NULL, 'R' },
		{ "trace", no_argument, NULL, 'V' },
		{ "rdma-bytes", required_argument, NULL, 'D' },
		{ "rdma-buffers", required_argument, NULL, 'I' },
		{ "rdma-mode", required_argument, NULL, 'M' },
		{ "rdma-use-once", optional_argument, NULL, OPT_RDMA_ONCE },
		{ "rdma-use-get-mr", optional_argument, NULL, OPT_RDMA_GET_MR },
		{ "rdma-use-fence", optional_argument, NULL, OPT_RDMA_FENCE },
		{ "rdma-use-notify", optional_argument, NULL, OPT_RDMA_NOTIFY },
		{ "rdma-cache-mrs", optional_argument, NULL, OPT_RDMA_CACHE },
		{ "rdma-alignment", required_argument, NULL, OPT_RDMA_ALIGN },
		{ "rdma-key-o-meter", no_argument, NULL, OPT_KEY_O_METER },
		{ "use-cong-monitor", optional_argument, NULL, OPT_CONG_MON },
		{ "async", no_argument, NULL, OPT_ASYNC },
		{ "rerequest-ms", required_argument, NULL, OPT_REREQUEST },
		{ "reset", no_argument, NULL, OPT_RESET },
		{ "connect-retries", required_argument, NULL, OPT_RETRIES },
		{ "show-outliers", required_argument, NULL, OPT_OUTLIERS },
		{ "show-params", no_argument, NULL, OPT_PARAMS },
		{ "show-histogram", no_argument, NULL, OPT_HIST },
		{ "show-perfdata", no_argument, NULL, OPT_PERF },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "transport", required_argument, NULL, OPT_TRANSPORT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int opt, shared_opts = 0, lidx;
	const char *bad = NULL;

	memset(o, 0, sizeof(*o));
	o->tasks = 1;
	o->depth = 1;
	o->req_size = 1024;
	o->ack_size = 64;
	o->iovecs = 1;
	o->transport = -1;
	o->port = STRESS_DEFAULT_PORT;
	o->outlier_us = UINT64_MAX;
	o->connect_retries = -1;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":r:s:p:t:d:q:a:T:oQ:vzcRVD:I:M:h",
				  longopts, &lidx)) != -1) {
		const char *lname = opt >= 1000 ? longopts[lidx].name : NULL;

		shared_opts += !is_local_opt(opt);
		switch (opt) {
		case 'r': rds_ep_parse_opt(&o->local, "-r", optarg); o->have_local = true; break;
		case 's': rds_ep_parse_opt(&o->peer, "-s", optarg); o->active = true; break;
		case 'p': o->port = parse_u64("-p", optarg, 1, 65535); break;
		case 't': o->tasks = parse_u64("-t", optarg, 1, STRESS_MAX_TASKS); break;
		case 'd': o->depth = parse_u64("-d", optarg, 1, STRESS_MAX_DEPTH); break;
		case 'q': o->req_size = parse_size("-q", optarg, STRESS_MIN_MSG, STRESS_MAX_MSG); break;
		case 'a': o->ack_size = parse_size("-a", optarg, STRESS_MIN_MSG, STRESS_MAX_MSG); break;
		case 'T': o->seconds = parse_u64("-T", optarg, 0, 86400 * 365); break;
		case 'o': o->flags |= SF_ONE_WAY; break;
		case 'Q': o->tos = parse_u64("-Q", optarg, 0, 255); break;
		case 'v': o->flags |= SF_VERIFY; break;
		case 'z': o->summary_only = true; break;
		case 'c': o->cpu = true; break;
		case 'R': o->rtprio = true; break;
		case 'V': o->trace = true; break;
		case 'D': o->rdma_size = parse_size("-D", optarg, 1, 64u << 20); break;
		case 'I': o->iovecs = parse_u64("-I", optarg, 1, STRESS_MAX_IOVECS); break;
		case 'M': o->rdma_mode = parse_u64("-M", optarg, 0, 2); break;
		case OPT_RDMA_ONCE:
			set_flag(o, SF_RDMA_ONCE, switch_value(lname, argc, argv));
			break;
		case OPT_RDMA_GET_MR:
			set_flag(o, SF_RDMA_GET_MR, switch_value(lname, argc, argv));
			break;
		case OPT_RDMA_FENCE:
			set_flag(o, SF_RDMA_FENCE, switch_value(lname, argc, argv));
			break;
		case OPT_RDMA_NOTIFY:
			set_flag(o, SF_RDMA_NOTIFY, switch_value(lname, argc, argv));
			break;
		case OPT_RDMA_CACHE:
			set_flag(o, SF_RDMA_CACHE, switch_value(lname, argc, argv));
			break;
		case OPT_CONG_MON:
			set_flag(o, SF_CONG_MON, switch_value(lname, argc, argv));
			break;
		case OPT_RDMA_ALIGN:
			o->rdma_align = parse_u64("--rdma-alignment", optarg, 0, STRESS_PAGE);
			break;
		case OPT_KEY_O_METER:
			usage_error("--%s (rds-tools' count of repeated R_Keys) is not "
				    "implemented by this rds-stress", lname);
		case OPT_ASYNC: o->flags |= SF_ASYNC; break;
		case OPT_REREQUEST:
			o->rerequest_ms = parse_u64("--rerequest-ms", optarg, 1,
						    STRESS_MAX_REREQUEST_MS);
			break;
		case OPT_RESET: o->reset = true; break;
		case OPT_RETRIES:
			o->connect_retries = parse_u64("--connect-retries", optarg, 0, 1000000);
			break;
		case OPT_OUTLIERS:
			o->outlier_us = parse_u64("--show-outliers", optarg, 0, UINT32_MAX);
			break;
		case OPT_PARAMS: o->show_params = true; break;
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
	if (o->reset && !o->active)
		usage_error("--reset needs the peer's address (-s ADDRESS)");
	if (!o->active && shared_opts)
		usage_error("test options (-t -d -q -a -T -o -Q -v -D -I -M, --rdma-*, --async, "
			    "--rerequest-ms, --transport) are given to the active side (-s ADDRESS); the passive "
			    "side takes them from it");
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
	if (!o->rdma_size && (o->rdma_align ||
			      (o->flags & (SF_RDMA_ONCE | SF_RDMA_GET_MR | SF_RDMA_FENCE |
					   SF_RDMA_NOTIFY | SF_RDMA_CACHE))))
		return "--rdma-* options need -D BYTES";
	if (o->rdma_align > STRESS_PAGE)
		return "--rdma-alignment is at most 4096";
	if (o->rerequest_ms > STRESS_MAX_REREQUEST_MS)
		return "--rerequest-ms is at most an hour";
	return NULL;
}
