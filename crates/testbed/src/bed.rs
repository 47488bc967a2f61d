//! The [`Testbed`]: building, driving and tearing down a bed.

use std::ffi::OsStr;
use std::net::Ipv4Addr;
use std::thread::JoinHandle;
use std::time::Duration;

use crate::command::HostCommand;
use crate::error::{Error, Result};
use crate::loss::{self, InstalledLoss};
use crate::netns::{self, bed_namespaces, run_in_netns, spawn_in_netns};
use crate::plan::{alias, parse_alias, BedInfo, HostInfo, IfaceInfo, MacAddr, Plan, BRIDGE_NAME};
use crate::spec::{
    netns_name, validate_name, Direction, LinkSpec, LossRule, Rate, RpsSpec, Shaper, TestbedSpec,
    SWITCH_HOST,
};
use crate::{probe, rps, sys};

/// Fluent construction of a [`TestbedSpec`], finished by
/// [`TestbedBuilder::build`].
///
/// ```no_run
/// use linerate_testbed::{Testbed, Rate};
/// let bed = Testbed::builder("demo")
///     .host("cam")
///     .host("pc")
///     .link("cam", "pc")
///     .mtu(9000)
///     .rate(Rate::gbit(1))
///     .build()?;
/// println!("pc is at {}", bed.addr("pc")?);
/// # Ok::<(), linerate_testbed::Error>(())
/// ```
#[derive(Debug, Clone)]
#[must_use = "call .build() to create the bed"]
pub struct TestbedBuilder {
    spec: TestbedSpec,
    /// First invalid argument, reported by `build` so the builder methods
    /// can stay infallible.
    error: Option<String>,
}

impl TestbedBuilder {
    /// Adds a host (a namespace). Order matters: it fixes the addresses.
    pub fn host(mut self, name: &str) -> Self {
        self.spec.hosts.push(name.to_owned());
        self
    }

    /// Adds several hosts.
    pub fn hosts<'a>(mut self, names: impl IntoIterator<Item = &'a str>) -> Self {
        self.spec.hosts.extend(names.into_iter().map(str::to_owned));
        self
    }

    /// Joins two hosts with a veth pair (point-to-point cable).
    pub fn link(mut self, a: &str, b: &str) -> Self {
        self.spec.links.push(LinkSpec::new(a, b));
        self
    }

    /// Adds a link with per-link MTU or per-direction rates.
    pub fn link_spec(mut self, link: LinkSpec) -> Self {
        self.spec.links.push(link);
        self
    }

    /// Attaches every host to one bridge (a switch in its own namespace)
    /// instead of point-to-point links.
    pub fn switch(mut self) -> Self {
        self.spec.switch = true;
        self
    }

    /// MTU of every link (1500 or 9000 typically).
    pub fn mtu(mut self, mtu: u32) -> Self {
        self.spec.mtu = mtu;
        self
    }

    /// Rate limit of every link direction.
    pub fn rate(mut self, rate: Rate) -> Self {
        self.spec.rate = Some(rate);
        self
    }

    /// Rate limit in Gbit/s (fractional allowed: 2.5). Out-of-range values
    /// are reported by `build`.
    pub fn rate_gbit(mut self, gbit: f64) -> Self {
        match format!("{gbit}g").parse::<Rate>() {
            Ok(r) => self.spec.rate = Some(r),
            Err(e) => {
                self.error.get_or_insert(e.to_string());
            }
        }
        self
    }

    /// Overrides the automatic tbf bucket size (bytes).
    pub fn burst_bytes(mut self, bytes: u32) -> Self {
        self.spec.burst_bytes = Some(bytes);
        self
    }

    /// Overrides the tbf queueing latency (default 10 ms).
    pub fn latency(mut self, latency: Duration) -> Self {
        self.spec.latency_us = Some(u32::try_from(latency.as_micros()).unwrap_or(u32::MAX));
        self
    }

    /// Installs a loss rule once the bed is up.
    pub fn loss(mut self, rule: LossRule) -> Self {
        self.spec.loss.push(rule);
        self
    }

    /// Steers `host`'s receive processing to `cpus` once the bed is up.
    pub fn rps(mut self, host: &str, cpus: &[usize]) -> Self {
        self.spec.rps.push(RpsSpec {
            host: host.to_owned(),
            cpus: cpus.to_vec(),
        });
        self
    }

    /// Keeps IPv6 on (off by default to keep links quiet).
    pub fn ipv6(mut self, on: bool) -> Self {
        self.spec.ipv6 = on;
        self
    }

    /// The spec built so far.
    pub fn spec(&self) -> &TestbedSpec {
        &self.spec
    }

    /// Creates the bed. See [`Testbed::build`].
    pub fn build(self) -> Result<Testbed> {
        if let Some(e) = self.error {
            return Err(Error::Spec(e));
        }
        Testbed::build(&self.spec)
    }
}

