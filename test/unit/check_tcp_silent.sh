#!/bin/sh
# check_tcp_silent.sh - test_tcp's silent-peer phases (test_tcp.c, 8): in a private network
# namespace, where taking the loopback interface down makes a live peer's host as silent as
# a dead one's, the tcp heartbeat must find it, while a peer that only stops reading is not
# declared dead. Skipped (77) where a network namespace cannot be made (needs root) or
# ip(8) is missing.
builddir=${builddir:-.}
command -v ip >/dev/null 2>&1 || { echo "check_tcp_silent: no ip(8): skipped"; exit 77; }
unshare -n true 2>/dev/null || { echo "check_tcp_silent: unshare -n refused: skipped"; exit 77; }
exec unshare -n sh -c 'ip link set lo up && TEST_TCP_ONLY=silent "$0"' "$builddir/test/unit/test_tcp"
