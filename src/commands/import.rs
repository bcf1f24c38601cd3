//! `retrylint import FILE...`: the v1 retry policy retrylint reads from the retry
//! configs named, one YAML document per synthetic policy (per config object, layer
//! and bound spec), each value commented with its source (`virtual-service.yaml:33:7`,
//! or a footnote naming the platform default), so the mapping can be reviewed and,
//! if wanted, saved as a written policy.
//!
//! The specs the configs bind to are found as `retrylint check FILE...` finds them
//! (the OpenAPI documents of the project a named config belongs to: the git work
//! tree, or `--root`), plus the `services:` specs of `.retrylint.yaml` and any
//! OpenAPI document named among the files. `spec:` is
//! written relative to the config file's folder: each document is meant to be saved
//! beside its config. Objects that bind nothing are written as comments with the
//! reason and the `services:` entry to add (RL016's message and help).

pub use super::origin::{notes_at, position};
use super::{fail, load_config, EXIT_ERROR};
use crate::check::{analyze, CheckOptions};
use crate::cli::ImportArgs;
use crate::diagnostic::Diagnostic;
use crate::import::OriginNote;
use crate::policy::model::{PolicyFile, Settings};
use crate::report::policy_yaml::{render, EmitOptions};
use crate::source::loader::{Limits, Workspace};
use crate::source::refs::At;
use crate::write;
use std::path::{Path, PathBuf};

/// The formats `import` reads, for the message about a file that holds none.
pub const FORMATS_READ: &str = "Istio VirtualService and mesh config, Envoy bootstrap / route \
configuration / listener / config dump, Kubernetes Gateway API HTTPRoute and GRPCRoute, Envoy \
Gateway BackendTrafficPolicy, Linkerd ServiceProfile and route annotations, NGINX \
(nginx.conf, ingress-nginx Ingress and ConfigMap), HAProxy (haproxy.cfg), Traefik (YAML, TOML), \
Kong declarative config, gRPC service configs, Spring files (Resilience4j, Spring Cloud Gateway), \
AWS shared config, and retry clients in source code (Python, JavaScript/TypeScript, Java, C#, Go, \
Rust)";

/// Exit code: a named file holds no retry config retrylint reads.
const EXIT_NOTHING: u8 = 1;

