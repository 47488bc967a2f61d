pub mod bench;
pub mod decode;
pub mod demo;
pub mod discover;
pub mod docs;
pub mod doctor;
pub mod fade;
pub mod features;
pub mod force_ip;
// The grab session is moving into the grab crate; until it is a library
// module there, the command compiles it from its new place.
#[path = "../../../grab/src/session.rs"]
pub mod grab;
pub mod noise;
pub mod serve;
pub mod testbed;
pub mod watch;
