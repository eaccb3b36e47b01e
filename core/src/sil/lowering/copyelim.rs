//! Seed 001's copy elimination (placeholder until written).
