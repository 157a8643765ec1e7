//! The deck (being written).
