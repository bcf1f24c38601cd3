//! `retrylint lsp`: a Language Server Protocol server over standard input and
//! output, showing `check`'s findings in any LSP editor as the user types.
//!
//! Built on `lsp-server` and `lsp-types` (rust-analyzer's): synchronous, crossbeam
//! channels, no async runtime. The main loop owns the open buffers and answers
//! requests at once from the last lint; linting runs on one worker thread
//! ([`worker`]), debounced, so a slow lint never freezes the editor and a stale
//! result is never published over a newer one.

pub mod actions;
pub mod complete;
pub mod definition;
pub mod handshake;
pub mod hover;
pub mod lint;
pub mod position;
pub mod publish;
pub mod text;
pub mod transport;
pub mod uri;
pub mod worker;

use crossbeam_channel::{select, unbounded, Receiver, Sender};
use lint::Snapshot;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::Notification as _;
use lsp_types::request::Request as _;
use lsp_types::{
    CodeActionKind, CodeActionProviderCapability, CompletionOptions, HoverProviderCapability,
    InitializeParams, OneOf, PositionEncodingKind, PublishDiagnosticsParams, SaveOptions,
    ServerCapabilities, TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions,
    TextDocumentSyncSaveOptions, Uri,
};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// How long typing must pause before a re-lint.
const DEBOUNCE: Duration = Duration::from_millis(250);

/// An open buffer.
#[derive(Debug, Clone)]
pub struct Open {
    /// The URI the editor opened it by.
    pub uri: Uri,
    /// The editor's version of the text.
    pub version: i32,
    /// The text.
    pub text: Arc<str>,
}

/// What the request handlers read: the buffers and the last lint.
#[derive(Debug, Default)]
pub struct State {
    /// The folder linted.
    pub root: PathBuf,
    /// Open buffers by canonical path.
    pub open: HashMap<PathBuf, Open>,
    /// The last lint published.
    pub snapshot: Option<Arc<Snapshot>>,
}

impl State {
    /// The text of `path`: its buffer when open, else the file on disk.
    pub fn text(&self, path: &Path) -> Option<Arc<str>> {
        match self.open.get(path) {
            Some(o) => Some(o.text.clone()),
            None => std::fs::read_to_string(path).ok().map(Arc::from),
        }
    }

    /// The text of a file that another file reaches (a `$ref` target): as
    /// [`State::text`], but a file on disk is read only when the read boundary of
    /// the folder linted admits it ([`crate::source::boundary`]): a link out of the
    /// project is not opened.
    pub fn reached_text(&self, path: &Path) -> Option<Arc<str>> {
        if self.open.contains_key(path) {
            return self.text(path);
        }
        crate::source::boundary::ReadBoundary::new(std::slice::from_ref(&self.root))
            .admits(path)
            .then(|| self.text(path))
            .flatten()
    }

    /// The URI to name `path` by: the one the editor opened it with, if open.
    pub fn uri(&self, path: &Path) -> Uri {
        self.open
            .get(path)
            .map_or_else(|| uri::from_path(path), |o| o.uri.clone())
    }
}

/// Runs the server on standard input and output until the client exits; 0 after
/// a clean shutdown, 1 when `exit` or the end of the input came without
/// `shutdown` ([`handshake::end_code`], as LSP has it), 2 when the connection failed. A bad frame is answered or
/// skipped and the server goes on ([`transport`]); a failed standard output ends it
/// (the binary then exits 2 saying so, or quietly for a closed pipe).
pub fn run() -> u8 {
    let (connection, io) = transport::stdio();
    let code = match serve(&connection) {
        Ok(code) => code,
        Err(e) => {
            crate::write::errln(format_args!("retrylint lsp: {e}"));
            crate::commands::EXIT_ERROR
        }
    };
    drop(connection);
    // No one reads the answers: the reader may wait on an input that never ends.
    if crate::write::stdout_failed() {
        return code;
    }
    match io.join() {
        Ok(()) => code,
        Err(e) => {
            crate::write::errln(format_args!(
                "retrylint lsp: cannot read standard input: {e}"
            ));
            crate::commands::EXIT_ERROR
        }
    }
}

