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

# Keeps the host's housekeeping off core $1 for a latency measurement, the
# way a DAQ host dedicates its receive core: unbound kernel work queues,
# device interrupts that may move, and movable kernel threads (memory
# monitoring and compaction) go to the other cores. Their earlier settings
# are saved; restore_core puts them back (call it from the EXIT trap).
# Measured on the 2-core bench: a memory-monitor thread running 1-2 ms at
# a time on the receive core was a source of ACK latency tails.
ISOLATED_SAVE=""
isolate_core() {
  local core=$1 others mask=0 c
  ISOLATED_SAVE=$(mktemp)
  for c in $(seq 0 $(( $(ncpu) - 1 ))); do
    [ "$c" -eq "$core" ] || mask=$(( mask | (1 << c) ))
  done
  others=$(printf '%x' "$mask")
  [ "$mask" -ne 0 ] || return 0
  { echo "wq $(cat /sys/devices/virtual/workqueue/cpumask)"
    for i in /proc/irq/[0-9]*; do echo "irq $i $(cat "$i/smp_affinity" 2>/dev/null)"; done
    for p in $(pgrep -x 'kdamond\.[0-9]+|kcompactd[0-9]+'); do echo "task $p $(taskset -p "$p" | awk '{print $NF}')"; done
  } > "$ISOLATED_SAVE"
  echo "$others" > /sys/devices/virtual/workqueue/cpumask 2>/dev/null || true
  for i in /proc/irq/[0-9]*; do echo "$others" > "$i/smp_affinity" 2>/dev/null || true; done
  for p in $(pgrep -x 'kdamond\.[0-9]+|kcompactd[0-9]+'); do taskset -p "$others" "$p" >/dev/null 2>&1 || true; done
}
restore_core() {
  [ -n "$ISOLATED_SAVE" ] && [ -f "$ISOLATED_SAVE" ] || return 0
  local kind a b
  while read -r kind a b; do
    case $kind in
      wq) echo "$a" > /sys/devices/virtual/workqueue/cpumask 2>/dev/null || true ;;
      irq) [ -n "$b" ] && echo "$b" > "$a/smp_affinity" 2>/dev/null || true ;;
      task) taskset -p "$b" "$a" >/dev/null 2>&1 || true ;;
    esac
  done < "$ISOLATED_SAVE"
  rm -f "$ISOLATED_SAVE"
  ISOLATED_SAVE=""
}
