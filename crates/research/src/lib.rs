//! ploy-research: being built.
