//! The start of a session, as LSP 3.17 ("Server lifecycle") has it: until a valid
//! `initialize` request, every other request is answered `-32002`
//! (ServerNotInitialized), notifications and responses are dropped, and `exit` ends
//! the server; an `initialize` whose params are no `InitializeParams` object is
//! answered `-32602` (Invalid params) and the server waits for a valid one.
//!
//! `lsp-server`'s `Connection::initialize` ends the session on any of these (and
//! answers with Rust debug text), hence this loop of our own over the transport.

use lsp_server::{Connection, ErrorCode, Message, RequestId, Response};
use lsp_types::InitializeParams;

/// How the handshake ended.
#[derive(Debug)]
pub enum Start {
    /// A valid `initialize`, answered with the server's capabilities.
    Initialized(Box<InitializeParams>),
    /// The session ended before one: with this exit code ([`end_code`]).
    Ended(u8),
}

/// The exit code when the session ends by `exit` or at the end of the input.
///
/// LSP 3.17 (`exit` notification): 0 when a `shutdown` request came first, else 1.
/// The end of the input without `exit` is the client gone: the spec names no code
/// for it, so it is read as the `exit` the client could no longer send, with the
/// same codes, and ends quietly (nothing on standard error).
pub fn end_code(shut_down: bool) -> u8 {
    if shut_down {
        0
    } else {
        1
    }
}

/// Waits for a valid `initialize` on `conn` and answers it with `capabilities`
/// (a `ServerCapabilities` as JSON). Errors are the connection's (an answer that
/// could not be sent).
pub fn initialize(conn: &Connection, capabilities: serde_json::Value) -> Result<Start, String> {
    loop {
        let Ok(message) = conn.receiver.recv() else {
            return Ok(Start::Ended(end_code(false)));
        };
        let reply = match message {
            Message::Request(req) if req.method == "initialize" => match params(req.params) {
                Ok(params) => {
                    let result = serde_json::json!({ "capabilities": capabilities });
                    send(conn, Response::new_ok(req.id, result))?;
                    return Ok(Start::Initialized(Box::new(params)));
                }
                Err(why) => invalid_params(req.id, &why),
            },
            Message::Request(req) => Response::new_err(
                req.id,
                ErrorCode::ServerNotInitialized as i32,
                format!(
                    "retrylint lsp is not initialized: `{}` before `initialize`",
                    req.method
                ),
            ),
            Message::Notification(n) if n.method == "exit" => {
                return Ok(Start::Ended(end_code(false)))
            }
            Message::Notification(_) | Message::Response(_) => continue,
        };
        send(conn, reply)?;
    }
}

/// `initialize`'s params as `InitializeParams`, or why they are not.
fn params(params: serde_json::Value) -> Result<InitializeParams, String> {
    if !params.is_object() {
        return Err("the params of `initialize` must be an InitializeParams object".into());
    }
    serde_json::from_value(params).map_err(|e| format!("the params of `initialize`: {e}"))
}

/// The `-32602` answer to an `initialize` with bad params.
fn invalid_params(id: RequestId, why: &str) -> Response {
    Response::new_err(
        id,
        ErrorCode::InvalidParams as i32,
        format!("Invalid params: {why}"),
    )
}

fn send(conn: &Connection, response: Response) -> Result<(), String> {
    conn.sender
        .send(response.into())
        .map_err(|_| "the connection to the client is closed".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsp_server::{Notification, Request};
    use serde_json::{json, Value};

    /// Runs the handshake over `messages`, then closes the input: how it ended and
    /// every answer sent.
    fn handshake(messages: Vec<Message>) -> (Start, Vec<Response>) {
        let (conn, client) = Connection::memory();
        for m in messages {
            client.sender.send(m).unwrap();
        }
        drop(client.sender);
        let start = initialize(&conn, json!({"hoverProvider": true})).unwrap();
        drop(conn);
        let answers = client
            .receiver
            .iter()
            .filter_map(|m| match m {
                Message::Response(r) => Some(r),
                _ => None,
            })
            .collect();
        (start, answers)
    }

    fn request(id: i32, method: &str, params: Value) -> Message {
        Request::new(id.into(), method.into(), params).into()
    }

    fn valid() -> Value {
        json!({"processId": null, "rootUri": null, "capabilities": {}})
    }

    fn code(r: &Response) -> Option<i32> {
        r.error.as_ref().map(|e| e.code)
    }

    #[test]
    fn requests_before_initialize_are_not_initialized_and_notifications_dropped() {
        let (start, answers) = handshake(vec![
            request(1, "textDocument/hover", json!({})),
            Notification::new("initialized".into(), json!({})).into(),
            Response::new_ok(RequestId::from(9), json!({})).into(),
            request(2, "initialize", valid()),
        ]);
        assert!(matches!(start, Start::Initialized(_)), "{start:?}");
        assert_eq!(answers.len(), 2, "{answers:?}");
        assert_eq!(code(&answers[0]), Some(-32002));
        let message = &answers[0].error.as_ref().unwrap().message;
        assert!(!message.contains("Request {"), "no debug text: {message}");
        assert_eq!(answers[1].id, RequestId::from(2));
        assert_eq!(
            answers[1].result.as_ref().unwrap()["capabilities"]["hoverProvider"],
            true
        );
    }

    #[test]
    fn initialize_without_an_object_is_invalid_params_and_waits_for_a_valid_one() {
        let (start, answers) = handshake(vec![
            request(1, "initialize", json!("x")),
            request(2, "initialize", Value::Null),
            request(3, "initialize", json!({"processId": "not a number"})),
            request(4, "initialize", valid()),
        ]);
        assert!(matches!(start, Start::Initialized(_)), "{start:?}");
        let codes: Vec<_> = answers.iter().map(code).collect();
        assert_eq!(codes, [Some(-32602), Some(-32602), Some(-32602), None]);
    }

    #[test]
    fn exit_or_the_end_of_input_before_initialize_ends_with_1() {
        let exit = Notification::new("exit".into(), Value::Null).into();
        let (start, answers) = handshake(vec![exit, request(1, "initialize", valid())]);
        assert!(matches!(start, Start::Ended(1)), "{start:?}");
        assert!(answers.is_empty(), "{answers:?}");
        let (start, _) = handshake(Vec::new());
        assert!(matches!(start, Start::Ended(1)), "{start:?}");
        assert_eq!(end_code(true), 0);
    }
}
