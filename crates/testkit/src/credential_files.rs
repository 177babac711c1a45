//! Credential files as the tools that write them lay them out, one of each
//! kind the secret-file rule names (`ploy_secrets::secret_file_kind`;
//! outside finding round6 #6 and the files of the common cloud, package
//! and deployment tools). Shared by the tests that prove, for every one:
//! its read asks (PERM-2, through the hook), its values are redacted by the
//! redactor built from the project (REDACT-1) and refused at the egress
//! door (BEYOND-6). Every value below is made up for these tests.

use std::path::Path;

/// One credential file: where it sits in a project, what it holds, and the
/// values in it that must be known secrets.
#[derive(Debug, Clone, Copy)]
pub struct CredentialFile {
    /// The path relative to the project folder.
    pub path: &'static str,
    /// The file's text.
    pub text: &'static str,
    /// The values a program reading the file would use as credentials.
    pub secrets: &'static [&'static str],
}

/// Environment variables under ordinary names whose values carry a
/// credential inside (outside finding round7 #8): `(name, value, the
/// credential)`. Every value is made up for these tests.
pub const EMBEDDED_ENV: &[(&str, &str, &str)] = &[
    (
        "SPRING_APPLICATION_JSON",
        r#"{"spring":{"datasource":{"url":"jdbc:h2:mem","password":"Sp1ngDbPassw0rd"}}}"#,
        "Sp1ngDbPassw0rd",
    ),
    (
        "JAVA_TOOL_OPTIONS",
        "-Djavax.net.ssl.keyStorePassword=K3yst0rePassw0rd -Xmx1g",
        "K3yst0rePassw0rd",
    ),
    (
        "MAVEN_OPTS",
        "-Xms256m -Dpassword=MavenPassw0rd9",
        "MavenPassw0rd9",
    ),
    (
        "APP_CONFIG",
        r#"{"db_password": "AppCfgPassw0rd7"}"#,
        "AppCfgPassw0rd7",
    ),
    (
        "DEPLOY_ARGS",
        "--region eu --api-token D3pl0yT0kenValue",
        "D3pl0yT0kenValue",
    ),
];

