//! Runs one scenario: a fault server per client copy (each on its own loopback
//! port), the client command with the base URL in `{base_url}` and
//! `RETRYLINT_BASE_URL`, a watch that ends a client waiting past the wait bound,
//! and a hard time limit, so every run is bounded. Returns the journal.

use super::journal::{ClientEnd, Journal};
use super::scenario::{Answer, Scenario};
use super::server::{FaultServer, ServerSpec};
use std::io::Read;
use std::net::{IpAddr, SocketAddr};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The environment variable that carries the base URL to the client.
pub const BASE_URL_ENV: &str = "RETRYLINT_BASE_URL";

/// The argv placeholder replaced by the base URL.
pub const BASE_URL_ARG: &str = "{base_url}";

/// How a scenario runs. Times are ms.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The address the servers bind (loopback unless `--bind`).
    pub bind: IpAddr,
    /// Header names read as the idempotency key, lower case.
    pub key_headers: Vec<String>,
    /// A client quiet for longer than this after its last attempt's outcome is ended
    /// (`idle`): it is waiting past any bound worth waiting.
    pub idle_limit_ms: f64,
    /// The hard limit of one scenario.
    pub time_limit_ms: f64,
    /// The herd size of herd scenarios (those whose `herd` is above 1).
    pub herd: Option<usize>,
}

/// One scenario's outcome.
#[derive(Debug, Clone)]
pub struct ScenarioRun {
    /// What was observed.
    pub journal: Journal,
    /// The last lines the first client wrote to standard error.
    pub stderr_tail: Vec<String>,
}

const WATCH: Duration = Duration::from_millis(5);

/// One client copy being run: the process, when it started (ms since the scenario's
/// start) and the thread collecting its standard error.
struct Running {
    child: Child,
    spawned_ms: f64,
    stderr: Option<std::thread::JoinHandle<Vec<u8>>>,
}

/// Runs `scenario` against `argv` (the client command; `{base_url}` replaced).
/// Errors are sentences: a bind failure or a command that cannot start.
pub fn run_scenario(
    scenario: &Scenario,
    argv: &[String],
    opts: &RunOptions,
) -> Result<ScenarioRun, String> {
    let herd = match (scenario.herd, opts.herd) {
        (h, Some(k)) if h > 1 => k.max(1),
        (h, _) => h.max(1),
    };
    let origin = Instant::now();
    let mut servers = Vec::with_capacity(herd);
    for client in 0..herd {
        servers.push(FaultServer::start(
            ServerSpec {
                script: scenario.script.clone(),
                client,
                key_headers: opts.key_headers.clone(),
                refuse_ms: scenario.refuse_first_ms,
                bind: SocketAddr::new(opts.bind, 0),
            },
            origin,
        )?);
    }
    let mut children: Vec<Running> = Vec::new();
    for server in &servers {
        let url = format!("http://{}", server.addr());
        let mut child = match spawn(argv, &url) {
            Ok(c) => c,
            Err(e) => {
                for mut r in children {
                    kill(&mut r.child);
                }
                return Err(e);
            }
        };
        let stderr = child.stderr.take().map(|mut s| {
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                let _ = s.read_to_end(&mut buf);
                buf
            })
        });
        children.push(Running {
            child,
            spawned_ms: ms(origin),
            stderr,
        });
    }
    let mut ends: Vec<Option<ClientEnd>> = vec![None; herd];
    loop {
        let now = ms(origin);
        for (
            client,
            Running {
                child, spawned_ms, ..
            },
        ) in children.iter_mut().enumerate()
        {
            if ends[client].is_some() {
                continue;
            }
            if let Ok(Some(status)) = child.try_wait() {
                ends[client] = Some(ClientEnd {
                    client,
                    exit_code: status.code(),
                    ended_ms: now,
                    killed: None,
                });
                continue;
            }
            let seen = servers[client].snapshot();
            let last = seen
                .iter()
                .flat_map(|a| [Some(a.t_ms), a.answered_ms, a.closed_ms])
                .flatten()
                .fold(*spawned_ms, f64::max);
            // A slow body still dribbling is the server's doing, not the client idling
            // (it ends by itself after the body's 32 bytes, 8 s, or at the time limit).
            let dribbling = seen.iter().any(|a| {
                a.answer == Answer::SlowBody && a.answered_ms.is_none() && a.closed_ms.is_none()
            });
            let reason = if now >= opts.time_limit_ms {
                Some("time-limit")
            } else if !dribbling && now - last > opts.idle_limit_ms {
                Some("idle")
            } else {
                None
            };
            if let Some(reason) = reason {
                kill(child);
                ends[client] = Some(ClientEnd {
                    client,
                    exit_code: None,
                    ended_ms: now,
                    killed: Some(reason.to_string()),
                });
            }
        }
        if ends.iter().all(Option::is_some) {
            break;
        }
        std::thread::sleep(WATCH);
    }
    let mut attempts = Vec::new();
    for server in servers {
        attempts.extend(server.finish());
    }
    attempts.sort_by(|a, b| a.t_ms.total_cmp(&b.t_ms));
    let mut stderr_tail = Vec::new();
    for (i, running) in children.into_iter().enumerate() {
        let text = running
            .stderr
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        if i == 0 {
            let text = String::from_utf8_lossy(&text);
            let lines: Vec<&str> = text.lines().collect();
            stderr_tail = lines[lines.len().saturating_sub(5)..]
                .iter()
                .map(|s| s.to_string())
                .collect();
        }
    }
    Ok(ScenarioRun {
        journal: Journal {
            scenario: scenario.name.clone(),
            attempts,
            clients: ends.into_iter().flatten().collect(),
            refused_ms: scenario.refuse_first_ms,
        },
        stderr_tail,
    })
}

fn ms(origin: Instant) -> f64 {
    origin.elapsed().as_secs_f64() * 1000.0
}

/// Starts the client in its own process group (so a shell and what it starts end
/// together), standard output discarded, standard error kept.
fn spawn(argv: &[String], url: &str) -> Result<Child, String> {
    let (program, args) = argv.split_first().ok_or("no client command after `--`")?;
    let mut cmd = Command::new(program.replace(BASE_URL_ARG, url));
    cmd.args(args.iter().map(|a| a.replace(BASE_URL_ARG, url)))
        .env(BASE_URL_ENV, url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    cmd.spawn()
        .map_err(|e| format!("cannot run the client `{program}`: {e}"))
}

/// Ends the client and its process group, then reaps it.
fn kill(child: &mut Child) {
    #[cfg(unix)]
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: `kill` has no memory effects; the group is the one `spawn` made
        // for this child (its pid), so nothing else is signalled.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}
