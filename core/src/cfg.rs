//! Control-flow graph (placeholder).
