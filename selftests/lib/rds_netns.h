/* SPDX-License-Identifier: GPL-2.0 */
/* Tests that need their own network namespace; define _GNU_SOURCE first. */
#ifndef _RDS_NETNS_H
#define _RDS_NETNS_H

#include <sched.h>
#include <sys/ioctl.h>

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

#endif /* _RDS_NETNS_H */
