//! The GVCP control connection: one command in flight, retries and pending
//! acks (from `linerate_gev::client`), control privilege held for the life
//! of the connection, and a heartbeat thread that notices when control is lost.
//!
//! A camera gives control away when its heartbeat timeout passes without a
//! command from the controlling host, or when an application with more
//! privilege takes it. Both make every later write fail, so the heartbeat
//! thread checks the privilege register and records the loss; the stream and
//! the caller see it as [`Error::ControlLost`] instead of silent timeouts.

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use linerate_gev::client::{
    Heartbeat, RequestIds, Transaction, TransactionConfig, TransactionPoll,
};
use linerate_gev::device::registers::bootstrap::{self, ccp};
use linerate_wire::gvcp::{self, Ack, AckRepr, Command, CommandRepr, PacketResend, RegisterWrite};

use crate::clock::now_ns;
use crate::error::{Error, Interference, RegisterChange, Result, Shown};

/// How a control connection behaves.
#[derive(Debug, Clone)]
pub struct ControlConfig {
    /// Local address to send from; `None` lets the routing table choose.
    pub local: Option<Ipv4Addr>,
    /// How long to wait for each ack before resending the command.
    pub ack_timeout: Duration,
    /// Sends per command before giving up.
    pub attempts: u32,
    /// Heartbeat timeout to program into the camera, in milliseconds: how
    /// long it keeps our control after our last command.
    pub heartbeat_timeout_ms: u32,
    /// Ask for exclusive access (no other host may even read) instead of
    /// control access.
    pub exclusive: bool,
}

impl Default for ControlConfig {
    /// 200 ms ack timeout, 3 attempts (Aravis: 500 ms, 3), 3 s heartbeat
    /// timeout (the standard's default), control access.
    fn default() -> Self {
        ControlConfig {
            local: None,
            ack_timeout: Duration::from_millis(200),
            attempts: 3,
            heartbeat_timeout_ms: 3000,
            exclusive: false,
        }
    }
}

/// The socket, request ids and heartbeat timing, used under one lock so
/// only one command is ever in flight.
#[derive(Debug)]
struct Channel {
    socket: UdpSocket,
    device: SocketAddrV4,
    ids: RequestIds,
    config: TransactionConfig,
    heartbeat: Heartbeat,
    buf: Box<[u8; 2048]>,
    /// Every request id this channel has sent (one bit each), to tell the
    /// acks of our own commands, late ones included, from others'.
    issued: Box<[u64; 1024]>,
    /// Successful write acks for ids we never sent, not yet reported.
    unrequested: Vec<Interference>,
}

impl Channel {
    fn transact(&mut self, command: Command) -> Result<AckRepr> {
        let device = self.device;
        let gvcp_err = |source| Error::Gvcp { device, source };
        let now = now_ns();
        let (mut t, datagram) =
            Transaction::start(command, &mut self.ids, self.config, now).map_err(gvcp_err)?;
        if let Some(id) = datagram.get(6..8) {
            let id = usize::from(u16::from_be_bytes([id[0], id[1]]));
            self.issued[id / 64] |= 1 << (id % 64);
        }
        self.send(&datagram)?;
        loop {
            let now = now_ns();
            match t.poll_transmit(now) {
                TransactionPoll::Done(result) => return result.map_err(gvcp_err),
                TransactionPoll::Resend(datagram) => self.send(&datagram)?,
                TransactionPoll::WaitUntil(deadline) => {
                    let wait = Duration::from_nanos(deadline.saturating_sub(now).max(100_000));
                    self.socket
                        .set_read_timeout(Some(wait))
                        .map_err(|source| Error::Socket {
                            op: "SO_RCVTIMEO",
                            addr: device,
                            source,
                        })?;
                    match self.socket.recv_from(&mut self.buf[..]) {
                        Ok((n, SocketAddr::V4(from))) if *from.ip() == *device.ip() => {
                            if let Some(d) = self.buf.get(..n) {
                                if let Some(i) = unrequested_write(d, &self.issued) {
                                    if !self.unrequested.contains(&i) {
                                        self.unrequested.push(i);
                                    }
                                }
                                t.handle_datagram(d, now_ns());
                            }
                        }
                        Ok(_) => {}
                        Err(e)
                            if matches!(
                                e.kind(),
                                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                            ) => {}
                        Err(source) => {
                            return Err(Error::Socket {
                                op: "recv GVCP ack",
                                addr: device,
                                source,
                            })
                        }
                    }
                }
            }
        }
    }

