//! `league serve`, `league token ...` and `league schema`: the GraphQL service, its bearer
//! tokens, and its SDL.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use std::time::Duration;

use league_api::auth::{Lifetimes, Role, TokenSpec, create_token_for, parse_lifetime, renew_token};
use league_store::hash::to_hex;
use league_store::{SealerConfig, Store};

use crate::config::{DatabaseArgs, ServeConfig};
use crate::store_cmd::{fail, runtime};

/// `league token ...`.
#[derive(Subcommand, Debug)]
pub enum TokenCommand {
    /// Create a bearer token and print it (only its hash is stored: it is shown only now).
    Create {
        #[command(flatten)]
        db: DatabaseArgs,
        /// admin, host, auditor or player.
        #[arg(long)]
        role: Role,
        /// A host's venue: its id, or its code where no other league's venue has it.
        #[arg(long)]
        venue: Option<String>,
        /// A player's id.
        #[arg(long)]
        player: Option<String>,
        /// Limit an admin or auditor token to one league (an admin of it, an auditor of
        /// its log), by its id or its code; without it, every league.
        #[arg(long)]
        league: Option<String>,
        /// How long the token lives: 90d, 12h, 30m (at most 1830 days). Default: the
        /// role's lifetime (below).
        #[arg(long, value_parser = parse_lifetime)]
        expires_in: Option<Duration>,
        /// The token's id: a UUID of your choosing (lowercase, hyphenated); a new UUIDv7
        /// when left out.
        #[arg(long)]
        id: Option<String>,
        #[command(flatten)]
        lifetimes: LifetimeArgs,
    },
    /// Give a token a new expiry, counted from now (the token itself is unchanged).
    Renew {
        #[command(flatten)]
        db: DatabaseArgs,
        /// The token's id (a UUID; `tok_...` for a token made before 0.6.0).
        id: String,
        /// How long from now: 90d, 12h, 30m. Default: the role's lifetime (below).
        #[arg(long, value_parser = parse_lifetime)]
        expires_in: Option<Duration>,
        #[command(flatten)]
        lifetimes: LifetimeArgs,
    },
    /// List the tokens: id, role, venue, player, league, expiry and state (never the tokens
    /// themselves).
    List {
        #[command(flatten)]
        db: DatabaseArgs,
    },
    /// Revoke a token by its id.
    Revoke {
        #[command(flatten)]
        db: DatabaseArgs,
        /// The token's id (a UUID; `tok_...` for a token made before 0.6.0).
        id: String,
    },
}

/// `league schema`.
#[derive(Args, Debug)]
pub struct SchemaArgs {
    /// Where to write the SDL.
    #[arg(long, default_value = "schema/league.graphql")]
    out: PathBuf,
    /// Write nothing; exit 1 if the file differs from the code.
    #[arg(long)]
    check: bool,
}

pub fn serve(args: ServeConfig) -> ExitCode {
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    let signing_key = match args
        .signing_key
        .as_deref()
        .map(crate::config::parse_signing_key)
        .transpose()
    {
        Ok(k) => k,
        Err(e) => return fail(e),
    };
    rt.block_on(async {
        let store = match Store::open(&args.db.url).await {
            Ok(s) => s,
            Err(e) => return fail(e),
        };
        // Every instance runs a sealer; one at a time leads (on PostgreSQL an advisory lock,
        // across instances). It seals the log behind the commit horizon into the Merkle
        // tree, signs tree heads, and on PostgreSQL sends the NOTIFY that wakes the other
        // instances' subscribers.
        match &signing_key {
            Some(key) => tracing::info!(
                "sealing the log; tree heads signed with public key {}",
                to_hex(key.verifying_key().as_bytes())
            ),
            None => {
                tracing::info!("sealing the log; no --signing-key, so no tree heads are signed")
            }
        }
        let publish = match (&args.publish_tree_heads, &signing_key) {
            (Some(file), Some(_)) => match crate::audit_cmd::publish_heads(&store, file).await {
                Ok(sender) => Some(sender),
                Err(e) => return fail(e),
            },
            (Some(_), None) => {
                return fail("--publish-tree-heads needs --signing-key: without a key no tree head is signed");
            }
            (None, _) => None,
        };
        let sealer = store.spawn_sealer(SealerConfig {
            signing_key,
            publish,
            ..SealerConfig::default()
        });
        let listener = match league_api::listen(&args.host, args.port, args.listen_backlog) {
            Ok(l) => l,
            Err(e) => return fail(format!("cannot listen on {}:{}: {e}", args.host, args.port)),
        };
        match listener.local_addr() {
            Ok(addr) => tracing::info!("serving http://{addr}/graphql"),
            Err(e) => return fail(e),
        }
        let shutdown = async {
            stop_signal().await;
            tracing::info!("shutting down");
        };
        let options = league_api::Options {
            rate_limit: args.rate_limit,
            burst: args.burst,
            max_mutations: args.max_mutations,
            auth_failures_per_minute: args.auth_failures_per_minute,
            trusted_proxies: args.trusted_proxy.clone(),
            anonymous_introspection: !args.no_anonymous_introspection,
            shutdown_grace: std::time::Duration::from_secs(args.shutdown_grace),
            shutdown_drain: std::time::Duration::from_secs(args.shutdown_drain),
            live_frames_per_view: args.live_frames_per_view,
            clock: league_app::clock::Clock::system(),
        };
        let served = league_api::run_with(listener, store.clone(), options, shutdown).await;
        sealer.stop();
        store.close().await;
        match served {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(e),
        }
    })
}

