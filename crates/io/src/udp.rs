//! Batched UDP: many datagrams per syscall, each gathered from two slices.

use std::collections::HashMap;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, UdpSocket};
use std::ops::Range;
use std::os::fd::AsRawFd;
use std::sync::Mutex;
use std::time::Duration;

use socket2::{Domain, Protocol, Socket, Type};

use crate::error::{Error, Result};
use crate::netdev::GsoEgress;
use crate::sockopt::{set_int_option, set_recv_buffer, set_send_buffer};

/// Most datagrams passed to one `sendmmsg`/`recvmmsg` (the kernel's UIO_MAXIOV bound).
pub const MAX_BATCH: usize = 1024;

/// Socket options chosen at bind time.
#[derive(Debug, Clone, Default)]
pub struct UdpOptions {
    /// Requested receive buffer (SO_RCVBUF) in bytes; the kernel caps it at
    /// `net.core.rmem_max` unless the process may use SO_RCVBUFFORCE.
    pub recv_buffer: Option<usize>,
    /// Requested send buffer (SO_SNDBUF) in bytes.
    pub send_buffer: Option<usize>,
    /// Set SO_REUSEADDR, so a restarted device can bind its port at once.
    pub reuse_address: bool,
}

/// A bound UDP socket with batched send and receive.
#[derive(Debug)]
pub struct UdpEndpoint {
    socket: UdpSocket,
    local: SocketAddr,
    gso: GsoPolicy,
    /// The address the socket is connected to, if any: sends there carry
    /// no address, so the kernel reuses the socket's cached route.
    peer: Option<SocketAddrV4>,
    /// Per destination: may [`UdpEndpoint::send_datagrams`] use GSO there?
    paths: Mutex<HashMap<Ipv4Addr, DestinationPath>>,
}

/// When [`UdpEndpoint::send_datagrams`] may hand the kernel UDP GSO
/// super-datagrams.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GsoPolicy {
    /// Where the egress interface cuts them into standard datagrams before
    /// the wire (a NIC); elsewhere (veth, loopback, bridges, tun, unknown
    /// devices) the datagrams are sent one by one, batched with sendmmsg.
    #[default]
    Auto,
    /// Never: one datagram per packet everywhere.
    Never,
}

/// What the endpoint decided for one destination.
#[derive(Debug, Clone)]
struct DestinationPath {
    egress: GsoEgress,
    /// GSO sends the kernel refused in a row (EIO, EINVAL, EOPNOTSUPP).
    refusals: u32,
}

/// GSO refusals in a row after which a destination is sent to one
/// datagram at a time: one refusal may be a passing state (a route
/// change), a run of them is a path that cannot do GSO.
const GSO_REFUSALS_TO_STOP: u32 = 8;
/// Most paths remembered; the table starts over when full.
const MAX_PATHS: usize = 4096;
/// Waits for room when the kernel reports a full queue (ENOBUFS, EAGAIN)
/// before a datagram is given up (and left to a resend).
const FULL_QUEUE_WAITS: u32 = 50;
/// One such wait.
const FULL_QUEUE_WAIT: Duration = Duration::from_micros(100);

/// Datagrams of one [`UdpEndpoint::send_datagrams`] call that did not
/// leave, and why.
#[derive(Debug)]
pub struct FailedSend {
    /// Their indices in the caller's slice.
    pub datagrams: Range<usize>,
    /// The error the kernel gave (EPERM from a packet filter, ENOBUFS or
    /// EAGAIN from a queue that stayed full, EHOSTUNREACH...).
    pub error: std::io::Error,
}

/// What became of the datagrams of one [`UdpEndpoint::send_datagrams`] call.
#[derive(Debug, Default)]
pub struct SendOutcome {
    /// Datagrams the kernel took.
    pub sent: usize,
    /// Datagrams that did not leave; every other one did.
    pub failed: Vec<FailedSend>,
    /// Datagrams that went inside GSO super-datagrams.
    pub gso_datagrams: usize,
}

impl SendOutcome {
    /// Datagrams that did not leave.
    pub fn failed_count(&self) -> usize {
        self.failed.iter().map(|f| f.datagrams.len()).sum()
    }

