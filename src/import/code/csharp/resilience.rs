//! Microsoft.Extensions.Http.Resilience and Polly 8 retry strategies:
//! `AddStandardResilienceHandler()` (with its options lambda or `.Configure(...)`),
//! `AddResilienceHandler("name", b => b.AddRetry(new HttpRetryStrategyOptions
//! {...}))`, `new ResiliencePipelineBuilder().AddRetry(new RetryStrategyOptions
//! {...})` and `AddResiliencePipeline("key", b => b.AddRetry(...))`, with the
//! `AddTimeout` strategies around the retry (outer: the deadline; inner: the
//! attempt timeout).
//!
//! Sources: dotnet/extensions@188c41c1 `HttpStandardResilienceOptions.cs`
//! (pipeline rate limiter -> total timeout 30 s -> retry -> circuit breaker ->
//! attempt timeout 10 s); Polly@243b0443 (first strategy added is outermost).

use super::super::model::{CodeClient, Setting};
use super::super::CodeFile;
use super::attach;
use super::eval::{self, Consts};
use super::options::{self, Flavor, Reader};
use super::syntax;
use crate::import::Platform;
use tree_sitter::Node;

const STANDARD: &str = "Microsoft.Extensions.Http.Resilience 8+ `HttpStandardResilienceOptions`";

/// `AddStandardResilienceHandler(...)`: the standard pipeline.
pub fn standard(file: &CodeFile<'_>, consts: &Consts<'_>, call: Node<'_>) -> CodeClient {
    let span = attach::name_span(file, call);
    let mut c = CodeClient::new(
        Platform::HttpResilience,
        "AddStandardResilienceHandler()",
        span.clone(),
    );
    c.names = attach::targets(file, call);
    let mut reader = Reader::new(&mut c, Flavor::Http, span.clone());
    c.deadline = Some(Setting::default(
        30_000.0,
        span.clone(),
        format!("{STANDARD}: `TotalRequestTimeout.Timeout` = 30 s"),
    ));
    c.attempt_timeout = Some(Setting::default(
        10_000.0,
        span.clone(),
        format!("{STANDARD}: `AttemptTimeout.Timeout` = 10 s"),
    ));
    let mut lambdas: Vec<Node<'_>> = Vec::new();
    for (_, a) in syntax::args(call) {
        if a.kind() == "lambda_expression" {
            lambdas.push(a);
        } else {
            // Options bound from configuration (`GetSection("...")`).
            let text = file.text_of(a);
            c.attempts = Some(Setting::assumed(
                4,
                a.byte_range(),
                text,
                "the defaults (3 retries, 30 s total timeout) unless the configuration section changes them",
            ));
        }
    }
    // `.AddStandardResilienceHandler().Configure(o => ...)`.
    if let Some(m) = call
        .parent()
        .filter(|p| p.kind() == "member_access_expression")
    {
        if let Some(inv) = m.parent().filter(|p| p.kind() == "invocation_expression") {
            if syntax::method_name(file, inv) == "Configure" {
                lambdas.extend(
                    syntax::args(inv)
                        .into_iter()
                        .map(|(_, v)| v)
                        .filter(|v| v.kind() == "lambda_expression"),
                );
            }
        }
    }
    for l in lambdas {
        read_options_lambda(file, consts, l, &mut c, &mut reader);
    }
    reader.finish(&mut c);
    c
}

