//! The Rust extractor (`retry-in-code.md` §1.6): retry clients and HTTP calls of
//! one file.
//!
//! Read: reqwest-retry `RetryTransientMiddleware::new_with_policy(...)` with its
//! `ExponentialBackoff` builder and the client it is attached to
//! ([`reqwest_retry`]); backon `.retry(ExponentialBuilder/ConstantBuilder/
//! FibonacciBuilder ...)` with the calls of the retried closure and RL208 for a key
//! made inside it ([`backon`]); reqwest request chains ending in `.send()`
//! ([`calls`]). Values fold through [`eval`] (literals, same-file constants,
//! `Duration` constructors); everything else is RL019.

pub mod backon;
pub mod calls;
pub mod eval;
pub mod reqwest_retry;
pub mod syntax;

use super::model::CodeFacts;
use super::CodeFile;
use eval::Consts;

/// Reads the retry clients and calls of `file`.
pub fn extract(file: &CodeFile<'_>) -> CodeFacts {
    let mut out = CodeFacts::default();
    let consts = Consts::collect(file);
    let mut stack = vec![file.tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.kind() == "call_expression" {
            match syntax::method_name(file, node) {
                "new_with_policy" | "new_with_policy_and_strategy" => {
                    if let Some(c) = reqwest_retry::middleware(file, &consts, node) {
                        out.clients.push(c);
                    }
                }
                "retry" => {
                    if let Some(c) = backon::retry(file, &consts, node) {
                        out.clients.push(c);
                    }
                }
                "send" => {
                    if let Some(r) = calls::request(file, &consts, node) {
                        out.calls.push(r.call);
                    }
                }
                _ => {}
            }
        }
        let mut cursor = node.walk();
        let children: Vec<_> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::code::parse;
    use crate::source::language::Language;

    fn facts(src: &str) -> CodeFacts {
        let ws = crate::source::loader::Workspace::new(
            std::path::PathBuf::from("/tmp"),
            crate::source::loader::Limits::default(),
        );
        let doc = ws.load_text(std::path::Path::new("t.rs"), src);
        let parse::Parsed::Tree(tree) = parse::parse(Language::Rust, src) else {
            panic!("parses");
        };
        extract(&CodeFile {
            doc: &doc,
            text: src,
            language: Language::Rust,
            tree: &tree,
            boundary: &crate::source::boundary::ReadBoundary::unbounded(),
        })
    }

    #[test]
    fn reqwest_retry_policy_and_client() {
        let f = facts(
            r#"fn client() -> ClientWithMiddleware {
    let retry_policy = ExponentialBackoff::builder()
        .retry_bounds(Duration::from_millis(500), Duration::from_secs(10))
        .jitter(Jitter::Bounded)
        .build_with_max_retries(5);
    ClientBuilder::new(reqwest::Client::new())
        .with(RetryTransientMiddleware::new_with_policy(retry_policy))
        .build()
}
async fn go(client: &ClientWithMiddleware) {
    client.post("https://api.example.com/v1/orders").header("Idempotency-Key", "k").send().await;
}"#,
        );
        assert_eq!(f.clients.len(), 1);
        let c = &f.clients[0];
        assert_eq!(c.attempts.as_ref().map(|a| a.value), Some(6));
        assert_eq!(c.backoff.base.as_ref().map(|a| a.value), Some(500.0));
        assert_eq!(c.backoff.cap.as_ref().map(|a| a.value), Some(10_000.0));
        assert!(c.names.iter().any(|(n, _)| n == "client"), "{:?}", c.names);
        assert_eq!(f.calls.len(), 1);
        assert_eq!(f.calls[0].headers, vec!["idempotency-key".to_string()]);
    }

    #[test]
    fn backon_defaults_and_regenerated_key() {
        let f = facts(
            r#"async fn place(client: reqwest::Client) {
    let r = (|| async {
        client.post(format!("{}/orders", BASE)).header("Idempotency-Key", Uuid::new_v4().to_string()).send().await
    }).retry(ExponentialBuilder::default().with_max_times(5)).await;
}"#,
        );
        assert_eq!(f.clients.len(), 1);
        let c = &f.clients[0];
        assert_eq!(c.attempts.as_ref().map(|a| a.value), Some(6));
        assert_eq!(c.calls.len(), 1);
        assert_eq!(c.findings.len(), 1);
        assert_eq!(c.findings[0].code, "RL208");
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let src = format!(
            "fn f() {{ let x = {}1{}; }}",
            "(".repeat(5000),
            ")".repeat(5000)
        );
        let _ = facts(&src);
    }

    #[test]
    fn half_typed_code_does_not_panic() {
        let src = r#"fn f() { let p = ExponentialBackoff::builder().retry_bounds(Duration::from_secs(), ).build_with_max_retries(; RetryTransientMiddleware::new_with_policy(); (|| async { c.post().send() }).retry(ExponentialBuilder::default().with_max_times(u32::MAX)); client.request(Method::, ).header().send(); "#;
        for end in (0..src.len())
            .filter(|i| src.is_char_boundary(*i))
            .step_by(7)
        {
            let _ = facts(&src[..end]);
        }
    }
}
