/* SPDX-License-Identifier: GPL-2.0 */
/* Tests that need their own network namespace; define _GNU_SOURCE first. */
#ifndef _RDS_NETNS_H
#define _RDS_NETNS_H

#include <sched.h>
#include <sys/ioctl.h>
#include <sys/wait.h>

#include "rds_util.h"

/*
 * Move the calling test into a fresh network namespace with lo up and,
 * if @addr is given, that IPv4 address on lo as a /32 (a prefix on lo
 * would make its whole subnet local).
 */
static inline void rds_new_netns(const char *addr)
{
	struct sockaddr_in *sin;
	struct ifreq ifr;
	int fd;

	if (unshare(CLONE_NEWNET))
		rds_test_skip("unshare(CLONE_NEWNET): %s", strerror(errno));
	fd = RDS_EXPECT_OK(socket(AF_INET, SOCK_DGRAM, 0));
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (addr) {
		sin = (struct sockaddr_in *)&ifr.ifr_addr;
		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = inet_addr(addr);
		RDS_EXPECT_OK(ioctl(fd, SIOCSIFADDR, &ifr));
		sin->sin_addr.s_addr = inet_addr("255.255.255.255");
		RDS_EXPECT_OK(ioctl(fd, SIOCSIFNETMASK, &ifr));
	}
	RDS_EXPECT_OK(ioctl(fd, SIOCGIFFLAGS, &ifr));
	ifr.ifr_flags |= IFF_UP;
	RDS_EXPECT_OK(ioctl(fd, SIOCSIFFLAGS, &ifr));
	close(fd);
}

/*
 * Linux's in-tree RDS lists only the caller's namespace in RDS_INFO_*
 * since a stable update that Debian's 6.1 (6.1.192) has and Debian 13's
 * 6.12.107 has not: there it lists every namespace's sockets and
 * connections. True for such an in-tree module; probed in a child, so
 * the caller's namespace is untouched.
 */
static inline int rds_intree_info_is_global(void)
{
	socklen_t len = 0;
	int st, fd;
	pid_t pid;

	if (!rds_is_intree())
		return 0;
	pid = fork();
	if (pid == 0) {
		fd = rds_bound("127.0.0.1", 0, NULL);
		if (fd < 0 || unshare(CLONE_NEWNET))
			_exit(2);
		getsockopt(rds_socket(), SOL_RDS, RDS_INFO_SOCKETS, NULL, &len);
		_exit(len != 0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return 0;
	return WIFEXITED(st) && WEXITSTATUS(st) == 1;
}

#define RDS_SKIP_IF_INTREE_INFO_GLOBAL()				\
	do {								\
		if (rds_intree_info_is_global())			\
			rds_test_skip("in-tree RDS of this kernel lists "	\
				      "every namespace in RDS_INFO_* (the "	\
				      "per-namespace filter came in a later "	\
				      "stable update)");		\
	} while (0)

#endif /* _RDS_NETNS_H */
