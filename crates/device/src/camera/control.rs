//! The camera's control thread: binds the GVCP sockets, feeds datagrams
//! and time to the sans-IO register model (`linerate_gev::device::Device`),
//! and turns its events into work for the stream thread.
//!
//! A FORCEIP addressed to the camera's MAC (and not refused: nobody holds
//! control) changes what it reports at once; it then moves its sockets to
//! the new address as soon as one of this host's interfaces has that
//! address (the emulator does not change interface addresses itself),
//! like a camera restarting its network stack: counters restart there.

use std::net::{Ipv4Addr, SocketAddrV4};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use linerate_gev::device::{Counters, Device, DeviceEvent, DeviceIdentity};
use linerate_io::netdev::GsoEgress;
use linerate_io::tcp::send::TcpSendOptions;
use linerate_io::udp::{UdpEndpoint, UdpOptions};
use linerate_metrics::ThreadCpu;

use super::control_socket::ControlSockets;
use super::counters::StreamCounters;
use super::events::CameraEvent;
use super::report::{AccessDenied, CameraReport, UdpSend};
use super::settings::stream_settings;
use super::streamer::{describe_egress, StreamCommand, Streamer};
use super::{interface, CameraConfig, CameraError, CameraInfo};

/// The longest the control loop sleeps: how soon it notices a stop.
const LONGEST_WAIT: Duration = Duration::from_millis(100);

/// What the handle and the control thread share.
#[derive(Debug)]
pub(crate) struct Shared {
    /// Set to end the camera.
    pub stop: AtomicBool,
    /// The serving session's counters and facts (a FORCEIP move replaces them).
    pub current: Mutex<(Arc<StreamCounters>, CameraInfo)>,
}

/// Where the camera answers: the configured address at start, or the
/// address a FORCEIP moved it to (with the serial it started with, and the
/// mask and gateway the FORCEIP gave).
#[derive(Debug, Clone)]
pub(crate) struct Address {
    pub ip: Ipv4Addr,
    pub serial: Option<String>,
    pub forced: Option<(Ipv4Addr, Ipv4Addr)>,
}

fn identity(config: &CameraConfig, at: &Address) -> Result<DeviceIdentity, CameraError> {
    let iface = interface::find(at.ip).ok_or(CameraError::NoInterface { ip: at.ip })?;
    let o = at.ip.octets();
    let (subnet, gateway) = at
        .forced
        .unwrap_or((iface.netmask, DeviceIdentity::default().gateway));
    Ok(DeviceIdentity {
        serial: at
            .serial
            .clone()
            .or_else(|| config.serial.clone())
            .unwrap_or_else(|| format!("LR{:03}{:03}", o[2], o[3])),
        mac: iface.mac,
        ip: at.ip,
        subnet,
        gateway,
        ..DeviceIdentity::default()
    })
}

fn register_counters(c: &StreamCounters) -> Counters {
    Counters {
        frames_sent: c.frames_sent.load(Ordering::Relaxed),
        frames_skipped: c.frames_skipped.load(Ordering::Relaxed),
        packets_resent: c.packets_resent.load(Ordering::Relaxed),
        resend_unavailable: c.resend_unavailable.load(Ordering::Relaxed),
        trigger_latency_us: c.trigger_latency_us.load(Ordering::Relaxed),
    }
}

/// The camera serving at one address: its sockets, register model and
/// stream thread.
pub(crate) struct Session {
    at: Address,
    identity: DeviceIdentity,
    device: Device,
    sockets: ControlSockets,
    tx: mpsc::Sender<StreamCommand>,
    stream_thread: JoinHandle<Option<ThreadCpu>>,
    pub counters: Arc<StreamCounters>,
    epoch: Instant,
    /// How datagrams leave through the bound interface (decided again per
    /// destination when a stream starts).
    egress: GsoEgress,
    pub info: CameraInfo,
}

