//! The C# extractor (`retry-in-code.md` §1.4): retry clients and HTTP calls of one
//! file.
//!
//! Read: Microsoft.Extensions.Http.Resilience `AddStandardResilienceHandler()`
//! (defaults, options lambda, `.Configure(...)`, `DisableForUnsafeHttpMethods()` /
//! `DisableFor(...)`) and `AddResilienceHandler("name", b => b.AddRetry(new
//! HttpRetryStrategyOptions {...}))` ([`resilience`]); Polly 8
//! `ResiliencePipelineBuilder().AddRetry(new RetryStrategyOptions {...})`
//! ([`resilience`]) and Polly 7 `WaitAndRetryAsync` chains attached with
//! `AddPolicyHandler` / `AddTransientHttpErrorPolicy` ([`polly`]); which
//! `HttpClient`s a handler is attached to (typed, named, Refit,
//! `ConfigureHttpClientDefaults`: [`attach`]); `HttpClient` calls and Refit
//! interfaces ([`calls`]). Values fold through [`eval`] (literals, same-file
//! constants, `TimeSpan` factories); everything else is RL019.

pub mod attach;
pub mod calls;
pub mod eval;
pub mod options;
pub mod polly;
pub mod reach;
pub mod resilience;
pub mod syntax;

use super::model::CodeFacts;
use super::CodeFile;
use eval::Consts;