/// `o => { o.Retry.MaxRetryAttempts = 5; o.TotalRequestTimeout.Timeout = ...; }`.
fn read_options_lambda(
    file: &CodeFile<'_>,
    consts: &Consts<'_>,
    lambda: Node<'_>,
    c: &mut CodeClient,
    reader: &mut Reader,
) {
    let Some((param, body)) = syntax::lambda(file, lambda) else {
        return;
    };
    let prefix = format!("{param}.");
    for n in syntax::descendants(body, 4096) {
        match n.kind() {
            "assignment_expression" => {
                let (Some(l), Some(r)) = (
                    n.child_by_field_name("left"),
                    n.child_by_field_name("right"),
                ) else {
                    continue;
                };
                let left: String = file.text_of(l).split_whitespace().collect();
                let key = left.strip_prefix(&prefix).unwrap_or(&left);
                let span = r.byte_range();
                let text = file.text_of(r);
                match key {
                    "TotalRequestTimeout.Timeout" => {
                        c.deadline = Some(match eval::duration_ms(file, consts, r) {
                            Some(ms) => Setting::literal(ms, span),
                            None => Setting::assumed(30_000.0, span, text, "the default, 30 s"),
                        })
                    }
                    "AttemptTimeout.Timeout" => {
                        c.attempt_timeout = Some(match eval::duration_ms(file, consts, r) {
                            Some(ms) => Setting::literal(ms, span),
                            None => Setting::assumed(10_000.0, span, text, "the default, 10 s"),
                        })
                    }
                    k => {
                        if let Some(opt) = k.strip_prefix("Retry.") {
                            reader.apply(c, file, consts, opt, r);
                        }
                    }
                }
            }
            "invocation_expression" => {
                let recv = syntax::receiver(n).map(|r| file.text_of(r).replace(' ', ""));
                if recv.as_deref() == Some(&format!("{param}.Retry")) {
                    if let Some(m) = options::methods_after_disable(file, n) {
                        c.methods = Some(Setting::literal(m, n.byte_range()));
                        c.notes.retain(|(_, t)| !t.starts_with("no method filter"));
                    }
                }
            }
            _ => {}
        }
    }
}

/// `AddRetry(options)` of a Polly 8 builder: in `AddResilienceHandler` (an
/// `HttpClient` handler), `AddResiliencePipeline` or `new ResiliencePipelineBuilder`.
pub fn add_retry(file: &CodeFile<'_>, consts: &Consts<'_>, call: Node<'_>) -> Option<CodeClient> {
    let handler = syntax::enclosing_call(
        file,
        call,
        &[
            "AddResilienceHandler",
            "AddResiliencePipeline",
            "AddResiliencePipelineHandler",
        ],
    );
    let chain_text = chain_root_text(file, call);
    if handler.is_none() && !chain_text.contains("ResiliencePipelineBuilder") {
        return None;
    }
    let args = syntax::args(call);
    let mut opts = args.first().map(|(_, v)| *v);
    // An options object built elsewhere in the file.
    if let Some(o) = opts.filter(|o| o.kind() == "identifier") {
        opts = consts.var(file.text_of(o)).or(Some(o));
    }
    let ty = opts
        .filter(|o| o.kind() == "object_creation_expression")
        .and_then(|o| o.child_by_field_name("type"))
        .map(|t| file.text_of(t).to_string())
        .unwrap_or_default();
    let in_http_handler =
        handler.is_some_and(|h| syntax::method_name(file, h) == "AddResilienceHandler");
    let flavor = if ty.starts_with("HttpRetryStrategyOptions") || (ty.is_empty() && in_http_handler)
    {
        Flavor::Http
    } else {
        Flavor::Core
    };
    let span = attach::name_span(file, call);
    let kind = match flavor {
        Flavor::Http => "AddRetry(HttpRetryStrategyOptions)",
        Flavor::Core => "AddRetry(RetryStrategyOptions)",
    };
    let platform = match flavor {
        Flavor::Http => Platform::HttpResilience,
        Flavor::Core => Platform::Polly,
    };
    let mut c = CodeClient::new(platform, kind, span.clone());
    match handler {
        Some(h) => {
            c.names = attach::targets(file, h);
            if let Some((_, first)) = syntax::args(h).first() {
                if let Some(s) = eval::string(file, consts, *first) {
                    c.names.push((s, first.byte_range()));
                }
            }
        }
        None => {
            if let Some(n) = syntax::stored_name(file, call) {
                c.names.push(n);
            }
        }
    }
    let mut reader = Reader::new(&mut c, flavor, span);
    match opts {
        Some(o)
            if matches!(
                o.kind(),
                "object_creation_expression" | "implicit_object_creation_expression"
            ) =>
        {
            let mut cursor = o.walk();
            let init = o
                .named_children(&mut cursor)
                .find(|n| n.kind() == "initializer_expression");
            if let Some(init) = init {
                let mut c2 = init.walk();
                for a in init.named_children(&mut c2) {
                    if a.kind() != "assignment_expression" {
                        continue;
                    }
                    let (Some(l), Some(r)) = (
                        a.child_by_field_name("left"),
                        a.child_by_field_name("right"),
                    ) else {
                        continue;
                    };
                    let key = file.text_of(l).trim().to_string();
                    reader.apply(&mut c, file, consts, &key, r);
                }
            }
        }
        Some(o) => {
            c.attempts = Some(Setting::assumed(
                4,
                o.byte_range(),
                file.text_of(o),
                "the defaults of the options type (3 retries)",
            ));
        }
        None => {}
    }
    reader.finish(&mut c);
    timeouts_around(file, consts, call, &mut c);
    Some(c)
}

