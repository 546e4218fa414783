/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers every tool uses: messages, number parsing, clocks. */
#ifndef RDS_TOOLS_UTIL_H
#define RDS_TOOLS_UTIL_H

#include <stdint.h>

/* Set once from argv[0]; prefixes every message. */
extern const char *progname;

void tool_init(const char *argv0);
void __attribute__((format(printf, 1, 2), noreturn)) die(const char *fmt, ...);
void __attribute__((format(printf, 1, 2), noreturn)) die_errno(const char *fmt, ...);
void __attribute__((format(printf, 1, 2))) warnx_(const char *fmt, ...);
/* A command-line problem: message, a hint to use --help, exit 2. */
void __attribute__((format(printf, 1, 2), noreturn)) usage_error(const char *fmt, ...);

/*
 * Parse an unsigned decimal (or 0x hex) number for option @opt into *@out,
 * accepting only [@min, @max]; on any garbage call usage_error().
 */
uint64_t parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max);
/* A non-negative decimal with optional fraction, e.g. "0.2". */
double parse_seconds(const char *opt, const char *s, double min, double max);

/*
 * For getopt_long() run with opterr = 0 and an option string starting
 * with ':': explain the unknown option or missing value and exit 2.
 */
void __attribute__((noreturn)) getopt_error(int opt, char **argv);

uint64_t now_ns(void);		/* CLOCK_MONOTONIC */

#endif
