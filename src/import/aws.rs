//! AWS SDK shared config (`~/.aws/config`: `[default]`, `[profile NAME]` with
//! `retry_mode` and `max_attempts`; `retry-configs.md` §10, §12; AWS SDKs and Tools
//! Reference Guide "Retry behavior"; botocore `retries/standard.py`, `quota.py`,
//! `_retry.json`).
//!
//! Mapping (layer client, one [`ConfigObject`] per profile that writes a retry key,
//! named by the profile; one route over every operation, since the SDK applies the
//! profile to every operation of a client):
//! - `max_attempts` counts TOTAL tries (> 0; `1` turns retries off); absent, the
//!   mode's default: 3 in `standard` and `adaptive`;
//! - `retry_mode` absent: the standard reading (the default of the current SDKs:
//!   Go v2, JavaScript v3, Rust, Java 2.x, .NET, AWS CLI v2), with a note that
//!   boto3 / AWS CLI v1 default to `legacy`;
//! - `legacy` is SDK-specific: retrylint reads botocore's (boto3, AWS CLI v1):
//!   5 tries, `rand(0,1)·2^i` s without a cap, no retry quota;
//! - standard and adaptive: full jitter `rand(0,1)·min(2^i s, 20 s)` (base 1 s,
//!   cap 20 s, ×2), on throttling (≈ 429), transient errors (500, 502, 503, 504) and
//!   connection errors (connect failure, timeout, reset); the retry quota (500
//!   tokens, a retry costs 5, 10 after a timeout, a success without retry earns 1)
//!   as a token budget; `adaptive` adds client-side rate limiting (a note);
//!   Retry-After is not read (the 2026 opt-in reads `x-amz-retry-after`);
//! - every operation is retried whatever its method: the SDK knows idempotency only
//!   from the service model (`@idempotencyToken`), never from the config.
//!
//! Invalid values (`max_attempts = 0`, `retry_mode = fast`) are RL017 at the value
//! ("out of range" for a whole number below 1 or beyond 64 bits) and read as
//! nothing: no count (not the mode's default), no mode (not `standard`);
//! a retry key in a section that is no profile (`[dev]` instead of `[profile dev]`,
//! `[sso-session x]`) is RL017 too; a misspelt retry key gets a "did you mean".
//! Syntax errors are RL001 ([`ini`]). `credentials` files hold no retry keys and are
//! not read.

pub mod ini;

use super::rl017_ineffective_setting;
use super::{ConfigObject, ImportContext, Imported, OriginNote, Platform, Route};
use crate::diagnostic::Diagnostic;
use crate::policy::model::{
    BackoffSettings, Jitter, Layer, RetryBudget, Settings, Signal, Spanned,
};
use crate::source::loader::Loaded;
use crate::source::refs::At;
use crate::source::strict::suggest;
use ini::{Ini, Property, Section};
use std::path::Path;
use std::sync::Arc;

/// The retry keys of a profile.
pub const RETRY_KEYS: &[&str] = &["retry_mode", "max_attempts"];

/// The retry modes the SDKs accept.
pub const MODES: &[&str] = &["standard", "adaptive", "legacy"];

/// Tries in `standard` and `adaptive` mode when `max_attempts` is absent.
pub const STANDARD_MAX_ATTEMPTS: i64 = 3;
/// Tries in botocore's `legacy` mode when `max_attempts` is absent (`_retry.json`).
pub const LEGACY_MAX_ATTEMPTS: i64 = 5;
/// Backoff base (ms): the first retry waits `rand(0,1)` s (botocore
/// `ExponentialBackoff`, Go v2 `retry.ExponentialJitterBackoff`).
pub const BACKOFF_BASE_MS: f64 = 1_000.0;
/// Backoff cap (ms) in standard and adaptive mode (`_MAX_BACKOFF = 20`).
pub const BACKOFF_CAP_MS: f64 = 20_000.0;
/// The retry quota's size in tokens (botocore `RetryQuota.INITIAL_CAPACITY`).
pub const QUOTA_TOKENS: f64 = 500.0;
/// Tokens a retry costs (botocore `_RETRY_COST`; 10 after a timeout).
pub const RETRY_COST: f64 = 5.0;