    fn send(&mut self, datagram: &[u8]) -> Result<()> {
        self.socket
            .send_to(datagram, self.device)
            .map_err(|source| Error::Socket {
                op: "send GVCP command",
                addr: self.device,
                source,
            })?;
        self.heartbeat.on_sent(now_ns());
        Ok(())
    }
}

/// Why the connection is no longer usable.
#[derive(Debug, Clone)]
enum Lost {
    /// Control itself is gone (heartbeat refused, unanswered, or CCP cleared).
    Control(String),
    /// Control is still ours, but someone else wrote to the camera.
    Interference(Vec<Interference>),
}

/// A register this host set and expects to keep its value.
#[derive(Debug, Clone, Copy)]
struct Watched {
    address: u32,
    expected: u32,
    /// The bits that must keep their value (others, e.g. SCP's interface
    /// index and direction bits, are the camera's to report).
    mask: u32,
    name: &'static str,
    meaning: &'static str,
    shown_as: Shown,
}

/// A successful write ack whose request id this channel never sent.
fn unrequested_write(datagram: &[u8], issued: &[u64; 1024]) -> Option<Interference> {
    let ack = gvcp::AckPacket::new_checked(datagram)
        .and_then(|p| AckRepr::parse(&p))
        .ok()?;
    let id = usize::from(ack.ack_id);
    if issued[id / 64] & (1 << (id % 64)) != 0 || ack.status != linerate_wire::Status::SUCCESS {
        return None;
    }
    let name = match ack.ack {
        Ack::WriteReg { .. } => "WRITEREG_ACK",
        Ack::WriteMem { .. } => "WRITEMEM_ACK",
        _ => return None,
    };
    Some(Interference::UnrequestedWrite {
        ack: name,
        request_id: ack.ack_id,
    })
}

#[derive(Debug)]
struct Shared {
    channel: Mutex<Channel>,
    lost: Mutex<Option<Lost>>,
    watched: Mutex<Vec<Watched>>,
    stop: AtomicBool,
    device: SocketAddrV4,
    privilege: u32,
}

impl Shared {
    fn channel(&self) -> MutexGuard<'_, Channel> {
        // A panic while holding the lock leaves the channel usable.
        self.channel.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records why the connection is unusable; interference found later
    /// adds to what was found before, and lost control overrides it.
    fn set_lost(&self, why: Lost) {
        let mut lost = self.lost.lock().unwrap_or_else(|e| e.into_inner());
        match (lost.as_mut(), why) {
            (Some(Lost::Interference(seen)), Lost::Interference(new)) => {
                for i in new {
                    if !seen.contains(&i) {
                        seen.push(i);
                    }
                }
            }
            (None | Some(Lost::Interference(_)), why) => {
                tracing::warn!(device = %self.device, ?why, "control lost or interfered with");
                *lost = Some(why);
            }
            (Some(Lost::Control(_)), _) => {}
        }
    }

    /// `Err(ControlLost)` once control itself is gone (interference does
    /// not stop this host from talking to the camera).
    fn check_control(&self) -> Result<()> {
        match self.lost() {
            Some(Lost::Control(reason)) => Err(Error::ControlLost {
                device: self.device,
                reason,
            }),
            _ => Ok(()),
        }
    }

