pub mod dce;
pub mod lcm;
