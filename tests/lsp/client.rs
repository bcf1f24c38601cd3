//! A scripted LSP client: spawns `retrylint lsp`, speaks JSON-RPC over its standard
//! input and output, and keeps the latest diagnostics published for each URI.

use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

/// How long a reply may take before the test fails instead of hanging (a guard, not
/// an assertion on speed).
const PATIENCE: Duration = Duration::from_secs(120);

pub struct Client {
    child: Child,
    /// The server's input; `None` once closed.
    stdin: Option<ChildStdin>,
    incoming: Receiver<Value>,
    next_id: i64,
    /// Latest `publishDiagnostics` per URI.
    pub diagnostics: HashMap<String, Vec<Value>>,
    /// Notifications sent that start a lint (the server's first lint counts one).
    lints_asked: u64,
    /// Newest lint generation the server reported done.
    lints_done: u64,
    versions: HashMap<String, i64>,
    /// The `initialize` result.
    pub capabilities: Value,
}

pub fn uri(path: &Path) -> String {
    let p = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    format!("file://{}", p.display()).replace(' ', "%20")
}

impl Client {
    /// Starts the server on the folder `root` with these initialization options.
    pub fn start(root: &Path, options: Value) -> Client {
        let mut c = Client::spawn(root);
        c.capabilities = c.initialize(root, options);
        c.notify("initialized", json!({}));
        c
    }

