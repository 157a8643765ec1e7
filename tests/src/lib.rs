//! End-to-end and conformance tests live in `tests/`; this library is empty on purpose.