/// The capabilities announced at initialization.
pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(PositionEncodingKind::UTF16),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::FULL),
                save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                    include_text: Some(true),
                })),
                ..Default::default()
            },
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![" ".into(), ":".into(), "\"".into()]),
            ..Default::default()
        }),
        definition_provider: Some(OneOf::Left(true)),
        code_action_provider: Some(CodeActionProviderCapability::Options(
            lsp_types::CodeActionOptions {
                code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
                ..Default::default()
            },
        )),
        ..Default::default()
    }
}

/// The client's `initializationOptions.baseline`, if given.
fn baseline_option(params: &InitializeParams) -> Option<PathBuf> {
    params
        .initialization_options
        .as_ref()?
        .get("baseline")?
        .as_str()
        .map(PathBuf::from)
}

struct Server<'c> {
    conn: &'c Connection,
    state: State,
    generation: u64,
    applied: u64,
    jobs: Sender<worker::Job>,
    /// Files that hold published findings (cleared when they have none).
    published: HashSet<PathBuf>,
    /// Whether the client asked for `shutdown` (the exit code depends on it).
    shut_down: bool,
}

/// The session: the handshake, then the main loop; the exit code.
fn serve(conn: &Connection) -> Result<u8, String> {
    let caps = serde_json::to_value(capabilities()).map_err(|e| e.to_string())?;
    // No `initialized` is awaited: LSP asks no more than that the server answer
    // `initialize` first, and the main loop drops that notification.
    let params = match handshake::initialize(conn, caps)? {
        handshake::Start::Initialized(params) => params,
        handshake::Start::Ended(code) => return Ok(code),
    };
    let root = lint::root_of(&params);
    let (jobs, job_rx) = unbounded();
    let (done_tx, done) = unbounded();
    worker::spawn(root.clone(), baseline_option(&params), job_rx, done_tx);
    let mut server = Server {
        conn,
        state: State {
            root,
            ..State::default()
        },
        generation: 0,
        applied: 0,
        jobs,
        published: HashSet::new(),
        shut_down: false,
    };
    server.watch_files();
    server.schedule(Duration::ZERO);
    server.main_loop(&done)
}