/// How serving at one address ended.
enum Ended {
    /// Stop was asked for.
    Stopped,
    /// A FORCEIP moved the camera to an address this host has.
    Moved(Address),
}

impl Session {
    /// Binds the sockets at `at` (in the calling thread's network
    /// namespace) and starts the stream thread.
    pub fn open(config: &CameraConfig, at: Address) -> Result<Session, CameraError> {
        let identity = identity(config, &at)?;
        let mut device = Device::new(identity.clone(), config.device_config()?)
            .map_err(|source| CameraError::Device { source })?;
        let sockets = ControlSockets::bind(at.ip, config.port)?;
        let stream_addr = SocketAddrV4::new(at.ip, config.stream_port);
        let stream_socket = UdpEndpoint::bind(
            stream_addr,
            &UdpOptions {
                send_buffer: Some(16 << 20),
                ..UdpOptions::default()
            },
        )
        .map_err(|source| CameraError::StreamSocket {
            addr: stream_addr,
            source,
        })?;
        let source_port = stream_socket.local_addr().port();
        device.set_source_port(source_port);

        let epoch = Instant::now();
        let counters = Arc::new(StreamCounters::default());
        let (tx, rx) = mpsc::channel();
        let streamer = Streamer::new(
            stream_socket,
            rx,
            Arc::clone(&counters),
            epoch,
            (config.resend_frames, config.resend_memory),
            config.gso,
            TcpSendOptions {
                send_buffer: config.tcp_send_buffer,
                zerocopy: config.tcp_zerocopy,
                ..TcpSendOptions::default()
            },
            config.events.clone(),
        );
        let stream_thread = std::thread::Builder::new()
            .name("gvsp-stream".into())
            .spawn(move || {
                streamer.run();
                // Its /proc entry goes with the thread: read its CPU time last.
                ThreadCpu::current().ok()
            })
            .map_err(|source| CameraError::Thread {
                thread: "stream",
                source,
            })?;
        let egress = match linerate_io::netdev::Link::owning(at.ip) {
            Ok(link) => GsoEgress::of_interface(&link.name),
            Err(e) => GsoEgress {
                interface: None,
                driver: None,
                segmented_before_wire: false,
                reason: e.to_string(),
            },
        };
        let info = CameraInfo {
            serial: identity.serial.clone(),
            mac: identity.mac,
            control: sockets
                .local_addr()
                .unwrap_or(SocketAddrV4::new(at.ip, config.port)),
            stream_source_port: source_port,
            udp_send: describe_egress(&egress, !config.gso),
        };
        Ok(Session {
            at,
            identity,
            device,
            sockets,
            tx,
            stream_thread,
            counters,
            epoch,
            egress,
            info,
        })
    }

    /// Turns a register-model event into work for the stream thread.
    fn dispatch(&self, config: &CameraConfig, event: &DeviceEvent) {
        let now = elapsed_ns(self.epoch);
        let cfg = self.device.stream_config();
        let cmd = match event {
            DeviceEvent::AcquisitionStart => {
                let offset = i128::from(self.device.timestamp(now)) - i128::from(now);
                match stream_settings(&cfg, offset) {
                    Some(settings) => StreamCommand::Start(settings),
                    None => {
                        config.events.emit(CameraEvent::NoStreamDestination);
                        return;
                    }
                }
            }
            DeviceEvent::AcquisitionStop => StreamCommand::Stop,
            DeviceEvent::TriggerSoftware => StreamCommand::Trigger(Instant::now()),
            DeviceEvent::PacketResend(r) => StreamCommand::Resend(*r),
            // A test packet probes the UDP path; on TCP there is nothing to probe.
            DeviceEvent::FireTestPacket if cfg.transport != 0 => return,
            DeviceEvent::FireTestPacket => match cfg.destination {
                Some(destination) => StreamCommand::TestPacket {
                    destination,
                    size: cfg.packet_size as usize,
                },
                None => return,
            },
            DeviceEvent::ControlGranted { controller, .. } => {
                config.events.emit(CameraEvent::ControlGranted {
                    controller: *controller,
                });
                return;
            }
            DeviceEvent::ControlLost { controller, reason } => {
                config.events.emit(CameraEvent::ControlLost {
                    controller: *controller,
                    reason: *reason,
                });
                return;
            }
            // The serve loop moves the sockets.
            DeviceEvent::StreamConfigChanged | DeviceEvent::AddressForced { .. } => return,
        };
        // A closed channel means the stream thread ended; the loop notices.
        let _ = self.tx.send(cmd);
    }

