//! The routes of one source file as an OpenAPI document of the run: a located tree
//! built over the source text (like the nginx and INI readers) in the shape of an
//! OpenAPI 3.0 document (`servers: [{url: http://<service>}]`, `paths`, a required
//! header parameter per key header), modelled by the same builder as a written
//! spec. Every operation's node spans its declaration in the source file, so
//! findings point at the handler's annotation or call.

use super::route::ServerRoute;
use crate::openapi::model::Document;
use crate::source::loader::Loaded;
use crate::source::refs::Resolver;
use crate::source::tree::{Kind, TreeBuilder};
use std::ops::Range;
use std::sync::Arc;

/// The document of `routes` (read from `source`) served at `http://<service>`;
/// `None` when there is no route. Routes repeating a method on a path are read
/// once (the first).
pub fn document(
    resolver: &Resolver<'_>,
    source: &Arc<Loaded>,
    service: &str,
    routes: &[ServerRoute],
) -> Option<Document> {
    if routes.is_empty() {
        return None;
    }
    let text = &source.file.text;
    let clamp = |r: &Range<usize>| {
        let end = r.end.min(text.len());
        r.start.min(end)..end
    };
    // Paths in first-declared order, each with its methods.
    let mut paths: Vec<(&str, Vec<&ServerRoute>)> = Vec::new();
    for r in routes {
        match paths.iter_mut().find(|(p, _)| *p == r.path) {
            Some((_, list)) => {
                if !list.iter().any(|o| o.method == r.method) {
                    list.push(r);
                }
            }
            None => paths.push((&r.path, vec![r])),
        }
    }
    let mut b = TreeBuilder::new(text);
    let owned = |b: &mut TreeBuilder<'_>, span: Range<usize>, v: &str, kind: Kind| {
        b.scalar(span, Some(v.to_string()), kind);
    };
    b.open_map(0);
    owned(&mut b, 0..0, "openapi", Kind::Str);
    owned(&mut b, 0..0, "3.0.3", Kind::Str);
    owned(&mut b, 0..0, "servers", Kind::Str);
    b.open_seq(0);
    b.open_map(0);
    owned(&mut b, 0..0, "url", Kind::Str);
    owned(&mut b, 0..0, &format!("http://{service}"), Kind::Str);
    b.close(0);
    b.close(0);
    owned(&mut b, 0..0, "paths", Kind::Str);
    b.open_map(0);
    for (path, ops) in &paths {
        let first = clamp(&ops[0].at);
        owned(&mut b, first.clone(), path, Kind::Str);
        b.open_map(first.start);
        for op in ops {
            let at = clamp(&op.at);
            owned(&mut b, at.clone(), &op.method, Kind::Str);
            b.open_map(at.start);
            if !op.required_headers.is_empty() {
                owned(&mut b, at.start..at.start, "parameters", Kind::Str);
                b.open_seq(at.start);
                for (name, span) in &op.required_headers {
                    let span = clamp(span);
                    b.open_map(span.start);
                    for (k, v, kind) in [
                        ("name", name.as_str(), Kind::Str),
                        ("in", "header", Kind::Str),
                        ("required", "true", Kind::Bool),
                    ] {
                        owned(&mut b, span.clone(), k, Kind::Str);
                        owned(&mut b, span.clone(), v, kind);
                    }
                    b.close(span.end);
                }
                b.close(at.end);
            }
            b.close(at.end);
        }
        b.close(first.end);
    }
    b.close(text.len());
    b.close(text.len());
    let tree = b.finish(text.clone());
    let loaded = Arc::new(Loaded::new(source.file.clone(), Ok(tree)));
    let (document, _) = crate::openapi::build::build_document(resolver, &loaded);
    document.map(|mut d| {
        // Not a written document: RL008's structural check has nothing to say.
        d.structure_check = Some(None);
        for p in d.operations.iter_mut().flat_map(|o| o.params.iter_mut()) {
            p.handler_key = p.location == "header" && reads_like_a_key(&p.name);
        }
        d.server_code = Some(service.to_string());
        d
    })
}

/// True for a header name a handler requiring it de-duplicates on: an idempotency
/// key (`Idempotency-Key`) or a request id (`x-requestid`, `X-Request-ID`). A
/// handler that rejects a request without its request id keeps it to recognise a
/// repeat (eShop's Ordering API); a required `X-Tenant` is no key.
pub fn reads_like_a_key(name: &str) -> bool {
    let n: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase();
    crate::retry::is_key_header(name)
        || n.contains("idempot")
        || n.contains("requestid")
        || n.contains("dedup")
}

#[cfg(test)]
mod tests {
    use super::reads_like_a_key;

    #[test]
    fn keys_and_request_ids_read_like_keys() {
        for k in ["Idempotency-Key", "x-requestid", "X-Request-ID", "Dedup-Id"] {
            assert!(reads_like_a_key(k), "{k}");
        }
        for k in ["X-Tenant", "Authorization", "traceparent"] {
            assert!(!reads_like_a_key(k), "{k}");
        }
    }
}
