"""A two-namespace test bench for the Python tests, as the Rust tests
build with linerate-testbed: namespaces "cam" and "pc" joined by a veth
pair with link-local addresses, nftables loss at the camera's output and
the host's input, and a way to run code (and start linerate's threads)
inside a namespace from Python.

A thread's network namespace is its own (setns), and threads started from
it (the emulated camera's, the stream's receive thread, the heartbeat)
stay in it; `Bench.inside(name)` enters a namespace for the duration of a
`with` block and then goes back.
"""

import contextlib
import ctypes
import os
import subprocess

CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)


def _setns(fd):
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def _sh(*args, stdin=None):
    subprocess.run(args, check=True, input=stdin, text=True, capture_output=True)


class Bench:
    """Namespaces `cam` (169.254.77.1) and `pc` (169.254.77.2), unique to
    this process, deleted on exit even when a test fails."""

    def __init__(self, mtu=1500):
        if os.geteuid() != 0:
            raise RuntimeError("the namespace tests build network namespaces and must run as root")
        tag = f"lrpy{os.getpid()}"
        self.names = {"cam": f"{tag}c", "pc": f"{tag}p"}
        self.addr = {"cam": "169.254.77.1", "pc": "169.254.77.2"}
        self.dev = {"cam": f"{tag}c0", "pc": f"{tag}p0"}
        self.mtu = mtu

    def __enter__(self):
        try:
            for role in ("cam", "pc"):
                _sh("ip", "netns", "add", self.names[role])
            _sh("ip", "link", "add", self.dev["cam"], "netns", self.names["cam"],
                "type", "veth", "peer", "name", self.dev["pc"], "netns", self.names["pc"])
            for role in ("cam", "pc"):
                ns = self.names[role]
                _sh("ip", "-n", ns, "addr", "add", f"{self.addr[role]}/24", "dev", self.dev[role])
                _sh("ip", "-n", ns, "link", "set", self.dev[role], "mtu", str(self.mtu), "up")
                _sh("ip", "-n", ns, "link", "set", "lo", "up")
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        for ns in self.names.values():
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        return False

    @contextlib.contextmanager
    def inside(self, role):
        """Runs the block, and whatever threads it starts, in namespace `role`."""
        home = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
        target = os.open(f"/run/netns/{self.names[role]}", os.O_RDONLY)
        try:
            _setns(target)
            try:
                yield
            finally:
                _setns(home)
        finally:
            os.close(target)
            os.close(home)

    def exec(self, role, *argv):
        """`argv` started in namespace `role` (a subprocess.Popen)."""
        return subprocess.Popen(["ip", "netns", "exec", self.names[role], *argv],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def loss(self, percent):
        """Drops `percent`/2 % of the camera's stream packets at its
        output and as much at the host's input (nftables, netdev hooks);
        control traffic (GVCP, port 3956) is spared."""
        threshold = int(percent / 2 * 10000)
        for role, hook in (("cam", "egress"), ("pc", "ingress")):
            rules = (
                "add table netdev pyloss\n"
                f"add chain netdev pyloss c {{ type filter hook {hook} device \"{self.dev[role]}\" priority 0; policy accept; }}\n"
                f"add rule netdev pyloss c ip saddr {self.addr['cam']} udp sport != 3956 "
                f"numgen random mod 1000000 < {threshold} counter drop\n"
            )
            _sh("ip", "netns", "exec", self.names[role], "nft", "-f", "-", stdin=rules)
