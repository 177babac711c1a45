//! Commands that print a stored credential (round8 #4, the judge's side).
//!
//! `gh auth token`, `aws configure get aws_secret_access_key`, `git
//! credential fill`, `kubectl config view --raw`, `op read`, `vault kv get`,
//! `security find-generic-password -w`, `pass show` … print a secret from
//! the user's credential store without naming a file: each is judged as a
//! `read` of the store it prints from (`~/.config/gh/hosts.yml`,
//! `~/.aws/credentials`, `~/.git-credentials`, a keyring), so the built-in
//! secret-file `read ask` rule asks for it as it asks for `cat .env`
//! (PERM-2), and a user's own `read` rule for that store decides as for the
//! file. One list of secret names: the stores are named by
//! `ploy_secrets::secret_file_kind`'s rule, the keyrings included.
//!
//! A line that reads a secret it names (a credential command, a secret
//! file given to a reader) and reaches the network is a send (BEYOND-6):
//! the faces that run lines on the host refuse it
//! ([`Action::secret_sent`]), as they refuse environment reads
//! ([`crate::environment_read`]).
//!
//! The table is an allowlist of what is known to print; a credential
//! program ploy does not list is not seen (the sandbox, with no home
//! folder and no network, is the closed form).

use crate::action::Action;

/// What a command prints from, and the store that holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CredentialPrint {
    /// The command as the line spells it (program basename and arguments).
    pub command: String,
    /// The store it prints from, home-relative (`~/.aws/credentials`).
    pub store: String,
}

/// One printing form: the program, the words that must appear in this
/// order after it (options among them anywhere), and the store.
struct Form {
    program: &'static str,
    words: &'static [&'static str],
    store: &'static str,
}

const GH: &str = "~/.config/gh/hosts.yml";
const AWS: &str = "~/.aws/credentials";
const GIT: &str = "~/.git-credentials";
const GCLOUD: &str = "~/.config/gcloud/credentials.db";
const KUBE: &str = "~/.kube/config";
const OP: &str = "~/.config/op/config";
const VAULT: &str = "~/.vault-token";
const NETRC: &str = "~/.netrc";
const NPMRC: &str = "~/.npmrc";
const DOCKER: &str = "~/.docker/config.json";
const KEYCHAIN: &str = "~/Library/Keychains/login.keychain-db";
const KEYRING: &str = "~/.local/share/keyrings/login.keyring";
const AZURE: &str = "~/.azure/msal_token_cache.json";