/// Settings of AWS config files that are no retry key, so a near-miss of a retry key
/// among them is not taken for a typo.
const OTHER_KEYS: &[&str] = &[
    "region",
    "output",
    "role_arn",
    "source_profile",
    "credential_source",
    "credential_process",
    "mfa_serial",
    "external_id",
    "role_session_name",
    "duration_seconds",
    "web_identity_token_file",
    "sso_session",
    "sso_account_id",
    "sso_role_name",
    "sso_start_url",
    "sso_region",
    "sso_registration_scopes",
    "aws_access_key_id",
    "aws_secret_access_key",
    "aws_session_token",
    "aws_account_id",
    "account_id_endpoint_mode",
    "ca_bundle",
    "endpoint_url",
    "ignore_configured_endpoint_urls",
    "endpoint_discovery_enabled",
    "services",
    "s3",
    "sts_regional_endpoints",
    "use_dualstack_endpoint",
    "use_fips_endpoint",
    "defaults_mode",
    "parameter_validation",
    "tcp_keepalive",
    "metadata_service_timeout",
    "metadata_service_num_attempts",
    "ec2_metadata_service_endpoint",
    "ec2_metadata_service_endpoint_mode",
    "ec2_metadata_v1_disabled",
    "api_versions",
    "auth_scheme_preference",
    "sigv4a_signing_region_set",
    "request_checksum_calculation",
    "response_checksum_validation",
    "disable_request_compression",
    "request_min_compression_size_bytes",
    "sdk_ua_app_id",
    "cli_pager",
    "cli_timestamp_format",
    "cli_follow_urlparam",
    "cli_binary_format",
    "cli_auto_prompt",
    "cli_history",
    "max_bandwidth",
    "max_concurrent_requests",
    "max_queue_size",
];

const SOURCE: &str = "AWS SDKs and Tools Reference Guide \"Retry behavior\"; botocore retries/standard.py; retry-configs.md §10";

/// True when `path` and `text` look like an AWS shared config file: a file at
/// `.aws/config`, or named `config` (no extension), never under `.git`, whose text
/// has a `[default]` or `[profile NAME]` section and a `retry_mode` or
/// `max_attempts` line.
pub fn recognizes(path: &Path, text: &str) -> bool {
    if path.file_name().and_then(|n| n.to_str()) != Some("config") {
        return false;
    }
    if path.components().any(|c| c.as_os_str() == ".git") {
        return false;
    }
    let mut profile = false;
    let mut retry_key = false;
    for line in text.lines() {
        let t = line.trim();
        if let Some(inner) = t.strip_prefix('[').and_then(|r| r.split(']').next()) {
            let inner = inner.trim();
            profile |= inner == "default" || inner.starts_with("profile ");
        } else {
            // `max_attempts = 3`, and `max_attempts 3` (a syntax error reported there).
            let key = t.split(['=', ' ', '\t']).next().unwrap_or("");
            retry_key |= RETRY_KEYS.contains(&key.to_ascii_lowercase().as_str());
        }
        if profile && retry_key {
            return true;
        }
    }
    false
}

