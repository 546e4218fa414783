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

/*
 * Two named network namespaces joined by a veth pair, @va in @na with
 * @ipa/24 and @vb in @nb with @ipb/24 (made with ip(8); kept if @nb
 * exists already, so every test of a file can call it): RDS/TCP between
 * two hosts in one guest. The last test of the file deletes them.
 */
static inline void rds_ns_pair_up(const char *na, const char *nb,
				  const char *va, const char *vb,
				  const char *ipa, const char *ipb)
{
	char path[64], cmd[1024];
	int rc;

	snprintf(path, sizeof(path), "/run/netns/%s", nb);
	if (!access(path, F_OK))
		return;
	snprintf(cmd, sizeof(cmd),
		 "ip netns add %1$s && ip netns add %2$s && "
		 "ip link add %3$s netns %1$s type veth peer name %4$s netns %2$s && "
		 "ip -n %1$s link set lo up && ip -n %2$s link set lo up && "
		 "ip -n %1$s link set %3$s up && ip -n %2$s link set %4$s up && "
		 "ip -n %1$s addr add %5$s/24 dev %3$s && "
		 "ip -n %2$s addr add %6$s/24 dev %4$s",
		 na, nb, va, vb, ipa, ipb);
	rc = system(cmd);
	if (rc)
		RDS_FAIL("%s: exit %d", cmd, rc);
}

/*
 * Delete what rds_ns_pair_up() made, if it made anything: a file whose
 * tests all skipped (in-tree RDS) made no namespaces and has none to
 * delete. Fails if one is left behind.
 */
static inline void rds_ns_pair_down(const char *na, const char *nb)
{
	const char *ns[] = { na, nb };
	char path[64], cmd[128];
	unsigned int i;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "/run/netns/%s", ns[i]);
		if (access(path, F_OK))
			continue;
		snprintf(cmd, sizeof(cmd), "ip netns del %s", ns[i]);
		RDS_EXPECT(!system(cmd));
		RDS_EXPECT(access(path, F_OK));
	}
}

/* Run the rest of the caller in namespace @ns; returns the caller's. */
static inline int rds_ns_enter(const char *ns)
{
	char path[64];
	int self, nsfd;

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	self = RDS_EXPECT_OK(open("/proc/self/ns/net", O_RDONLY));
	nsfd = RDS_EXPECT_OK(open(path, O_RDONLY));
	RDS_EXPECT_OK(setns(nsfd, CLONE_NEWNET));
	close(nsfd);
	return self;
}

/* Back to the namespace rds_ns_enter() returned. */
static inline void rds_ns_leave(int self)
{
	RDS_EXPECT_OK(setns(self, CLONE_NEWNET));
	close(self);
}

/*
 * An RDS/TCP socket made in namespace @ns (where it stays), bound to
 * @ip with an ephemeral port written to @out, both buffers forced to
 * @bufsize.
 */
static inline int rds_ns_tcp_socket(const char *ns, const char *ip,
				    int bufsize, struct rds_addr *out)
{
	int self = rds_ns_enter(ns), fd, t = RDS_TRANS_TCP;
	struct rds_addr a = rds_addr(ip, 0);

	fd = rds_socket();
	RDS_EXPECT_OK(setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &t, sizeof(t)));
	rds_set_int(fd, SOL_SOCKET, SO_SNDBUFFORCE, bufsize);
	rds_set_int(fd, SOL_SOCKET, SO_RCVBUFFORCE, bufsize);
	RDS_EXPECT_OK(bind(fd, &a.sa, a.len));
	out->len = sizeof(out->ss);
	RDS_EXPECT_OK(getsockname(fd, &out->sa, &out->len));
	rds_ns_leave(self);
	return fd;
}

#endif /* _RDS_NETNS_H */
