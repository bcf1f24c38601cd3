//! Joining calls to the clients that make them, across files: a call whose receiver
//! is a name a client is stored under (`request.post(...)` in `createBin.ts`, the
//! `request` that `request.ts` exports from `got.extend(...)`; `utils.RestyClient`
//! in one Go file, the `RestyClient` built in another) is made through that client.
//! Names compare by their last segment (`utils.RestyClient` ~ `RestyClient`), and a
//! name shared by clients of several files links to the client of the caller's own
//! file first, then to every one of them.

use super::model::{CallSite, CodeFacts};
use std::collections::HashMap;

/// For each file, for each of its clients: the calls of other files (and the
/// unattached calls of its own file) made through it, each with the index of the
/// file that makes it.
pub type Linked = Vec<Vec<Vec<(usize, CallSite)>>>;

/// The last segment of a receiver or name (`self.session` -> `session`,
/// `utils.RestyClient` -> `RestyClient`, `this.http` -> `http`).
pub fn last_segment(name: &str) -> &str {
    name.rsplit(['.', ':', '>'])
        .next()
        .unwrap_or(name)
        .trim_start_matches('&')
}

/// Resolves the relative URL of every call made through a client that some file
/// gives a base URL ([`CodeFacts::base_urls`], the receiver compared exactly), so
/// that the call names the host it reaches. A client given several bases (one per
/// environment) keeps its calls relative: which one runs is not known.
pub fn apply_base_urls(files: &mut [CodeFacts]) {
    let mut bases: HashMap<String, Vec<String>> = HashMap::new();
    for f in files.iter() {
        for (receiver, url) in &f.base_urls {
            let list = bases.entry(receiver.clone()).or_default();
            if !list.contains(url) {
                list.push(url.clone());
            }
        }
    }
    if bases.is_empty() {
        return;
    }
    let resolve = |call: &mut CallSite| {
        let Some([base]) = bases.get(&call.receiver).map(Vec::as_slice) else {
            return;
        };
        match &mut call.url {
            super::model::Url::Literal(u) | super::model::Url::Template(u)
                if !u.contains("://") && !u.starts_with('{') =>
            {
                *u = super::csharp::reach::resolve(base, u);
            }
            // A URL not known statically is still relative to the base (an absolute
            // one would be written so): its host is the base's, its path unknown,
            // written `https://catalog-api{}`.
            super::model::Url::Unknown(_) => {
                if let Some((scheme, rest)) = base.split_once("://") {
                    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
                    if !authority.is_empty() {
                        call.url =
                            super::model::Url::Template(format!("{scheme}://{authority}{{}}"));
                    }
                }
            }
            _ => {}
        }
    };
    for f in files.iter_mut() {
        f.calls.iter_mut().for_each(&resolve);
        for c in &mut f.clients {
            c.calls.iter_mut().for_each(&resolve);
        }
    }
}

/// Links the unattached calls of every file to clients by name.
pub fn link(files: &[CodeFacts]) -> Linked {
    let mut out: Linked = files
        .iter()
        .map(|f| vec![Vec::new(); f.clients.len()])
        .collect();
    let mut by_name: HashMap<&str, Vec<(usize, usize)>> = HashMap::new();
    // Names ending in `*` (`HttpClient:*`: a C# handler set on every `HttpClient`)
    // join every call whose receiver starts with the rest.
    let mut wildcards: Vec<(&str, usize, usize)> = Vec::new();
    for (fi, f) in files.iter().enumerate() {
        for (ci, c) in f.clients.iter().enumerate() {
            for (name, _) in &c.names {
                if let Some(prefix) = name.strip_suffix('*').filter(|p| !p.is_empty()) {
                    wildcards.push((prefix, fi, ci));
                    continue;
                }
                let entry = by_name.entry(last_segment(name)).or_default();
                if !entry.contains(&(fi, ci)) {
                    entry.push((fi, ci));
                }
            }
        }
    }
    for (fi, f) in files.iter().enumerate() {
        for call in &f.calls {
            for &(prefix, g, ci) in &wildcards {
                if call.receiver.starts_with(prefix) {
                    out[g][ci].push((fi, call.clone()));
                }
            }
            let Some(owners) = by_name.get(last_segment(&call.receiver)) else {
                continue;
            };
            let own: Vec<&(usize, usize)> = owners.iter().filter(|(g, _)| *g == fi).collect();
            let chosen: Vec<&(usize, usize)> = if own.is_empty() {
                owners.iter().collect()
            } else {
                own
            };
            for &&(g, ci) in &chosen {
                out[g][ci].push((fi, call.clone()));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::code::model::{CodeClient, Url};
    use crate::import::Platform;

    fn call(receiver: &str) -> CallSite {
        CallSite {
            receiver: receiver.into(),
            method: Some("POST".into()),
            url: Url::Literal("/orders".into()),
            span: 0..1,
            headers: Vec::new(),
        }
    }

    fn client(name: &str) -> CodeClient {
        let mut c = CodeClient::new(Platform::Resty, "resty.New()", 0..1);
        c.names.push((name.into(), 0..1));
        c
    }

    #[test]
    fn calls_link_by_last_segment_across_files() {
        let files = vec![
            CodeFacts {
                clients: vec![client("RestyClient")],
                ..CodeFacts::default()
            },
            CodeFacts {
                calls: vec![call("utils.RestyClient"), call("other")],
                ..CodeFacts::default()
            },
        ];
        let linked = link(&files);
        assert_eq!(linked[0][0].len(), 1);
        assert_eq!(linked[0][0][0].0, 1);
    }

    #[test]
    fn a_wildcard_name_joins_every_call_with_its_prefix() {
        let files = vec![
            CodeFacts {
                clients: vec![client("HttpClient:*")],
                ..CodeFacts::default()
            },
            CodeFacts {
                calls: vec![call("HttpClient:OrderingService"), call("other")],
                ..CodeFacts::default()
            },
        ];
        let linked = link(&files);
        assert_eq!(linked[0][0].len(), 1);
    }

    #[test]
    fn a_name_of_the_callers_own_file_wins() {
        let mut own = CodeFacts {
            clients: vec![client("http")],
            ..CodeFacts::default()
        };
        own.calls.push(call("this.http"));
        let other = CodeFacts {
            clients: vec![client("http")],
            ..CodeFacts::default()
        };
        let linked = link(&[own, other]);
        assert_eq!(linked[0][0].len(), 1);
        assert!(linked[1][0].is_empty());
    }
}
