//! Benchmark placeholder (filled in below).
fn main() {}
