//! ploy-store: being built.