    /// Adds the outcome of sending a part that starts at datagram `offset`.
    fn merge(&mut self, part: SendOutcome, offset: usize) {
        self.sent += part.sent;
        self.gso_datagrams += part.gso_datagrams;
        self.failed
            .extend(part.failed.into_iter().map(|f| FailedSend {
                datagrams: f.datagrams.start + offset..f.datagrams.end + offset,
                error: f.error,
            }));
    }
}

fn sock_err(op: &'static str, addr: SocketAddr) -> impl FnOnce(std::io::Error) -> Error {
    move |source| Error::Socket { op, addr, source }
}

impl UdpEndpoint {
    /// Binds to `addr` with `options`. As root, buffer sizes are forced past
    /// rmem_max/wmem_max; otherwise the kernel's cap applies and
    /// [`UdpEndpoint::recv_buffer`] tells what was granted.
    pub fn bind(addr: SocketAddrV4, options: &UdpOptions) -> Result<UdpEndpoint> {
        let sa = SocketAddr::V4(addr);
        let socket = Socket::new(Domain::IPV4, Type::DGRAM, Some(Protocol::UDP))
            .map_err(sock_err("socket", sa))?;
        if options.reuse_address {
            socket
                .set_reuse_address(true)
                .map_err(sock_err("SO_REUSEADDR", sa))?;
        }
        if let Some(n) = options.recv_buffer {
            set_recv_buffer(socket.as_raw_fd(), n).map_err(sock_err("SO_RCVBUF", sa))?;
        }
        if let Some(n) = options.send_buffer {
            set_send_buffer(socket.as_raw_fd(), n).map_err(sock_err("SO_SNDBUF", sa))?;
        }
        socket.bind(&sa.into()).map_err(sock_err("bind", sa))?;
        let socket: UdpSocket = socket.into();
        let local = socket.local_addr().map_err(sock_err("getsockname", sa))?;
        Ok(UdpEndpoint {
            socket,
            local,
            gso: GsoPolicy::Auto,
            peer: None,
            paths: Mutex::new(HashMap::new()),
        })
    }

    /// The bound address (with the port the kernel chose, if 0 was asked).
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    /// The receive buffer the kernel granted, in bytes (it reports double the
    /// usable size, as the kernel counts bookkeeping overhead).
    pub fn recv_buffer(&self) -> Result<usize> {
        socket2::SockRef::from(&self.socket)
            .recv_buffer_size()
            .map_err(sock_err("getsockopt SO_RCVBUF", self.local))
    }

    /// The underlying socket, for options this type does not wrap.
    pub fn socket(&self) -> &UdpSocket {
        &self.socket
    }

    /// Sets SO_BUSY_POLL: a receive on an empty queue spins in the driver
    /// for up to `us` microseconds instead of sleeping (NAPI devices only;
    /// raising it needs CAP_NET_ADMIN).
    pub fn set_busy_poll(&self, us: u32) -> Result<()> {
        set_int_option(
            self.socket.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_BUSY_POLL,
            us as usize,
        )
        .map_err(sock_err(
            "SO_BUSY_POLL (raising it needs CAP_NET_ADMIN)",
            self.local,
        ))
    }

    /// Attaches a socket filter that accepts nothing, so the kernel drops
    /// every datagram on arrival. For a socket that only holds a port (so
    /// the kernel sends no ICMP port-unreachable) while a packet ring reads
    /// the traffic.
    pub fn discard_all(&self) -> Result<()> {
        let mut program = [libc::sock_filter {
            code: 0x06, // BPF_RET | BPF_K: accept 0 bytes
            jt: 0,
            jf: 0,
            k: 0,
        }];
        let fprog = libc::sock_fprog {
            len: 1,
            filter: program.as_mut_ptr(),
        };
        // SAFETY: fprog points at a live one-instruction program for the call.
        let r = unsafe {
            libc::setsockopt(
                self.socket.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_ATTACH_FILTER,
                (&fprog as *const libc::sock_fprog).cast(),
                std::mem::size_of::<libc::sock_fprog>() as libc::socklen_t,
            )
        };
        if r != 0 {
            return Err(sock_err("SO_ATTACH_FILTER", self.local)(
                std::io::Error::last_os_error(),
            ));
        }
        Ok(())
    }

