//! TLS test certificates (rcgen): a throwaway CA and a server certificate
//! it signs, so tests exercise real verification against an injected root.

use std::sync::Arc;

use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// A test CA and a server certificate it signs for `names`: returns the
/// server's TLS config and the CA certificate (to inject as the only root).
#[allow(clippy::expect_used)] // test fixtures: a failure here is a broken test setup
pub fn tls_for(names: &[&str]) -> (Arc<rustls::ServerConfig>, CertificateDer<'static>) {
    use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().expect("CA key"))
        .expect("CA certificate");
    let leaf_key = KeyPair::generate().expect("leaf key");
    let leaf = CertificateParams::new(names.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>())
        .expect("leaf params")
        .signed_by(&leaf_key, &ca)
        .expect("leaf certificate");
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der()));
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .expect("protocol versions")
    .with_no_client_auth()
    .with_single_cert(vec![leaf.der().clone()], key)
    .expect("server certificate");
    (Arc::new(config), ca.der().clone())
}
