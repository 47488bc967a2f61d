//! The UDP socket the `copy` and `mmsg` backends share: buffer sizing with a
//! clear warning, busy polling, and a receive timeout that is only changed
//! when it matters (each change is a syscall).

use std::net::SocketAddrV4;
use std::os::fd::AsRawFd;
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
            set_busy_poll(&endpoint, us)?;
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
        };
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

    /// Datagrams the kernel dropped for want of buffer space (SO_RXQ_OVFL
    /// is per-message; /proc has the per-socket total, read by metrics).
    pub fn drops(&self) -> u64 {
        0
    }
}

fn set_busy_poll(endpoint: &UdpEndpoint, us: u32) -> Result<()> {
    let v = libc::c_int::try_from(us).unwrap_or(libc::c_int::MAX);
    // SAFETY: passes a live c_int and its size.
    let r = unsafe {
        libc::setsockopt(
            endpoint.socket().as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_BUSY_POLL,
            (&v as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if r != 0 {
        return Err(Error::BadSetting {
            what: "busy poll",
            value: format!("{us} µs"),
            why: format!(
                "SO_BUSY_POLL refused: {} (raising it needs CAP_NET_ADMIN)",
                std::io::Error::last_os_error()
            ),
        });
    }
    Ok(())
}
