//! Host programs (extensions). Being built.
