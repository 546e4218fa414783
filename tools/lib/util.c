// SPDX-License-Identifier: GPL-2.0
/* Messages, number parsing and clocks shared by the tools. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util.h"

const char *progname = "rds-tool";

void tool_init(const char *argv0)
{
	const char *slash = strrchr(argv0, '/');

	progname = slash ? slash + 1 : argv0;
}

static void vmsg(const char *fmt, va_list ap, int err)
{
	fflush(stdout);
	fprintf(stderr, "%s: ", progname);
	vfprintf(stderr, fmt, ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
	exit(1);
}

void die_errno(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, err);
	va_end(ap);
	exit(1);
}

void warnx_(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
}

void usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
	fprintf(stderr, "Try '%s --help' for more information.\n", progname);
	exit(2);
}

uint64_t parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+')
		usage_error("option %s: '%s' is not a non-negative number",
			    opt, s ? s : "");
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		usage_error("option %s: '%s' is not a valid number", opt, s);
	if (v < min || v > max)
		usage_error("option %s: %llu is out of range [%" PRIu64 ", %" PRIu64 "]",
			    opt, v, min, max);
	return v;
}

double parse_seconds(const char *opt, const char *s, double min, double max)
{
	char *end;
	double v;

	if (!s || !*s)
		usage_error("option %s: empty value", opt);
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || isnan(v))
		usage_error("option %s: '%s' is not a number", opt, s);
	if (v < min || v > max)
		usage_error("option %s: %s is out of range [%g, %g]", opt, s, min, max);
	return v;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

void getopt_error(int opt, char **argv)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "?";

	if (opt == ':') {
		if (optopt)
			usage_error("option -%c needs a value", optopt);
		usage_error("option %s needs a value", arg);
	}
	if (optopt)
		usage_error("unknown option -%c", optopt);
	usage_error("unknown option %s", arg);
}
