//! The count of delivered frames: complete or not, verified or corrupt,
//! saved, with the first few failures kept as examples for the report.

use linerate_gev::assembler::FrameStatus;
use serde::{Deserialize, Serialize};

use crate::stream::Buffer;
use crate::verify::Verifier;

/// Examples of incomplete and corrupt frames the report keeps.
const EXAMPLES: usize = 16;

/// Frames counted so far.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    /// Frames delivered with every byte.
    pub completed: u64,
    /// Frames delivered with bytes missing.
    pub incomplete: u64,
    /// Incomplete frames with conflicting duplicates.
    pub conflict: u64,
    /// Complete frames that failed verification.
    pub corrupt: u64,
    /// Complete frames that passed verification.
    pub verified: u64,
    /// The first incomplete frames.
    pub incomplete_examples: Vec<IncompleteFrame>,
    /// The first verification failures.
    pub corrupt_examples: Vec<String>,
    /// Frames written to the save directory.
    pub saved: u64,
}

impl Tally {
    /// Counts `buffer`, verifying it with `verifier` and saving it into
    /// `save` when it is complete.
    pub fn take(
        &mut self,
        buffer: &Buffer,
        verifier: Option<&mut Verifier>,
        save: Option<&std::path::Path>,
    ) {
        if !buffer.is_complete() {
            self.incomplete += 1;
            if buffer.info().status == FrameStatus::Conflict {
                self.conflict += 1;
            }
            if self.incomplete_examples.len() < EXAMPLES {
                self.incomplete_examples.push(IncompleteFrame {
                    block_id: buffer.info().block_id,
                    status: format!("{:?}", buffer.info().status),
                    missing: buffer.missing().iter().map(|r| (r.start, r.end)).collect(),
                    leader_missing: buffer.info().leader_missing,
                    trailer_missing: buffer.info().trailer_missing,
                });
            }
            return;
        }
        self.completed += 1;
        if let Some(v) = verifier {
            match v.check(buffer) {
                Ok(()) => self.verified += 1,
                Err(e) => {
                    self.corrupt += 1;
                    if self.corrupt_examples.len() < EXAMPLES {
                        self.corrupt_examples.push(e.to_string());
                    }
                }
            }
        }
        if let Some(dir) = save {
            match crate::save::save_frame(dir, self.completed.saturating_sub(1), buffer) {
                Ok(_) => self.saved += 1,
                Err(e) => tracing::warn!(error = %e, "cannot save frame"),
            }
        }
    }

    /// Frames delivered, complete or not.
    pub fn delivered(&self) -> u64 {
        self.completed + self.incomplete
    }
}

/// One incomplete frame, for the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IncompleteFrame {
    /// Block id.
    pub block_id: u64,
    /// Why it is incomplete.
    pub status: String,
    /// Missing byte ranges `[start, end)`.
    pub missing: Vec<(usize, usize)>,
    /// The leader never arrived.
    pub leader_missing: bool,
    /// The trailer never arrived.
    pub trailer_missing: bool,
}
