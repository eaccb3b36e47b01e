pub mod dce;
pub mod lcm;
pub mod copyprop;
