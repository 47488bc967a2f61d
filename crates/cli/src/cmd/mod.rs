pub mod bench;
pub mod decode;
pub mod demo;
pub mod discover;
pub mod doctor;
pub mod fade;
pub mod grab;
pub mod testbed;
