//! Generic feature access to one device: list, describe, get, set and
//! execute any GenICam feature by name, and the XML they come from.
//!
//! A [`FeatureSession`] reads as a *monitor*: it never takes the control
//! privilege to read, so listing a camera that another application is
//! streaming from works and disturbs nothing. Writes ([`FeatureSession::apply`],
//! `set`, `execute`) take control for the duration of the call and give it
//! back at once, as `arv-tool control` does; they fail with
//! [`Error::ControlTaken`] while someone else controls the camera.
//!
//! This is the layer every front end shares (the `linerate features`,
//! `get`, `set` and `xml` commands; the Python package; a GenTL producer;
//! a live view): they parse and present, the checks live here and in
//! `linerate-genicam`.

use std::net::SocketAddrV4;
use std::time::Duration;

use linerate_genicam::{Category, FeatureInfo, FeatureKind, FeatureValue, Features, XmlDocument};

use crate::camera::{DeviceInfo, Port};
use crate::control::{Control, ControlConfig};
use crate::discovery;
use crate::error::{Error, Result};

/// One requested change: `value` for a feature with a value, `None` to
/// execute a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    /// The feature's name.
    pub name: String,
    /// The value as text (parsed by the feature's type), or `None` to
    /// execute a command.
    pub value: Option<String>,
}

impl Setting {
    /// Parses `NAME=VALUE` (set) or `NAME` (execute a command). `NAME=`
    /// sets the empty value: an empty string, or for a command, executes it.
    pub fn parse(text: &str) -> Result<Setting> {
        let (name, value) = match text.split_once('=') {
            Some((name, value)) => (name.trim(), Some(value.to_string())),
            None => (text.trim(), None),
        };
        if name.is_empty() {
            return Err(Error::BadSetting {
                what: "feature setting",
                value: text.to_string(),
                why: "expected NAME=VALUE, or NAME alone to execute a command".into(),
            });
        }
        Ok(Setting {
            name: name.to_string(),
            value,
        })
    }
}

/// A batch of settings that stopped at one: which were applied before it,
/// and why it failed. Settings after it were not tried.
#[derive(Debug, thiserror::Error)]
#[error("{source}{}", applied_note(.applied))]
pub struct ApplyError {
    /// Names of the settings applied, in order, before the failure.
    pub applied: Vec<String>,
    /// The setting that failed.
    pub failed: String,
    /// Why (a genicam error names the feature, value and allowed values).
    #[source]
    pub source: Error,
}

fn applied_note(applied: &[String]) -> String {
    if applied.is_empty() {
        " (nothing was changed)".to_string()
    } else {
        format!(" (already applied: {})", applied.join(", "))
    }
}

/// A device's GenICam features over a monitor connection; see the module
/// documentation.
#[derive(Debug)]
pub struct FeatureSession {
    address: SocketAddrV4,
    config: ControlConfig,
    monitor: Control,
    info: DeviceInfo,
    features: Features,
    xml: XmlDocument,
}

fn genicam(e: linerate_genicam::Error) -> Error {
    Error::GenICam(Box::new(e))
}

impl FeatureSession {
    /// Opens `target` (an IPv4 address, `IP:PORT`, or a serial number or
    /// user name found by discovery from `config.local`), reads its
    /// identity, fetches its GenICam XML and builds the feature tree,
    /// without taking control.
    pub fn open(target: &str, config: &ControlConfig) -> Result<FeatureSession> {
        let address = discovery::resolve_addr(target, config.local, Duration::from_millis(500))?;
        let monitor = Control::open_monitor(address, config)?;
        // The XML first: a device that does not answer fails here, once,
        // instead of after the identity reads time out one by one.
        let xml = linerate_genicam::fetch_xml_document(&mut Port(&monitor)).map_err(genicam)?;
        let info = DeviceInfo::read(&monitor, *address.ip());
        let features = Features::from_xml(&xml.text).map_err(genicam)?;
        Ok(FeatureSession {
            address,
            config: config.clone(),
            monitor,
            info,
            features,
            xml,
        })
    }

    /// The device's GVCP address.
    pub fn address(&self) -> SocketAddrV4 {
        self.address
    }

    /// The device's identity (vendor, model, serial, version).
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// The XML the features were built from, with the URL it came from.
    pub fn xml(&self) -> &XmlDocument {
        &self.xml
    }

