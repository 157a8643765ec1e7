//! The server under `league-bench api`: in the benchmark's process, or a `league serve`
//! process of its own (`--process`).

use std::time::Duration;

use league_store::Backend;
use league_testkit::Scratch;

/// The server under load: in this process (its own actix system and worker threads), or a
/// `league serve` process.
pub(super) enum Server {
    Thread {
        stop: std::sync::mpsc::Sender<()>,
        thread: std::thread::JoinHandle<std::io::Result<()>>,
        scratch: Scratch,
        store: league_store::Store,
    },
    Process {
        instance: crate::soak::Instance,
        database: league_testkit::ScratchDatabase,
        log: std::path::PathBuf,
    },
}

impl Server {
    /// The server in this process, on a scratch database of `backend`.
    pub(super) fn thread(
        rt: &tokio::runtime::Runtime,
        backend: Backend,
        url: Option<&str>,
    ) -> Result<(Server, String), String> {
        let (scratch, store) = rt.block_on(async {
            let scratch = Scratch::new(backend, url)
                .await
                .map_err(|e| e.to_string())?;
            let store = scratch.open().await.map_err(|e| e.to_string())?;
            Ok::<_, String>((scratch, store))
        })?;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
        let base = format!(
            "http://{}",
            listener.local_addr().map_err(|e| e.to_string())?
        );
        let (stop, stop_rx) = std::sync::mpsc::channel::<()>();
        let server_store = store.clone();
        let thread = std::thread::spawn(move || {
            actix_web::rt::System::new().block_on(async move {
                let options = league_api::Options {
                    rate_limit: 0,
                    burst: 0,
                    ..league_api::Options::default()
                };
                let shutdown = async move {
                    // Poll the plain channel from the async side.
                    loop {
                        if stop_rx.try_recv().is_ok() {
                            break;
                        }
                        actix_web::rt::time::sleep(Duration::from_millis(50)).await;
                    }
                };
                league_api::run_with(listener, server_store, options, shutdown).await
            })
        });
        Ok((
            Server::Thread {
                stop,
                thread,
                scratch,
                store,
            },
            base,
        ))
    }

    /// `league serve` on a scratch database of its own on the PostgreSQL server of `url`.
    pub(super) fn process(
        rt: &tokio::runtime::Runtime,
        league: Option<&std::path::Path>,
        url: &str,
    ) -> Result<(Server, String), String> {
        let league = crate::startup::league_binary(league)?;
        let database = rt
            .block_on(league_testkit::ScratchDatabase::new(url))
            .map_err(|e| e.to_string())?;
        let log = std::env::temp_dir().join(format!("league-bench-api-{}.log", std::process::id()));
        // The run's log is dropped afterwards: a fixed signing key serves.
        let key = league_store::hash::to_hex(&[7u8; 32]);
        let port = crate::soak::free_port()?;
        let instance = match crate::soak::Instance::start(&league, database.url(), port, &key, &log)
        {
            Ok(instance) => instance,
            Err(e) => {
                rt.block_on(database.drop_it());
                return Err(format!("{e} (its log: {})", log.display()));
            }
        };
        Ok((
            Server::Process {
                instance,
                database,
                log,
            },
            format!("http://127.0.0.1:{port}"),
        ))
    }

    /// A store on the server's database, for setting the league up.
    pub(super) async fn store(&self) -> Result<league_store::Store, String> {
        match self {
            Server::Thread { store, .. } => Ok(store.clone()),
            Server::Process { database, .. } => league_store::Store::open(database.url())
                .await
                .map_err(|e| e.to_string()),
        }
    }

    /// The server process's resident memory, in KiB (`None` in this process).
    pub(super) fn rss_kib(&self) -> Option<u64> {
        match self {
            Server::Thread { .. } => None,
            Server::Process { instance, .. } => instance.rss_kib(),
        }
    }

    /// Stops the server and drops its database.
    pub(super) fn stop(self, rt: &tokio::runtime::Runtime) -> Result<(), String> {
        match self {
            Server::Thread {
                stop,
                thread,
                scratch,
                store,
            } => {
                let _ = stop.send(());
                let stopped = match thread.join() {
                    Ok(Ok(())) => Ok(()),
                    Ok(Err(e)) => Err(format!("the server: {e}")),
                    Err(_) => Err("the server thread panicked".into()),
                };
                rt.block_on(async {
                    store.close().await;
                    scratch.drop_it().await;
                });
                stopped
            }
            Server::Process {
                mut instance,
                database,
                log,
            } => {
                let stopped = instance
                    .stop()
                    .map_err(|e| format!("{e} (its log: {})", log.display()));
                rt.block_on(database.drop_it());
                if stopped.is_ok() {
                    let _ = std::fs::remove_file(&log);
                }
                stopped
            }
        }
    }
}
