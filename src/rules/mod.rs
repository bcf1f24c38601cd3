//! The rule registry: one explicit static list of every rule with its check over
//! the joined model. One file per rule; identities (code, name, severity, question)
//! are in [`crate::diagnostic::catalog`], which every stage may use.

pub mod docs;
pub mod grouping;
pub mod platform_words;
pub mod retry_after_header;
pub mod rl008_invalid_openapi_structure;
pub mod rl010_unused_suppression;
pub mod rl013_suppression_without_reason;
pub mod rl015_equivalent_paths;
pub mod rl018_unanswered_question;
pub mod rl101_undeclared_effect;
pub mod rl102_unsafe_method_with_side_effects;
pub mod rl103_conflicting_effect;
pub mod rl201_unprotected_retry;
pub mod rl202_idempotency_key_not_in_spec;
pub mod rl203_idempotency_key_contract_incomplete;
pub mod rl204_idempotency_key_retention_too_short;
pub mod rl205_invalid_status_endpoint;
pub mod rl206_request_id_as_idempotency_key;
pub mod rl207_unprotected_hedging;
pub mod rl301_missing_deadline;
pub mod rl302_invalid_attempts;
pub mod rl303_excessive_attempts;
pub mod rl304_invalid_backoff;
pub mod rl305_missing_jitter;
pub mod rl306_retry_after_not_honored;
pub mod rl307_unbounded_retry_after;
pub mod rl308_retry_on_client_error;
pub mod rl309_attempt_timeout_exceeds_budget;
pub mod rl310_deadline_precludes_retry;
pub mod rl311_retry_amplification;
pub mod rl312_attempt_timeout_never_retried;
pub mod rl313_inner_layer_outlives_outer;
pub mod rl401_unknown_result_unhandled;
pub mod rl402_blind_resend;
pub mod rl403_unknown_result_strategy_unsupported;
pub mod rl501_rate_limit_without_retry_after;
pub mod rl502_unavailable_without_retry_after;
pub mod rl503_invalid_retry_after_schema;
pub mod rl504_idempotency_key_errors_undocumented;
pub mod rl505_accepted_without_status_location;

// Input rules are reported by the stage that finds the problem, in that stage's
// folder; re-exported here so that every rule is reachable as `rules::rlNNN_*`.
pub use crate::analysis::rl006_unknown_operation;
pub use crate::import::code::rl019_unresolved_setting;
pub use crate::import::code::rl208_idempotency_key_regenerated;
pub use crate::import::rl016_unbound_config;
pub use crate::import::rl017_ineffective_setting;
pub use crate::import::rl209_route_may_resend_write;
pub use crate::import::rl314_version_dependent_default;
pub use crate::openapi::rl007_unsupported_document;
pub use crate::openapi::rl009_duplicate_parameter;
pub use crate::openapi::rl011_ref_siblings_ignored;
pub use crate::openapi::rl012_invalid_status_key;
pub use crate::policy::rl005_invalid_policy;
pub use crate::source::rl001_invalid_syntax;
pub use crate::source::rl002_duplicate_key;
pub use crate::source::rl003_unresolved_ref;
pub use crate::source::rl004_ref_cycle;
pub use crate::source::rl014_multiple_documents;

pub use crate::diagnostic::rule::{Question, RuleMeta};

use crate::analysis::Analysis;
use crate::diagnostic::Diagnostic;
use crate::openapi::model::Document;

pub use crate::config::Thresholds;

/// What every check sees: the documents, the joined policy model, thresholds.
pub struct Context<'a> {
    /// Every OpenAPI document of the run.
    pub documents: &'a [Document],
    /// The join of policies and operations.
    pub analysis: &'a Analysis,
    /// Configurable thresholds.
    pub thresholds: &'a Thresholds,
}