    fn lost(&self) -> Option<Lost> {
        self.lost.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn watched(&self) -> MutexGuard<'_, Vec<Watched>> {
        self.watched.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `Err(ControlLost)` once the heartbeat found control gone,
    /// `Err(ControlInterference)` once it found a register changed.
    fn check(&self) -> Result<()> {
        match self.lost() {
            Some(Lost::Control(reason)) => Err(Error::ControlLost {
                device: self.device,
                reason,
            }),
            Some(Lost::Interference(changes)) => Err(Error::ControlInterference {
                device: self.device,
                changes,
            }),
            None => Ok(()),
        }
    }

    /// Reads back every watched register; the ones that changed, and the
    /// writes the camera acknowledged that we never sent. A register the
    /// camera refuses to read is skipped (it cannot prove anything).
    fn interference(&self) -> Result<Vec<Interference>> {
        let watched = self.watched().clone();
        let mut changes = Vec::new();
        for w in watched {
            let ack = self.channel().transact(Command::ReadReg {
                addresses: vec![w.address],
            });
            let found = match ack {
                Ok(AckRepr {
                    ack: Ack::ReadReg { values },
                    ..
                }) => match values.first() {
                    Some(&v) => v,
                    None => continue,
                },
                Ok(_) | Err(Error::Gvcp { .. }) => continue,
                Err(e) => return Err(e),
            };
            // Still watched with the same value (not rewritten by us meanwhile)?
            let current = self
                .watched()
                .iter()
                .find(|x| x.address == w.address)
                .copied();
            let changed = |c: &Watched| (c.expected ^ found) & c.mask != 0;
            if let Some(w) = current.filter(|c| changed(c) && c.expected == w.expected) {
                changes.push(Interference::Register(RegisterChange {
                    name: w.name,
                    meaning: w.meaning,
                    expected: w.expected & w.mask,
                    found: found & w.mask,
                    shown_as: w.shown_as,
                }));
            }
        }
        changes.append(&mut self.channel().unrequested);
        Ok(changes)
    }
}

/// A controlling connection to one camera. Dropping it stops the heartbeat
/// and gives control back.
#[derive(Debug)]
pub struct Control {
    shared: Arc<Shared>,
    local: SocketAddrV4,
    heartbeat: Option<JoinHandle<()>>,
    /// False for a monitor connection ([`Control::open_monitor`]): it holds
    /// no privilege, so it has none to give back.
    controlling: bool,
}

impl Control {
    /// Connects to the camera at `device` (GVCP port 3956), takes control
    /// privilege, programs the heartbeat timeout and starts the heartbeat
    /// thread. Fails with [`Error::ControlTaken`] when another host has control.
    pub fn open(device: Ipv4Addr, config: &ControlConfig) -> Result<Control> {
        Control::open_port(SocketAddrV4::new(device, gvcp::PORT), config)
    }

    /// Like [`Control::open`] for a device listening on another port (test benches).
    pub fn open_port(device: SocketAddrV4, config: &ControlConfig) -> Result<Control> {
        let mut control = Control::connect(device, config)?;
        control.take_control(config.heartbeat_timeout_ms)?;
        control.controlling = true;
        let shared = Arc::clone(&control.shared);
        let thread = std::thread::Builder::new()
            .name("gvcp-heartbeat".into())
            .spawn(move || heartbeat_loop(&shared))
            .map_err(|source| Error::Socket {
                op: "spawn heartbeat thread",
                addr: device,
                source,
            })?;
        control.heartbeat = Some(thread);
        Ok(control)
    }

    /// Connects to the device at `device` as a monitor: reads (registers,
    /// memory, the GenICam XML and features) without taking the control
    /// privilege, so it works while another application controls the
    /// camera and never disturbs it. Writes are refused by the device
    /// (`ACCESS_DENIED`) unless no one controls it; open with
    /// [`Control::open_port`] to write.
    pub fn open_monitor(device: SocketAddrV4, config: &ControlConfig) -> Result<Control> {
        Control::connect(device, config)
    }

    /// The socket and channel state, without privilege or heartbeat.
    fn connect(device: SocketAddrV4, config: &ControlConfig) -> Result<Control> {
        let bind = SocketAddrV4::new(config.local.unwrap_or(Ipv4Addr::UNSPECIFIED), 0);
        let sock_err = |op, source| Error::Socket {
            op,
            addr: device,
            source,
        };
        // A bind failure is about the local address (--interface), so name it.
        let bind_err = |op, source| Error::Socket {
            op,
            addr: bind,
            source,
        };
        let socket = UdpSocket::bind(bind).map_err(|e| {
            bind_err(
                "bind the GVCP socket to the local address (is it one of this host's?)",
                e,
            )
        })?;
        // Learn which local address reaches the camera: the stream is sent there.
        let probe = UdpSocket::bind(bind).map_err(|e| bind_err("bind route probe", e))?;
        probe
            .connect(device)
            .map_err(|e| sock_err("route to camera", e))?;
        let local = match probe.local_addr() {
            Ok(SocketAddr::V4(a)) => a,
            Ok(SocketAddr::V6(_)) | Err(_) => bind,
        };
        let now = now_ns();
        let channel = Channel {
            socket,
            device,
            ids: RequestIds::starting_at(1),
            config: TransactionConfig {
                ack_timeout_ns: u64::try_from(config.ack_timeout.as_nanos()).unwrap_or(u64::MAX),
                attempts: config.attempts.max(1),
            },
            heartbeat: Heartbeat::new(config.heartbeat_timeout_ms, now),
            buf: Box::new([0; 2048]),
            issued: Box::new([0; 1024]),
            unrequested: Vec::new(),
        };
        let privilege = if config.exclusive {
            ccp::EXCLUSIVE_ACCESS
        } else {
            ccp::CONTROL_ACCESS
        };
        let shared = Arc::new(Shared {
            channel: Mutex::new(channel),
            lost: Mutex::new(None),
            watched: Mutex::new(Vec::new()),
            stop: AtomicBool::new(false),
            device,
            privilege,
        });
        Ok(Control {
            shared,
            local,
            heartbeat: None,
            controlling: false,
        })
    }