/// The credential files (module docs).
pub const CREDENTIAL_FILES: &[CredentialFile] = &[
    // round6 #6, as reported.
    CredentialFile {
        path: ".envs/.production/.django",
        text: "DJANGO_SECRET_KEY=DjangoProdS3cretKey-8842\nDJANGO_DEBUG=False\n",
        secrets: &["DjangoProdS3cretKey-8842"],
    },
    CredentialFile {
        path: ".envs/.production/.postgres",
        text: "POSTGRES_HOST=postgres\nPOSTGRES_PASSWORD=PgEnvsPassw0rd-1177\n",
        secrets: &["PgEnvsPassw0rd-1177"],
    },
    CredentialFile {
        path: ".s3cfg",
        text: "[default]\naccess_key = AKIAIOSFODNN7S3CFG00\nsecret_key = S3cfgSecretKeyValue-4242\n\
               host_base = s3.amazonaws.com\n",
        secrets: &["AKIAIOSFODNN7S3CFG00", "S3cfgSecretKeyValue-4242"],
    },
    CredentialFile {
        path: ".config/gh/hosts.yml",
        text: "github.com:\n    oauth_token: gho_Gh0stHostsTok3nValue0123456789ab\n    user: alice\n\
               \x20   git_protocol: https\n",
        secrets: &["gho_Gh0stHostsTok3nValue0123456789ab"],
    },
    CredentialFile {
        path: ".aws/config",
        text: "[profile dev]\nregion = eu-west-1\naws_access_key_id = AKIAIOSFODNN7AWSCFG0\n\
               aws_secret_access_key = AwsConfigSecretKey/abcDEF0123456789xyz\n",
        secrets: &[
            "AKIAIOSFODNN7AWSCFG0",
            "AwsConfigSecretKey/abcDEF0123456789xyz",
        ],
    },
    CredentialFile {
        path: ".bundle/config",
        text: "---\nBUNDLE_GITHUB__COM: \"x-access-token:ghs_BundleTok3nValue0123456789abcd\"\n\
               BUNDLE_GEMS__CONTRIBSYS__COM: \"user1:SidekiqProPassw0rd-3311\"\n",
        secrets: &[
            "ghs_BundleTok3nValue0123456789abcd",
            "SidekiqProPassw0rd-3311",
        ],
    },
    CredentialFile {
        path: "auth.json",
        text: "{\n  \"github-oauth\": {\"github.com\": \"ComposerOauthTok3n-5511\"},\n  \
               \"http-basic\": {\"repo.example.org\": {\"username\": \"composer-user\", \
               \"password\": \"ComposerBasicPw-7733\"}}\n}\n",
        secrets: &["ComposerOauthTok3n-5511", "ComposerBasicPw-7733"],
    },
    CredentialFile {
        path: ".terraformrc",
        text: "credentials \"app.terraform.io\" {\n  token = \"TerraformRcTok3n.atlasv1.9911\"\n}\n",
        secrets: &["TerraformRcTok3n.atlasv1.9911"],
    },
    CredentialFile {
        path: "ops/terraform.rc",
        text: "credentials \"tfe.example.org\" {\n  token = \"TerraformDotRcTok3n.atlasv1.1212\"\n}\n",
        secrets: &["TerraformDotRcTok3n.atlasv1.1212"],
    },
    CredentialFile {
        path: "infra/terraform.tfstate",
        text: r#"{"version": 4, "outputs": {"db_password": {"value": "TfOutputPassw0rd-6622", "type": "string", "sensitive": true}, "endpoint": {"value": "db.internal.example", "type": "string"}}, "resources": [{"type": "aws_db_instance", "instances": [{"attributes": {"password": "TfAttrPassw0rd-4477", "bootstrap": "TfListedAttrValue-8855"}, "sensitive_attributes": [[{"type": "get_attr", "value": "bootstrap"}]]}]}]}"#,
        secrets: &[
            "TfOutputPassw0rd-6622",
            "TfAttrPassw0rd-4477",
            "TfListedAttrValue-8855",
        ],
    },
    CredentialFile {
        path: "infra/terraform.tfstate.backup",
        text: r#"{"version": 4, "outputs": {"api_token": {"value": "TfBackupApiTok3n-3399", "type": "string"}}}"#,
        secrets: &["TfBackupApiTok3n-3399"],
    },
    CredentialFile {
        path: "src/Api/appsettings.Development.json",
        text: "{\n  \"ConnectionStrings\": {\n    \"Default\": \"Server=db;Database=app;User Id=sa;\
               Password=AppSettingsPw-5544;\"\n  },\n  \"Logging\": {\"LogLevel\": {\"Default\": \
               \"Information\"}}\n}\n",
        secrets: &["AppSettingsPw-5544"],
    },
    CredentialFile {
        path: ".secrets",
        text: "ADMIN_PASSWORD=SecretsFileAdminPw-3344\n",
        secrets: &["SecretsFileAdminPw-3344"],
    },
    CredentialFile {
        path: "dotenv",
        text: "API_TOKEN=DotenvNamedTok3n-6655\n",
        secrets: &["DotenvNamedTok3n-6655"],
    },
    CredentialFile {
        path: "deploy/env.txt",
        text: "STRIPE_SECRET=EnvTxtStripeS3cret-2288\n",
        secrets: &["EnvTxtStripeS3cret-2288"],
    },
    CredentialFile {
        path: "#.env#",
        text: "DB_PASSWORD=EmacsBackupPassw0rd-1199\n",
        secrets: &["EmacsBackupPassw0rd-1199"],
    },
    CredentialFile {
        path: "api/.env~",
        text: "SESSION_SECRET=TildeBackupS3cret-7722\n",
        secrets: &["TildeBackupS3cret-7722"],
    },
    CredentialFile {
        path: "config/master.key",
        text: "9f2c0e4a7b1d3f5e8a6c4b2d0f1e3a5c\n",
        secrets: &["9f2c0e4a7b1d3f5e8a6c4b2d0f1e3a5c"],
    },
    CredentialFile {
        path: "keys/deploy.ppk",
        text: "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: eddsa-key-20240101\n\
               Public-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAIPublicPartOfTheKey\nPublicPartTwo0123\n\
               Private-Lines: 1\nAAAAIPrivatePartOfThePuttyKey0123456789\n\
               Private-MAC: 0123456789abcdef0123456789abcdef\n",
        secrets: &["AAAAIPrivatePartOfThePuttyKey0123456789"],
    },
    CredentialFile {
        path: ".env",
        text: "MULTI_SECRET=\"line1\nMultiLineSecondPart-5566\"\nset -x FISH_TOKEN FishTok3nValue-7788\n\
               NODE_ENV=production\n",
        secrets: &["MultiLineSecondPart-5566", "FishTok3nValue-7788"],
    },
    CredentialFile {
        path: ".npmrc",
        // base64 of `NpmDecodedPassw0rd-4411`: what npm sends is the decoded form.
        text: "//npm.internal.example/:username=ci\n\
               //npm.internal.example/:_password=TnBtRGVjb2RlZFBhc3N3MHJkLTQ0MTE=\n",
        secrets: &[
            "NpmDecodedPassw0rd-4411",
            "TnBtRGVjb2RlZFBhc3N3MHJkLTQ0MTE=",
        ],
    },
    // Other tools' credential files.
    CredentialFile {
        path: ".config/gcloud/application_default_credentials.json",
        text: r#"{"client_id": "123-abc.apps.googleusercontent.com", "client_secret": "d-FL95Q19q7MQmFpdGcloud1", "refresh_token": "1//0gAdcRefreshTok3n-abcdefghijkl", "type": "authorized_user"}"#,
        secrets: &[
            "d-FL95Q19q7MQmFpdGcloud1",
            "1//0gAdcRefreshTok3n-abcdefghijkl",
        ],
    },
    CredentialFile {
        path: ".azure/msal_token_cache.json",
        text: r#"{"RefreshToken": {"uid.utid-login.microsoftonline.com-refreshtoken-04b07795": {"credential_type": "RefreshToken", "secret": "AzureRefreshTok3n-0.AAAA1234"}}}"#,
        secrets: &["AzureRefreshTok3n-0.AAAA1234"],
    },
    CredentialFile {
        path: ".git-credentials",
        text: "https://alice:GitCredPassw0rd-2211@git.example.org\n",
        secrets: &["GitCredPassw0rd-2211"],
    },
    CredentialFile {
        path: "web/wp-config.php",
        text: "<?php\ndefine( 'DB_NAME', 'wordpress' );\ndefine( 'DB_PASSWORD', 'WpConfigPassw0rd-9922' );\n",
        secrets: &["WpConfigPassw0rd-9922"],
    },
    CredentialFile {
        path: ".m2/settings.xml",
        text: "<settings>\n  <servers>\n    <server>\n      <id>internal</id>\n      \
               <password>MavenServerPassw0rd-8833</password>\n    </server>\n  </servers>\n</settings>\n",
        secrets: &["MavenServerPassw0rd-8833"],
    },
    CredentialFile {
        path: ".claude/.credentials.json",
        text: r#"{"claudeAiOauth": {"accessToken": "sk-ant-oat01-ClaudeOauthTok3n-abcdefghij", "refreshToken": "sk-ant-ort01-ClaudeRefresh-0123456789", "expiresAt": 1760000000000}}"#,
        secrets: &[
            "sk-ant-oat01-ClaudeOauthTok3n-abcdefghij",
            "sk-ant-ort01-ClaudeRefresh-0123456789",
        ],
    },
    CredentialFile {
        path: ".boto",
        text: "[Credentials]\ngs_oauth2_refresh_token = BotoRefreshTok3n-6677\n",
        secrets: &["BotoRefreshTok3n-6677"],
    },
    CredentialFile {
        path: ".dockercfg",
        // base64 of `bob:DockerCfgPassw0rd-5533`.
        text: r#"{"registry.example": {"auth": "Ym9iOkRvY2tlckNmZ1Bhc3N3MHJkLTU1MzM=", "email": "b@example.org"}}"#,
        secrets: &["DockerCfgPassw0rd-5533"],
    },
    CredentialFile {
        path: "k8s/db-secret.yaml",
        text: "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  \
               password: K8sSecretPassw0rd-9944\n",
        secrets: &["K8sSecretPassw0rd-9944"],
    },
    CredentialFile {
        path: ".kaggle/kaggle.json",
        text: r#"{"username": "alice", "key": "0123456789abcdef0123456789abcdef"}"#,
        secrets: &["0123456789abcdef0123456789abcdef"],
    },
    CredentialFile {
        path: ".databrickscfg",
        text: "[DEFAULT]\nhost = https://x.cloud.databricks.example\ntoken = dapi0123456789abcdef0123456789abcdef\n",
        secrets: &["dapi0123456789abcdef0123456789abcdef"],
    },
    CredentialFile {
        path: ".config/rclone/rclone.conf",
        text: "[remote]\ntype = s3\nsecret_access_key = RcloneSecretKey-1234567\n",
        secrets: &["RcloneSecretKey-1234567"],
    },
    CredentialFile {
        path: ".cache/huggingface/token",
        text: "hf_HuggingFaceTok3nValue0123456789ab\n",
        secrets: &["hf_HuggingFaceTok3nValue0123456789ab"],
    },
    CredentialFile {
        path: ".config/sops/age/keys.txt",
        text: "# created: 2024-01-01T00:00:00Z\n# public key: age1publicpart\n\
               AGE-SECRET-KEY-1AGEFIXTUREPRIVATEKEYVALUE0123456789\n",
        secrets: &["AGE-SECRET-KEY-1AGEFIXTUREPRIVATEKEYVALUE0123456789"],
    },
    CredentialFile {
        path: "vpn/client.ovpn",
        text: "client\nremote vpn.example.org 1194\n<key>\n-----BEGIN PRIVATE KEY-----\n\
               MIIEvOvpnPrivateKeyBodyLine0123456789abcdef\n-----END PRIVATE KEY-----\n</key>\n",
        secrets: &["MIIEvOvpnPrivateKeyBodyLine0123456789abcdef"],
    },
];

/// Writes every file of [`CREDENTIAL_FILES`] under `project` (folders made
/// as needed).
pub fn write_all(project: &Path) -> std::io::Result<()> {
    for file in CREDENTIAL_FILES {
        let path = project.join(file.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, file.text)?;
    }
    Ok(())
}
