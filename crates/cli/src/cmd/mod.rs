pub mod decode;
pub mod demo;
pub mod discover;
pub mod fade;
pub mod grab;
pub mod serve;
pub mod testbed;
pub mod watch;
