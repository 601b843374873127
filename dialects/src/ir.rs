//! Typed helpers over melior for our types and ops.