    /// Sends each `(head, data)` pair as one datagram to `dest`, in as few
    /// `sendmmsg` calls as possible. Returns the number of datagrams sent,
    /// which is less than asked only if the socket is non-blocking and full.
    /// The first error ends the call; [`UdpEndpoint::send_datagrams`] goes
    /// on past errors instead.
    pub fn send_gather(&self, dest: SocketAddrV4, datagrams: &[(&[u8], &[u8])]) -> Result<usize> {
        if datagrams.len() > MAX_BATCH {
            return Err(Error::BatchTooLarge {
                len: datagrams.len(),
                max: MAX_BATCH,
            });
        }
        let plan: Vec<Message> = (0..datagrams.len())
            .map(|i| Message {
                datagrams: i..i + 1,
                segment: None,
            })
            .collect();
        let mut batch = Batch::new(self.name_for(dest), datagrams, &plan);
        // SAFETY: the batch points into itself and the caller's slices.
        unsafe { send_all(&self.socket, &mut batch.msgs, dest, "sendmmsg") }
    }

    /// Connects the socket to `peer`, for a sender that sends mostly there
    /// (a camera to its stream destination): datagrams to it then go
    /// without an address, and the kernel uses the route it cached at
    /// connect instead of looking one up per datagram. Sends elsewhere
    /// still work. Only datagrams from `peer` are received afterwards, and
    /// an ICMP port unreachable from it fails the next send (ECONNREFUSED).
    pub fn connect(&mut self, peer: SocketAddrV4) -> Result<()> {
        self.socket
            .connect(peer)
            .map_err(sock_err("connect", SocketAddr::V4(peer)))?;
        self.peer = Some(peer);
        Ok(())
    }

    /// The address to put in messages to `dest`: none for the connected peer.
    fn name_for(&self, dest: SocketAddrV4) -> Option<SocketAddrV4> {
        (self.peer != Some(dest)).then_some(dest)
    }

    /// Receives up to `bufs.len()` datagrams in one `recvmmsg` call, waiting
    /// for at least one. Writes each datagram's length and source into
    /// `meta` and returns how many arrived. A datagram longer than its buffer
    /// is truncated, and reported with `truncated` set.
    pub fn recv_batch(&self, bufs: &mut [&mut [u8]], meta: &mut [RecvMeta]) -> Result<usize> {
        let n = bufs.len().min(meta.len());
        if n > MAX_BATCH {
            return Err(Error::BatchTooLarge {
                len: n,
                max: MAX_BATCH,
            });
        }
        let mut iovecs: Vec<libc::iovec> = bufs[..n]
            .iter_mut()
            .map(|b| libc::iovec {
                iov_base: b.as_mut_ptr().cast(),
                iov_len: b.len(),
            })
            .collect();
        // SAFETY: zeroed sockaddr_in values are valid out-parameters.
        let mut addrs: Vec<libc::sockaddr_in> = vec![unsafe { std::mem::zeroed() }; n];
        let mut msgs: Vec<libc::mmsghdr> = iovecs
            .iter_mut()
            .zip(addrs.iter_mut())
            .map(|(iov, addr)| {
                // SAFETY: see send_gather.
                let mut hdr: libc::msghdr = unsafe { std::mem::zeroed() };
                hdr.msg_name = (addr as *mut libc::sockaddr_in).cast();
                hdr.msg_namelen = std::mem::size_of::<libc::sockaddr_in>() as u32;
                hdr.msg_iov = iov;
                hdr.msg_iovlen = 1;
                libc::mmsghdr {
                    msg_hdr: hdr,
                    msg_len: 0,
                }
            })
            .collect();
        let got = loop {
            // SAFETY: msgs/iovecs/addrs point into live buffers for the call.
            let r = unsafe {
                libc::recvmmsg(
                    self.socket.as_raw_fd(),
                    msgs.as_mut_ptr(),
                    n as u32,
                    libc::MSG_WAITFORONE,
                    std::ptr::null_mut(),
                )
            };
            if r >= 0 {
                break r as usize;
            }
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(sock_err("recvmmsg", self.local)(e));
            }
        };
        for i in 0..got {
            let a = &addrs[i];
            meta[i] = RecvMeta {
                len: msgs[i].msg_len as usize,
                source: SocketAddrV4::new(
                    u32::from_be(a.sin_addr.s_addr).into(),
                    u16::from_be(a.sin_port),
                ),
                truncated: msgs[i].msg_hdr.msg_flags & libc::MSG_TRUNC != 0,
            };
        }
        Ok(got)
    }
}