    fn take_control(&mut self, heartbeat_timeout_ms: u32) -> Result<()> {
        let device = self.shared.device;
        let current = self.read_reg(bootstrap::CONTROL_CHANNEL_PRIVILEGE)?;
        if current & (ccp::CONTROL_ACCESS | ccp::EXCLUSIVE_ACCESS) != 0 {
            // Either another host, or a previous run of ours whose heartbeat
            // has not expired yet: try to write anyway; the device refuses
            // if it is really someone else's.
            tracing::debug!(%device, current, "camera reports a controlling host");
        }
        let privilege = self.shared.privilege;
        self.write_reg(bootstrap::CONTROL_CHANNEL_PRIVILEGE, privilege)
            .map_err(|e| match e {
                Error::Gvcp { .. } => Error::ControlTaken {
                    device,
                    ccp: current,
                },
                other => other,
            })?;
        // Older or simpler devices may lack a writable heartbeat register.
        if let Err(e) = self.write_reg(bootstrap::HEARTBEAT_TIMEOUT, heartbeat_timeout_ms) {
            tracing::debug!(%device, error = %e, "heartbeat timeout not set");
        }
        let timeout = self
            .read_reg(bootstrap::HEARTBEAT_TIMEOUT)
            .unwrap_or(heartbeat_timeout_ms);
        self.shared.channel().heartbeat = Heartbeat::new(timeout.max(500), now_ns());
        Ok(())
    }

    /// The camera's control address.
    pub fn device(&self) -> SocketAddrV4 {
        self.shared.device
    }

    /// The local address that routes to the camera: where to point its stream.
    pub fn local_ip(&self) -> Ipv4Addr {
        *self.local.ip()
    }

    /// `Err(ControlLost)` once the heartbeat found control gone.
    pub fn check(&self) -> Result<()> {
        self.shared.check()
    }

    fn command(&self, command: Command) -> Result<AckRepr> {
        self.shared.check_control()?;
        self.shared.channel().transact(command)
    }

    /// Reads one 32-bit register.
    pub fn read_reg(&self, address: u32) -> Result<u32> {
        let ack = self.command(Command::ReadReg {
            addresses: vec![address],
        })?;
        match ack.ack {
            Ack::ReadReg { values } if values.len() == 1 => {
                Ok(values.first().copied().unwrap_or(0))
            }
            _ => Err(self.unexpected("READREG")),
        }
    }

    /// Writes one 32-bit register (a watched register now expects `value`).
    pub fn write_reg(&self, address: u32, value: u32) -> Result<()> {
        let ack = self.command(Command::WriteReg {
            writes: vec![RegisterWrite { address, value }],
        })?;
        match ack.ack {
            Ack::WriteReg { .. } => {
                for w in self.shared.watched().iter_mut() {
                    if w.address == address {
                        w.expected = value;
                    }
                }
                Ok(())
            }
            _ => Err(self.unexpected("WRITEREG")),
        }
    }

    /// Watches `address`: the heartbeat reads it back and reports
    /// [`Error::ControlInterference`] when the bits of `mask` no longer hold
    /// `expected` (someone else wrote it). `name` and `meaning` describe it
    /// in the error.
    pub fn expect_register(
        &self,
        address: u32,
        expected: u32,
        mask: u32,
        name: &'static str,
        meaning: &'static str,
        shown_as: Shown,
    ) {
        let mut watched = self.shared.watched();
        watched.retain(|w| w.address != address);
        watched.push(Watched {
            address,
            expected,
            mask,
            name,
            meaning,
            shown_as,
        });
    }

    /// Stops watching `address` (before this host changes it through a
    /// path that does not go through [`Control::write_reg`]).
    pub fn forget_register(&self, address: u32) {
        self.shared.watched().retain(|w| w.address != address);
    }

