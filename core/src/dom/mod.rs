//! Dominance (placeholder).