/// `retrylint import`: prints the synthetic policies read from `args.files`; exit 0
/// when every named config was read, 1 when a named file holds no retry config, 2
/// when a file could not be read or parsed.
pub fn run(args: &ImportArgs) -> u8 {
    if let Err(code) = super::check_root(args.root.as_deref()) {
        return code;
    }
    let config = match load_config(args.config.as_deref(), &args.files) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let cwd = std::env::current_dir().unwrap_or_default();
    let mut named: Vec<PathBuf> = Vec::new();
    for f in &args.files {
        match std::fs::canonicalize(f) {
            Ok(p) if p.is_file() => named.push(p),
            Ok(_) => return fail(format!("{} is not a file", f.display())),
            Err(e) => return fail(format!("cannot read {}: {e}", f.display())),
        }
    }
    // The run reads what `retrylint check FILE...` reads: a named retry config brings
    // its project's OpenAPI documents and other retry configs (the project root is
    // the git work tree, else `--root`); plus the specs `services:` names.
    let mut paths: Vec<PathBuf> = args.files.clone();
    paths.extend(
        config
            .services
            .iter()
            .filter(|s| s.spec.is_file())
            .map(|s| s.spec.clone()),
    );
    let analyzed = analyze(&CheckOptions {
        paths,
        root: args.root.clone(),
        cwd: Some(cwd),
        services: config.services.clone(),
        platforms: config.platforms.clone(),
        explicit_policies_only: true,
        related: true,
        ..CheckOptions::default()
    });
    let imported: Vec<&PolicyFile> = analyzed
        .analysis
        .policies
        .iter()
        .filter(|p| p.imported.is_some() && named.iter().any(|n| reads_from(p, n)))
        .collect();
    let in_named = |d: &Diagnostic| named.contains(&d.primary.location.file.path);
    let unreadable: Vec<&Diagnostic> = analyzed
        .diagnostics
        .iter()
        .filter(|d| d.code == "RL001" && in_named(d))
        .collect();
    let unbound: Vec<&Diagnostic> = analyzed
        .diagnostics
        .iter()
        .filter(|d| d.code == "RL016" && in_named(d))
        .collect();
    let mut out = String::new();
    for p in &imported {
        out.push_str(&document(p, &analyzed.notes));
    }
    // An object that binds nothing: RL016's reason, then its routes as read (a
    // display keyed by each route's match, not a policy); as comments alone when it
    // has no route to show.
    let protos = crate::import::proto::ProtoIndex::empty();
    let ctx = crate::import::ImportContext {
        platforms: &config.platforms,
        protos: &protos,
    };
    let ws_named = Workspace::new(cwd_now(), Limits::default());
    for (given, path) in args.files.iter().zip(&named) {
        let here: Vec<&Diagnostic> = unbound
            .iter()
            .copied()
            .filter(|d| d.primary.location.file.path == *path)
            .collect();
        if here.is_empty() {
            continue;
        }
        let shown = super::import_routes::unbound_routes(&ws_named.load(given), &here, &ctx);
        if shown.is_empty() {
            here.iter().for_each(|d| out.push_str(&unbound_comment(d)));
        } else {
            out.push_str(&shown);
        }
    }
    write::out(&out);
    // Findings about the configs themselves (ineffective settings, version-dependent
    // defaults) go to standard error, in `check`'s one-line form.
    for d in analyzed.diagnostics.iter().filter(|d| in_named(d)) {
        if matches!(d.code, "RL001" | "RL016") {
            continue;
        }
        write::errln(one_line(d));
    }
    for d in &unreadable {
        write::errln(one_line(d));
    }
    if !unreadable.is_empty() {
        return EXIT_ERROR;
    }
    let ws = Workspace::new(
        std::env::current_dir().unwrap_or_default(),
        Limits::default(),
    );
    let mut code = 0;
    for (given, path) in args.files.iter().zip(&named) {
        let read = imported.iter().any(|p| reads_from(p, path))
            || unbound
                .iter()
                .any(|d| d.primary.location.file.path == *path);
        if read {
            continue;
        }
        let doc = ws.load(given);
        if analyzed.documents.iter().any(|d| d.doc.file.path == *path) {
            continue; // a spec named to bind to
        }
        let proto = crate::project::discover::name_kind(path)
            == Some(crate::project::discover::NameKind::Proto);
        if proto && !imported.is_empty() {
            continue; // a `.proto` named to bind the gRPC configs named with it
        }
        let why = match crate::import::recognize(&doc) {
            None if proto => {
                "a `.proto` binds gRPC configs to operations but holds no retry setting itself"
                    .to_string()
            }
            Some(format) => format!(
                "it is read as {}, but holds no route table or retry setting retrylint reads",
                format_name(format)
            ),
            None if analyzed
                .analysis
                .policies
                .iter()
                .any(|p| p.imported.is_none() && p.doc.file.path == *path) =>
            {
                "it is a retrylint policy already".to_string()
            }
            None => "it is no retry config retrylint reads".to_string(),
        };
        write::errln(format_args!(
            "retrylint: {}: nothing imported: {why} (formats read: {FORMATS_READ})",
            given.display()
        ));
        code = EXIT_NOTHING;
    }
    code
}

fn cwd_now() -> PathBuf {
    std::env::current_dir().unwrap_or_default()
}

/// A format as the message about an empty file names it.
fn format_name(format: crate::import::Format) -> &'static str {
    use crate::import::Format;
    match format {
        Format::Kubernetes => "a Kubernetes stream",
        Format::IstioMeshConfig => "an Istio mesh config",
        Format::Envoy => "an Envoy config",
        Format::Kong => "a Kong declarative config",
        Format::TraefikYaml | Format::TraefikToml => "a Traefik config",
        Format::Nginx => "an nginx config",
        Format::Haproxy => "an HAProxy config",
        Format::GrpcServiceConfig => "a gRPC service config",
        Format::Spring => "a Spring config",
        Format::AwsConfig => "an AWS shared config",
        Format::Code(_) => "source code",
    }
}

/// True when `p` was read from the file `path`: its config object is there, or some
/// value is (an Envoy Gateway `BackendTrafficPolicy` sets the retries of an
/// `HTTPRoute` in another file).
fn reads_from(p: &PolicyFile, path: &Path) -> bool {
    if p.doc.file.path == path {
        return true;
    }
    p.operations
        .iter()
        .any(|e| settings_ats(&e.settings).any(|at| at.doc.file.path == path))
}