/// A running bed: namespaces, links, shaping and loss rules.
///
/// Dropping it tears everything down (also while a test panics, since Drop
/// runs during unwinding), unless [`Testbed::keep_on_drop`] or
/// [`Testbed::leak`] said otherwise. Nothing is ever created in the root
/// namespace: veths are made inside the host namespaces with `ip -n`.
#[derive(Debug)]
pub struct Testbed {
    info: BedInfo,
    /// Namespaces to delete at teardown (those created so far).
    namespaces: Vec<String>,
    keep: bool,
    torn_down: bool,
}

impl Testbed {
    /// Starts a builder for a bed named `name` (`[a-z0-9_]`, ≤ 24 chars).
    pub fn builder(name: &str) -> TestbedBuilder {
        TestbedBuilder {
            spec: TestbedSpec::new(name),
            error: None,
        }
    }

    /// Creates the bed described by `spec`.
    ///
    /// Namespaces of an earlier bed with the same name (left by a crash or
    /// a `testbed up`) are removed first. If a step fails, what was created
    /// so far is removed again before the error is returned.
    pub fn build(spec: &TestbedSpec) -> Result<Testbed> {
        let plan = Plan::from_spec(spec)?;
        let removed = remove_bed(&spec.name)?;
        if !removed.is_empty() {
            tracing::warn!(bed = %spec.name, ?removed, "removed stale namespaces");
        }
        let mut bed = Testbed {
            info: plan.info.clone(),
            namespaces: Vec::new(),
            keep: false,
            torn_down: false,
        };
        for ns in &plan.namespaces {
            sys::run("ip", &["netns", "add", ns], None)?;
            netns::created(ns);
            bed.namespaces.push(ns.clone());
            sys::ip_in(ns, &["link", "set", "lo", "up"])?;
            if !spec.ipv6 {
                disable_ipv6(ns)?;
            }
        }
        for v in &plan.veths {
            let mtu = v.mtu.to_string();
            let (a_mac, b_mac) = (v.a_mac.to_string(), v.b_mac.to_string());
            sys::ip_in(
                &v.a_netns,
                &[
                    "link", "add", &v.a_iface, "address", &a_mac, "mtu", &mtu, "type", "veth",
                    "peer", "name", &v.b_iface, "address", &b_mac, "mtu", &mtu, "netns",
                    &v.b_netns,
                ],
            )?;
        }
        // Aliases let another process (the CLI) rediscover the topology.
        for h in &plan.info.hosts {
            for i in &h.ifaces {
                let a = alias(&i.peer_host, &i.peer_netns, &i.peer_iface);
                sys::ip_in(&h.netns, &["link", "set", "dev", &i.name, "alias", &a])?;
                let peer_alias = alias(&h.name, &h.netns, &i.name);
                sys::ip_in(
                    &i.peer_netns,
                    &["link", "set", "dev", &i.peer_iface, "alias", &peer_alias],
                )?;
            }
        }
        if let Some((sw, ports, mtu)) = &plan.bridge {
            // A dumb switch: no STP, no multicast snooping (floods like the
            // unmanaged switches cameras often hang off).
            sys::ip_in(
                sw,
                &[
                    "link",
                    "add",
                    BRIDGE_NAME,
                    "type",
                    "bridge",
                    "stp_state",
                    "0",
                    "mcast_snooping",
                    "0",
                ],
            )?;
            for p in ports {
                sys::ip_in(sw, &["link", "set", "dev", p, "master", BRIDGE_NAME, "up"])?;
            }
            sys::ip_in(
                sw,
                &[
                    "link",
                    "set",
                    "dev",
                    BRIDGE_NAME,
                    "mtu",
                    &mtu.to_string(),
                    "up",
                ],
            )?;
        }
        for h in &plan.info.hosts {
            for i in &h.ifaces {
                let cidr = format!("{}/{}", i.ipv4, i.prefix_len);
                sys::ip_in(
                    &h.netns,
                    &["addr", "add", &cidr, "brd", "+", "dev", &i.name],
                )?;
                sys::ip_in(&h.netns, &["link", "set", "dev", &i.name, "up"])?;
            }
        }
        // Offloads stay as the kernel sets them: real-peer tests must see
        // what a user's veth carries.
        for (ns, peer, iface) in &plan.routes {
            sys::ip_in(ns, &["route", "add", &format!("{peer}/32"), "dev", iface])?;
        }
        for s in &plan.shapes {
            install_tbf(&s.netns, &s.iface, &s.shaper)?;
        }
        for rule in &spec.loss {
            bed.set_loss(rule)?;
        }
        for r in &spec.rps {
            bed.set_rps(&r.host, &r.cpus)?;
        }
        // A new veth reports its carrier a moment after `link set up`; a
        // program started at once (discovery skips interfaces not running)
        // must find the bed ready.
        for h in &plan.info.hosts {
            for i in &h.ifaces {
                wait_for_carrier(&h.netns, &i.name)?;
            }
        }
        tracing::info!(bed = %spec.name, hosts = spec.hosts.len(), "testbed up");
        Ok(bed)
    }