impl UdpEndpoint {
    /// Sends datagrams of exactly `segment` bytes each (`head` + `data`)
    /// with UDP generic segmentation offload: several datagrams travel
    /// through the stack as one, and are cut into `segment`-byte datagrams
    /// where the egress device does it. Several such super-datagrams go in
    /// one `sendmmsg`. Nothing is copied in user space: the iovecs point at
    /// the caller's slices.
    ///
    /// No check is made of the egress: on veth, loopback or a bridge the
    /// super-datagrams travel whole, and a packet socket on the path sees
    /// them so. Senders that put traffic on a wire use
    /// [`UdpEndpoint::send_datagrams`], which uses GSO only where the egress
    /// segments.
    ///
    /// Only the last datagram may be shorter than `segment`. Returns the
    /// number of datagrams sent; the first error ends the call.
    pub fn send_gso(
        &self,
        dest: SocketAddrV4,
        segment: usize,
        datagrams: &[(&[u8], &[u8])],
    ) -> Result<usize> {
        if segment == 0 || segment > MAX_GSO_BYTES {
            return Err(Error::GsoSegment { segment });
        }
        for (i, (h, d)) in datagrams.iter().enumerate() {
            let len = h.len() + d.len();
            if len > segment || (len != segment && i + 1 != datagrams.len()) {
                return Err(Error::GsoSegment { segment });
            }
        }
        let per_message = gso_datagrams_per_message(segment);
        let plan: Vec<Message> = (0..datagrams.len())
            .step_by(per_message)
            .map(|start| Message {
                datagrams: start..(start + per_message).min(datagrams.len()),
                segment: Some(segment as u16),
            })
            .collect();
        if plan.len() > MAX_BATCH {
            return Err(Error::BatchTooLarge {
                len: plan.len(),
                max: MAX_BATCH,
            });
        }
        let mut batch = Batch::new(self.name_for(dest), datagrams, &plan);
        // SAFETY: the batch points into itself and the caller's slices.
        let sent_msgs =
            unsafe { send_all(&self.socket, &mut batch.msgs, dest, "sendmmsg (UDP GSO)")? };
        Ok(plan.iter().take(sent_msgs).map(|m| m.datagrams.len()).sum())
    }

    /// Sets when [`UdpEndpoint::send_datagrams`] may use UDP GSO.
    pub fn set_gso_policy(&mut self, policy: GsoPolicy) {
        self.gso = policy;
    }

    /// When [`UdpEndpoint::send_datagrams`] may use UDP GSO.
    pub fn gso_policy(&self) -> GsoPolicy {
        self.gso
    }

    /// What [`UdpEndpoint::send_datagrams`] does towards `dest`: whether
    /// GSO super-datagrams would be cut into standard datagrams before the
    /// wire there, and why. Decided once per destination (see
    /// [`UdpEndpoint::redecide_gso`]).
    pub fn gso_egress(&self, dest: Ipv4Addr) -> GsoEgress {
        let mut paths = self.paths.lock().unwrap_or_else(|p| p.into_inner());
        if paths.len() >= MAX_PATHS && !paths.contains_key(&dest) {
            paths.clear();
        }
        paths
            .entry(dest)
            .or_insert_with(|| DestinationPath {
                egress: GsoEgress::towards(dest),
                refusals: 0,
            })
            .egress
            .clone()
    }