    /// Every feature name, in category order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.features.names()
    }

    /// The category tree from `Root`, if the XML has one.
    pub fn tree(&self) -> Option<Category> {
        self.features.tree()
    }

    /// What kind of feature `name` is, without touching the device.
    pub fn kind(&self, name: &str) -> Result<FeatureKind> {
        self.features.kind(name).map_err(genicam)
    }

    /// Describes every feature (value, access, range, entries, unit) as
    /// it is now, in category order. A feature whose value cannot be read
    /// carries the reason in its `error`; a transport failure ends the list.
    pub fn list(&mut self) -> Result<Vec<FeatureInfo>> {
        let names: Vec<String> = self.features.names().map(str::to_string).collect();
        names.iter().map(|name| self.describe(name)).collect()
    }

    /// Describes one feature as it is now.
    pub fn describe(&mut self, name: &str) -> Result<FeatureInfo> {
        self.features
            .describe(&mut Port(&self.monitor), name)
            .map_err(genicam)
    }

    /// Reads one feature's current value.
    pub fn get(&mut self, name: &str) -> Result<FeatureValue> {
        self.features
            .get(&mut Port(&self.monitor), name)
            .map_err(genicam)
    }

    /// Sets one feature from text, checked against its type, range or
    /// entries before anything is written; takes control for the call.
    pub fn set(&mut self, name: &str, value: &str) -> std::result::Result<(), ApplyError> {
        self.apply(&[Setting {
            name: name.to_string(),
            value: Some(value.to_string()),
        }])
    }

    /// Executes a command feature; takes control for the call.
    pub fn execute(&mut self, name: &str) -> std::result::Result<(), ApplyError> {
        self.apply(&[Setting {
            name: name.to_string(),
            value: None,
        }])
    }

    /// Applies `settings` in order under one grant of control, released
    /// when the call returns. Stops at the first that fails; each is
    /// checked before it is written, so the failing one changed nothing.
    /// A setting without a value must name a command.
    pub fn apply(&mut self, settings: &[Setting]) -> std::result::Result<(), ApplyError> {
        let mut applied = Vec::new();
        let fail = |applied: &mut Vec<String>, failed: &str, source| ApplyError {
            applied: std::mem::take(applied),
            failed: failed.to_string(),
            source,
        };
        let Some(first) = settings.first() else {
            return Ok(());
        };
        // Unknown names and missing values are refused before control is
        // taken, so a typo never disturbs the camera.
        for s in settings {
            let kind = self
                .features
                .kind(&s.name)
                .map_err(|e| fail(&mut Vec::new(), &s.name, genicam(e)))?;
            if s.value.is_none() && kind != FeatureKind::Command {
                return Err(fail(
                    &mut Vec::new(),
                    &s.name,
                    Error::BadSetting {
                        what: "feature setting",
                        value: s.name.clone(),
                        why: format!("{} is {kind}, not a Command: give {}=VALUE", s.name, s.name),
                    },
                ));
            }
        }
        let control = Control::open_port(self.address, &self.config)
            .map_err(|e| fail(&mut applied, &first.name, e))?;
        let mut port = Port(&control);
        for s in settings {
            let result = match &s.value {
                Some(value) => self.features.set(&mut port, &s.name, value),
                None => self.features.execute(&mut port, &s.name),
            };
            result.map_err(|e| fail(&mut applied, &s.name, genicam(e)))?;
            applied.push(s.name.clone());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_parse() {
        assert_eq!(
            Setting::parse("Width=1024").expect("set"),
            Setting {
                name: "Width".into(),
                value: Some("1024".into())
            }
        );
        assert_eq!(
            Setting::parse("AcquisitionStart").expect("execute"),
            Setting {
                name: "AcquisitionStart".into(),
                value: None
            }
        );
        assert_eq!(
            Setting::parse("DeviceUserID=").expect("empty"),
            Setting {
                name: "DeviceUserID".into(),
                value: Some(String::new())
            }
        );
        assert_eq!(
            Setting::parse("Note=a=b").expect("value with =").value,
            Some("a=b".into())
        );
        assert!(Setting::parse("=5").is_err());
        assert!(Setting::parse("").is_err());
    }

    #[test]
    fn a_session_can_move_to_another_thread() {
        // Front ends (a Python object, a GenTL handle) hand it between threads.
        fn send<T: Send>() {}
        send::<FeatureSession>();
        send::<ApplyError>();
    }
}
