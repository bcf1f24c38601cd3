//! The server's standard input and output: LSP frames (`Content-Length: N`, a blank
//! line, N bytes of JSON) in, JSON-RPC messages out, through a reader and a writer
//! thread. Unlike `lsp-server`'s own stdio transport, whose reader stops at the first
//! bad frame, a bad frame here is answered or skipped and the server keeps serving:
//! - a body that is not JSON: a `-32700 Parse error` reply (id `null`);
//! - JSON that is not a JSON-RPC 2.0 message (no `"jsonrpc": "2.0"`, an array, no
//!   `method` nor `id`): a `-32600 Invalid Request` reply, with the message's id when
//!   it has one;
//! - a malformed header (no `Name: value`, a `Content-Length` that is no number, no
//!   `Content-Length` before the blank line): the input is skipped up to the next
//!   `Content-Length:`, with a note on standard error;
//! - a frame longer than [`MAX_FRAME_BYTES`]: skipped the same way (its length is
//!   not trusted, so its bytes are not counted off), and refused with `-32600`.
//!
//! Every write goes through [`crate::write::stdout_with`]: a failed standard output
//! (a full disk, a closed pipe) is kept for [`crate::write::finish`], never a panic.

use crate::write;
use crossbeam_channel::{bounded, never, select, unbounded, Receiver, Sender};
use lsp_server::{Connection, Message};
use serde_json::{json, Value};
use std::io::{self, BufRead, Write};
use std::thread::JoinHandle;

/// The longest frame read, in bytes: twice the largest file `check` reads by
/// default (`--max-file-size`), room for a buffer that large sent as escaped JSON
/// text. A longer one is refused without being read into memory.
pub const MAX_FRAME_BYTES: usize = 512 * 1024 * 1024;

/// The longest header line kept, in bytes (`Content-Length: 123` is 20); the rest of
/// a longer line is skipped, and the line is a malformed header.
const MAX_HEADER_LINE: usize = 1024;

/// The header that starts every frame, and that a skip looks for.
const CONTENT_LENGTH: &[u8] = b"Content-Length:";

/// JSON-RPC's code for a body that is not JSON.
pub const PARSE_ERROR: i32 = -32700;
/// JSON-RPC's code for JSON that is no valid request.
pub const INVALID_REQUEST: i32 = -32600;

/// What one read of the input gives.
#[derive(Debug)]
pub enum Frame {
    /// A JSON-RPC message for the server.
    Message(Message),
    /// A frame that is no message: the error reply to send for it.
    Refused(Value),
    /// Input skipped up to the next `Content-Length:`, and why.
    Skipped(String),
    /// An error response with a `null` id (the client refusing a frame of ours it
    /// could not read): nothing to hand on, and answering it could start a loop of
    /// refusals.
    Unanswerable,
}

/// Reads frames from an input, resynchronising after bad ones.
pub struct FrameReader<R> {
    input: R,
    /// The largest frame body read (bytes).
    limit: usize,
    /// Bytes a skip already consumed that start the next header.
    pending: Vec<u8>,
}

impl<R: BufRead> FrameReader<R> {
    /// A reader of `input` refusing bodies longer than `limit` bytes.
    pub fn new(input: R, limit: usize) -> Self {
        FrameReader {
            input,
            limit,
            pending: Vec::new(),
        }
    }

