// SPDX-License-Identifier: GPL-2.0
/* Payload patterns: written with -v by senders, checked by receivers. */
#include "stress/msg.h"

void stress_fill(uint8_t *buf, size_t from, size_t to, uint16_t task, uint64_t seq)
{
	size_t i;

	for (i = from; i < to; i++)
		buf[i] = stress_pattern(task, seq, i);
}

size_t stress_check_fill(const uint8_t *buf, size_t from, size_t to,
			 uint16_t task, uint64_t seq)
{
	size_t i, bad = 0;

	for (i = from; i < to; i++)
		bad += buf[i] != stress_pattern(task, seq, i);
	return bad;
}
