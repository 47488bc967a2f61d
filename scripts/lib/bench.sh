# Shared pieces of the bench scripts (sourced, not run).
#
# The measuring method (docs/testbed.md, BRIEF): the sending side on CPU 0,
# the receiving host's network processing steered to CPU 1 with RPS and
# the receiver pinned there; the receiver's cost is CPU 1's busy time.

# Idle ticks (idle + iowait, USER_HZ) of a core. Busy time is wall time
# minus idle: idle is measured exactly on a tickless kernel, while the
# tick-sampled busy counters alias with a periodic sender.
cpu_idle() { awk -v c="cpu$1" '$1==c{print $5+$6}' /proc/stat; }

# Idle ticks of all cores together, and the number of cores.
all_idle() { awk '$1=="cpu"{print $5+$6}' /proc/stat; }
ncpu() { grep -c '^cpu[0-9]' /proc/stat; }

# Bytes received so far on eth0 of namespace $1.
ns_rx_bytes() { ip netns exec "$1" cat /sys/class/net/eth0/statistics/rx_bytes; }

# The IPv4 address of eth0 in namespace $1.
ns_addr() { ip netns exec "$1" ip -4 -o addr show eth0 | awk '{print $4}' | cut -d/ -f1; }

# The linerate binary the scripts build and run (honours CARGO_TARGET_DIR).
linerate_bin() { echo "${CARGO_TARGET_DIR:-$1/target}/release/linerate"; }
