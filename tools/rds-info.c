// SPDX-License-Identifier: GPL-2.0
/*
 * rds-info: print the RDS stack's state (counters, sockets, connections,
 * queued messages, transport details) from the RDS_INFO_* tables.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "info/tables.h"
#include "lib/info.h"
#include "lib/sock.h"
#include "lib/util.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [-ackInprstTWv]\n"
		"Print RDS state.  With no option: everything (like -v).\n\n"
		"  -c   counters                  -k   sockets\n"
		"  -n   connections               -r   receive queues\n"
		"  -s   send queues               -t   retransmit queues\n"
		"  -T   TCP transport sockets     -I   InfiniBand connections\n"
		"  -W   iWARP connections         -v   all of the above\n"
		"  -p   each connection's lanes, their history and last drop\n"
		"       reason (UEK's RDS_INFO_CONN_PATHS; not in -v)\n"
		"  -a   IPv4 and IPv6 entries together, from the IPv6 tables\n"
		"       (IPv4 addresses v4-mapped), as rds-tools 2.3.4's -a\n"
		"  -h, --help   this text\n"
		"Without -a, IPv6 entries are shown in separate tables after the\n"
		"IPv4 ones.\n"
		"A table the running kernel does not provide (transport module not\n"
		"loaded) is reported as not available.  Exit status: 0 when at least\n"
		"one table could be read, 1 otherwise, 2 on a command-line error.\n",
		progname);
}

/* Returns 0 if the table was read (even if empty), else -errno. */
static int show(int fd, const struct info_table *t)
{
	size_t nr, each, i, shown = 0;
	void *buf;
	int rc;

	printf("\n%s%s:\n", t->title,
	       info_all_v6 && t->v6 ? " (IPv4 ones v4-mapped)" : "");
	rc = rds_info_get(fd, t->optname, &buf, &nr, &each);
	if (rc) {
		printf("  (not available: %s%s)\n", strerror(-rc),
		       rc == -ENOPROTOOPT ? "; transport not loaded or table not provided" : "");
		return rc;
	}
	if (nr && each < t->size) {
		printf("  (records of %zu bytes, expected %zu: not decoded)\n",
		       each, t->size);
		free(buf);
		return 0;
	}
	if (t->header)
		printf("%s\n", t->header);
	info_rec_each = each;
	for (i = 0; i < nr; i++)
		shown += t->print((const char *)buf + i * each);
	if (!shown)
		printf("  (none)\n");
	free(buf);
	return 0;
}

/* -a: table @i is an IPv4 one whose IPv6 twin lists its entries too. */
static bool has_v6_twin(size_t i)
{
	size_t j;

	for (j = 0; j < info_tables_nr; j++)
		if (j != i && info_tables[j].v6 && !info_tables[i].v6 &&
		    info_tables[j].opt == info_tables[i].opt)
			return true;
	return false;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char want[16] = "";
	size_t i, nwant = 0;
	int fd, opt, ok = 0, tried = 0, unsupported = 0;

	tool_init(argv[0]);
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":ackInprstTWvh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'a':
			info_all_v6 = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'v':
			strcpy(want, "cknrstTIW");
			nwant = strlen(want);
			break;
		case '?':
		case ':':
			getopt_error(opt, argv);
		default:
			if (!strchr(want, opt) && nwant < sizeof(want) - 1) {
				want[nwant++] = opt;
				want[nwant] = 0;
			}
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (!nwant)
		strcpy(want, "cknrstTIW");

	fd = rds_open();
	for (i = 0; i < info_tables_nr; i++) {
		int rc;

		if (!strchr(want, info_tables[i].opt) ||
		    (info_all_v6 && has_v6_twin(i)))
			continue;
		tried++;
		rc = show(fd, &info_tables[i]);
		if (!rc)
			ok++;
		else if (rc == -EOPNOTSUPP)
			unsupported++;
	}
	close(fd);
	if (!ok) {
		if (unsupported == tried)
			die("this RDS does not answer RDS_INFO queries (getsockopt: %s)",
			    strerror(EOPNOTSUPP));
		die("no table could be read");
	}
	return 0;
}