    /// Finds a bed that is already up (made by `testbed up` in another
    /// process) by its name, reading interfaces, addresses and peers back
    /// from the namespaces.
    ///
    /// The handle does **not** tear the bed down on drop (it did not create
    /// it); call [`Testbed::teardown`] to remove it.
    pub fn attach(name: &str) -> Result<Testbed> {
        validate_name("bed", name)?;
        let ours: Vec<_> = bed_namespaces()?
            .into_iter()
            .filter(|b| b.bed == name)
            .collect();
        if ours.is_empty() {
            return Err(Error::NotFound(name.to_owned()));
        }
        let mut hosts = Vec::new();
        let mut switch_netns = None;
        for b in &ours {
            if b.host == SWITCH_HOST {
                switch_netns = Some(b.netns.clone());
                continue;
            }
            let json = sys::ip_in(&b.netns, &["-j", "-d", "addr", "show"])?;
            hosts.push(HostInfo {
                name: b.host.clone(),
                netns: b.netns.clone(),
                ifaces: parse_ifaces(&json).map_err(|detail| Error::Output {
                    cmdline: format!("ip -n {} -j -d addr show", b.netns),
                    detail,
                })?,
            });
        }
        // Spec order is encoded in the last address byte (host index + 1).
        hosts.sort_by_key(|h| {
            (
                h.ipv4().map(|a| a.octets()[3]).unwrap_or(255),
                h.name.clone(),
            )
        });
        Ok(Testbed {
            info: BedInfo {
                name: name.to_owned(),
                switch_netns,
                hosts,
            },
            namespaces: ours.into_iter().map(|b| b.netns).collect(),
            keep: true,
            torn_down: false,
        })
    }

    /// Name, namespaces, interfaces and addresses of the bed.
    pub fn info(&self) -> &BedInfo {
        &self.info
    }

    /// The bed's name.
    pub fn name(&self) -> &str {
        &self.info.name
    }

    /// The hosts, in spec order.
    pub fn hosts(&self) -> &[HostInfo] {
        &self.info.hosts
    }