    /// Starts the server on the folder `root`, not yet initialized.
    pub fn spawn(root: &Path) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_retrylint"))
            .arg("lsp")
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the binary runs");
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, incoming) = channel();
        std::thread::spawn(move || loop {
            let mut length = 0usize;
            loop {
                let mut line = String::new();
                if stdout.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                if let Some(n) = line.strip_prefix("Content-Length: ") {
                    length = n.parse().unwrap();
                }
            }
            let mut body = vec![0; length];
            if stdout.read_exact(&mut body).is_err() {
                return;
            }
            if tx.send(serde_json::from_slice(&body).unwrap()).is_err() {
                return;
            }
        });
        Client {
            child,
            stdin: Some(stdin),
            incoming,
            next_id: 0,
            diagnostics: HashMap::new(),
            lints_asked: 1,
            lints_done: 0,
            versions: HashMap::new(),
            capabilities: Value::Null,
        }
    }

    /// Sends a valid `initialize` for the folder `root`; its result.
    pub fn initialize(&mut self, root: &Path, options: Value) -> Value {
        self.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": uri(root),
                "capabilities": {},
                "initializationOptions": options,
            }),
        )
    }

    /// Closes the server's input and waits for its exit code.
    #[allow(dead_code)] // used by tests/lsp.rs, not by every test crate
    pub fn close(mut self) -> i32 {
        drop(self.stdin.take());
        self.child.wait().unwrap().code().unwrap_or(-1)
    }

    fn send(&mut self, msg: Value) {
        let body = msg.to_string();
        let stdin = self.stdin.as_mut().expect("the input is open");
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        stdin.flush().unwrap();
    }

    /// Sends bytes as they are (a bad frame).
    #[allow(dead_code)] // used by tests/lsp.rs, not by every test crate
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("the input is open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// The next message from the server that `wanted` accepts (others are handled
    /// as they come: diagnostics kept, the server's requests answered).
    #[allow(dead_code)] // used by tests/lsp.rs, not by every test crate
    pub fn wait_for(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        loop {
            let msg = self.receive();
            if wanted(&msg) {
                return msg;
            }
        }
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        if matches!(
            method,
            "textDocument/didOpen"
                | "textDocument/didChange"
                | "textDocument/didSave"
                | "textDocument/didClose"
                | "workspace/didChangeWatchedFiles"
        ) {
            self.lints_asked += 1;
        }
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    fn receive(&mut self) -> Value {
        let msg = self
            .incoming
            .recv_timeout(PATIENCE)
            .expect("the server answers");
        match msg.get("method").and_then(Value::as_str) {
            Some("textDocument/publishDiagnostics") => {
                let p = &msg["params"];
                let list = p["diagnostics"].as_array().cloned().unwrap_or_default();
                self.diagnostics
                    .insert(p["uri"].as_str().unwrap().to_string(), list);
            }
            Some("window/logMessage") => {
                let text = msg["params"]["message"].as_str().unwrap_or("");
                if let Some(g) = text
                    .strip_prefix("lint ")
                    .and_then(|r| r.split(':').next())
                    .and_then(|g| g.parse().ok())
                {
                    self.lints_done = self.lints_done.max(g);
                }
            }
            Some(_) if msg.get("id").is_some() => {
                // A request from the server (registerCapability): answer it.
                let id = msg["id"].clone();
                self.send(json!({"jsonrpc": "2.0", "id": id, "result": null}));
            }
            _ => {}
        }
        msg
    }

    /// Sends a request and returns its result (panics on an error reply).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let reply = self.request_raw(method, params);
        assert!(reply.get("error").is_none(), "{method} failed: {reply}");
        reply["result"].clone()
    }

    /// Sends a request and returns the whole reply.
    pub fn request_raw(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let msg = self.receive();
            if msg.get("method").is_none() && msg["id"] == json!(id) {
                return msg;
            }
        }
    }

    /// Waits until the server has published the lint of everything sent so far.
    pub fn settle(&mut self) {
        while self.lints_done < self.lints_asked {
            self.receive();
        }
    }

    pub fn open(&mut self, path: &Path, text: &str) {
        let u = uri(path);
        self.versions.insert(u.clone(), 1);
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": u, "languageId": "yaml", "version": 1, "text": text}}),
        );
    }

    pub fn change(&mut self, path: &Path, text: &str) {
        let u = uri(path);
        let v = self.versions.entry(u.clone()).or_insert(1);
        *v += 1;
        let v = *v;
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": u, "version": v}, "contentChanges": [{"text": text}]}),
        );
    }

    /// The latest diagnostics of `path` (empty when none were published).
    pub fn diagnostics_of(&self, path: &Path) -> Vec<Value> {
        self.diagnostics
            .get(&uri(path))
            .cloned()
            .unwrap_or_default()
    }

    pub fn shutdown(mut self) -> i32 {
        self.request("shutdown", Value::Null);
        self.send(json!({"jsonrpc": "2.0", "method": "exit"}));
        let status = self.child.wait().unwrap();
        status.code().unwrap_or(-1)
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A copy of `from` in a fresh temporary folder (tests edit files on disk).
pub fn copy_dir(from: &Path, name: &str) -> PathBuf {
    let to = std::env::temp_dir().join(format!("retrylint-lsp-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&to);
    std::fs::create_dir_all(&to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.path().is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
    to
}

/// Applies LSP text edits (UTF-16 positions) to `text`.
pub fn apply_edits(text: &str, edits: &[Value]) -> String {
    let mut spans: Vec<(usize, usize, String)> = edits
        .iter()
        .map(|e| {
            let at = |p: &Value| {
                offset(
                    text,
                    p["line"].as_u64().unwrap(),
                    p["character"].as_u64().unwrap(),
                )
            };
            (
                at(&e["range"]["start"]),
                at(&e["range"]["end"]),
                e["newText"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    spans.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut out = text.to_string();
    for (s, e, t) in spans {
        out.replace_range(s..e, &t);
    }
    out
}

/// Byte offset of a 0-based line and UTF-16 column.
pub fn offset(text: &str, line: u64, character: u64) -> usize {
    let mut start = 0;
    for _ in 0..line {
        start += text[start..]
            .find('\n')
            .map_or(text.len() - start, |i| i + 1);
    }
    let mut units = 0;
    for (i, c) in text[start..].char_indices() {
        if units >= character || c == '\n' {
            return start + i;
        }
        units += c.len_utf16() as u64;
    }
    text.len()
}