    /// Serves until `stop` is set or a FORCEIP moved the camera to an
    /// address this host has.
    fn serve(&mut self, config: &CameraConfig, stop: &AtomicBool) -> Result<Ended, CameraError> {
        let mut buf = vec![0u8; 2048];
        let mut runs_seen = 0u64;
        let mut moving: Option<Address> = None;
        while !stop.load(Ordering::Relaxed) {
            let now = elapsed_ns(self.epoch);
            let wait = self
                .device
                .poll_timeout()
                .map_or(LONGEST_WAIT, |t| {
                    Duration::from_nanos(t.saturating_sub(now))
                })
                .min(LONGEST_WAIT);
            if let Some((n, from)) = self.sockets.recv(&mut buf, wait)? {
                self.device.set_counters(register_counters(&self.counters));
                let foreign_before = self.device.access_denied().controller_ip_other_port;
                let result = self
                    .device
                    .handle_datagram(&buf[..n], from, elapsed_ns(self.epoch));
                if foreign_before == 0 && self.device.access_denied().controller_ip_other_port == 1
                {
                    config.events.emit(CameraEvent::ForeignPortRefused { from });
                }
                if let Some(reply) = &result.reply {
                    if let Err(e) = self.sockets.send(&reply.datagram, reply.to) {
                        config.events.emit(CameraEvent::ReplyFailed {
                            to: reply.to,
                            error: e.to_string(),
                        });
                    }
                }
                for e in &result.events {
                    self.dispatch(config, e);
                    if let DeviceEvent::AddressForced {
                        ip,
                        subnet_mask,
                        gateway,
                    } = *e
                    {
                        if interface::find(ip).is_none() {
                            config.events.emit(CameraEvent::ForcedAddressNotLocal {
                                ip,
                                subnet_mask,
                                answering_at: self.at.ip,
                            });
                        }
                        moving = Some(Address {
                            ip,
                            serial: Some(self.identity.serial.clone()),
                            forced: Some((subnet_mask, gateway)),
                        });
                    }
                }
            }
            // Move once the forced address exists here (at once, or when added).
            if let Some(m) = moving
                .as_ref()
                .filter(|m| m.ip != self.at.ip && interface::find(m.ip).is_some())
            {
                return Ok(Ended::Moved(m.clone()));
            }
            for e in self.device.handle_timeout(elapsed_ns(self.epoch)) {
                self.dispatch(config, &e);
            }
            // Single- and multi-frame acquisitions end by themselves.
            let runs = self.counters.runs_finished.load(Ordering::Relaxed);
            if runs != runs_seen {
                runs_seen = runs;
                self.device.acquisition_complete();
            }
            let tcp = self.device.stream_config().transport != 0;
            self.counters
                .tcp_selected
                .store(u64::from(tcp), Ordering::Relaxed);
            if self.stream_thread.is_finished() {
                return Err(CameraError::StreamThreadEnded);
            }
        }
        Ok(Ended::Stopped)
    }

