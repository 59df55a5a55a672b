//! Shared helpers of the built-in skill scripts (the protocol side).
