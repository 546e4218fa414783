# SPDX-License-Identifier: GPL-2.0
#
# A fix we carry for siw (soft iWARP), the test bed's iWARP device; sourced
# by build-siw.sh and debug-kernel.sh, whose cache keys hash this function.
#
# siw's connection manager runs one "read MPA header" work per data-ready
# callback of the handshake. When a second one runs after the handshake
# ended, it calls the RDMA-mode data-ready callback from the work itself,
# without the socket lock and with bottom halves on, while softirq can run
# the same callback for the next segment: two tcp_read_sock() walk one
# queue pair's receive stream at once. Seen in our iWARP connect race on
# the debug kernel as WARN_ON_ONCE(used > len) in __tcp_read_sock() (the
# stream's byte counts corrupted). Unfixed upstream up to 7.2. Owning the
# socket makes softirq queue to the backlog, which release_sock() runs in
# this same context.
siw_fix_data_ready() {
	local cm=$1
	sed -i 's/^\(\t*\)cep->sock->sk->sk_data_ready(cep->sock->sk);$/\1lock_sock(cep->sock->sk);\n\1cep->sock->sk->sk_data_ready(cep->sock->sk);\n\1release_sock(cep->sock->sk);/' \
		"$cm"
	grep -q '^	*lock_sock(cep->sock->sk);$' "$cm"
}