    /// Ends the stream thread (and closes the GVCP sockets); returns its
    /// CPU time, if it could be read, and what the report needs.
    fn end_stream(self) -> (Option<ThreadCpu>, Rest) {
        let _ = self.tx.send(StreamCommand::Shutdown);
        let cpu = self.stream_thread.join().ok().flatten();
        (
            cpu,
            Rest {
                identity: self.identity,
                device: self.device,
                counters: self.counters,
                epoch: self.epoch,
                egress: self.egress,
            },
        )
    }
}

/// What is left of a session once its stream thread ended: what the
/// report needs.
pub(crate) struct Rest {
    identity: DeviceIdentity,
    device: Device,
    counters: Arc<StreamCounters>,
    epoch: Instant,
    egress: GsoEgress,
}

impl Rest {
    /// The totals of the session.
    fn report(&self, config: &CameraConfig, send_thread_cpu: Option<ThreadCpu>) -> CameraReport {
        let c = &self.counters;
        let get = |v: &std::sync::atomic::AtomicU64| v.load(Ordering::Relaxed);
        let seconds = self.epoch.elapsed().as_secs_f64();
        let stream_egress = c
            .udp_egress
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let shown = stream_egress.as_ref().unwrap_or(&self.egress);
        CameraReport {
            serial: self.identity.serial.clone(),
            seconds,
            frames_sent: get(&c.frames_sent),
            frames_skipped: get(&c.frames_skipped),
            packets_sent: get(&c.packets_sent),
            bytes_sent: get(&c.bytes_sent),
            packets_resent: get(&c.packets_resent),
            resend_unavailable: get(&c.resend_unavailable),
            send_errors: get(&c.send_errors),
            trigger_latency_us: get(&c.trigger_latency_us),
            tcp_connections: get(&c.tcp_connections),
            tcp_connections_lost: get(&c.tcp_connections_lost),
            tcp_connect_failures: get(&c.tcp_connect_failures),
            tcp_resend_ignored: get(&c.tcp_resend_ignored),
            zerocopy_sends: get(&c.zerocopy_sends),
            zerocopy_completions: get(&c.zerocopy_completions),
            zerocopy_copied: get(&c.zerocopy_copied),
            send_thread_cpu: send_thread_cpu.map(|t| t.usage(Duration::from_secs_f64(seconds))),
            udp_send: UdpSend {
                interface: shown.interface.clone(),
                driver: shown.driver.clone(),
                gso: config.gso && shown.segmented_before_wire,
                reason: if config.gso {
                    shown.reason.clone()
                } else {
                    "--no-gso".to_owned()
                },
                decided_for: if stream_egress.is_some() {
                    "stream destination"
                } else {
                    "bound interface"
                }
                .to_owned(),
            },
            gvcp_access_denied: AccessDenied::from(self.device.access_denied()),
        }
    }
}

/// The control thread's body: serves `session`, following FORCEIP moves,
/// until `shared.stop` is set; returns the last session's report.
pub(crate) fn run(
    config: CameraConfig,
    mut session: Session,
    shared: &Shared,
) -> Result<CameraReport, CameraError> {
    loop {
        let ended = session.serve(&config, &shared.stop);
        let (cpu, rest) = session.end_stream();
        let next = match ended? {
            Ended::Stopped => return Ok(rest.report(&config, cpu)),
            Ended::Moved(next) => next,
        };
        drop(rest);
        let (subnet_mask, gateway) = next
            .forced
            .unwrap_or((Ipv4Addr::UNSPECIFIED, Ipv4Addr::UNSPECIFIED));
        session = Session::open(&config, next)?;
        *shared.current.lock().unwrap_or_else(|p| p.into_inner()) =
            (Arc::clone(&session.counters), session.info.clone());
        config.events.emit(CameraEvent::Moved {
            info: session.info.clone(),
            subnet_mask,
            gateway,
        });
    }
}

/// Nanoseconds since `epoch`: the device core's clock.
fn elapsed_ns(epoch: Instant) -> u64 {
    u64::try_from(epoch.elapsed().as_nanos()).unwrap_or(u64::MAX)
}
