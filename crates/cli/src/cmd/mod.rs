pub mod decode;
pub mod demo;
pub mod testbed;
