//! ploy-service: being built.