    /// Every namespace of the bed, hosts and switch.
    pub fn namespaces(&self) -> &[String] {
        &self.namespaces
    }

    /// Looks up a host by name.
    pub fn host(&self, host: &str) -> Result<&HostInfo> {
        self.info
            .hosts
            .iter()
            .find(|h| h.name == host)
            .ok_or_else(|| self.unknown("host", host))
    }

    /// The namespace name of `host`, for tools that take one.
    pub fn netns(&self, host: &str) -> Result<&str> {
        Ok(&self.host(host)?.netns)
    }

    /// The first interface of `host` (its only one, unless multi-homed).
    pub fn iface(&self, host: &str) -> Result<&IfaceInfo> {
        self.host(host)?
            .ifaces
            .first()
            .ok_or_else(|| self.unknown("interface on host", host))
    }

    /// The address of `host`'s first interface: where to send to it.
    pub fn addr(&self, host: &str) -> Result<Ipv4Addr> {
        Ok(self.iface(host)?.ipv4)
    }

    /// The MAC of `host`'s first interface.
    pub fn mac(&self, host: &str) -> Result<MacAddr> {
        Ok(self.iface(host)?.mac)
    }

    /// The address `from` should use to reach `to`: on a point-to-point
    /// bed the address of `to` on the link they share, otherwise `to`'s
    /// first address.
    pub fn addr_seen_from(&self, from: &str, to: &str) -> Result<Ipv4Addr> {
        let f = self.host(from)?;
        let t = self.host(to)?;
        for i in &t.ifaces {
            if i.peer_netns == f.netns {
                return Ok(i.ipv4);
            }
        }
        self.addr(to)
    }

    fn unknown(&self, what: &'static str, name: &str) -> Error {
        Error::Unknown {
            bed: self.info.name.clone(),
            what,
            name: name.to_owned(),
        }
    }