impl Server<'_> {
    /// Serves until `exit`, the end of the input or a failed standard output; the
    /// exit code.
    fn main_loop(&mut self, done: &Receiver<worker::Done>) -> Result<u8, String> {
        loop {
            // The client cannot read us any more (a closed pipe, a full disk).
            if crate::write::stdout_failed() {
                return Ok(handshake::end_code(self.shut_down));
            }
            select! {
                recv(self.conn.receiver) -> msg => {
                    // The end of the input: see `handshake::end_code`.
                    let Ok(msg) = msg else { return Ok(handshake::end_code(self.shut_down)) };
                    match msg {
                        Message::Request(req) if req.method == "shutdown" => {
                            self.shut_down = true;
                            let _ = self.conn.sender.send(Response::new_ok(req.id, ()).into());
                        }
                        // LSP: `initialize` is sent once; a second is no valid request.
                        Message::Request(req) if req.method == "initialize" => {
                            let resp = Response::new_err(
                                req.id,
                                ErrorCode::InvalidRequest as i32,
                                "Invalid Request: `initialize` may be sent once, and was".into(),
                            );
                            let _ = self.conn.sender.send(resp.into());
                        }
                        Message::Request(req) => self.request(req),
                        Message::Notification(n) if n.method == "exit" => {
                            return Ok(handshake::end_code(self.shut_down))
                        }
                        Message::Notification(n) => self.notification(n),
                        Message::Response(_) => {}
                    }
                }
                recv(done) -> d => {
                    if let Ok(d) = d {
                        self.apply(d);
                    }
                }
            }
        }
    }

    /// Asks the client to report changes of the files retrylint reads.
    fn watch_files(&self) {
        let options = serde_json::json!({ "watchers": [
            { "globPattern": "**/*.{yaml,yml,json}" },
            { "globPattern": "**/.retrylint.yaml" }
        ]});
        let params = lsp_types::RegistrationParams {
            registrations: vec![lsp_types::Registration {
                id: "retrylint-watch".into(),
                method: lsp_types::notification::DidChangeWatchedFiles::METHOD.into(),
                register_options: Some(options),
            }],
        };
        let req = Request::new(
            "retrylint-watch".to_string().into(),
            lsp_types::request::RegisterCapability::METHOD.into(),
            params,
        );
        let _ = self.conn.sender.send(req.into());
    }

    fn schedule(&mut self, delay: Duration) {
        self.generation += 1;
        let overlay = self
            .state
            .open
            .iter()
            .map(|(p, o)| (p.clone(), o.text.clone()))
            .collect();
        let versions = self
            .state
            .open
            .iter()
            .map(|(p, o)| (p.clone(), o.version))
            .collect();
        let _ = self.jobs.send(worker::Job {
            generation: self.generation,
            overlay: Arc::new(overlay),
            versions,
            delay,
        });
    }

    fn apply(&mut self, done: worker::Done) {
        if done.generation <= self.applied {
            return;
        }
        self.applied = done.generation;
        let snapshot = match done.snapshot {
            Ok(s) => s,
            Err(why) => {
                let message = format!("lint {}: failed: {why}", done.generation);
                self.log(lsp_types::MessageType::ERROR, &message);
                return;
            }
        };
        // A lint overtaken by an edit made while it ran is not published: its findings
        // are of text the editor no longer shows, and the newer lint is on its way.
        // Its model still serves hover and definitions until then.
        if done.generation < self.generation {
            self.log(
                lsp_types::MessageType::LOG,
                &format!(
                    "lint {}: overtaken by lint {}, not published",
                    done.generation, self.generation
                ),
            );
            let old = self.state.snapshot.replace(snapshot);
            std::thread::spawn(move || drop(old));
            return;
        }
        let files = publish::by_file(&snapshot.diagnostics);
        let now: HashSet<PathBuf> = files.keys().cloned().collect();
        for (path, diagnostics) in files {
            self.publish(&path, diagnostics, done.versions.get(&path).copied());
        }
        for gone in self.published.difference(&now).cloned().collect::<Vec<_>>() {
            self.publish(&gone, Vec::new(), done.versions.get(&gone).copied());
        }
        self.published = now;
        // Said after the diagnostics: a client (the tests) knows the lint is out.
        self.log(
            lsp_types::MessageType::LOG,
            &format!(
                "lint {}: {} in {} ms, {} finding(s)",
                done.generation,
                self.state.root.display(),
                done.elapsed.as_millis(),
                snapshot.diagnostics.len()
            ),
        );
        // Freeing a big model takes a while: not on the loop that answers the editor.
        let old = self.state.snapshot.replace(snapshot);
        std::thread::spawn(move || drop(old));
    }

    fn publish(&self, path: &Path, diagnostics: Vec<lsp_types::Diagnostic>, version: Option<i32>) {
        let params = PublishDiagnosticsParams {
            uri: self.state.uri(path),
            diagnostics,
            version,
        };
        self.notify(lsp_types::notification::PublishDiagnostics::METHOD, params);
    }

    fn notify(&self, method: &str, params: impl serde::Serialize) {
        let _ = self
            .conn
            .sender
            .send(Notification::new(method.into(), params).into());
    }

    fn log(&self, typ: lsp_types::MessageType, message: &str) {
        self.notify(
            lsp_types::notification::LogMessage::METHOD,
            lsp_types::LogMessageParams {
                typ,
                message: message.into(),
            },
        );
    }

    fn notification(&mut self, n: Notification) {
        use lsp_types::notification::*;
        match n.method.as_str() {
            DidOpenTextDocument::METHOD => {
                if let Ok(p) =
                    n.extract::<lsp_types::DidOpenTextDocumentParams>(DidOpenTextDocument::METHOD)
                {
                    let d = p.text_document;
                    self.set_text(d.uri, d.version, d.text);
                    self.schedule(Duration::ZERO);
                }
            }
            DidChangeTextDocument::METHOD => {
                if let Ok(p) = n.extract::<lsp_types::DidChangeTextDocumentParams>(
                    DidChangeTextDocument::METHOD,
                ) {
                    // Full sync: the last change holds the whole text.
                    if let Some(change) = p.content_changes.into_iter().last() {
                        let d = p.text_document;
                        self.set_text(d.uri, d.version, change.text);
                        self.schedule(DEBOUNCE);
                    }
                }
            }
            DidSaveTextDocument::METHOD => {
                if let Ok(p) =
                    n.extract::<lsp_types::DidSaveTextDocumentParams>(DidSaveTextDocument::METHOD)
                {
                    if let (Some(text), Some(path)) = (p.text, uri::to_path(&p.text_document.uri)) {
                        let path = uri::canonical(&path);
                        if let Some(o) = self.state.open.get_mut(&path) {
                            o.text = Arc::from(text);
                        }
                    }
                    self.schedule(Duration::ZERO);
                }
            }
            DidCloseTextDocument::METHOD => {
                if let Ok(p) =
                    n.extract::<lsp_types::DidCloseTextDocumentParams>(DidCloseTextDocument::METHOD)
                {
                    if let Some(path) = uri::to_path(&p.text_document.uri) {
                        self.state.open.remove(&uri::canonical(&path));
                    }
                    self.schedule(Duration::ZERO);
                }
            }
            DidChangeWatchedFiles::METHOD => self.schedule(Duration::ZERO),
            _ => {}
        }
    }

    fn set_text(&mut self, uri: Uri, version: i32, text: String) {
        let Some(path) = uri::to_path(&uri) else {
            return;
        };
        let open = Open {
            uri,
            version,
            text: Arc::from(text),
        };
        self.state.open.insert(uri::canonical(&path), open);
    }

    fn request(&mut self, req: Request) {
        use lsp_types::request::*;
        let id = req.id.clone();
        let result = match req.method.as_str() {
            HoverRequest::METHOD => req
                .extract::<lsp_types::HoverParams>(HoverRequest::METHOD)
                .map(|(_, p)| serde_json::to_value(hover::hover(&self.state, &p))),
            Completion::METHOD => req
                .extract::<lsp_types::CompletionParams>(Completion::METHOD)
                .map(|(_, p)| serde_json::to_value(complete::complete(&self.state, &p))),
            GotoDefinition::METHOD => req
                .extract::<lsp_types::GotoDefinitionParams>(GotoDefinition::METHOD)
                .map(|(_, p)| serde_json::to_value(definition::definition(&self.state, &p))),
            CodeActionRequest::METHOD => req
                .extract::<lsp_types::CodeActionParams>(CodeActionRequest::METHOD)
                .map(|(_, p)| serde_json::to_value(actions::actions(&self.state, &p))),
            _ => {
                let resp = Response::new_err(
                    id,
                    ErrorCode::MethodNotFound as i32,
                    format!("retrylint lsp does not answer `{}`", req.method),
                );
                let _ = self.conn.sender.send(resp.into());
                return;
            }
        };
        let resp = match result {
            Ok(Ok(value)) => Response::new_ok(id, value),
            Ok(Err(e)) => Response::new_err(id, ErrorCode::InternalError as i32, e.to_string()),
            Err(e) => Response::new_err(id, ErrorCode::InvalidParams as i32, e.to_string()),
        };
        let _ = self.conn.sender.send(resp.into());
    }
}