    /// The next frame; `None` at the end of the input (a frame cut short by the end
    /// is the end too). Errors are the input's own (a read that failed).
    pub fn next_frame(&mut self) -> io::Result<Option<Frame>> {
        let mut length: Option<usize> = None;
        let mut started = false;
        loop {
            let Some(line) = self.header_line()? else {
                return Ok(None);
            };
            let text = String::from_utf8_lossy(&line);
            let text = text.trim_end_matches(['\r', '\n']);
            if text.is_empty() {
                if started {
                    break;
                }
                continue; // blank lines between frames
            }
            started = true;
            let Some((name, value)) = text.split_once(':') else {
                return self.skip(format!("malformed header {text:?}"));
            };
            if name.trim().eq_ignore_ascii_case("Content-Length") {
                match value.trim().parse::<u64>() {
                    Ok(n) => length = Some(usize::try_from(n).unwrap_or(usize::MAX)),
                    Err(_) => return self.skip(format!("malformed header {text:?}")),
                }
            }
        }
        let Some(length) = length else {
            return self.skip("a header without Content-Length".to_string());
        };
        if length > self.limit {
            let why = format!(
                "a frame of {length} bytes, over the limit of {} bytes",
                self.limit
            );
            return match self.skip(why.clone())? {
                None => Ok(None),
                Some(_) => Ok(Some(Frame::Refused(error_reply(
                    Value::Null,
                    INVALID_REQUEST,
                    &format!("Invalid Request: {why}"),
                )))),
            };
        }
        let mut body = vec![0; length];
        match self.input.read_exact(&mut body) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(e),
        }
        Ok(Some(parse_body(&body)))
    }

    /// One header line (its newline kept), at most [`MAX_HEADER_LINE`] bytes of it;
    /// `None` at the end of the input. The bytes a skip left come first.
    fn header_line(&mut self) -> io::Result<Option<Vec<u8>>> {
        let mut line = std::mem::take(&mut self.pending);
        let mut limited = io::Read::take(&mut self.input, MAX_HEADER_LINE as u64);
        let read = limited.read_until(b'\n', &mut line)?;
        if read == 0 && line.is_empty() {
            return Ok(None);
        }
        if !line.ends_with(b"\n") && read == MAX_HEADER_LINE {
            // Too long for a header: what follows is no header either.
            line.truncate(MAX_HEADER_LINE);
            line.extend_from_slice(b"...");
        }
        Ok(Some(line))
    }

    /// Skips the input up to the next `Content-Length:` (which then starts the next
    /// header): `Skipped(why)`, or `None` when the input ends first.
    fn skip(&mut self, why: String) -> io::Result<Option<Frame>> {
        let mut matched = 0;
        loop {
            let buf = match self.input.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                return Ok(None);
            }
            let mut used = 0;
            for &b in buf {
                used += 1;
                if b == CONTENT_LENGTH[matched] {
                    matched += 1;
                } else {
                    // `C` occurs once in the pattern: a mismatch restarts at it or at 0.
                    matched = usize::from(b == CONTENT_LENGTH[0]);
                }
                if matched == CONTENT_LENGTH.len() {
                    break;
                }
            }
            self.input.consume(used);
            if matched == CONTENT_LENGTH.len() {
                self.pending = CONTENT_LENGTH.to_vec();
                return Ok(Some(Frame::Skipped(why)));
            }
        }
    }
}

/// A frame's body as a message, or the error reply refusing it.
fn parse_body(body: &[u8]) -> Frame {
    let value: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => {
            return Frame::Refused(error_reply(
                Value::Null,
                PARSE_ERROR,
                &format!("Parse error: {e}"),
            ))
        }
    };
    // The id to answer by: a number or a string the message carries, else `null`.
    let id = match value.get("id") {
        Some(id @ (Value::Number(_) | Value::String(_))) => id.clone(),
        _ => Value::Null,
    };
    if value.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Frame::Refused(error_reply(
            id,
            INVALID_REQUEST,
            "Invalid Request: not a JSON-RPC 2.0 message (an object with \"jsonrpc\": \"2.0\")",
        ));
    }
    if let Err(why) = shape(&value) {
        return Frame::Refused(error_reply(
            id,
            INVALID_REQUEST,
            &format!("Invalid Request: {why}"),
        ));
    }
    if value.get("method").is_none() && value.get("id") == Some(&Value::Null) {
        return Frame::Unanswerable;
    }
    match serde_json::from_value::<Message>(value) {
        Ok(message) => Frame::Message(message),
        Err(e) => Frame::Refused(error_reply(
            id,
            INVALID_REQUEST,
            &format!("Invalid Request: {e}"),
        )),
    }
}

/// Whether `value` has the shape of a JSON-RPC 2.0 message, or why not. Checked
/// before `lsp_server::Message` reads it: that untagged enum ignores what it does not
/// know, so `{"id":1,"method":5}` would pass as a response and an object id as a
/// notification, and be dropped without an answer.
fn shape(value: &Value) -> Result<(), &'static str> {
    let Some(object) = value.as_object() else {
        return Err("a message is a JSON object");
    };
    let id = object.get("id");
    match object.get("method") {
        Some(Value::String(_)) => match id {
            None | Some(Value::Number(_) | Value::String(_)) => Ok(()),
            Some(_) => Err("a request's \"id\" is a number or a string"),
        },
        Some(_) => Err("\"method\" is a string"),
        // A response: to a request (an id), or to a frame without one (`null`).
        None => match id {
            Some(Value::Number(_) | Value::String(_) | Value::Null) => {
                if object.contains_key("result") == object.contains_key("error") {
                    Err("a response has either \"result\" or \"error\"")
                } else {
                    Ok(())
                }
            }
            Some(_) => Err("a response's \"id\" is a number, a string or null"),
            None => Err("a message has a \"method\" or an \"id\""),
        },
    }
}

