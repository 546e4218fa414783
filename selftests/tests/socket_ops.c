// SPDX-License-Identifier: GPL-2.0
/* Socket calls RDS does not implement, and what they return. */
#include <sys/mman.h>

#include "../lib/rds_test.h"
#include "../lib/rds_util.h"

RDS_TEST(listen_eopnotsupp)
{
	int fd = rds_bound("127.0.0.1", 0, NULL);

	RDS_EXPECT_ERRNO(listen(fd, 1), EOPNOTSUPP);
	RDS_EXPECT_ERRNO(listen(rds_socket(), 1), EOPNOTSUPP);
}

RDS_TEST(accept_eopnotsupp)
{
	int fd = rds_bound("127.0.0.1", 0, NULL);

	RDS_EXPECT_ERRNO(accept(fd, NULL, NULL), EOPNOTSUPP);
}

RDS_TEST(shutdown_eopnotsupp)
{
	int fd = rds_bound("127.0.0.1", 0, NULL);

	RDS_EXPECT_ERRNO(shutdown(fd, SHUT_RD), EOPNOTSUPP);
	RDS_EXPECT_ERRNO(shutdown(fd, SHUT_WR), EOPNOTSUPP);
	RDS_EXPECT_ERRNO(shutdown(fd, SHUT_RDWR), EOPNOTSUPP);
}

RDS_TEST(socketpair_eopnotsupp)
{
	int sv[2];

	RDS_EXPECT_ERRNO(socketpair(AF_RDS, SOCK_SEQPACKET, 0, sv),
			 EOPNOTSUPP);
}

RDS_TEST(mmap_enodev)
{
	int fd = rds_socket();

	/* The generic "no mmap" answer of the socket layer. */
	errno = 0;
	RDS_EXPECT(mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0) ==
		   MAP_FAILED);
	if (errno != ENODEV)
		RDS_FAIL("mmap: errno %d (%s), expected ENODEV", errno,
			 strerror(errno));
}

RDS_TEST(sendfile_style_write_eopnotsupp)
{
	int fd = rds_bound("127.0.0.1", 0, NULL);

	/* write() on a SOCK_SEQPACKET socket carries MSG_EOR. */
	RDS_EXPECT_ERRNO(write(fd, "x", 1), EOPNOTSUPP);
}

RDS_TEST(read_is_recv)
{
	struct rds_addr me;
	int fd = rds_bound("127.0.0.1", 0, &me);
	char buf[8];

	rds_send(fd, &me, "rd", 2, 0);
	RDS_EXPECT(rds_wait_readable(fd, 2000));
	RDS_EXPECT(read(fd, buf, sizeof(buf)) == 2);
}

RDS_TEST_MAIN()