    /// Forgets what was decided for `dest` and decides again (the route
    /// may have changed, e.g. when a camera's stream destination is set).
    pub fn redecide_gso(&self, dest: Ipv4Addr) -> GsoEgress {
        self.paths
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&dest);
        self.gso_egress(dest)
    }

    /// Whether GSO may be used towards `dest` now.
    fn gso_allowed(&self, dest: Ipv4Addr) -> bool {
        self.gso == GsoPolicy::Auto && self.gso_egress(dest).segmented_before_wire
    }

    /// Counts a GSO send the kernel refused (or, with `refused` false,
    /// took); after [`GSO_REFUSALS_TO_STOP`] refusals in a row the
    /// destination gets standard datagrams only.
    fn note_gso_result(&self, dest: Ipv4Addr, refused: Option<&std::io::Error>) {
        let mut paths = self.paths.lock().unwrap_or_else(|p| p.into_inner());
        let Some(path) = paths.get_mut(&dest) else {
            return;
        };
        match refused {
            None => path.refusals = 0,
            Some(e) => {
                path.refusals += 1;
                if path.refusals >= GSO_REFUSALS_TO_STOP && path.egress.segmented_before_wire {
                    path.egress.segmented_before_wire = false;
                    path.egress.reason = format!(
                        "the kernel refused {} UDP GSO sends in a row (last: {e})",
                        path.refusals
                    );
                }
            }
        }
    }

    /// Sends each `(head, data)` pair as one datagram to `dest`, as the
    /// wire must carry them, in as few system calls as it can: one
    /// `sendmmsg` for the batch, with runs of equal-sized datagrams
    /// (closed by at most one shorter) packed into UDP GSO super-datagrams
    /// where the egress segments them before the wire (see
    /// [`UdpEndpoint::gso_egress`] and [`GsoPolicy`]), one message per
    /// datagram elsewhere.
    ///
    /// An error does not end the call: a message the kernel would not take
    /// (EPERM from a packet filter, EHOSTUNREACH...) is reported in the
    /// outcome and the rest are sent; a full device queue (ENOBUFS) is
    /// waited on, a few milliseconds per call at most; a GSO message the
    /// kernel refuses (EIO, EINVAL) is sent again as standard datagrams. On
    /// a non-blocking socket, EAGAIN (send buffer full) ends the call, and
    /// the rest are reported failed with it.
    pub fn send_datagrams(&self, dest: SocketAddrV4, datagrams: &[(&[u8], &[u8])]) -> SendOutcome {
        let gso = datagrams.len() > 1 && self.gso_allowed(*dest.ip());
        let mut outcome = SendOutcome::default();
        let mut waits = 0;
        for (k, chunk) in datagrams.chunks(MAX_BATCH).enumerate() {
            let plan = plan_messages(chunk, gso);
            let mut part = SendOutcome::default();
            let full = self.send_plan(dest, chunk, &plan, &mut part, &mut waits);
            outcome.merge(part, k * MAX_BATCH);
            if full {
                let start = (k * MAX_BATCH + chunk.len()).min(datagrams.len());
                if start < datagrams.len() {
                    outcome.failed.push(FailedSend {
                        datagrams: start..datagrams.len(),
                        error: std::io::Error::from_raw_os_error(libc::EAGAIN),
                    });
                }
                break;
            }
        }
        outcome
    }

    /// Sends the messages of `plan`, past errors, into `outcome`; `waits`
    /// counts the waits for a full queue in this call. Returns true when a
    /// non-blocking socket was full (EAGAIN): the remaining messages are
    /// then reported failed and the call should end.
    fn send_plan(
        &self,
        dest: SocketAddrV4,
        datagrams: &[(&[u8], &[u8])],
        plan: &[Message],
        outcome: &mut SendOutcome,
        waits: &mut u32,
    ) -> bool {
        let mut batch = Batch::new(self.name_for(dest), datagrams, plan);
        let mut next = 0;
        while next < plan.len() {
            let rest = &mut batch.msgs[next..];
            // SAFETY: the batch points into itself and the caller's slices.
            let n = unsafe {
                libc::sendmmsg(
                    self.socket.as_raw_fd(),
                    rest.as_mut_ptr(),
                    rest.len() as u32,
                    0,
                )
            };
            if n > 0 {
                for m in &plan[next..next + n as usize] {
                    outcome.sent += m.datagrams.len();
                    if m.segment.is_some() {
                        outcome.gso_datagrams += m.datagrams.len();
                        self.note_gso_result(*dest.ip(), None);
                    }
                }
                next += n as usize;
                continue;
            }
            let error = std::io::Error::last_os_error();
            let m = &plan[next];
            match error.raw_os_error() {
                Some(libc::EINTR) => continue,
                Some(libc::EAGAIN) => {
                    outcome.failed.push(FailedSend {
                        datagrams: m.datagrams.start..datagrams.len(),
                        error,
                    });
                    return true;
                }
                Some(libc::ENOBUFS | libc::ENOMEM) if *waits < FULL_QUEUE_WAITS => {
                    *waits += 1;
                    std::thread::sleep(FULL_QUEUE_WAIT);
                    continue;
                }
                Some(libc::EIO | libc::EINVAL | libc::EOPNOTSUPP) if m.segment.is_some() => {
                    // The path cannot segment this: send it as it must go.
                    self.note_gso_result(*dest.ip(), Some(&error));
                    let one_by_one = plan_messages(&datagrams[m.datagrams.clone()], false);
                    let mut part = SendOutcome::default();
                    let full = self.send_plan(
                        dest,
                        &datagrams[m.datagrams.clone()],
                        &one_by_one,
                        &mut part,
                        waits,
                    );
                    outcome.merge(part, m.datagrams.start);
                    if full {
                        let rest = m.datagrams.end..datagrams.len();
                        if !rest.is_empty() {
                            outcome.failed.push(FailedSend {
                                datagrams: rest,
                                error: std::io::Error::from_raw_os_error(libc::EAGAIN),
                            });
                        }
                        return true;
                    }
                }
                _ => outcome.failed.push(FailedSend {
                    datagrams: m.datagrams.clone(),
                    error,
                }),
            }
            next += 1;
        }
        false
    }
}