/// The forms known to print a credential. A word starting with `-` is an
/// option found anywhere (in a cluster of short options too).
const FORMS: &[Form] = &[
    // GitHub CLI.
    Form {
        program: "gh",
        words: &["auth", "token"],
        store: GH,
    },
    Form {
        program: "gh",
        words: &["auth", "status", "-t"],
        store: GH,
    },
    Form {
        program: "gh",
        words: &["auth", "status", "--show-token"],
        store: GH,
    },
    // AWS CLI: configuration values (keys included), exported and
    // temporary credentials, registry and database tokens.
    Form {
        program: "aws",
        words: &["configure", "get"],
        store: AWS,
    },
    Form {
        program: "aws",
        words: &["configure", "export-credentials"],
        store: AWS,
    },
    Form {
        program: "aws",
        words: &["sts", "get-session-token"],
        store: AWS,
    },
    Form {
        program: "aws",
        words: &["sts", "assume-role"],
        store: AWS,
    },
    Form {
        program: "aws",
        words: &["sts", "assume-role-with-saml"],
        store: AWS,
    },
    Form {
        program: "aws",
        words: &["sts", "assume-role-with-web-identity"],
        store: AWS,
    },
    Form {
        program: "aws",
        words: &["sts", "get-federation-token"],
        store: AWS,
    },
    Form {
        program: "aws",
        words: &["sso", "get-role-credentials"],
        store: AWS,
    },
    Form {
        program: "aws",
        words: &["ecr", "get-login-password"],
        store: AWS,
    },
    Form {
        program: "aws",
        words: &["ecr-public", "get-login-password"],
        store: AWS,
    },
    Form {
        program: "aws",
        words: &["codeartifact", "get-authorization-token"],
        store: AWS,
    },
    Form {
        program: "aws",
        words: &["rds", "generate-db-auth-token"],
        store: AWS,
    },
    Form {
        program: "aws",
        words: &["eks", "get-token"],
        store: AWS,
    },
    // git's credential helpers (`git credential-store get`,
    // `git credential-cache get`, … are matched by their prefix below).
    Form {
        program: "git",
        words: &["credential", "fill"],
        store: GIT,
    },
    // Google Cloud.
    Form {
        program: "gcloud",
        words: &["auth", "print-access-token"],
        store: GCLOUD,
    },
    Form {
        program: "gcloud",
        words: &["auth", "print-identity-token"],
        store: GCLOUD,
    },
    Form {
        program: "gcloud",
        words: &["config", "config-helper"],
        store: GCLOUD,
    },
    // Kubernetes: the configuration with its keys and tokens, a new token.
    Form {
        program: "kubectl",
        words: &["config", "view", "--raw"],
        store: KUBE,
    },
    Form {
        program: "kubectl",
        words: &["create", "token"],
        store: KUBE,
    },
    // 1Password.
    Form {
        program: "op",
        words: &["read"],
        store: OP,
    },
    Form {
        program: "op",
        words: &["inject"],
        store: OP,
    },
    Form {
        program: "op",
        words: &["item", "get"],
        store: OP,
    },
    Form {
        program: "op",
        words: &["document", "get"],
        store: OP,
    },
    Form {
        program: "op",
        words: &["signin", "--raw"],
        store: OP,
    },
    // HashiCorp Vault.
    Form {
        program: "vault",
        words: &["kv", "get"],
        store: VAULT,
    },
    Form {
        program: "vault",
        words: &["read"],
        store: VAULT,
    },
    Form {
        program: "vault",
        words: &["write"],
        store: VAULT,
    },
    Form {
        program: "vault",
        words: &["login"],
        store: VAULT,
    },
    Form {
        program: "vault",
        words: &["print", "token"],
        store: VAULT,
    },
    Form {
        program: "vault",
        words: &["token", "create"],
        store: VAULT,
    },
    Form {
        program: "vault",
        words: &["token", "lookup"],
        store: VAULT,
    },
    // Heroku: its token, and an app's configuration variables.
    Form {
        program: "heroku",
        words: &["auth:token"],
        store: NETRC,
    },
    Form {
        program: "heroku",
        words: &["authorizations:create"],
        store: NETRC,
    },
    Form {
        program: "heroku",
        words: &["config"],
        store: NETRC,
    },
    Form {
        program: "heroku",
        words: &["config:get"],
        store: NETRC,
    },
    // npm's tokens.
    Form {
        program: "npm",
        words: &["token"],
        store: NPMRC,
    },
    // macOS keychain: `-w` prints the password, `-g` prints it to stderr.
    Form {
        program: "security",
        words: &["find-generic-password", "-w"],
        store: KEYCHAIN,
    },
    Form {
        program: "security",
        words: &["find-generic-password", "-g"],
        store: KEYCHAIN,
    },
    Form {
        program: "security",
        words: &["find-internet-password", "-w"],
        store: KEYCHAIN,
    },
    Form {
        program: "security",
        words: &["find-internet-password", "-g"],
        store: KEYCHAIN,
    },
    Form {
        program: "security",
        words: &["dump-keychain", "-d"],
        store: KEYCHAIN,
    },
    // The Secret Service (GNOME keyring, KWallet).
    Form {
        program: "secret-tool",
        words: &["lookup"],
        store: KEYRING,
    },
    Form {
        program: "secret-tool",
        words: &["search"],
        store: KEYRING,
    },
    // Azure CLI.
    Form {
        program: "az",
        words: &["account", "get-access-token"],
        store: AZURE,
    },
    Form {
        program: "az",
        words: &["keyvault", "secret", "show"],
        store: AZURE,
    },
    Form {
        program: "az",
        words: &["storage", "account", "keys", "list"],
        store: AZURE,
    },
    Form {
        program: "az",
        words: &["acr", "login", "--expose-token"],
        store: AZURE,
    },
    Form {
        program: "az",
        words: &["ad", "sp", "create-for-rbac"],
        store: AZURE,
    },
    Form {
        program: "az",
        words: &["ad", "sp", "credential", "reset"],
        store: AZURE,
    },
];