/// Reads the retry clients and calls of `file`.
pub fn extract(file: &CodeFile<'_>) -> CodeFacts {
    let mut out = CodeFacts::default();
    let consts = Consts::collect(file);
    // `AddPolicyHandler(policyName)`: (the policy's name, the clients it is attached to).
    let mut attachments: Vec<(String, Vec<(String, super::model::Span)>)> = Vec::new();
    // Keys made inside a retried lambda: (the pipeline it is retried by, the value).
    let mut regenerated: Vec<(String, super::model::Span)> = Vec::new();
    // Calls in test code: evidence only when the file builds a retry client itself.
    let mut test_calls: Vec<super::model::CallSite> = Vec::new();
    let mut stack = vec![file.tree.root_node()];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "invocation_expression" => {
                let name = syntax::method_name(file, node);
                match name {
                    "AddStandardResilienceHandler" => {
                        out.clients.push(resilience::standard(file, &consts, node))
                    }
                    "AddRetry" => {
                        if let Some(c) = resilience::add_retry(file, &consts, node) {
                            out.clients.push(c);
                        }
                    }
                    "AddPolicyHandler" => {
                        if let Some((_, arg)) = syntax::args(node).last() {
                            let text = file.text_of(*arg);
                            let inline = arg.kind() == "lambda_expression"
                                || polly::TERMINALS
                                    .iter()
                                    .any(|t| text.contains(&format!(".{t}(")));
                            if !inline {
                                let key = match arg.kind() {
                                    "invocation_expression" => syntax::method_name(file, *arg),
                                    _ => text.rsplit('.').next().unwrap_or(text),
                                };
                                attachments.push((key.to_string(), attach::targets(file, node)));
                            }
                        }
                    }
                    n if polly::TERMINALS.contains(&n) => {
                        if let Some(c) = polly::retry(file, &consts, node) {
                            out.clients.push(c);
                        }
                    }
                    "AddHttpClient" => {
                        if let Some(base) = reach::base_address(file, node) {
                            out.base_urls.push(base);
                        }
                    }
                    _ => {
                        if let Some(call) = calls::http_call(file, &consts, node) {
                            if let Some(span) = calls::regenerated_key(file, node) {
                                regenerated.push((call.receiver.clone(), span));
                            }
                            if reach::is_test_code(file, node) {
                                test_calls.push(call);
                            } else {
                                out.calls.push(call);
                            }
                        }
                    }
                }
            }
            "interface_declaration" => out.calls.extend(calls::refit(file, &consts, node)),
            _ => {}
        }
        let mut cursor = node.walk();
        let children: Vec<_> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    if out.clients.is_empty() {
        if !test_calls.is_empty() {
            out.notes.push(format!(
                "{}: {} HTTP call(s) in test code not read as production calls (a test project or folder, or a class with test attributes)",
                file.doc.file.display,
                test_calls.len()
            ));
        }
    } else {
        out.calls.extend(test_calls);
    }
    for (receiver, span) in regenerated {
        let last = super::link::last_segment(&receiver);
        for c in out.clients.iter_mut().filter(|c| {
            c.names
                .iter()
                .any(|(n, _)| super::link::last_segment(n) == last)
        }) {
            c.findings.push(super::model::Finding {
                code: "RL208",
                span: span.clone(),
                message: format!(
                    "the idempotency key is generated inside the lambda that `{receiver}` retries: every attempt sends a new key"
                ),
                label: "a new key per attempt".into(),
                help: String::new(),
            });
        }
    }
    for (key, targets) in attachments {
        let found = out
            .clients
            .iter_mut()
            .filter(|c| c.names.iter().any(|(n, _)| *n == key))
            .fold(false, |_, c| {
                c.names.extend(targets.iter().cloned());
                true
            });
        if !found {
            out.notes.push(format!(
                "{}: `AddPolicyHandler({key})`: the policy is not built in this file; its retries are not read",
                file.doc.file.display
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::code::parse;
    use crate::source::language::Language;

    /// Parses `src` as C# and extracts it.
    #[test]
    fn test_classes_plain_clients_and_base_addresses() {
        let call =
            r#"class Api { Task A(HttpClient http) => http.PostAsJsonAsync("/api/items", 1); }"#;
        assert_eq!(facts(call).calls.len(), 1);
        // The same call in an xUnit class is test code: not read as production.
        let test = r#"public class ApiTests { [Fact] public Task A() { var client = _f.CreateDefaultClient(); return client.PostAsJsonAsync("/api/items", 1); } }"#;
        let f = facts(test);
        assert!(f.calls.is_empty(), "{:?}", f.calls);
        assert!(
            f.notes.iter().any(|n| n.contains("test code")),
            "{:?}",
            f.notes
        );
        // `new HttpClient()` is no factory client: its receiver is not `HttpClient:`.
        let plain = r#"class P { Task A() { var httpClient = new HttpClient(); return httpClient.PostAsJsonAsync("/api/items", 1); } }"#;
        let f = facts(plain);
        assert_eq!(f.calls.len(), 1);
        assert_eq!(f.calls[0].receiver, reach::PLAIN);
        // A typed client's literal BaseAddress, Aspire's scheme read as https.
        let reg = r#"class E { void M(IServiceCollection s) { s.AddHttpClient<OrderingService>(o => o.BaseAddress = new("https+http://ordering-api")); s.AddHttpClient("github", c => { c.BaseAddress = new Uri("https://api.github.com/"); }); } }"#;
        let f = facts(reg);
        assert_eq!(
            f.base_urls,
            vec![
                (
                    "HttpClient:OrderingService".to_string(),
                    "https://ordering-api".to_string()
                ),
                (
                    "HttpClient:github".to_string(),
                    "https://api.github.com/".to_string()
                ),
            ]
        );
    }

    fn facts(src: &str) -> CodeFacts {
        let ws = crate::source::loader::Workspace::new(
            std::path::PathBuf::from("/tmp"),
            crate::source::loader::Limits::default(),
        );
        let doc = ws.load_text(std::path::Path::new("t.cs"), src);
        let parse::Parsed::Tree(tree) = parse::parse(Language::CSharp, src) else {
            panic!("parses");
        };
        extract(&CodeFile {
            doc: &doc,
            text: src,
            language: Language::CSharp,
            tree: &tree,
            boundary: &crate::source::boundary::ReadBoundary::unbounded(),
        })
    }

    #[test]
    fn standard_handler_defaults_and_options() {
        let f = facts(
            r#"class P { void M(IServiceCollection s) {
  s.AddHttpClient<OrderingService>(c => c.BaseAddress = new Uri("http://x"))
   .AddStandardResilienceHandler(o => { o.Retry.MaxRetryAttempts = 5; o.TotalRequestTimeout.Timeout = TimeSpan.FromSeconds(10); });
} }"#,
        );
        assert_eq!(f.clients.len(), 1);
        let c = &f.clients[0];
        assert_eq!(c.attempts.as_ref().map(|a| a.value), Some(6));
        assert_eq!(c.deadline.as_ref().map(|a| a.value), Some(10_000.0));
        assert_eq!(c.names[0].0, "OrderingService");
        assert!(c.methods.is_none());
    }

    #[test]
    fn polly_v7_exponential() {
        let f = facts(
            r#"class P { static IAsyncPolicy<HttpResponseMessage> GetRetryPolicy() =>
  HttpPolicyExtensions.HandleTransientHttpError()
    .OrResult(msg => msg.StatusCode == HttpStatusCode.TooManyRequests)
    .WaitAndRetryAsync(6, retryAttempt => TimeSpan.FromSeconds(Math.Pow(2, retryAttempt)));
  void M(IServiceCollection s) { s.AddHttpClient<Api>().AddPolicyHandler(GetRetryPolicy()); } }"#,
        );
        assert_eq!(f.clients.len(), 1, "{:?}", f.notes);
        let c = &f.clients[0];
        assert_eq!(c.attempts.as_ref().map(|a| a.value), Some(7));
        assert_eq!(c.backoff.base.as_ref().map(|a| a.value), Some(2_000.0));
        assert!(
            c.names.iter().any(|(n, _)| n == "Api"),
            "{:?} {:?}",
            c.names,
            f.notes
        );
        let on = &c.retry_on.as_ref().unwrap().value;
        assert!(on.contains(&crate::policy::model::Signal::Status(429)));
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let src = format!(
            "class P {{ int x = {}1{}; }}",
            "(".repeat(5000),
            ")".repeat(5000)
        );
        let _ = facts(&src);
    }

    #[test]
    fn resilience_handler_transient_policy_config_section_and_named_client() {
        let f = facts(include_str!("testdata/shapes.cs"));
        let kinds: Vec<&str> = f.clients.iter().map(|c| c.kind.as_str()).collect();
        assert_eq!(
            kinds,
            [
                "AddRetry(HttpRetryStrategyOptions)",
                "WaitAndRetryAsync(...)",
                "AddStandardResilienceHandler()",
                "WaitAndRetryAsync(...)"
            ]
        );
        let gh = &f.clients[0];
        // `Retries * 2` with `const int Retries = 2`: 4 retries.
        assert_eq!(gh.attempts.as_ref().map(|a| a.value), Some(5));
        assert_eq!(gh.deadline.as_ref().map(|a| a.value), Some(20_000.0));
        assert_eq!(gh.attempt_timeout.as_ref().map(|a| a.value), Some(5_000.0));
        assert_eq!(
            gh.backoff.jitter.as_ref().map(|a| a.value),
            Some(crate::policy::model::Jitter::None)
        );
        assert!(matches!(
            gh.retry_on.as_ref().map(|r| &r.known),
            Some(crate::import::code::model::Known::Assumed { .. })
        ));
        let catalog = &f.clients[1];
        assert_eq!(catalog.attempts.as_ref().map(|a| a.value), Some(4));
        assert_eq!(
            catalog.backoff.cap.as_ref().map(|a| a.value),
            Some(10_000.0)
        );
        let basket = &f.clients[2];
        assert!(matches!(
            basket.attempts.as_ref().map(|a| &a.known),
            Some(crate::import::code::model::Known::Assumed { .. })
        ));
        let pay = &f.clients[3];
        assert_eq!(pay.attempts.as_ref().map(|a| a.value), Some(6));
        assert_eq!(
            pay.backoff.jitter.as_ref().map(|a| a.value),
            Some(crate::policy::model::Jitter::Decorrelated)
        );
        assert_eq!(f.calls.len(), 1);
        assert_eq!(f.calls[0].receiver, "HttpClient:github");
        assert_eq!(
            f.calls[0].url,
            crate::import::code::model::Url::Template("/user/starred/{}".into())
        );
    }

    #[test]
    fn half_typed_code_does_not_panic() {
        let src = r#"class P { void M(IServiceCollection s) { s.AddHttpClient<A>().AddStandardResilienceHandler(o => { o.Retry.MaxRetryAttempts = ; o.Retry.Delay = TimeSpan.FromSeconds(; } new ResiliencePipelineBuilder().AddRetry(new RetryStrategyOptions { MaxRetryAttempts = int.MaxValue, Delay = new TimeSpan(1,2) }); x.PostAsync(; [Post( interface I { [Post] Task A(); [Get("/x")] } Policy.Handle<Exception>().WaitAndRetryAsync(); HttpPolicyExtensions.HandleTransientHttpError().WaitAndRetryAsync(3, a => ); "#;
        for end in (0..src.len())
            .filter(|i| src.is_char_boundary(*i))
            .step_by(7)
        {
            let _ = facts(&src[..end]);
        }
    }
}