/// One `sendmmsg` message: a range of the caller's datagrams, sent as one
/// datagram or (with a segment size) as one GSO super-datagram.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Message {
    datagrams: Range<usize>,
    segment: Option<u16>,
}

/// Datagrams of `segment` bytes one GSO super-datagram may carry: the
/// kernel caps both the segment count and the total size.
fn gso_datagrams_per_message(segment: usize) -> usize {
    (MAX_GSO_BYTES / segment.max(1)).clamp(1, MAX_GSO_SEGMENTS)
}

/// Groups `datagrams` into messages: with `gso`, each run of two or more
/// datagrams of one size (closed by at most one shorter datagram) becomes
/// GSO super-datagrams; everything else goes one datagram per message.
fn plan_messages(datagrams: &[(&[u8], &[u8])], gso: bool) -> Vec<Message> {
    let len = |i: usize| datagrams[i].0.len() + datagrams[i].1.len();
    let mut plan = Vec::new();
    let mut i = 0;
    while i < datagrams.len() {
        let segment = len(i);
        let mut end = i + 1;
        if gso && segment > 0 && segment <= MAX_GSO_BYTES {
            let most = gso_datagrams_per_message(segment);
            while end < datagrams.len() && end - i < most && len(end) == segment {
                end += 1;
            }
            if end < datagrams.len() && end - i < most && end - i >= 2 && len(end) < segment {
                end += 1;
            }
        }
        plan.push(Message {
            datagrams: i..end,
            segment: (end - i >= 2).then_some(segment as u16),
        });
        i = end;
    }
    plan
}

/// The `sendmmsg` messages of a plan: the destination (none on a
/// connected socket), the iovecs and the UDP_SEGMENT control messages,
/// which the headers point into.
struct Batch {
    _addr: Box<libc::sockaddr_in>,
    _iovecs: Vec<libc::iovec>,
    _controls: Vec<u64>,
    msgs: Vec<libc::mmsghdr>,
}

impl Batch {
    fn new(dest: Option<SocketAddrV4>, datagrams: &[(&[u8], &[u8])], plan: &[Message]) -> Batch {
        let mut addr = Box::new(sockaddr_in(
            dest.unwrap_or(SocketAddrV4::new(Ipv4Addr::UNSPECIFIED, 0)),
        ));
        let mut iovecs = Vec::with_capacity(datagrams.len() * 2);
        let mut spans = Vec::with_capacity(plan.len());
        for m in plan {
            let start = iovecs.len();
            for (h, d) in &datagrams[m.datagrams.clone()] {
                for s in [*h, *d] {
                    if !s.is_empty() {
                        iovecs.push(libc::iovec {
                            iov_base: s.as_ptr() as *mut libc::c_void,
                            iov_len: s.len(),
                        });
                    }
                }
            }
            spans.push(start..iovecs.len());
        }
        let space = cmsg_space(std::mem::size_of::<u16>());
        let words = space.div_ceil(8);
        let mut controls = vec![0u64; words * plan.len()];
        let mut msgs = Vec::with_capacity(plan.len());
        for (k, (m, span)) in plan.iter().zip(spans).enumerate() {
            // SAFETY: an all-zero msghdr is a valid empty value; every
            // pointer set here points into `addr`, `iovecs` or `controls`,
            // whose heap storage does not move while the Batch lives.
            let mut hdr: libc::msghdr = unsafe { std::mem::zeroed() };
            if dest.is_some() {
                hdr.msg_name = (&mut *addr as *mut libc::sockaddr_in).cast();
                hdr.msg_namelen = std::mem::size_of::<libc::sockaddr_in>() as u32;
            }
            hdr.msg_iov = iovecs[span.clone()].as_mut_ptr();
            hdr.msg_iovlen = span.len();
            if let Some(segment) = m.segment {
                hdr.msg_control = controls[k * words..].as_mut_ptr().cast();
                hdr.msg_controllen = space;
                // SAFETY: msg_control points to a zeroed, 8-byte aligned
                // buffer of CMSG_SPACE(2) bytes, so CMSG_FIRSTHDR and
                // CMSG_DATA stay inside it.
                unsafe {
                    let c = libc::CMSG_FIRSTHDR(&hdr);
                    (*c).cmsg_level = libc::SOL_UDP;
                    (*c).cmsg_type = libc::UDP_SEGMENT;
                    (*c).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<u16>() as u32) as usize;
                    std::ptr::write_unaligned(libc::CMSG_DATA(c).cast::<u16>(), segment);
                }
            }
            msgs.push(libc::mmsghdr {
                msg_hdr: hdr,
                msg_len: 0,
            });
        }
        Batch {
            _addr: addr,
            _iovecs: iovecs,
            _controls: controls,
            msgs,
        }
    }
}

