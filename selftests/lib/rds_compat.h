/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Constants older libc headers may lack. No other dependencies: the
 * fuzzer (which does not use the test library) includes it too.
 */
#ifndef _RDS_COMPAT_H
#define _RDS_COMPAT_H

#ifndef AF_RDS
#define AF_RDS 21
#endif
#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif

#endif /* _RDS_COMPAT_H */