/// `pass` commands that print no password (anything else, a bare entry
/// name included, shows one).
const PASS_QUIET: [&str; 18] = [
    "ls", "list", "find", "search", "init", "insert", "add", "edit", "rm", "remove", "delete",
    "mv", "rename", "cp", "copy", "git", "help", "version",
];

/// git configuration keys whose values are credentials (`credential.*`,
/// an `http.extraHeader` carrying `Authorization: …`, tokens, passwords).
fn git_credential_key(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    key.starts_with("credential")
        || ["extraheader", "token", "password", "secret"]
            .iter()
            .any(|w| key.contains(w))
}

/// The store `program args…` prints a credential from, if it does.
pub fn printed_credential(program: &str, args: &[&str]) -> Option<CredentialPrint> {
    let store = store_of(program, args)?;
    let command = std::iter::once(program)
        .chain(args.iter().copied())
        .collect::<Vec<_>>()
        .join(" ");
    Some(CredentialPrint {
        command,
        store: store.to_string(),
    })
}

fn store_of(program: &str, args: &[&str]) -> Option<String> {
    if let Some(form) = FORMS
        .iter()
        .find(|f| f.program == program && has_words(args, f.words))
    {
        return Some(form.store.to_string());
    }
    let store = match program {
        // `docker-credential-desktop get` (any helper) prints the
        // registry's secret.
        _ if program.starts_with("docker-credential-") => args.contains(&"get").then_some(DOCKER),
        // `git credential-store get`, `git credential-cache get`, and any
        // other helper's `get`; `git config` reads that name a credential
        // key (`credential.*`, `http.*.extraheader`, `--get-regexp token`).
        // `git config --list` is left to the user: it prints every key,
        // a CI checkout's `extraheader` included, but asking for it on
        // every machine would teach people to say yes.
        "git" => {
            let start = crate::subcommand::git_start(args).ok().flatten()?;
            let (sub, rest) = (args[start], &args[start + 1..]);
            let helper = sub.starts_with("credential-") && rest.contains(&"get");
            let config = sub == "config"
                && rest
                    .iter()
                    .any(|a| !a.starts_with('-') && git_credential_key(a));
            (helper || config).then_some(GIT)
        }
        // `npm config get //registry/:_authToken`, `_auth`, `_password`.
        "npm" | "pnpm" | "yarn" => {
            let config = args.iter().position(|a| *a == "config").is_some_and(|i| {
                args[i + 1..].iter().any(|a| {
                    let a = a.to_ascii_lowercase();
                    a.contains("auth") || a.contains("token") || a.contains("password")
                })
            });
            config.then_some(NPMRC)
        }
        // `pass show x`, `pass x`, `pass otp x`, `pass grep …`, `pass
        // generate x` (prints the new one): the entry's file.
        "pass" => {
            let first = args.iter().find(|a| !a.starts_with('-'))?;
            if PASS_QUIET.contains(first) {
                return None;
            }
            let entry = args
                .iter()
                .rev()
                .find(|a| !a.starts_with('-') && !a.contains("://"))
                .map_or("entry", |a| a.trim_matches('/'));
            return Some(format!("~/.password-store/{entry}.gpg"));
        }
        _ => None,
    };
    store.map(str::to_string)
}