/// Every node a value of `s` was read from.
fn settings_ats(s: &Settings) -> impl Iterator<Item = &At> {
    let mut v: Vec<&At> = vec![&s.at];
    macro_rules! opt {
        ($($e:expr),*) => { $( if let Some(x) = &$e { v.push(&x.at); } )* };
    }
    opt!(
        s.retry,
        s.effect,
        s.status_endpoint,
        s.on_unknown_result,
        s.attempts,
        s.deadline,
        s.attempt_timeout,
        s.retry_on,
        s.methods,
        s.budget,
        s.hedging
    );
    if let Some(b) = &s.backoff {
        v.push(&b.at);
        opt!(b.base, b.cap, b.multiplier, b.jitter);
    }
    if let Some(r) = &s.retry_after {
        v.push(&r.at);
        opt!(r.honor, r.max, r.on_invalid, r.on_above_max);
    }
    if let Some(k) = &s.idempotency_key {
        v.push(&k.at);
        opt!(
            k.header,
            k.retention,
            k.scope,
            k.on_payload_mismatch,
            k.on_concurrent
        );
    }
    if let Some(list) = &s.retry_on {
        v.extend(list.value.iter().map(|x| &x.at));
    }
    if let Some(list) = &s.methods {
        v.extend(list.value.iter().map(|x| &x.at));
    }
    v.into_iter()
}