    fn ifaces_of<'a>(&'a self, host: &str, iface: Option<&str>) -> Result<Vec<&'a IfaceInfo>> {
        let h = self.host(host)?;
        let v: Vec<&IfaceInfo> = h
            .ifaces
            .iter()
            .filter(|i| iface.map_or(true, |n| n == i.name))
            .collect();
        if v.is_empty() {
            return Err(self.unknown("interface", iface.unwrap_or(host)));
        }
        Ok(v)
    }

    /// A command that runs `program` on `host` (inside its namespace).
    /// Pin it with `.cpu(n)`; spawn it like any `Command`.
    pub fn command(&self, host: &str, program: impl AsRef<OsStr>) -> Result<HostCommand> {
        Ok(HostCommand::new(self.netns(host)?, program))
    }

    /// Runs Rust code on `host`: `f` runs on a fresh thread inside the
    /// host's namespace (pinned to `cpus` if given); sockets it creates
    /// belong to that host for good. Blocks until `f` returns.
    pub fn run_in<T, F>(&self, host: &str, cpus: Option<&[usize]>, f: F) -> Result<T>
    where
        T: Send,
        F: FnOnce() -> T + Send,
    {
        run_in_netns(self.netns(host)?, cpus, f)
    }

    /// Like [`Testbed::run_in`] but returns at once with the thread's
    /// handle, for servers and concurrent senders.
    pub fn spawn_in<T, F>(&self, host: &str, cpus: Option<&[usize]>, f: F) -> Result<JoinHandle<T>>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        spawn_in_netns(self.netns(host)?, cpus, f)
    }

    /// Pings `to` from `from` with `payload_len` bytes of ICMP payload and
    /// the DF bit set; returns the round-trip time. 8000 bytes passes only
    /// on a jumbo (MTU ≥ 8028) path.
    pub fn ping(
        &self,
        from: &str,
        to: &str,
        payload_len: usize,
        timeout: Duration,
    ) -> Result<Duration> {
        let dst = self.addr_seen_from(from, to)?;
        self.run_in(from, None, || {
            probe::ping_from_current_netns(dst, payload_len, timeout)
        })?
    }

    /// Installs or replaces a loss rule (same host, interface, direction
    /// and match replace the earlier rule); `percent == 0` removes it.
    /// Takes effect immediately, so tests can change loss mid-run.
    pub fn set_loss(&self, rule: &LossRule) -> Result<()> {
        let threshold = rule.threshold()?;
        let netns = self.netns(&rule.host)?;
        for i in self.ifaces_of(&rule.host, rule.iface.as_deref())? {
            let hook = loss::Hook {
                layer: rule.layer,
                direction: rule.direction,
            };
            let burst = rule.burst.as_ref();
            loss::set(netns, hook, &i.name, &rule.matcher, threshold, burst)?;
        }
        Ok(())
    }

    /// Removes every loss rule of `host`.
    pub fn clear_loss(&self, host: &str) -> Result<()> {
        loss::clear(self.netns(host)?)
    }

    /// The loss rules installed on `host`, with how many packets each has
    /// dropped so far.
    pub fn loss_rules(&self, host: &str) -> Result<Vec<InstalledLoss>> {
        loss::list(self.netns(host)?)
    }

    /// Sets (or with `None` removes) the tbf rate limit of traffic leaving
    /// (`Egress`) or arriving at (`Ingress`) `host` on `iface` (all of its
    /// interfaces if `None`). Ingress is shaped on the egress of the other
    /// end of the veth, since tbf only shapes what a device sends.
    pub fn set_rate(
        &self,
        host: &str,
        iface: Option<&str>,
        direction: Direction,
        shaper: Option<Shaper>,
    ) -> Result<()> {
        let ns = self.netns(host)?.to_owned();
        for i in self.ifaces_of(host, iface)? {
            let (tns, tif) = match direction {
                Direction::Egress => (ns.as_str(), i.name.as_str()),
                Direction::Ingress => (i.peer_netns.as_str(), i.peer_iface.as_str()),
            };
            match &shaper {
                Some(s) => {
                    s.validate(i.mtu)?;
                    install_tbf(tns, tif, s)?;
                }
                None => remove_tbf(tns, tif)?,
            }
        }
        Ok(())
    }

    /// Steers the receive processing of all of `host`'s interfaces to
    /// `cpus` (RPS), and verifies the mask reads back. An empty list turns
    /// RPS off.
    pub fn set_rps(&self, host: &str, cpus: &[usize]) -> Result<()> {
        let h = self.host(host)?;
        for i in &h.ifaces {
            rps::write(&h.netns, &i.name, cpus)?;
        }
        Ok(())
    }

    /// The RPS CPUs of `host`'s first interface, read from sysfs inside its
    /// namespace (empty: RPS off).
    pub fn rps(&self, host: &str) -> Result<Vec<usize>> {
        let h = self.host(host)?;
        let i = self.iface(host)?;
        rps::read(&h.netns, &i.name)
    }

    /// Do not tear down on drop: the bed outlives this handle (and the
    /// process). `testbed up` uses this; `testbed down` removes it later.
    pub fn keep_on_drop(&mut self) {
        self.keep = true;
    }

    /// Consumes the handle, leaving the bed up; returns its description.
    pub fn leak(mut self) -> BedInfo {
        self.keep = true;
        self.info.clone()
    }

    /// Deletes the bed's namespaces (and with them veths, qdiscs and nft
    /// tables), reporting the first failure after trying them all.
    pub fn teardown(mut self) -> Result<()> {
        self.teardown_inner()
    }

    fn teardown_inner(&mut self) -> Result<()> {
        if self.torn_down {
            return Ok(());
        }
        self.torn_down = true;
        let mut first = None;
        for ns in self.namespaces.iter().rev() {
            if let Err(e) = netns::delete(ns) {
                first.get_or_insert(e);
            }
        }
        match first {
            None => Ok(()),
            Some(e) => Err(e),
        }
    }
}

impl Drop for Testbed {
    fn drop(&mut self) {
        if self.keep {
            return;
        }
        if let Err(e) = self.teardown_inner() {
            tracing::warn!(bed = %self.info.name, error = %e, "teardown failed");
            eprintln!(
                "linerate-testbed: teardown of {} failed: {e}",
                self.info.name
            );
        }
    }
}