/// Reads one AWS shared config file. Never panics.
pub fn import(doc: &Arc<Loaded>, _ctx: &ImportContext<'_>) -> Imported {
    let mut out = Imported::default();
    let ini = match ini::read(doc) {
        Ok(ini) => ini,
        Err(d) => {
            out.diagnostics.push(*d);
            return out;
        }
    };
    out.diagnostics.extend(crate::source::rl002_duplicate_key::check_config(
        &ini.doc,
        "AWS SDKs disagree on a repeat (botocore, through Python's `configparser`, rejects the file; the other SDKs keep the last); retrylint reads the last.",
    ));
    // Profiles in file order, their sections merged (a later key wins, as the SDKs
    // merge repeated sections); `[profile default]` is the default profile.
    let mut profiles: Vec<(String, Vec<&Section>)> = Vec::new();
    let mut index: std::collections::HashMap<String, usize> = Default::default();
    for s in &ini.sections {
        match profile_name(&s.header) {
            Some(name) => match index.get(&name) {
                Some(&i) => profiles[i].1.push(s),
                None => {
                    index.insert(name.clone(), profiles.len());
                    profiles.push((name, vec![s]));
                }
            },
            None => out.diagnostics.extend(not_a_profile(&ini, s)),
        }
    }
    out.diagnostics
        .extend(source_profile_cycles(&ini, &profiles));
    // `default` first: with no `services[].clients` it is the profile a client uses
    // when none is selected, and the first object that matches an operation wins.
    profiles.sort_by_key(|(n, _)| n != "default");
    for (name, sections) in &profiles {
        for s in sections {
            out.diagnostics.extend(misspelt_keys(&ini, s, name));
        }
        if let Some(obj) = profile(&ini, name, sections, &mut out.diagnostics) {
            out.objects.push(obj);
        }
    }
    out
}

/// The profile a config-file section header names: `default` and `profile default`
/// are `default`, `profile NAME` is `NAME`; `None` for other sections
/// (`sso-session`, `services`, a bare name, which only the credentials file uses).
fn profile_name(header: &str) -> Option<String> {
    if header == "default" {
        return Some("default".into());
    }
    let rest = header.strip_prefix("profile")?;
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let name = rest.trim();
    (!name.is_empty() && !name.contains([' ', '\t'])).then(|| name.to_string())
}

fn is_retry_key(p: &Property) -> bool {
    RETRY_KEYS.contains(&p.key.to_ascii_lowercase().as_str())
}

/// RL017 for retry keys in a section that is no profile.
fn not_a_profile(ini: &Ini, s: &Section) -> Vec<Diagnostic> {
    let kind = s.header.split_whitespace().next().unwrap_or("");
    let help = match kind {
        "sso-session" | "services" => format!(
            "SDKs read `{kind}` sections for other settings; move the retry keys into the `[profile ...]` or `[default]` section the client uses"
        ),
        _ => format!(
            "in the config file a profile section is `[profile {0}]` (only the credentials file uses `[{0}]`); write `[profile {0}]`",
            s.header
        ),
    };
    s.props
        .iter()
        .filter(|p| is_retry_key(p))
        .map(|p| {
            rl017_ineffective_setting::diagnostic(
                &At::new(&ini.doc, p.key_node),
                format!(
                    "`{}` in section `[{}]`, which is no profile: no SDK reads it",
                    p.key, s.header
                ),
                "not a profile",
                help.clone(),
            )
        })
        .collect()
}

/// RL017 with a "did you mean" for keys that look like a misspelt retry key.
fn misspelt_keys(ini: &Ini, s: &Section, name: &str) -> Vec<Diagnostic> {
    s.props
        .iter()
        .filter(|p| !is_retry_key(p))
        .filter(|p| !OTHER_KEYS.contains(&p.key.to_ascii_lowercase().as_str()))
        .filter_map(|p| {
            let meant = suggest(&p.key, RETRY_KEYS)?;
            Some(rl017_ineffective_setting::diagnostic(
                &At::new(&ini.doc, p.key_node),
                format!("unknown key `{}` in AWS profile `{name}`", p.key),
                "unknown key",
                format!("did you mean `{meant}`? The SDKs ignore `{}`, so the retry setting it was meant to make does not apply.", p.key),
            ))
        })
        .collect()
}

/// The retry mode a profile runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Standard,
    Adaptive,
    Legacy,
}

