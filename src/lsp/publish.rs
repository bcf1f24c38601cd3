//! Findings as LSP diagnostics: the same code, severity and range as `check`, the
//! labels as related information, the rule page as `codeDescription`.

use super::position::range;
use super::uri::from_path;
use crate::diagnostic::{Diagnostic, Severity};
use lsp_types::{
    CodeDescription, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString,
    Uri,
};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::str::FromStr;

/// The LSP severity of a retrylint severity.
pub fn severity(s: Severity) -> DiagnosticSeverity {
    match s {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Info => DiagnosticSeverity::INFORMATION,
    }
}

/// The rule page of `code` under the `repository` of Cargo.toml.
pub fn rule_page(code: &str) -> Option<Uri> {
    let doc = crate::rules::docs::doc(code)?;
    Uri::from_str(&doc.url()).ok()
}

/// One finding as an LSP diagnostic (in the file of its primary location).
pub fn to_lsp(d: &Diagnostic) -> lsp_types::Diagnostic {
    let at = &d.primary.location;
    let mut message = d.message.clone();
    if let Some(help) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    let related: Vec<DiagnosticRelatedInformation> = d
        .labels
        .iter()
        .map(|l| DiagnosticRelatedInformation {
            location: Location::new(
                from_path(&l.location.file.path),
                range(&l.location.file, &l.location.span),
            ),
            message: l.message.clone(),
        })
        .collect();
    lsp_types::Diagnostic {
        range: range(&at.file, &at.span),
        severity: Some(severity(d.severity)),
        code: Some(NumberOrString::String(d.code.to_string())),
        code_description: rule_page(d.code).map(|href| CodeDescription { href }),
        source: Some("retrylint".into()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags: None,
        data: Some(serde_json::json!({ "name": d.name, "pointer": at.pointer })),
    }
}

/// The findings grouped by the canonical path of their primary file, in report order.
pub fn by_file(diags: &[Diagnostic]) -> BTreeMap<PathBuf, Vec<lsp_types::Diagnostic>> {
    let mut out: BTreeMap<PathBuf, Vec<lsp_types::Diagnostic>> = BTreeMap::new();
    for d in diags {
        out.entry(d.primary.location.file.path.clone())
            .or_default()
            .push(to_lsp(d));
    }
    out
}