/// A JSON-RPC error reply.
fn error_reply(id: Value, code: i32, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The transport's threads, joined when the server is done.
pub struct Threads {
    reader: JoinHandle<io::Result<()>>,
    writer: JoinHandle<()>,
}

impl Threads {
    /// Waits for the reader (it ends after `exit` or at the end of the input) and the
    /// writer (it ends when the connection is dropped); the reader's input error, if
    /// any. Drop the connection first.
    pub fn join(self) -> io::Result<()> {
        let _ = self.writer.join();
        self.reader
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the reader thread panicked")))
    }
}

/// A connection over standard input and output, surviving bad frames.
pub fn stdio() -> (Connection, Threads) {
    let (to_writer, from_server) = bounded::<Message>(0);
    let (refusals, refused) = unbounded::<Value>();
    let writer = std::thread::Builder::new()
        .name("retrylint-lsp-writer".into())
        .spawn(move || write_loop(&from_server, refused))
        .expect("spawn the LSP writer");
    let (to_server, from_reader) = bounded::<Message>(0);
    let reader = std::thread::Builder::new()
        .name("retrylint-lsp-reader".into())
        .spawn(move || read_loop(io::stdin().lock(), &to_server, &refusals))
        .expect("spawn the LSP reader");
    let connection = Connection {
        sender: to_writer,
        receiver: from_reader,
    };
    (connection, Threads { reader, writer })
}

/// Reads frames until `exit`, the end of the input or a server gone: messages to the
/// server, refusals to the writer, skips noted on standard error.
fn read_loop(
    input: impl BufRead,
    to_server: &Sender<Message>,
    refusals: &Sender<Value>,
) -> io::Result<()> {
    let mut frames = FrameReader::new(input, MAX_FRAME_BYTES);
    while let Some(frame) = frames.next_frame()? {
        match frame {
            Frame::Message(message) => {
                let exit = matches!(&message, Message::Notification(n) if n.method == "exit");
                if to_server.send(message).is_err() || exit {
                    return Ok(());
                }
            }
            Frame::Refused(reply) => {
                let _ = refusals.send(reply);
            }
            Frame::Skipped(why) => write::errln(format_args!(
                "retrylint lsp: skipped input up to the next Content-Length header: {why}"
            )),
            Frame::Unanswerable => {}
        }
    }
    Ok(())
}

/// Writes the server's messages and the reader's refusals until the server drops
/// its end. After a failed write it keeps receiving (so no sender ever fails) and
/// writes nothing more: the failure is [`crate::write::finish`]'s to report.
fn write_loop(from_server: &Receiver<Message>, refused: Receiver<Value>) {
    let mut refused = refused;
    loop {
        select! {
            recv(from_server) -> message => match message {
                Ok(message) => {
                    write::stdout_with(|mut out| message.write(&mut out));
                }
                Err(_) => return,
            },
            recv(refused) -> reply => match reply {
                Ok(reply) => {
                    write::stdout_with(|out| frame(out, &reply));
                }
                // The reader is done: only the server's messages are left.
                Err(_) => refused = never(),
            },
        }
    }
}

/// Writes `value` as one LSP frame.
fn frame(out: &mut dyn Write, value: &Value) -> io::Result<()> {
    let body = value.to_string();
    write!(out, "Content-Length: {}\r\n\r\n{body}", body.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8], limit: usize) -> Vec<Frame> {
        let mut reader = FrameReader::new(input, limit);
        let mut out = Vec::new();
        while let Some(f) = reader.next_frame().unwrap() {
            out.push(f);
        }
        out
    }

    fn framed(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    const PING: &str = r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#;

    fn is_ping(f: &Frame) -> bool {
        matches!(f, Frame::Message(Message::Request(r)) if r.method == "ping")
    }

    fn refusal(f: &Frame) -> (i64, Value) {
        match f {
            Frame::Refused(v) => (v["error"]["code"].as_i64().unwrap(), v["id"].clone()),
            other => panic!("not refused: {other:?}"),
        }
    }

    #[test]
    fn a_body_that_is_not_json_is_a_parse_error_and_reading_goes_on() {
        let input = format!("{}{}", framed("{abc}"), framed(PING));
        let got = frames(input.as_bytes(), 1000);
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(refusal(&got[0]), (-32700, Value::Null));
        assert!(is_ping(&got[1]));
    }

    #[test]
    fn json_that_is_no_json_rpc_is_an_invalid_request_with_its_id() {
        let input = [
            framed(r#"{"id":3,"method":"ping"}"#),
            framed("[1,2]"),
            framed(r#"{"jsonrpc":"2.0","params":1}"#),
            framed(PING),
        ]
        .concat();
        let got = frames(input.as_bytes(), 1000);
        assert_eq!(got.len(), 4, "{got:?}");
        assert_eq!(refusal(&got[0]), (-32600, json!(3)));
        assert_eq!(refusal(&got[1]), (-32600, Value::Null));
        assert_eq!(refusal(&got[2]), (-32600, Value::Null));
        assert!(is_ping(&got[3]));
    }

    #[test]
    fn a_method_that_is_no_string_or_an_id_that_is_no_id_is_an_invalid_request() {
        let input = [
            framed(r#"{"jsonrpc":"2.0","id":1,"method":5}"#),
            framed(r#"{"jsonrpc":"2.0","id":"a","method":null}"#),
            framed(r#"{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}"#),
            framed(r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#),
            framed(r#"{"jsonrpc":"2.0","id":2}"#),
            framed(r#"{"jsonrpc":"2.0","id":3,"result":1,"error":{"code":1,"message":"m"}}"#),
            framed(r#"{"jsonrpc":"2.0","params":{}}"#),
            framed(r#"{"jsonrpc":"2.0","id":4,"result":null}"#),
            framed(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"m"}}"#),
            framed(PING),
        ]
        .concat();
        let got = frames(input.as_bytes(), 1000);
        assert_eq!(got.len(), 10, "{got:?}");
        assert_eq!(refusal(&got[0]), (-32600, json!(1)));
        assert_eq!(refusal(&got[1]), (-32600, json!("a")));
        assert_eq!(refusal(&got[2]), (-32600, Value::Null));
        assert_eq!(refusal(&got[3]), (-32600, Value::Null));
        assert_eq!(refusal(&got[4]), (-32600, json!(2)));
        assert_eq!(refusal(&got[5]), (-32600, json!(3)));
        assert_eq!(refusal(&got[6]), (-32600, Value::Null));
        assert!(
            matches!(&got[7], Frame::Message(Message::Response(_))),
            "{got:?}"
        );
        assert!(matches!(&got[8], Frame::Unanswerable), "{got:?}");
        assert!(is_ping(&got[9]));
    }

    #[test]
    fn a_malformed_header_is_skipped_up_to_the_next_content_length() {
        for bad in [
            "Content-Length: twelve\r\n\r\n{}",
            "garbage without a colon\r\n\r\n{\"x\": 1}",
            "Content-Type: application/json\r\n\r\n{}",
            "Content-Length: -5\r\n\r\n",
        ] {
            let input = format!("{bad}{}", framed(PING));
            let got = frames(input.as_bytes(), 1000);
            assert_eq!(got.len(), 2, "{bad:?}: {got:?}");
            assert!(matches!(&got[0], Frame::Skipped(_)), "{bad:?}: {got:?}");
            assert!(is_ping(&got[1]), "{bad:?}: {got:?}");
        }
        // A header line too long to be one.
        let input = format!("X-{}: 1\r\n\r\n{}", "a".repeat(5000), framed(PING));
        let got = frames(input.as_bytes(), 1000);
        assert!(matches!(&got[0], Frame::Skipped(_)), "{got:?}");
        assert!(is_ping(&got[1]), "{got:?}");
    }

    #[test]
    fn a_frame_over_the_limit_is_refused_unread_and_skipped() {
        let big = format!(
            r#"{{"jsonrpc":"2.0","method":"x","params":"{}"}}"#,
            "a".repeat(200)
        );
        let input = format!("{}{}", framed(&big), framed(PING));
        let got = frames(input.as_bytes(), 100);
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(refusal(&got[0]), (-32600, Value::Null));
        assert!(is_ping(&got[1]));
        // A length no memory holds is refused the same way, nothing allocated.
        let input = format!(
            "Content-Length: 99999999999999999999\r\n\r\n{{}}{}",
            framed(PING)
        );
        let got = frames(input.as_bytes(), 100);
        assert!(matches!(&got[0], Frame::Skipped(_)), "{got:?}");
        assert!(is_ping(&got[1]), "{got:?}");
    }

    #[test]
    fn the_end_of_input_mid_frame_is_the_end() {
        assert!(frames(b"", 100).is_empty());
        assert!(frames(b"Content-Length: 50\r\n\r\n{\"jsonrpc\"", 100).is_empty());
        assert!(frames(b"Content-Length: 5\r\n", 100).is_empty());
        let got = frames(format!("\r\n{}", framed(PING)).as_bytes(), 100);
        assert!(is_ping(&got[0]), "blank lines between frames: {got:?}");
    }
}