/// Calls `sendmmsg` until every message is sent, retrying on EINTR and
/// stopping early only when a non-blocking socket is full after some went.
/// Returns the number of messages sent.
///
/// # Safety
/// Every `mmsghdr` must point to a valid name, iovecs and (if any) control
/// buffer that stay alive for the duration of the call.
unsafe fn send_all(
    socket: &UdpSocket,
    msgs: &mut [libc::mmsghdr],
    dest: SocketAddrV4,
    op: &'static str,
) -> Result<usize> {
    let mut sent = 0usize;
    while sent < msgs.len() {
        let rest = &mut msgs[sent..];
        // SAFETY: guaranteed by the caller, see above.
        let n =
            unsafe { libc::sendmmsg(socket.as_raw_fd(), rest.as_mut_ptr(), rest.len() as u32, 0) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            match e.kind() {
                std::io::ErrorKind::Interrupted => continue,
                std::io::ErrorKind::WouldBlock if sent > 0 => break,
                _ => return Err(sock_err(op, SocketAddr::V4(dest))(e)),
            }
        }
        sent += n as usize;
    }
    Ok(sent)
}

/// Largest UDP payload one GSO send may carry in total.
pub const MAX_GSO_BYTES: usize = 65_507;
/// Most segments the kernel accepts in one UDP GSO send (UDP_MAX_SEGMENTS).
pub const MAX_GSO_SEGMENTS: usize = 64;

/// CMSG_SPACE for a payload of `len` bytes.
fn cmsg_space(len: usize) -> usize {
    // SAFETY: CMSG_SPACE is a pure size computation.
    unsafe { libc::CMSG_SPACE(len as u32) as usize }
}

/// What `recv_batch` learned about one datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecvMeta {
    /// Bytes written into the buffer.
    pub len: usize,
    /// Sender address.
    pub source: SocketAddrV4,
    /// The datagram did not fit its buffer and was cut.
    pub truncated: bool,
}

impl Default for RecvMeta {
    fn default() -> Self {
        RecvMeta {
            len: 0,
            source: SocketAddrV4::new([0, 0, 0, 0].into(), 0),
            truncated: false,
        }
    }
}

fn sockaddr_in(a: SocketAddrV4) -> libc::sockaddr_in {
    libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: a.port().to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from(*a.ip()).to_be(),
        },
        sin_zero: [0; 8],
    }
}

