//! RL002 for a retry setting that one nginx block writes twice: the number and time
//! directives (`proxy_next_upstream_tries`, `proxy_read_timeout`, ...) may appear
//! once per block, and `nginx -t` refuses a second one ("directive is duplicate").
//! `proxy_next_upstream` is not among them: its repeats add up their conditions.

use super::reader::{Config, Directive};
use crate::diagnostic::Diagnostic;
use crate::source::rl002_duplicate_key;
use std::collections::HashMap;

/// The retry directives nginx allows once per block.
const ONCE: &[&str] = &[
    "proxy_next_upstream_tries",
    "proxy_next_upstream_timeout",
    "proxy_connect_timeout",
    "proxy_send_timeout",
    "proxy_read_timeout",
    "grpc_next_upstream_tries",
    "grpc_next_upstream_timeout",
    "grpc_connect_timeout",
    "grpc_send_timeout",
    "grpc_read_timeout",
];

/// RL002 at every second (and later) occurrence of a [`ONCE`] directive in one
/// block, the first labelled; every block of the file, in file order.
pub fn check(config: &Config<'_>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    block(config, &config.directives, &mut out);
    out
}

fn block(config: &Config<'_>, directives: &[Directive<'_>], out: &mut Vec<Diagnostic>) {
    let mut seen: HashMap<&str, &Directive<'_>> = HashMap::new();
    for d in directives {
        let name = d.name.text.as_ref();
        if ONCE.contains(&name) {
            match seen.get(name) {
                Some(first) => out.push(rl002_duplicate_key::repeated(
                    &config.doc.file,
                    name,
                    first.span.clone(),
                    d.span.clone(),
                    &format!("nginx refuses the configuration (\"{name}\" directive is duplicate); retrylint reads the last."),
                )),
                None => {
                    seen.insert(name, d);
                }
            }
        }
        if let Some(inner) = &d.block {
            block(config, inner, out);
        }
    }
}
