//! Fixture sites for the web and browser tools: real HTTP servers on
//! 127.0.0.1 reached through the real guarded fetcher, whose resolver and
//! dial seams (the test kit's) map public-looking names and addresses to
//! them. The door's URL and address checks run on the public address, as
//! in production.

use ploy_agent::tools::web::WebSetup;
use ploy_research::{Limits, Research};
use ploy_secrets::Redactor;
use ploy_testkit::net::{MapDial, ScriptedResolver, fetcher, quick_config};
use ploy_testkit::web::{Reply, Routes, WebServer};

/// The sites of a test: each name answers one public address mapped to its
/// own server.
pub struct Sites {
    pub resolver: ScriptedResolver,
    pub dial: MapDial,
    pub servers: Vec<(String, WebServer)>,
}

/// Public-looking addresses, one per site (93.184.215.0/24).
const ADDRS: [&str; 5] = [
    ploy_testkit::net::PUB_A,
    ploy_testkit::net::PUB_B,
    ploy_testkit::net::PUB_C,
    ploy_testkit::net::PUB_D,
    ploy_testkit::net::PUB_E,
];

impl Sites {
    /// One server per `(names, routes)`: every name answers that server's
    /// address.
    pub async fn start(sites: Vec<(&[&str], Routes)>) -> Self {
        let resolver = ScriptedResolver::default();
        let dial = MapDial::default();
        let mut servers = Vec::new();
        for (i, (names, routes)) in sites.into_iter().enumerate() {
            let server = WebServer::routes(routes).await;
            dial.map(ADDRS[i], server.addr());
            for name in names {
                resolver.fixed(name, &[ADDRS[i]]);
            }
            servers.push((names[0].to_string(), server));
        }
        Self {
            resolver,
            dial,
            servers,
        }
    }

    /// The server of the site first named `name`.
    pub fn server(&self, name: &str) -> &WebServer {
        &self
            .servers
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no site {name}"))
            .1
    }

    /// The address of the `i`th site.
    pub fn addr(i: usize) -> &'static str {
        ADDRS[i]
    }

    /// The web tools' setup: a research engine over these sites (no search
    /// backend), with `redactor` for its output and no secret at the door.
    pub fn setup(&self, config_dir: std::path::PathBuf, redactor: &Redactor) -> WebSetup {
        self.setup_guarding(config_dir, redactor, &[])
    }

    /// [`Sites::setup`] with `secrets` known to the egress door (BEYOND-6),
    /// as `ploy` builds it from the environment.
    pub fn setup_guarding(
        &self,
        config_dir: std::path::PathBuf,
        redactor: &Redactor,
        secrets: &[&str],
    ) -> WebSetup {
        let fetcher = fetcher(&self.resolver, &self.dial, quick_config())
            .with_secrets(ploy_egress::SecretDoor::new(secrets.iter().copied()));
        WebSetup {
            config_dir,
            hosts: None,
            secrets: ploy_secrets::SecretSet::new(),
            answer_model: None,
            research: Some(Research::new(
                fetcher,
                Vec::new(),
                redactor.clone(),
                Limits::default(),
            )),
        }
    }
}

/// An HTML page.
pub fn page(title: &str, body: &str) -> Reply {
    Reply::html(format!(
        "<!doctype html><html><head><title>{title}</title></head><body>{body}</body></html>"
    ))
}