/// True when the plain words of `words` appear among `args` in their
/// order, and each option of `words` anywhere: as a word, as `--name=…`,
/// or (a one-letter option) in a cluster of short options.
fn has_words(args: &[&str], words: &[&str]) -> bool {
    let mut at = 0;
    for word in words.iter().filter(|w| !w.starts_with('-')) {
        match args[at..].iter().position(|a| a == word) {
            Some(found) => at += found + 1,
            None => return false,
        }
    }
    words.iter().filter(|w| w.starts_with('-')).all(|option| {
        args.iter().any(|a| {
            *a == *option
                || a.split_once('=').is_some_and(|(name, _)| name == *option)
                || option.len() == 2
                    && !a.starts_with("--")
                    && a.len() > 2
                    && a.starts_with('-')
                    && a[1..].chars().all(|c| c.is_ascii_alphabetic())
                    && option[1..].chars().all(|c| a[1..].contains(c))
        })
    })
}

impl Action {
    /// The secrets a judged shell line reads by naming them: the stores of
    /// the credentials it prints ([`printed_credential`]) and the secret
    /// files it gives a reader (`cat ~/.aws/credentials`, `grep x .env`,
    /// `< ~/.netrc`), each as the line names it. Files a program may read
    /// without naming them (a recursive `grep`, an unknown program) are not
    /// here: the read rules ask for those; a line that names what it reads
    /// and reaches the network sends it (BEYOND-6).
    pub fn secret_reads(&self) -> &[String] {
        &self.secret_reads
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn printed(line: &str) -> Option<String> {
        let words: Vec<&str> = line.split_whitespace().collect();
        printed_credential(words[0], &words[1..]).map(|p| p.store)
    }

    #[test]
    fn credential_printers_name_their_store() {
        for (line, store) in [
            ("gh auth token", GH),
            ("gh auth token -h github.com", GH),
            ("gh auth status -t", GH),
            ("gh auth status --show-token", GH),
            ("gh auth status -at", GH),
            ("aws configure get aws_secret_access_key", AWS),
            ("aws --profile prod configure get region", AWS),
            ("aws configure export-credentials --format env", AWS),
            ("aws sts get-session-token", AWS),
            ("git credential fill", GIT),
            ("git credential-store get", GIT),
            ("git credential-cache --timeout 1 get", GIT),
            ("git config --get credential.helper", GIT),
            ("git config --get http.https://github.com/.extraheader", GIT),
            ("git config --get-regexp extraheader", GIT),
            ("gcloud auth print-access-token", GCLOUD),
            ("gcloud auth application-default print-access-token", GCLOUD),
            ("kubectl config view --raw", KUBE),
            ("kubectl config view --flatten --raw=true", KUBE),
            ("op read op://vault/item/field", OP),
            ("op item get x --fields password", OP),
            ("vault kv get secret/x", VAULT),
            ("vault read secret/x", VAULT),
            ("vault token create", VAULT),
            ("heroku auth:token", NETRC),
            ("npm token list", NPMRC),
            ("npm config get //registry.npmjs.org/:_authToken", NPMRC),
            ("docker-credential-desktop get", DOCKER),
            ("security find-generic-password -s x -w", KEYCHAIN),
            ("security find-internet-password -gs x", KEYCHAIN),
            ("secret-tool lookup service x", KEYRING),
            ("pass show email/x", "~/.password-store/email/x.gpg"),
            ("pass email/x", "~/.password-store/email/x.gpg"),
            ("az account get-access-token", AZURE),
        ] {
            assert_eq!(printed(line).as_deref(), Some(store), "{line}");
        }
    }

    #[test]
    fn commands_that_print_no_credential_are_not_reads() {
        for line in [
            "gh auth status",
            "gh pr list",
            "aws s3 ls",
            "aws configure list-profiles",
            "git config user.name",
            "git config --get user.email",
            "git config --list",
            "git credential reject",
            "kubectl config view",
            "kubectl get pods",
            "op item list",
            "vault status",
            "heroku apps",
            "npm install",
            "npm config get registry",
            "docker-credential-desktop list",
            "security find-generic-password -s x",
            "pass",
            "pass ls",
            "pass insert x",
            "az account show",
        ] {
            assert_eq!(printed(line), None, "{line}");
        }
    }
}
