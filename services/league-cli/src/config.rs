//! The configuration, in one place: every flag of the commands that take more than a path,
//! with the environment variable that sets it. `league --help` and `league serve --help`
//! list them; the README's configuration table says the same.

use clap::{Args, ValueEnum};
use league_store::SigningKey;
use league_store::hash::from_hex;

/// Where the log lives.
#[derive(Args, Debug, Clone)]
pub struct DatabaseArgs {
    /// `sqlite:PATH` or `postgres://...`.
    #[arg(
        long = "database",
        env = "DATABASE_URL",
        default_value = "sqlite:league.db"
    )]
    pub url: String,
}

/// Logging, for every command.
#[derive(Args)]
pub struct LogArgs {
    /// What to log: a level (`error`, `warn`, `info`, `debug`, `trace`) or a filter by
    /// crate (`info,league_api=debug`).
    #[arg(
        long = "log-level",
        env = "LEAGUE_LOG",
        default_value = "info",
        global = true
    )]
    level: String,
    /// `text` for people, `json` for a log collector (one JSON object a line).
    #[arg(
        long = "log-format",
        env = "LEAGUE_LOG_FORMAT",
        value_enum,
        default_value_t = LogFormat::Text,
        global = true
    )]
    format: LogFormat,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum LogFormat {
    Text,
    Json,
}

/// Logs go to stderr, so a command's stdout stays its result (a token, a report).
pub fn init_logging(args: &LogArgs) -> Result<(), String> {
    let filter = tracing_subscriber::EnvFilter::try_new(&args.level)
        .map_err(|e| format!("--log-level {:?}: {e}", args.level))?;
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false);
    match args.format {
        LogFormat::Text => builder.with_ansi(false).init(),
        LogFormat::Json => builder.json().init(),
    }
    Ok(())
}

/// `league serve`: everything the service is configured with.
#[derive(Args, Debug)]
pub struct ServeConfig {
    #[command(flatten)]
    pub db: DatabaseArgs,
    /// The port to listen on.
    #[arg(long, env = "PORT", default_value_t = 8080)]
    pub port: u16,
    /// The address to bind.
    #[arg(long, env = "LEAGUE_HOST", default_value = "0.0.0.0")]
    pub host: String,
    /// Connections the kernel holds for the server before it accepts them: room for every
    /// screen reconnecting at once after a restart (capped by `net.core.somaxconn`).
    #[arg(long, env = "LEAGUE_LISTEN_BACKLOG", default_value_t = league_api::LISTEN_BACKLOG)]
    pub listen_backlog: u32,
    /// Frames a second one shared view (a table, a tournament, standings) may send its
    /// screens in all: a view on N screens is sent at most this/N times a second, each time
    /// as it then is (versions between are skipped). 0 sends every version.
    #[arg(long, env = "LEAGUE_LIVE_FRAMES_PER_VIEW", default_value_t = league_api::LIVE_FRAMES_PER_VIEW)]
    pub live_frames_per_view: u32,
    /// Requests a second per token (per address without a token); 0 for no limit.
    #[arg(long, env = "LEAGUE_RATE_LIMIT", default_value_t = 200)]
    pub rate_limit: u32,
    /// Requests a caller may send at once before the rate applies.
    #[arg(long, env = "LEAGUE_BURST", default_value_t = 400)]
    pub burst: u32,
    /// The most mutations one GraphQL document may hold (each counts as a request).
    #[arg(long, env = "LEAGUE_MAX_MUTATIONS", default_value_t = 50)]
    pub max_mutations: u32,
    /// Failed authentications a client address may make within a minute; then requests with
    /// a token from it answer 429 for 60/N seconds, doubling with each further failure up to
    /// 15 minutes. 0 for no limit.
    #[arg(long, env = "LEAGUE_AUTH_FAILURES_PER_MINUTE", default_value_t = 30)]
    pub auth_failures_per_minute: u32,
    /// A proxy (or load balancer) whose `X-Forwarded-For` is believed for the client's
    /// address; repeat for several, or separate with commas.
    #[arg(long, env = "LEAGUE_TRUSTED_PROXIES", value_delimiter = ',')]
    pub trusted_proxy: Vec<std::net::IpAddr>,
    /// Answer introspection (`__schema`, `__type`: what GraphiQL's documentation pane and
    /// code generators read) only to callers with a token. By default the schema is public.
    #[arg(long, env = "LEAGUE_NO_ANONYMOUS_INTROSPECTION")]
    pub no_anonymous_introspection: bool,
    /// The league's Ed25519 signing key (its 32-byte seed in hex, e.g. from `openssl rand
    /// -hex 32`): the sealer signs tree heads with it. Without one the log is still sealed
    /// into the Merkle tree, but no tree heads are signed.
    #[arg(long, env = "LEAGUE_SIGNING_KEY", hide_env_values = true)]
    pub signing_key: Option<String>,
    /// A file each signed tree head is appended to (one JSON line, synced to disk), so a
    /// copy outside the database survives its rewrite; an auditor checks the log against
    /// it with `league audit verify --tree-head FILE`. Keep it on another disk or ship it
    /// off the machine.
    #[arg(long, env = "LEAGUE_PUBLISH_TREE_HEADS", value_name = "FILE")]
    pub publish_tree_heads: Option<std::path::PathBuf>,
    /// Seconds a stopping server (SIGTERM, SIGINT) waits for the requests in flight before
    /// it closes their connections and writes its last checkpoint.
    #[arg(long, env = "LEAGUE_SHUTDOWN_GRACE", default_value_t = league_api::SHUTDOWN_GRACE_SECS)]
    pub shutdown_grace: u64,
    /// Seconds a stopping server keeps serving, its readiness failed, before it closes:
    /// behind a load balancer, at least the time its health checks take to notice.
    #[arg(long, env = "LEAGUE_SHUTDOWN_DRAIN", default_value_t = 0)]
    pub shutdown_drain: u64,
}

/// The signing key from its hex seed.
pub fn parse_signing_key(hex: &str) -> Result<SigningKey, String> {
    let bytes = from_hex(hex.trim()).ok_or("the signing key is not hex")?;
    let seed: [u8; 32] = bytes
        .try_into()
        .map_err(|_| "the signing key must be 32 bytes (64 hex digits)")?;
    Ok(SigningKey::from_bytes(&seed))
}