/// Removes all namespaces of bed `name`; returns the names removed.
/// Works on beds left by another process or a crash.
pub fn remove_bed(name: &str) -> Result<Vec<String>> {
    validate_name("bed", name)?;
    let ours: Vec<String> = bed_namespaces()?
        .into_iter()
        .filter(|b| b.bed == name)
        .map(|b| b.netns)
        .collect();
    for ns in &ours {
        netns::delete(ns)?;
    }
    Ok(ours)
}

/// Removes the namespaces of every bed on the machine (`down --all`):
/// everything named `lr-<bed>-<host>`.
pub fn remove_all_beds() -> Result<Vec<String>> {
    let ours: Vec<String> = bed_namespaces()?.into_iter().map(|b| b.netns).collect();
    for ns in &ours {
        netns::delete(ns)?;
    }
    Ok(ours)
}

/// The names of all beds that have namespaces on this machine.
pub fn list_beds() -> Result<Vec<String>> {
    let mut v: Vec<String> = bed_namespaces()?.into_iter().map(|b| b.bed).collect();
    v.dedup();
    Ok(v)
}

/// Whether namespace `lr-<bed>-<host>` exists: handy for asserting
/// teardown in tests.
pub fn netns_exists(bed: &str, host: &str) -> bool {
    std::path::Path::new(netns::NETNS_DIR)
        .join(netns_name(bed, host))
        .exists()
}

fn disable_ipv6(ns: &str) -> Result<()> {
    run_in_netns(ns, None, || -> Result<()> {
        for which in ["all", "default"] {
            let p = format!("/proc/sys/net/ipv6/conf/{which}/disable_ipv6");
            if std::path::Path::new(&p).exists() {
                std::fs::write(&p, "1")
                    .map_err(|e| Error::io(format!("writing {p} in {ns}"), e))?;
            }
        }
        Ok(())
    })?
}

