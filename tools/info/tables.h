/* SPDX-License-Identifier: GPL-2.0 */
/* rds-info: the tables it knows and how each record is printed. */
#ifndef RDS_INFO_TABLES_H
#define RDS_INFO_TABLES_H

#include <stdbool.h>
#include <stddef.h>

struct info_table {
	char		opt;		/* command-line letter */
	int		optname;	/* RDS_INFO_* / RDS6_INFO_* */
	const char	*title;
	const char	*header;	/* column titles, NULL: none */
	size_t		size;		/* the record size we decode */
	/* Print one record; returns 0 if it was skipped (e.g. a v4-mapped
	 * entry in an IPv6 table, already shown by the IPv4 one). */
	int		(*print)(const void *rec);
	bool		v6;		/* RDS6_INFO_*, with an IPv4 twin */
};

/* -a: the IPv6 tables alone, IPv4 entries included (v4-mapped). */
extern bool info_all_v6;

/* The record size of the table being printed (paths.c reads its
 * extension only when the records are long enough to have it).
 */
extern size_t info_rec_each;
int print_paths(const void *rec);

extern const struct info_table info_tables[];
extern const size_t info_tables_nr;

#endif
