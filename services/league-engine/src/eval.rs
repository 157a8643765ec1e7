//! The evaluator (being written).