fn install_tbf(ns: &str, iface: &str, s: &Shaper) -> Result<()> {
    let mut args: Vec<String> = ["qdisc", "replace", "dev", iface, "root"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.extend(s.tc_args());
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    sys::tc_in(ns, &refs).map(|_| ())
}

fn remove_tbf(ns: &str, iface: &str) -> Result<()> {
    match sys::tc_in(ns, &["qdisc", "del", "dev", iface, "root"]) {
        Ok(_) => Ok(()),
        Err(e) => {
            // Nothing to delete is not a failure.
            let shown = sys::tc_in(ns, &["qdisc", "show", "dev", iface, "root"])?;
            if shown.contains("tbf") {
                Err(e)
            } else {
                Ok(())
            }
        }
    }
}

/// Parses `ip -j -d addr show` into our interfaces (those carrying our
/// alias), skipping loopback and anything else.
pub(crate) fn parse_ifaces(json: &str) -> std::result::Result<Vec<IfaceInfo>, String> {
    let v: serde_json::Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
    let links = v.as_array().ok_or("expected a JSON array")?;
    let mut out = Vec::new();
    for l in links {
        let Some(name) = l.get("ifname").and_then(|x| x.as_str()) else {
            continue;
        };
        let Some((peer_host, peer_netns, peer_iface)) = l
            .get("ifalias")
            .and_then(|x| x.as_str())
            .and_then(parse_alias)
        else {
            continue;
        };
        let mac: MacAddr = l
            .get("address")
            .and_then(|x| x.as_str())
            .ok_or(format!("{name}: no MAC"))?
            .parse()
            .map_err(|e| format!("{name}: {e}"))?;
        let mtu = l
            .get("mtu")
            .and_then(|x| x.as_u64())
            .ok_or(format!("{name}: no mtu"))? as u32;
        let inet = l.get("addr_info").and_then(|x| x.as_array()).and_then(|a| {
            a.iter()
                .find(|ai| ai.get("family").and_then(|f| f.as_str()) == Some("inet"))
        });
        let Some(inet) = inet else { continue };
        let ipv4: Ipv4Addr = inet
            .get("local")
            .and_then(|x| x.as_str())
            .ok_or(format!("{name}: no local address"))?
            .parse()
            .map_err(|e| format!("{name}: {e}"))?;
        let prefix_len = inet
            .get("prefixlen")
            .and_then(|x| x.as_u64())
            .ok_or(format!("{name}: no prefixlen"))? as u8;
        out.push(IfaceInfo {
            name: name.to_owned(),
            ipv4,
            prefix_len,
            mac,
            mtu,
            peer_host,
            peer_netns,
            peer_iface,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// How long a new interface may take to report its carrier.
const CARRIER_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// Waits until `iface` in `netns` has its carrier (LOWER_UP), or fails
/// after [`CARRIER_WAIT`] naming the interface.
fn wait_for_carrier(netns: &str, iface: &str) -> Result<()> {
    let deadline = std::time::Instant::now() + CARRIER_WAIT;
    loop {
        let out = sys::ip_in(netns, &["-o", "link", "show", "dev", iface])?;
        if has_carrier(&out) {
            return Ok(());
        }
        if std::time::Instant::now() >= deadline {
            return Err(Error::Output {
                cmdline: format!("ip -n {netns} -o link show dev {iface}"),
                detail: format!("no carrier after {CARRIER_WAIT:?}: {}", out.trim()),
            });
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// Whether `ip -o link show` output says the link has its carrier.
fn has_carrier(line: &str) -> bool {
    line.split(['<', '>'])
        .nth(1)
        .is_some_and(|flags| flags.split(',').any(|f| f == "LOWER_UP"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ip_json() {
        let json = r#"[{"ifindex":1,"ifname":"lo","mtu":65536,"address":"00:00:00:00:00:00",
            "addr_info":[{"family":"inet","local":"127.0.0.1","prefixlen":8}]},
          {"ifindex":2,"ifname":"eth0","mtu":9000,"address":"02:6c:72:00:01:01",
            "ifalias":"linerate peer=pc netns=lr-t-pc iface=eth0",
            "addr_info":[{"family":"inet","local":"169.254.1.1","prefixlen":16}]}]"#;
        let v = parse_ifaces(json).unwrap_or_default();
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].name, "eth0");
        assert_eq!(v[0].ipv4, Ipv4Addr::new(169, 254, 1, 1));
        assert_eq!(v[0].peer_netns, "lr-t-pc");
        assert_eq!(v[0].mtu, 9000);
        assert!(parse_ifaces("{").is_err());
        assert!(parse_ifaces("{}").is_err());
    }

    #[test]
    fn builder_collects_spec() {
        let b = Testbed::builder("x")
            .host("cam")
            .host("pc")
            .link("cam", "pc")
            .mtu(9000)
            .rate_gbit(1.0)
            .loss(LossRule::new("pc", 1.0).udp_dport(5))
            .rps("pc", &[1]);
        let s = b.spec();
        assert_eq!(s.hosts, ["cam", "pc"]);
        assert_eq!(s.rate, Some(Rate::gbit(1)));
        assert_eq!(s.links.len(), 1);
        assert!(s.validate().is_ok());
        // Invalid input fails in build(), before anything is created.
        let bad = Testbed::builder("x").host("a").host("b").rate_gbit(-1.0);
        assert!(matches!(bad.build(), Err(Error::Spec(_))));
        assert!(Testbed::builder("x")
            .host("a")
            .host("b")
            .rate_gbit(2.5)
            .spec()
            .validate()
            .is_ok());
    }

    #[test]
    fn carrier_is_read_from_the_link_flags() {
        assert!(has_carrier(
            "2: eth0@if3: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc noqueue state UP"
        ));
        assert!(!has_carrier(
            "2: eth0@if3: <NO-CARRIER,BROADCAST,MULTICAST,UP> mtu 9000 state LOWERLAYERDOWN"
        ));
        assert!(!has_carrier("garbage"));
    }
}
