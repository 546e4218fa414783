// SPDX-License-Identifier: GPL-2.0
/* socket(AF_RDS, ...): which types and protocols the family accepts. */
#include <sys/socket.h>
#include <linux/rds.h>

#include "../lib/rds_test.h"

#ifndef AF_RDS
#define AF_RDS 21
#endif

RDS_TEST(seqpacket_is_accepted)
{
	int fd = RDS_EXPECT_OK(socket(AF_RDS, SOCK_SEQPACKET, 0));

	RDS_EXPECT_OK(close(fd));
}

RDS_TEST(other_types_are_esocktnosupport)
{
	RDS_EXPECT_ERRNO(socket(AF_RDS, SOCK_STREAM, 0), ESOCKTNOSUPPORT);
	RDS_EXPECT_ERRNO(socket(AF_RDS, SOCK_DGRAM, 0), ESOCKTNOSUPPORT);
	RDS_EXPECT_ERRNO(socket(AF_RDS, SOCK_RAW, 0), ESOCKTNOSUPPORT);
}

RDS_TEST(nonzero_protocol_is_esocktnosupport)
{
	RDS_EXPECT_ERRNO(socket(AF_RDS, SOCK_SEQPACKET, 6), ESOCKTNOSUPPORT);
}

RDS_TEST(many_sockets_open_and_close)
{
	int fds[256], i;

	for (i = 0; i < 256; i++)
		fds[i] = RDS_EXPECT_OK(socket(AF_RDS, SOCK_SEQPACKET, 0));
	for (i = 0; i < 256; i++)
		RDS_EXPECT_OK(close(fds[i]));
}

RDS_TEST_MAIN()
