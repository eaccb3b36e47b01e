pub mod dce;