pub fn token(command: TokenCommand) -> ExitCode {
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    rt.block_on(async {
        let url = match &command {
            TokenCommand::Create { db, .. }
            | TokenCommand::List { db }
            | TokenCommand::Renew { db, .. }
            | TokenCommand::Revoke { db, .. } => db.url.clone(),
        };
        let store = match Store::open(&url).await {
            Ok(s) => s,
            Err(e) => return fail(e),
        };
        let code = match command {
            TokenCommand::Create {
                role,
                venue,
                player,
                league,
                expires_in,
                id,
                lifetimes,
                ..
            } => {
                let spec = TokenSpec {
                    role,
                    venue,
                    player,
                    league,
                    lifetime: Some(expires_in.unwrap_or(lifetimes.lifetimes().of(role))),
                    id,
                };
                match create_token_for(&store, &spec).await {
                    Ok((record, token)) => {
                        // The scope as stored: a venue or league named by its code shows
                        // here by the id it resolved to.
                        let scope = [
                            record.venue.as_deref().map(|v| format!(" of venue {v}")),
                            record.player.as_deref().map(|p| format!(" of player {p}")),
                            record.league.as_deref().map(|l| format!(" of league {l}")),
                        ]
                        .into_iter()
                        .flatten()
                        .collect::<String>();
                        tracing::info!(
                            "created {} ({role}{scope}), expires {}; the token is shown only once",
                            record.id,
                            moment(record.expires_at)
                        );
                        println!("{token}");
                        ExitCode::SUCCESS
                    }
                    Err(e) => fail(e),
                }
            }
            TokenCommand::List { .. } => match store.tokens().await {
                Ok(tokens) => {
                    let now = store.now();
                    println!("id\trole\tvenue\tplayer\tleague\texpires\tstate");
                    for t in tokens {
                        let state = if t.revoked_at.is_some() {
                            "revoked"
                        } else if t.expired(now) {
                            "expired"
                        } else {
                            "active"
                        };
                        println!(
                            "{}\t{}\t{}\t{}\t{}\t{}\t{state}",
                            t.id,
                            t.role,
                            t.venue.as_deref().unwrap_or("-"),
                            t.player.as_deref().unwrap_or("-"),
                            t.league.as_deref().unwrap_or("-"),
                            moment(t.expires_at),
                        );
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => fail(e),
            },
            TokenCommand::Renew {
                id,
                expires_in,
                lifetimes,
                ..
            } => match renew_token(&store, &id, expires_in, &lifetimes.lifetimes()).await {
                Ok(at) => {
                    println!("renewed {id}: expires {}", moment(Some(at)));
                    ExitCode::SUCCESS
                }
                Err(e) => fail(e),
            },
            TokenCommand::Revoke { id, .. } => match store.revoke_token(&id).await {
                Ok(true) => {
                    println!("revoked {id}");
                    ExitCode::SUCCESS
                }
                Ok(false) => fail(format!("no active token {id}")),
                Err(e) => fail(e),
            },
        };
        store.close().await;
        code
    })
}

/// An expiry as printed: a UTC date, or `never` for a row without one.
/// Each role's token lifetime when a command names none: the deployment's choice, from
/// flags or the environment.
#[derive(clap::Args, Debug, Clone)]
pub struct LifetimeArgs {
    /// An admin token's lifetime when none is named.
    #[arg(long, env = "LEAGUE_ADMIN_TOKEN_LIFETIME", default_value = "30d", value_parser = parse_lifetime)]
    admin_lifetime: Duration,
    /// An auditor token's lifetime when none is named.
    #[arg(long, env = "LEAGUE_AUDITOR_TOKEN_LIFETIME", default_value = "90d", value_parser = parse_lifetime)]
    auditor_lifetime: Duration,
    /// A host token's lifetime when none is named.
    #[arg(long, env = "LEAGUE_HOST_TOKEN_LIFETIME", default_value = "180d", value_parser = parse_lifetime)]
    host_lifetime: Duration,
    /// A player token's lifetime when none is named.
    #[arg(long, env = "LEAGUE_PLAYER_TOKEN_LIFETIME", default_value = "365d", value_parser = parse_lifetime)]
    player_lifetime: Duration,
}

impl LifetimeArgs {
    fn lifetimes(&self) -> Lifetimes {
        Lifetimes {
            admin: self.admin_lifetime,
            auditor: self.auditor_lifetime,
            host: self.host_lifetime,
            player: self.player_lifetime,
        }
    }
}

fn moment(at: Option<league_store::Timestamp>) -> String {
    at.map_or_else(|| "never".to_owned(), league_store::Timestamp::utc)
}

pub fn schema(args: SchemaArgs) -> ExitCode {
    let sdl = league_api::sdl();
    if args.check {
        return match std::fs::read_to_string(&args.out) {
            Ok(existing) if existing == sdl => ExitCode::SUCCESS,
            Ok(_) => {
                crate::error(format!(
                    "{} differs from the code: run `league schema`",
                    args.out.display()
                ));
                ExitCode::FAILURE
            }
            Err(e) => fail(format!("{}: {e}", args.out.display())),
        };
    }
    if let Some(dir) = args.out.parent().filter(|d| !d.as_os_str().is_empty())
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        return fail(format!("{}: {e}", dir.display()));
    }
    match std::fs::write(&args.out, sdl) {
        Ok(()) => {
            tracing::info!("wrote {}", args.out.display());
            ExitCode::SUCCESS
        }
        Err(e) => fail(format!("{}: {e}", args.out.display())),
    }
}

/// SIGINT (Ctrl-C) or SIGTERM (what `kill`, systemd and container runtimes send): either
/// stops the service gracefully, with a last checkpoint of the read models. Without a
/// signal handler the server runs until killed.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
}