    /// Reads back every watched register now: `Err(ControlInterference)`
    /// naming the ones someone else changed, `Err(ControlLost)` if control
    /// is gone, else `Ok`. Call it when frames stop arriving, to tell a
    /// stalled camera from one someone else stopped or redirected.
    pub fn check_interference(&self) -> Result<()> {
        self.shared.check_control()?;
        let changes = self.shared.interference()?;
        if !changes.is_empty() {
            self.shared.set_lost(Lost::Interference(changes));
        }
        self.check()
    }

    /// Reads `buf.len()` bytes of device memory, in as many READMEM
    /// commands as the 536-byte limit needs. `address` and the length must
    /// be multiples of 4, as the standard requires.
    pub fn read_mem(&self, address: u32, buf: &mut [u8]) -> Result<()> {
        let step = gvcp::MAX_MEMORY_DATA & !3;
        let mut done = 0usize;
        while done < buf.len() {
            let count = (buf.len() - done).min(step);
            let at = address
                .checked_add(u32::try_from(done).unwrap_or(u32::MAX))
                .ok_or_else(|| self.bad_address(address, buf.len()))?;
            let ack = self.command(Command::ReadMem {
                address: at,
                count: u16::try_from(count).unwrap_or(u16::MAX),
            })?;
            match ack.ack {
                Ack::ReadMem { data, .. } if data.len() == count => {
                    if let Some(dst) = buf.get_mut(done..done + count) {
                        dst.copy_from_slice(&data);
                    }
                }
                _ => return Err(self.unexpected("READMEM")),
            }
            done += count;
        }
        Ok(())
    }

    /// Writes device memory, split into WRITEMEM commands of at most 532 bytes.
    pub fn write_mem(&self, address: u32, data: &[u8]) -> Result<()> {
        let step = gvcp::MAX_MEMORY_DATA & !3;
        for (i, chunk) in data.chunks(step).enumerate() {
            let at = address
                .checked_add(u32::try_from(i * step).unwrap_or(u32::MAX))
                .ok_or_else(|| self.bad_address(address, data.len()))?;
            let ack = self.command(Command::WriteMem {
                address: at,
                data: chunk.to_vec(),
            })?;
            if !matches!(ack.ack, Ack::WriteMem { .. }) {
                return Err(self.unexpected("WRITEMEM"));
            }
        }
        Ok(())
    }

    /// Reads a NUL-terminated string register of `len` bytes (names, serial, URL).
    pub fn read_string(&self, address: u32, len: usize) -> Result<String> {
        let mut buf = vec![0u8; len.next_multiple_of(4)];
        self.read_mem(address, &mut buf)?;
        let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        Ok(String::from_utf8_lossy(buf.get(..end).unwrap_or_default()).into_owned())
    }

    /// A sender for PACKETRESEND requests, usable from the stream thread
    /// without taking the command lock (resend requests are never acked).
    pub fn resend_sender(&self) -> Result<ResendSender> {
        let device = self.shared.device;
        let socket = self
            .shared
            .channel()
            .socket
            .try_clone()
            .map_err(|source| Error::Socket {
                op: "clone GVCP socket",
                addr: device,
                source,
            })?;
        Ok(ResendSender {
            socket,
            device,
            ids: RequestIds::starting_at(0x8000),
            buf: Vec::with_capacity(64),
        })
    }

    /// A handle the stream thread can poll for control loss.
    pub fn watch(&self) -> ControlWatch {
        ControlWatch {
            shared: Arc::clone(&self.shared),
        }
    }

    fn unexpected(&self, what: &'static str) -> Error {
        Error::UnexpectedAck {
            device: self.shared.device,
            what,
        }
    }