/// RL017 at the `source_profile` of every profile on a cycle of source profiles
/// (`a` sources `b`, `b` sources `a`): the SDKs stop with an infinite-loop error
/// when they resolve its credentials, so no client using it starts. A profile that
/// sources itself and holds its own static keys is the documented exception.
fn source_profile_cycles(ini: &Ini, profiles: &[(String, Vec<&Section>)]) -> Vec<Diagnostic> {
    let index: std::collections::HashMap<&str, usize> = profiles
        .iter()
        .enumerate()
        .map(|(i, (n, _))| (n.as_str(), i))
        .collect();
    let sources: Vec<Option<&Property>> = profiles
        .iter()
        .map(|(name, sections)| {
            last(sections, "source_profile")
                .filter(|p| p.value != *name || last(sections, "aws_access_key_id").is_none())
        })
        .collect();
    let edges: Vec<Vec<usize>> = sources
        .iter()
        .map(|p| {
            p.and_then(|p| index.get(p.value.as_str()).copied())
                .into_iter()
                .collect()
        })
        .collect();
    super::cycles::members(&edges)
        .into_iter()
        .filter_map(|i| {
            let p = sources[i]?;
            Some(rl017_ineffective_setting::diagnostic(
                &At::new(&ini.doc, p.value_node),
                format!(
                    "the AWS profile `{}` is part of a cycle of `source_profile`s (it sources `{}`)",
                    profiles[i].0, p.value
                ),
                "source_profile cycle",
                "the AWS SDKs stop with an infinite-loop error when they resolve this profile's credentials, so no client using it starts; end the chain at a profile with its own credentials.".to_string(),
            ))
        })
        .collect()
}

/// The last `key` of the profile's sections (a later one wins).
fn last<'s>(sections: &[&'s Section], key: &str) -> Option<&'s Property> {
    sections
        .iter()
        .flat_map(|s| s.props.iter())
        .rfind(|p| p.key.eq_ignore_ascii_case(key))
}