/// A check: a pure function from the joined model to findings.
pub type CheckFn = fn(&Context<'_>) -> Vec<Diagnostic>;

pub use crate::fix::{FixFn, RuleFix};

/// A registered rule: its metadata, unless it is reported while loading (RL0xx) its
/// check, and the fix of its findings if it has one.
pub struct Rule {
    /// Code, name, severity, question.
    pub meta: &'static RuleMeta,
    /// The check; `None` for rules reported by the loading stages.
    pub check: Option<CheckFn>,
    /// The fix: its safety class and what it changes, and the function that
    /// computes it (in the rule's own file); `None` for a rule with no fix.
    pub fix: Option<RuleFix>,
}

/// The fix of finding `d` by its rule, reading files through `texts`; `None` when the
/// rule has no fix or none for this finding.
pub fn fix_of(d: &Diagnostic, texts: &dyn crate::fix::Texts) -> Option<crate::fix::Fix> {
    let rule = REGISTRY.iter().find(|r| r.meta.code == d.code)?;
    (rule.fix.as_ref()?.apply)(d, texts)
}

/// Every rule, sorted by code. The one registry.
pub static REGISTRY: &[Rule] = &[
    Rule {
        meta: &rl001_invalid_syntax::META,
        check: None,
        fix: None,
    },
    Rule {
        meta: &rl002_duplicate_key::META,
        check: None,
        fix: None,
    },
    Rule {
        meta: &rl003_unresolved_ref::META,
        check: None,
        fix: None,
    },
    Rule {
        meta: &rl004_ref_cycle::META,
        check: None,
        fix: None,
    },
    Rule {
        meta: &rl005_invalid_policy::META,
        check: None,
        fix: None,
    },
    Rule {
        meta: &rl006_unknown_operation::META,
        check: None,
        fix: None,
    },
    Rule {
        meta: &rl007_unsupported_document::META,
        check: None,
        fix: None,
    },
    Rule {
        meta: &rl008_invalid_openapi_structure::META,
        check: Some(rl008_invalid_openapi_structure::check),
        fix: None,
    },
    Rule {
        meta: &rl009_duplicate_parameter::META,
        check: None,
        fix: None,
    },
    Rule {
        meta: &rl010_unused_suppression::META,
        check: None,
        fix: None,
    },
    Rule {
        meta: &rl011_ref_siblings_ignored::META,
        check: None,
        fix: None,
    },
    Rule {
        meta: &rl012_invalid_status_key::META,
        check: None,
        fix: None,
    },
    Rule {
        meta: &rl013_suppression_without_reason::META,
        check: None,
        fix: None,
    },
    Rule {
        meta: &rl014_multiple_documents::META,
        check: None,
        fix: None,
    },
    Rule {
        meta: &rl015_equivalent_paths::META,
        check: Some(rl015_equivalent_paths::check),
        fix: None,
    },
    Rule {
        meta: &rl016_unbound_config::META,
        check: None,
        fix: None,
    },
    Rule {
        meta: &rl017_ineffective_setting::META,
        check: None,
        fix: Some(rl017_ineffective_setting::FIX),
    },
    Rule {
        meta: &rl018_unanswered_question::META,
        check: Some(rl018_unanswered_question::check),
        fix: None,
    },
    Rule {
        meta: &rl019_unresolved_setting::META,
        check: None,
        fix: None,
    },
    Rule {
        meta: &rl101_undeclared_effect::META,
        check: Some(rl101_undeclared_effect::check),
        fix: None,
    },
    Rule {
        meta: &rl102_unsafe_method_with_side_effects::META,
        check: Some(rl102_unsafe_method_with_side_effects::check),
        fix: None,
    },
    Rule {
        meta: &rl103_conflicting_effect::META,
        check: Some(rl103_conflicting_effect::check),
        fix: None,
    },
    Rule {
        meta: &rl201_unprotected_retry::META,
        check: Some(rl201_unprotected_retry::check),
        fix: Some(rl201_unprotected_retry::FIX),
    },
    Rule {
        meta: &rl202_idempotency_key_not_in_spec::META,
        check: Some(rl202_idempotency_key_not_in_spec::check),
        fix: Some(rl202_idempotency_key_not_in_spec::FIX),
    },
    Rule {
        meta: &rl203_idempotency_key_contract_incomplete::META,
        check: Some(rl203_idempotency_key_contract_incomplete::check),
        fix: None,
    },
    Rule {
        meta: &rl204_idempotency_key_retention_too_short::META,
        check: Some(rl204_idempotency_key_retention_too_short::check),
        fix: None,
    },
    Rule {
        meta: &rl205_invalid_status_endpoint::META,
        check: Some(rl205_invalid_status_endpoint::check),
        fix: None,
    },
    Rule {
        meta: &rl206_request_id_as_idempotency_key::META,
        check: Some(rl206_request_id_as_idempotency_key::check),
        fix: None,
    },
    Rule {
        meta: &rl207_unprotected_hedging::META,
        check: Some(rl207_unprotected_hedging::check),
        fix: None,
    },
    Rule {
        meta: &rl208_idempotency_key_regenerated::META,
        check: None,
        fix: None,
    },
    Rule {
        meta: &rl209_route_may_resend_write::META,
        check: None,
        fix: None,
    },
    Rule {
        meta: &rl301_missing_deadline::META,
        check: Some(rl301_missing_deadline::check),
        fix: Some(rl301_missing_deadline::FIX),
    },
    Rule {
        meta: &rl302_invalid_attempts::META,
        check: Some(rl302_invalid_attempts::check),
        fix: None,
    },
    Rule {
        meta: &rl303_excessive_attempts::META,
        check: Some(rl303_excessive_attempts::check),
        fix: None,
    },
    Rule {
        meta: &rl304_invalid_backoff::META,
        check: Some(rl304_invalid_backoff::check),
        fix: None,
    },
    Rule {
        meta: &rl305_missing_jitter::META,
        check: Some(rl305_missing_jitter::check),
        fix: Some(rl305_missing_jitter::FIX),
    },
    Rule {
        meta: &rl306_retry_after_not_honored::META,
        check: Some(rl306_retry_after_not_honored::check),
        fix: Some(rl306_retry_after_not_honored::FIX),
    },
    Rule {
        meta: &rl307_unbounded_retry_after::META,
        check: Some(rl307_unbounded_retry_after::check),
        fix: Some(rl307_unbounded_retry_after::FIX),
    },
    Rule {
        meta: &rl308_retry_on_client_error::META,
        check: Some(rl308_retry_on_client_error::check),
        fix: None,
    },
    Rule {
        meta: &rl309_attempt_timeout_exceeds_budget::META,
        check: Some(rl309_attempt_timeout_exceeds_budget::check),
        fix: None,
    },
    Rule {
        meta: &rl310_deadline_precludes_retry::META,
        check: Some(rl310_deadline_precludes_retry::check),
        fix: None,
    },
    Rule {
        meta: &rl311_retry_amplification::META,
        check: Some(rl311_retry_amplification::check),
        fix: None,
    },
    Rule {
        meta: &rl312_attempt_timeout_never_retried::META,
        check: Some(rl312_attempt_timeout_never_retried::check),
        fix: None,
    },
    Rule {
        meta: &rl313_inner_layer_outlives_outer::META,
        check: Some(rl313_inner_layer_outlives_outer::check),
        fix: Some(rl313_inner_layer_outlives_outer::FIX),
    },
    Rule {
        meta: &rl314_version_dependent_default::META,
        check: None,
        fix: None,
    },
    Rule {
        meta: &rl401_unknown_result_unhandled::META,
        check: Some(rl401_unknown_result_unhandled::check),
        fix: None,
    },
    Rule {
        meta: &rl402_blind_resend::META,
        check: Some(rl402_blind_resend::check),
        fix: Some(rl402_blind_resend::FIX),
    },
    Rule {
        meta: &rl403_unknown_result_strategy_unsupported::META,
        check: Some(rl403_unknown_result_strategy_unsupported::check),
        fix: None,
    },
    Rule {
        meta: &rl501_rate_limit_without_retry_after::META,
        check: Some(rl501_rate_limit_without_retry_after::check),
        fix: Some(rl501_rate_limit_without_retry_after::FIX),
    },
    Rule {
        meta: &rl502_unavailable_without_retry_after::META,
        check: Some(rl502_unavailable_without_retry_after::check),
        fix: Some(rl502_unavailable_without_retry_after::FIX),
    },
    Rule {
        meta: &rl503_invalid_retry_after_schema::META,
        check: Some(rl503_invalid_retry_after_schema::check),
        fix: None,
    },
    Rule {
        meta: &rl504_idempotency_key_errors_undocumented::META,
        check: Some(rl504_idempotency_key_errors_undocumented::check),
        fix: None,
    },
    Rule {
        meta: &rl505_accepted_without_status_location::META,
        check: Some(rl505_accepted_without_status_location::check),
        fix: None,
    },
    // Reported by `retrylint probe` over a journal (src/probe/judge.rs), never by
    // `check`: no check here.
    Rule {
        meta: &crate::diagnostic::catalog::OBSERVED_RETRY_BEFORE_RETRY_AFTER,
        check: None,
        fix: None,
    },
    Rule {
        meta: &crate::diagnostic::catalog::OBSERVED_SYNCHRONISED_RETRIES,
        check: None,
        fix: None,
    },
    Rule {
        meta: &crate::diagnostic::catalog::OBSERVED_DUPLICATE_WRITE,
        check: None,
        fix: None,
    },
    Rule {
        meta: &crate::diagnostic::catalog::OBSERVED_KEY_MISSING_OR_CHANGED,
        check: None,
        fix: None,
    },
    Rule {
        meta: &crate::diagnostic::catalog::OBSERVED_DEADLINE_OVERRUN,
        check: None,
        fix: None,
    },
    Rule {
        meta: &crate::diagnostic::catalog::OBSERVED_TOO_MANY_ATTEMPTS,
        check: None,
        fix: None,
    },
    Rule {
        meta: &crate::diagnostic::catalog::OBSERVED_RETRY_ON_CLIENT_ERROR,
        check: None,
        fix: None,
    },
    Rule {
        meta: &crate::diagnostic::catalog::OBSERVED_UNBOUNDED_RETRY_AFTER,
        check: None,
        fix: None,
    },
    Rule {
        meta: &crate::diagnostic::catalog::OBSERVED_POLICY_DRIFT,
        check: None,
        fix: None,
    },
];

/// Looks a rule up by code (`RL201`) or name (`unprotected-retry`).
pub fn find(code_or_name: &str) -> Option<&'static Rule> {
    REGISTRY
        .iter()
        .find(|r| r.meta.code.eq_ignore_ascii_case(code_or_name) || r.meta.name == code_or_name)
}