impl UdpEndpoint {
    /// A second socket on this endpoint's address (which must have been
    /// bound with `reuse_address`), connected to `peer`: from now on the
    /// kernel delivers `peer`'s datagrams to it instead of the endpoint,
    /// and also the ICMP errors (port or host unreachable) that datagrams
    /// sent from the endpoint to `peer` provoke, which then show as the
    /// error of its next `recv` (ECONNREFUSED, EHOSTUNREACH, ...). An
    /// unconnected socket never hears of those errors, and one that asks
    /// for them (IP_RECVERR) fails its next send, to whatever destination,
    /// with them; this keeps each peer's errors to that peer. Non-blocking.
    pub fn connected_peer(&self, peer: SocketAddrV4) -> Result<UdpSocket> {
        let SocketAddr::V4(local) = self.local else {
            return Err(Error::Socket {
                op: "connected_peer",
                addr: self.local,
                source: std::io::ErrorKind::InvalidInput.into(),
            });
        };
        let socket = Socket::new(Domain::IPV4, Type::DGRAM, Some(Protocol::UDP))
            .map_err(sock_err("socket", self.local))?;
        socket
            .set_reuse_address(true)
            .map_err(sock_err("SO_REUSEADDR", self.local))?;
        socket
            .bind(&SocketAddr::V4(local).into())
            .map_err(sock_err("bind", self.local))?;
        socket
            .connect(&SocketAddr::V4(peer).into())
            .map_err(sock_err("connect", SocketAddr::V4(peer)))?;
        socket
            .set_nonblocking(true)
            .map_err(sock_err("O_NONBLOCK", self.local))?;
        Ok(socket.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sizes(plan: &[Message]) -> Vec<(Range<usize>, Option<u16>)> {
        plan.iter()
            .map(|m| (m.datagrams.clone(), m.segment))
            .collect()
    }

    #[test]
    fn runs_of_one_size_become_super_datagrams_only_with_gso() {
        let leader = [0u8; 44];
        let data = [0u8; 8000];
        let last = [0u8; 100];
        let trailer = [0u8; 16];
        // Leader, 10 full packets, a short last packet, the trailer.
        let mut d: Vec<(&[u8], &[u8])> = vec![(&leader[..], &[][..])];
        d.extend(std::iter::repeat_n((&data[..20], &data[20..]), 10));
        d.push((&last[..20], &last[20..]));
        d.push((&trailer[..], &[][..]));
        // 65507 / 8000: eight segments per super-datagram at most.
        assert_eq!(
            sizes(&plan_messages(&d, true)),
            vec![
                (0..1, None),
                (1..9, Some(8000)),
                (9..12, Some(8000)),
                (12..13, None)
            ]
        );
        let plain = plan_messages(&d, false);
        assert_eq!(plain.len(), d.len());
        assert!(plain
            .iter()
            .all(|m| m.segment.is_none() && m.datagrams.len() == 1));
    }

    #[test]
    fn a_peers_datagrams_and_errors_reach_its_connected_socket_only() {
        let ep = UdpEndpoint::bind(
            SocketAddrV4::new([127, 0, 0, 1].into(), 0),
            &UdpOptions {
                reuse_address: true,
                ..UdpOptions::default()
            },
        )
        .expect("bind");
        ep.socket().set_nonblocking(true).expect("nonblocking");
        let SocketAddr::V4(server) = ep.local_addr() else {
            panic!("IPv4")
        };
        let peer = UdpSocket::bind("127.0.0.1:0").expect("bind");
        let SocketAddr::V4(peer_addr) = peer.local_addr().expect("addr") else {
            panic!("IPv4")
        };
        let other = UdpSocket::bind("127.0.0.1:0").expect("bind");
        let conn = ep.connected_peer(peer_addr).expect("connected socket");
        // The peer's datagram reaches the connected socket, another
        // sender's the endpoint.
        peer.send_to(b"renew", server).expect("send");
        other.send_to(b"hello", server).expect("send");
        std::thread::sleep(std::time::Duration::from_millis(50));
        let mut buf = [0u8; 16];
        assert_eq!(conn.recv(&mut buf).ok(), Some(5));
        assert_eq!(&buf[..5], b"renew");
        let (n, from) = ep.socket().recv_from(&mut buf).expect("endpoint");
        assert_eq!(
            (&buf[..n], from),
            (&b"hello"[..], other.local_addr().expect("a"))
        );
        // The peer goes away; the endpoint sends to it: the port
        // unreachable comes back on the connected socket, and the
        // endpoint's next send elsewhere is not failed by it.
        drop(peer);
        ep.socket().send_to(b"frame", peer_addr).expect("send");
        std::thread::sleep(std::time::Duration::from_millis(50));
        let err = conn.recv(&mut buf).expect_err("refused");
        assert_eq!(err.raw_os_error(), Some(libc::ECONNREFUSED));
        ep.socket()
            .send_to(b"frame", other.local_addr().expect("a"))
            .expect("the endpoint knows nothing of the error");
    }
}
