/* SPDX-License-Identifier: GPL-2.0 */
/* Private to rds.ko: what the core's files share with each other. */
#ifndef _RDS_CORE_H
#define _RDS_CORE_H

#include <net/rds/transport.h>

int rds_trans_init(void);
void rds_trans_exit(void);

#endif /* _RDS_CORE_H */