/// Runs every check over the context, the rules in parallel; the findings come out
/// in registry order, as if run one after another.
pub fn run_checks(ctx: &Context<'_>) -> Vec<Diagnostic> {
    run_checks_split(ctx, None)
}

/// [`run_checks`], each rule under `split` (a baseline's view, see
/// [`grouping::Split`]): a grouped finding never mixes operations the baseline records
/// with new ones.
pub fn run_checks_split(ctx: &Context<'_>, split: Option<&grouping::Split>) -> Vec<Diagnostic> {
    use rayon::prelude::*;
    let found: Vec<Diagnostic> = REGISTRY
        .par_iter()
        .filter_map(|r| Some((r.meta.code, r.check?)))
        .flat_map_iter(|(code, check)| {
            crate::timing::detail(code, || grouping::Split::run(split, code, || check(ctx)))
        })
        .collect();
    name_paths(ctx, platform_words::apply(ctx, once_per_path(found)))
}

/// Says which path a finding comes from when its operation has several
/// (`layers.md` "Variants and entry paths"): a finding located at a value of a
/// variant's own layer gets `note: path: client `b.py`` (every variant whose layer
/// reads that value, when a profile inherits it from the base).
fn name_paths(ctx: &Context<'_>, mut found: Vec<Diagnostic>) -> Vec<Diagnostic> {
    use std::collections::{BTreeSet, HashMap};
    let a = ctx.analysis;
    if !a.operations.iter().any(|j| j.paths > 1) {
        return found;
    }
    let mut by_origin: HashMap<(&std::path::Path, usize, usize), BTreeSet<&str>> = HashMap::new();
    for j in a.operations.iter().filter(|j| j.paths > 1) {
        for l in &j.layers {
            // The path's own name for the layer's group (merged when two variants
            // are one path here); a group with no alternative here names nothing.
            let Some(v) = l
                .policy
                .and_then(|p| a.policies.get(p))
                .and_then(|p| p.imported.as_ref())
                .and_then(|i| i.variant.as_ref())
                .and_then(|v| j.path.iter().find(|n| n.group == v.group))
            else {
                continue;
            };
            for k in l.origins() {
                by_origin.entry(k).or_default().insert(v.label.as_str());
            }
        }
    }
    for d in &mut found {
        let l = &d.primary.location;
        let Some(labels) = by_origin.get(&(l.file.path.as_path(), l.span.start, l.span.end)) else {
            continue;
        };
        let labels: Vec<&str> = labels.iter().copied().collect();
        let mut help = d.help.take().map(|h| h.to_string()).unwrap_or_default();
        if !help.is_empty() {
            help.push('\n');
        }
        help.push_str(&format!(
            "note: {} {} (one of the alternatives a request may take, judged on its own)",
            if labels.len() == 1 { "path:" } else { "paths:" },
            labels.join("; ")
        ));
        d.help = Some(crate::diagnostic::shared_text(help));
    }
    found
}

/// The findings with each one kept once: a layer on several paths of one operation
/// (a mesh behind two callers, `layers.md` "Variants and entry paths") is judged on
/// each path, and gives the same finding each time.
fn once_per_path(found: Vec<Diagnostic>) -> Vec<Diagnostic> {
    type Seen = (
        &'static str,
        std::path::PathBuf,
        usize,
        usize,
        String,
        Vec<String>,
    );
    let mut seen: std::collections::HashSet<Seen> = std::collections::HashSet::new();
    found
        .into_iter()
        .filter(|d| {
            let l = &d.primary.location;
            seen.insert((
                d.code,
                l.file.path.clone(),
                l.span.start,
                l.span.end,
                d.message.clone(),
                d.operations.clone(),
            ))
        })
        .collect()
}