    fn bad_address(&self, address: u32, len: usize) -> Error {
        Error::BadSetting {
            what: "memory range",
            value: format!("{address:#x}+{len}"),
            why: "runs past the 32-bit address space".into(),
        }
    }
}

impl Drop for Control {
    fn drop(&mut self) {
        if !self.controlling {
            // A monitor (or a connection that never got control) has no
            // heartbeat to stop and no privilege to give back.
            return;
        }
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.heartbeat.take() {
            t.thread().unpark();
            let _ = t.join();
        }
        if !matches!(self.shared.lost(), Some(Lost::Control(_))) {
            // Give control back so another application can connect at once.
            let _ = self.shared.channel().transact(Command::WriteReg {
                writes: vec![RegisterWrite {
                    address: bootstrap::CONTROL_CHANNEL_PRIVILEGE,
                    value: 0,
                }],
            });
        }
    }
}

/// Lets another thread see whether control was lost.
#[derive(Debug, Clone)]
pub struct ControlWatch {
    shared: Arc<Shared>,
}

impl ControlWatch {
    /// `Err(ControlLost)` once the heartbeat found control gone.
    pub fn check(&self) -> Result<()> {
        self.shared.check()
    }
}

fn heartbeat_loop(shared: &Shared) {
    while !shared.stop.load(Ordering::Relaxed) {
        let due = shared.channel().heartbeat.next_due_ns();
        let now = now_ns();
        if now < due {
            std::thread::park_timeout(Duration::from_nanos((due - now).min(50_000_000)));
            continue;
        }
        let result = shared.channel().transact(Command::ReadReg {
            addresses: vec![bootstrap::CONTROL_CHANNEL_PRIVILEGE],
        });
        match result {
            Ok(AckRepr {
                ack: Ack::ReadReg { values },
                ..
            }) => {
                let ccp = values.first().copied().unwrap_or(0);
                if ccp & shared.privilege == 0 {
                    shared.set_lost(Lost::Control(format!(
                        "the camera's control channel privilege register reads {ccp:#x}: another host took control, our heartbeat expired, or someone forging our address released it"
                    )));
                    return;
                }
            }
            Ok(_) => {}
            Err(e) => {
                shared.set_lost(Lost::Control(format!("heartbeat failed: {e}")));
                return;
            }
        }
        match shared.interference() {
            Ok(changes) if !changes.is_empty() => {
                shared.set_lost(Lost::Interference(changes));
            }
            Ok(_) => {}
            Err(e) => {
                shared.set_lost(Lost::Control(format!("heartbeat failed: {e}")));
                return;
            }
        }
    }
}

/// Sends PACKETRESEND commands from the control socket's port.
#[derive(Debug)]
pub struct ResendSender {
    socket: UdpSocket,
    device: SocketAddrV4,
    ids: RequestIds,
    buf: Vec<u8>,
}

impl ResendSender {
    /// Asks the camera to send packets `first..=last` of `block_id` again.
    pub fn request(
        &mut self,
        block_id: u64,
        first_packet_id: u32,
        last_packet_id: u32,
        extended: bool,
    ) -> Result<()> {
        // Resend requests are fire-and-forget: `new` asks for no ack.
        let cmd = CommandRepr::new(
            Command::PacketResend(PacketResend {
                channel: 0,
                block_id,
                first_packet_id,
                last_packet_id,
                extended,
            }),
            self.ids.next_id(),
        );
        self.buf.clear();
        self.buf.resize(cmd.buffer_len(), 0);
        let n = cmd.emit(&mut self.buf).map_err(|e| Error::BadSetting {
            what: "resend request",
            value: format!("block {block_id} packets {first_packet_id}..={last_packet_id}"),
            why: e.to_string(),
        })?;
        let datagram = self.buf.get(..n).unwrap_or_default();
        self.socket
            .send_to(datagram, self.device)
            .map_err(|source| Error::Socket {
                op: "send PACKETRESEND",
                addr: self.device,
                source,
            })?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use linerate_wire::Status;

    fn ack(status: Status, id: u16, ack: Ack) -> Vec<u8> {
        AckRepr {
            status,
            ack_id: id,
            ack,
        }
        .to_vec()
        .expect("ack emits")
    }

    #[test]
    fn only_successful_writes_we_never_sent_are_unrequested() {
        let mut issued = [0u64; 1024];
        issued[0] |= 1 << 5;
        let write = |status, id| ack(status, id, Ack::WriteReg { index: 1 });
        assert_eq!(unrequested_write(&write(Status::SUCCESS, 5), &issued), None);
        assert_eq!(
            unrequested_write(&write(Status::SUCCESS, 0x7a11), &issued),
            Some(Interference::UnrequestedWrite {
                ack: "WRITEREG_ACK",
                request_id: 0x7a11
            })
        );
        assert_eq!(
            unrequested_write(&write(Status::ACCESS_DENIED, 0x7a11), &issued),
            None
        );
        let read = ack(Status::SUCCESS, 9, Ack::ReadReg { values: vec![2] });
        assert_eq!(unrequested_write(&read, &issued), None);
        assert_eq!(unrequested_write(&[0x42, 0], &issued), None);
    }
}