/// The text of the innermost receiver of a fluent chain (`new
/// ResiliencePipelineBuilder<HttpResponseMessage>()`).
fn chain_root_text<'t>(file: &'t CodeFile<'_>, call: Node<'_>) -> &'t str {
    let mut cur = call;
    for _ in 0..syntax::MAX_UP {
        match syntax::receiver(cur) {
            Some(r) if r.kind() == "invocation_expression" => cur = r,
            Some(r) => return file.text_of(r),
            None => return file.text_of(cur),
        }
    }
    ""
}

/// `AddTimeout` before the retry in the chain is the deadline; after it, the
/// attempt timeout (Polly 8: the first strategy added is the outermost).
fn timeouts_around(file: &CodeFile<'_>, consts: &Consts<'_>, call: Node<'_>, c: &mut CodeClient) {
    let mut cur = syntax::receiver(call);
    for _ in 0..syntax::MAX_UP {
        let Some(n) = cur.filter(|n| n.kind() == "invocation_expression") else {
            break;
        };
        if syntax::method_name(file, n) == "AddTimeout" {
            c.deadline = timeout_of(file, consts, n);
        }
        cur = syntax::receiver(n);
    }
    let mut cur = call;
    for _ in 0..syntax::MAX_UP {
        let Some(inv) = cur
            .parent()
            .filter(|p| p.kind() == "member_access_expression")
            .and_then(|m| m.parent())
            .filter(|p| p.kind() == "invocation_expression")
        else {
            break;
        };
        if syntax::method_name(file, inv) == "AddTimeout" {
            c.attempt_timeout = timeout_of(file, consts, inv);
        }
        cur = inv;
    }
}

fn timeout_of(file: &CodeFile<'_>, consts: &Consts<'_>, call: Node<'_>) -> Option<Setting<f64>> {
    let (_, v) = *syntax::args(call).first()?;
    let mut value = v;
    let is_options = v
        .child_by_field_name("type")
        .is_some_and(|t| file.text_of(t).contains("TimeoutStrategyOptions"));
    if v.kind() == "object_creation_expression" && is_options {
        let init = v.child_by_field_name("initializer")?;
        let mut cursor = init.walk();
        let t = init.named_children(&mut cursor).find(|a| {
            a.child_by_field_name("left")
                .is_some_and(|l| file.text_of(l).trim() == "Timeout")
        })?;
        value = t.child_by_field_name("right")?;
    }
    let text = file.text_of(value);
    Some(match eval::duration_ms(file, consts, value) {
        Some(ms) => Setting::literal(ms, value.byte_range()),
        None => Setting::assumed(
            30_000.0,
            value.byte_range(),
            text,
            "30 s (Polly's default timeout)",
        ),
    })
}
