//! The UDP socket the `copy` and `mmsg` backends share: buffer sizing with a
//! clear warning, busy polling, and a receive timeout that is only changed
//! when it matters (each change is a syscall).

use std::net::SocketAddrV4;
use std::time::Duration;

use linerate_io::udp::{UdpEndpoint, UdpOptions};

use super::ReceiveConfig;
use crate::error::{Error, Result};

/// A bound stream socket and its current receive timeout.
#[derive(Debug)]
pub(crate) struct StreamSocket {
    pub endpoint: UdpEndpoint,
    pub port: u16,
    pub granted: usize,
    timeout: Duration,
    /// Last drop count read from /proc, and when (ns).
    drops: (u64, u64),
    /// /proc/self/net/udp, opened once, and a buffer for it, so reading the
    /// drop count allocates nothing while streaming.
    proc_udp: Option<std::fs::File>,
    proc_buf: String,
    inode: u64,
}

impl StreamSocket {
    pub fn open(config: &ReceiveConfig) -> Result<StreamSocket> {
        let addr = SocketAddrV4::new(config.local_ip, config.port);
        let endpoint = UdpEndpoint::bind(
            addr,
            &UdpOptions {
                recv_buffer: Some(config.recv_buffer),
                send_buffer: None,
                reuse_address: false,
            },
        )?;
        // The kernel reports twice the usable size it books.
        let granted = endpoint.recv_buffer().unwrap_or(0) / 2;
        if granted < config.recv_buffer {
            tracing::warn!(
                "receive buffer is {granted} bytes, {} asked: frames will be lost at high rates. \
                 Raise the limit with `sysctl -w net.core.rmem_max={}` (or run as root, which forces it)",
                config.recv_buffer,
                config.recv_buffer
            );
        }
        if let Some(us) = config.busy_poll_us {
            endpoint.set_busy_poll(us)?;
        }
        if let Some(port) = config.source_port.filter(|&p| p != 0) {
            let camera = SocketAddrV4::new(config.source_ip, port);
            endpoint
                .socket()
                .connect(camera)
                .map_err(|source| Error::Socket {
                    op: "connect stream socket to the camera's source port",
                    addr: camera,
                    source,
                })?;
        }
        let port = endpoint.local_addr().port();
        let mut s = StreamSocket {
            endpoint,
            port,
            granted,
            timeout: Duration::ZERO,
            drops: (0, 0),
            proc_udp: std::fs::File::open("/proc/self/net/udp").ok(),
            proc_buf: String::with_capacity(256 << 10),
            inode: 0,
        };
        s.inode = socket_inode(&s.endpoint).unwrap_or(0);
        s.set_timeout(Duration::from_millis(10))?;
        Ok(s)
    }

    /// Sets SO_RCVTIMEO unless the current value is within 25% of `want`.
    pub fn set_timeout(&mut self, want: Duration) -> Result<()> {
        let want = want.max(Duration::from_micros(50));
        let cur = self.timeout;
        if cur >= want.mul_f32(0.75) && cur <= want.mul_f32(1.25) {
            return Ok(());
        }
        self.endpoint
            .socket()
            .set_read_timeout(Some(want))
            .map_err(|source| Error::Socket {
                op: "SO_RCVTIMEO",
                addr: SocketAddrV4::new([0, 0, 0, 0].into(), self.port),
                source,
            })?;
        self.timeout = want;
        Ok(())
    }

    /// Datagrams the kernel dropped at this socket (receive buffer full),
    /// from the `drops` column of /proc/self/net/udp for the socket's inode.
    /// Read at most every 250 ms; 0 if the file cannot be read.
    pub fn drops(&mut self) -> u64 {
        let now = crate::clock::now_ns();
        if self.drops.1 != 0 && now.saturating_sub(self.drops.1) < 250_000_000 {
            return self.drops.0;
        }
        let count = self.read_drops().unwrap_or(self.drops.0);
        self.drops = (count, now.max(1));
        self.drops.0
    }

    fn read_drops(&mut self) -> Option<u64> {
        use std::io::{Read, Seek};
        let f = self.proc_udp.as_mut()?;
        f.rewind().ok()?;
        self.proc_buf.clear();
        f.read_to_string(&mut self.proc_buf).ok()?;
        parse_udp_drops(&self.proc_buf, self.inode)
    }
}

/// The inode of `endpoint`'s socket, which names it in /proc/net/udp.
fn socket_inode(endpoint: &UdpEndpoint) -> Option<u64> {
    linerate_io::socket::inode(endpoint.socket())
}

/// The `drops` column (the last) of the /proc/net/udp line whose inode
/// column (the tenth) is `inode`.
fn parse_udp_drops(table: &str, inode: u64) -> Option<u64> {
    table.lines().skip(1).find_map(|line| {
        let mut cols = line.split_whitespace();
        let ino: u64 = cols.nth(9)?.parse().ok()?;
        if ino != inode {
            return None;
        }
        cols.last()?.parse().ok()
    })
}

#[cfg(test)]
mod tests {
    use super::parse_udp_drops;

    #[test]
    fn finds_the_drop_count_of_an_inode() {
        let table = "   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops\n\
  12: 0100007F:C350 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 4242 2 0000000000000000 17\n\
  13: 0100007F:C351 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 4343 2 0000000000000000 0\n";
        assert_eq!(parse_udp_drops(table, 4242), Some(17));
        assert_eq!(parse_udp_drops(table, 4343), Some(0));
        assert_eq!(parse_udp_drops(table, 1), None);
        assert_eq!(parse_udp_drops("garbage", 1), None);
    }
}