/// One synthetic policy as a YAML document: `---`, the header, the settings.
pub fn document(p: &PolicyFile, notes: &[OriginNote]) -> String {
    let source = p
        .imported
        .as_ref()
        .map_or_else(|| p.doc.file.display.clone(), |i| i.source.clone());
    let config_dir = p
        .doc
        .file
        .path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let beside = Workspace::new(config_dir, Limits::default());
    let cwd = Workspace::new(
        std::env::current_dir().unwrap_or_default(),
        Limits::default(),
    );
    let governs = p.imported.as_ref().map_or(&[][..], |i| &i.governs[..]);
    let spec: Vec<String> = governs.iter().map(|g| beside.display_path(g)).collect();
    // Footnotes: the platform defaults this policy's values carry, numbered in the
    // order their values appear.
    let mut used: Vec<&OriginNote> = Vec::new();
    let mut collect = |at: &At| {
        for n in notes_at(at, notes) {
            if !used
                .iter()
                .any(|u| u.text == n.text && same_node(&u.at, &n.at))
            {
                used.push(n);
            }
        }
    };
    for e in &p.operations {
        settings_ats(&e.settings).for_each(&mut collect);
    }
    let footnote = |at: &At| -> Vec<usize> {
        let mut marks: Vec<usize> = notes_at(at, notes)
            .iter()
            .filter_map(|n| {
                used.iter()
                    .position(|u| u.text == n.text && same_node(&u.at, &n.at))
                    .map(|i| i + 1)
            })
            .collect();
        // A note is kept once per route that uses it: mark it once.
        marks.sort_unstable();
        marks.dedup();
        marks
    };
    let origin = |at: &At| -> Option<String> {
        let marks: String = footnote(at).iter().map(|i| format!(" [{i}]")).collect();
        Some(format!("{}{marks}", position(at)))
    };
    let mut header = vec![
        format!(
            "{source} ({}), {} layer",
            position(&p.at),
            p.layer().as_str()
        ),
        format!(
            "bound to {}: one entry per operation its routes may match",
            governs
                .iter()
                .map(|g| cwd.display_path(g))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        format!(
            "save beside {} (`spec:` is relative to its folder)",
            p.doc.file.display
        ),
    ];
    for (i, n) in used.iter().enumerate() {
        header.push(format!("[{}] {}", i + 1, n.text.replace('\n', " ")));
    }
    let body = render(
        p,
        &EmitOptions {
            origin: &origin,
            header: &header,
            spec: Some(&spec),
        },
    );
    format!("---\n{body}")
}

fn same_node(a: &At, b: &At) -> bool {
    a.same_node(b)
}

/// An object that binds nothing, as comments: RL016's message and help.
fn unbound_comment(d: &Diagnostic) -> String {
    let l = &d.primary.location;
    let lc = l.file.line_col(l.span.start);
    let mut out = format!(
        "---\n# {}:{}:{}: {}\n",
        l.file.display, lc.line, lc.column, d.message
    );
    if let Some(help) = &d.help {
        for line in help.lines() {
            out.push_str(&format!("# {line}\n"));
        }
    }
    out
}

/// `file:line:col: CODE name: message`.
fn one_line(d: &Diagnostic) -> String {
    let l = &d.primary.location;
    let lc = l.file.line_col(l.span.start);
    format!(
        "{}:{}:{}: {} {}: {}",
        l.file.display, lc.line, lc.column, d.code, d.name, d.message
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::model::{ImportedFrom, Layer, OperationEntry, Spanned};
    use crate::policy::selector::Selector;

    /// A synthetic policy as the binder builds one, over a small "config" file, with
    /// a platform-default note on the route node.
    #[test]
    fn a_synthetic_policy_reads_back_with_its_origins_and_notes() {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let ws = Workspace::new(dir.clone(), Limits::default());
        let config = ws.load_text(
            &dir.join("deploy/vs.yaml"),
            "kind: VirtualService\nhttp:\n  - route: payments\n    retries:\n      attempts: 2\n      retryOn: 5xx,reset\n",
        );
        let tree = config.tree.as_ref().expect("parses");
        let root = tree.root().expect("root");
        let http = tree.get(root, "http").expect("http");
        let route = tree.items(http)[0];
        let retries = tree.get(route, "retries").expect("retries");
        let attempts = tree.get(retries, "attempts").expect("attempts");
        let retry_on = tree.get(retries, "retryOn").expect("retryOn");
        let at = |n| At::new(&config, n);
        let mut s = Settings::empty(at(route));
        s.retry = Some(Spanned {
            value: true,
            at: at(retries),
        });
        s.attempts = Some(Spanned {
            value: 3,
            at: at(attempts),
        });
        s.retry_on = Some(Spanned {
            value: vec![
                Spanned {
                    value: "5xx".parse().expect("signal"),
                    at: at(retry_on),
                },
                Spanned {
                    value: "reset".parse().expect("signal"),
                    at: at(retry_on),
                },
            ],
            at: at(retry_on),
        });
        s.attempt_timeout = Some(Spanned {
            value: crate::policy::model::AttemptTimeout::Remaining,
            at: at(route),
        });
        let p = PolicyFile {
            doc: config.clone(),
            at: at(root),
            version: None,
            spec: Vec::new(),
            layer: Some(Spanned {
                value: Layer::Mesh,
                at: at(root),
            }),
            defaults: None,
            operations: vec![OperationEntry {
                text: "POST /payments".into(),
                selector: Selector::parse("POST /payments").ok(),
                at: at(route),
                settings: s,
            }],
            ignore: Vec::new(),
            imported: Some(ImportedFrom {
                source: "Istio VirtualService payments".into(),
                platform: crate::import::Platform::Istio,
                governs: vec![dir.join("api/openapi.yaml")],
                grpc: false,
                variant: None,
                also_called: Vec::new(),
            }),
        };
        let notes = vec![OriginNote {
            at: at(route),
            text: crate::import::note_text(
                "no `perTryTimeout`: Istio's default applies (retry-configs.md §2.2)",
            ),
        }];
        let text = document(&p, &notes);
        assert!(text.contains("spec: ../api/openapi.yaml\n"), "{text}");
        assert!(text.contains("# [1] no `perTryTimeout`"), "{text}");
        assert!(text.contains("attempt_timeout: remaining"), "{text}");
        // The route line and the defaulted value carry the footnote; `attempts` does not.
        let line = |key: &str| {
            text.lines()
                .find(|l| l.trim_start().starts_with(key))
                .unwrap_or_else(|| panic!("{key} in {text}"))
                .to_string()
        };
        assert!(
            line("attempt_timeout:").ends_with("deploy/vs.yaml:3:5 [1]"),
            "{text}"
        );
        assert!(line("attempts:").ends_with("deploy/vs.yaml:5:7"), "{text}");
        assert!(line("retry_on:").contains("[5xx, reset]"), "{text}");
        // Reading it back gives the same values.
        let again = ws.load_text(&dir.join("deploy/vs.retry-policy.yaml"), &text);
        let (parsed, diags) = crate::policy::load_policy(&again);
        assert!(
            diags.is_empty(),
            "{:?}",
            diags.iter().map(|d| &d.message).collect::<Vec<_>>()
        );
        let parsed = parsed.expect("a policy");
        assert_eq!(parsed.layer(), Layer::Mesh);
        assert_eq!(parsed.spec[0].value, "../api/openapi.yaml");
        let e = &parsed.operations[0];
        assert_eq!(e.text, "POST /payments");
        assert_eq!(e.settings.attempts.as_ref().map(|a| a.value), Some(3));
        assert_eq!(e.settings.retry.as_ref().map(|a| a.value), Some(true));
        assert_eq!(
            e.settings.retry_on.as_ref().map(|l| l
                .value
                .iter()
                .map(|x| x.value.to_string())
                .collect::<Vec<_>>()),
            Some(vec!["5xx".to_string(), "reset".to_string()])
        );
    }
}
