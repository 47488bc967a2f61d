//! What a standing bed looks like now: its addresses, namespaces and the
//! loss rules installed with their counters (`linerate testbed status`
//! and `loss`), as typed data a front-end prints or serializes.

use serde::{Deserialize, Serialize};

use crate::bed::Testbed;
use crate::error::Result;
use crate::loss::InstalledLoss;
use crate::plan::BedInfo;

/// One bed's state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BedStatus {
    /// Its hosts, interfaces and addresses (fields at this level in JSON).
    #[serde(flatten)]
    pub info: BedInfo,
    /// The network namespaces it owns.
    pub namespaces: Vec<String>,
    /// Loss rules per host, for the hosts that have any.
    pub loss: Vec<HostLoss>,
}

/// The loss rules installed on one host, with their drop counters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostLoss {
    /// The host's name in the bed.
    pub host: String,
    /// Its rules (empty: no loss).
    pub rules: Vec<InstalledLoss>,
}

impl Testbed {
    /// The loss rules installed on `host`, read back from nft.
    pub fn host_loss(&self, host: &str) -> Result<HostLoss> {
        Ok(HostLoss {
            host: host.to_owned(),
            rules: self.loss_rules(host)?,
        })
    }

    /// The bed's addresses, namespaces and the loss of every host that
    /// has any.
    pub fn status(&self) -> Result<BedStatus> {
        let mut loss = Vec::new();
        for h in self.hosts() {
            let host = self.host_loss(&h.name)?;
            if !host.rules.is_empty() {
                loss.push(host);
            }
        }
        Ok(BedStatus {
            info: self.info().clone(),
            namespaces: self.namespaces().to_vec(),
            loss,
        })
    }
}