fn profile(
    ini: &Ini,
    name: &str,
    sections: &[&Section],
    diags: &mut Vec<Diagnostic>,
) -> Option<ConfigObject> {
    let mode_prop = last(sections, "retry_mode");
    let attempts_prop = last(sections, "max_attempts");
    if mode_prop.is_none() && attempts_prop.is_none() {
        return None;
    }
    let doc = &ini.doc;
    let at = |n| At::new(doc, n);
    // The section that holds the retry keys: where the retry is turned on.
    let section = sections
        .iter()
        .rev()
        .find(|s| s.props.iter().any(is_retry_key))
        .copied()
        .unwrap_or(sections[0]);
    let section_at = at(section.node);
    let mut notes: Vec<OriginNote> = Vec::new();
    let mut section_note: Vec<String> = Vec::new();

    // `None` for a refused `retry_mode` (RL017 at it): the SDKs reject the profile,
    // so no mode is read (not `standard`), and nothing the mode would decide.
    let mode = match mode_prop {
        None => Some({
            section_note.push("no `retry_mode`: read as `standard`, the default of the current SDKs (Go v2, JavaScript v3, Rust, Java 2.x, .NET, AWS CLI v2); boto3 and AWS CLI v1 default to `legacy` (5 tries, no retry quota)".into());
            Mode::Standard
        }),
        Some(p) => match p.value.to_ascii_lowercase().as_str() {
            "standard" => Some(Mode::Standard),
            "adaptive" => Some(Mode::Adaptive),
            "legacy" => Some(Mode::Legacy),
            other => {
                diags.push(rl017_ineffective_setting::diagnostic(
                    &at(p.value_node),
                    format!("`retry_mode = {other}` in AWS profile `{name}` is not a retry mode"),
                    "invalid retry mode",
                    format!("the SDKs accept {} and reject anything else (botocore raises InvalidRetryModeError); retrylint reads no retry mode from it (not `standard`): no conditions, back-off or quota", MODES.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ")),
                ));
                None
            }
        },
    };
    let mode_at = mode_prop.map_or(section_at.clone(), |p| at(p.value_node));
    let mut s = Settings::empty(section_at.clone());
    // A refused `max_attempts` (RL017 at it) is read as no count: not the mode's
    // default, and not blamed again as missing (RL302).
    let written = attempts_prop.and_then(|p| match p.value.parse::<i64>() {
        Ok(n) if n > 0 => Some((n, at(p.value_node))),
        _ => {
            let text = p.value.replace('\n', " ");
            let digits = text.strip_prefix(['-', '+']).unwrap_or(&text);
            let whole = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
            diags.push(rl017_ineffective_setting::diagnostic(
                &at(p.value_node),
                if whole {
                    format!("`max_attempts = {text}` in AWS profile `{name}` is out of range: 1 to {} tries (a 64-bit integer, as the Go v2 SDK reads it; Java 2.x stops at {})", i64::MAX, i32::MAX)
                } else {
                    format!("`max_attempts = {text}` in AWS profile `{name}` is not a number of tries greater than 0")
                },
                if whole { "out of range" } else { "invalid max_attempts" },
                "`max_attempts` counts every try, the first included (`max_attempts = 3` is 2 retries); the SDKs reject other values, so retrylint reads no count from it (not the mode's default)".to_string(),
            ));
            s.refuse("attempts", at(p.value_node));
            None
        }
    });
    let attempts = match (written, mode) {
        (Some((n, a)), _) => Some((n, a)),
        (None, _) if attempts_prop.is_some() => None,
        (None, None) => None,
        (None, Some(mode)) => {
            section_note.push(match mode {
                Mode::Legacy => format!("no `max_attempts`: `legacy` is SDK-specific; retrylint reads botocore's (boto3, AWS CLI v1): {LEGACY_MAX_ATTEMPTS} tries (Java 2.x: 4, DynamoDB 9)"),
                _ => format!("no `max_attempts`: the {} mode's default, {STANDARD_MAX_ATTEMPTS} tries", mode_name(mode)),
            });
            let default_attempts = match mode {
                Mode::Legacy => LEGACY_MAX_ATTEMPTS,
                _ => STANDARD_MAX_ATTEMPTS,
            };
            Some((default_attempts, section_at.clone()))
        }
    };
    let retried = attempts.as_ref().is_none_or(|(n, _)| *n > 1);
    s.retry = Some(Spanned {
        value: retried,
        at: section_at.clone(),
    });
    if let Some((value, at)) = attempts {
        s.attempts = Some(Spanned { value, at });
    }
    if mode.is_none() {
        // No conditions, back-off or quota from a refused mode, so no retry either
        // (not `retry` without signals, RL005), and the missing back-off is not
        // blamed again (RL305).
        s.retry = None;
        if let Some(p) = mode_prop {
            s.refuse("backoff", at(p.value_node));
            notes.push(OriginNote {
                at: mode_at.clone(),
                text: crate::import::note_text("this `retry_mode` is refused (RL017 at it), so no retry mode is read: no retry conditions, back-off or retry quota"),
            });
        }
    }
    if let (Some(mode), true) = (mode, retried) {
        let signals = [
            Signal::Status(429),
            Signal::Status(500),
            Signal::Status(502),
            Signal::Status(503),
            Signal::Status(504),
            Signal::ConnectFailure,
            Signal::Timeout,
            Signal::Reset,
        ];
        s.retry_on = Some(Spanned {
            value: signals
                .into_iter()
                .map(|value| Spanned {
                    value,
                    at: mode_at.clone(),
                })
                .collect(),
            at: mode_at.clone(),
        });
        let sp = |v: f64| Spanned {
            value: v,
            at: mode_at.clone(),
        };
        s.backoff = Some(BackoffSettings {
            at: mode_at.clone(),
            base: Some(sp(BACKOFF_BASE_MS)),
            cap: (mode != Mode::Legacy).then(|| sp(BACKOFF_CAP_MS)),
            multiplier: Some(sp(2.0)),
            jitter: Some(Spanned {
                value: Jitter::Full,
                at: mode_at.clone(),
            }),
        });
        let mut mode_note = format!(
            "the SDK's {} retry rules (not written in the config): every operation of the client whatever its method (idempotency comes from the service model's `@idempotencyToken`, not the config); on throttling errors (≈ 429; also error codes sent with 400, which retrylint cannot see), 500, 502, 503, 504 and connection errors (connect failure, timeout, reset)",
            mode_name(mode)
        );
        match mode {
            Mode::Legacy => mode_note.push_str(
                "; backoff rand(0,1)·2^i s with no cap (botocore `_retry.json`), no retry quota",
            ),
            _ => {
                mode_note.push_str(&format!("; backoff full jitter rand(0,1)·min(2^i s, 20 s) (botocore; the Go v2 SDK waits up to 2 s before the first retry); retry quota of {QUOTA_TOKENS} tokens, a retry costs {RETRY_COST} (10 after a timeout) and a success without retry earns 1 back: in retrylint's token-bucket terms (one token per retry, retries while more than half remain) 200 tokens with 0.2 per success, the same 100 retries from a full quota and about 1.2 tries per request once it is drained; Retry-After is not read (the `AWS_NEW_RETRIES_2026` opt-in changes costs and base delays and reads `x-amz-retry-after`)"));
                s.budget = Some(Box::new(Spanned {
                    value: RetryBudget::Tokens {
                        tokens: 2.0 * QUOTA_TOKENS / RETRY_COST,
                        token_ratio: 1.0 / RETRY_COST,
                    },
                    at: mode_at.clone(),
                }));
            }
        }
        if mode == Mode::Adaptive {
            mode_note.push_str("; `adaptive` also rate-limits requests on the client after throttling, which can delay even the first try");
        }
        mode_note.push_str("; no deadline and no per-try timeout in the config (the HTTP client's timeouts are SDK-specific)");
        notes.push(OriginNote {
            at: mode_at.clone(),
            text: crate::import::note_text(format!("{mode_note} ({SOURCE})")),
        });
    }
    if !section_note.is_empty() {
        notes.push(OriginNote {
            at: section_at.clone(),
            text: crate::import::note_text(format!("{} ({SOURCE})", section_note.join("; "))),
        });
    }
    Some(ConfigObject {
        method_scoped: Vec::new(),
        variant: None,
        url_prefixes: Vec::new(),
        platform: Platform::AwsSdk,
        kind: "profile".into(),
        name: name.to_string(),
        at: section_at.clone(),
        layer: Layer::Client,
        names: vec![Spanned {
            value: name.to_string(),
            at: at(section.header_node),
        }],
        routes: vec![Route {
            at: section_at,
            name: Some(format!("profile {name}")),
            matches: Vec::new(),
            rewrite: None,
            settings: s,
            notes,
        }],
    })
}

fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Standard => "standard",
        Mode::Adaptive => "adaptive",
        Mode::Legacy => "legacy",
    }
}

/// True when the one-spec rule of binding may give this AWS profile the run's only
/// spec: profiles are alternatives a client picks at run time, not layers, so only
/// the `default` profile takes it, and not when `.retrylint.yaml` bound another
/// profile of the same file (`bound(j)`: object `j` is already bound).
pub fn takes_the_only_spec(
    i: usize,
    objects: &[ConfigObject],
    bound: impl Fn(usize) -> bool,
) -> bool {
    let o = &objects[i];
    if o.platform != Platform::AwsSdk {
        return true;
    }
    o.name == "default"
        && !objects.iter().enumerate().any(|(j, other)| {
            j != i
                && other.platform == Platform::AwsSdk
                && other.at.doc.file.path == o.at.doc.file.path
                && bound(j)
        })
}

#[cfg(test)]
mod tests;
