//! The rule documents under `rules/`, embedded at build time (see `build.rs`).

include!(concat!(env!("OUT_DIR"), "/rule_docs.rs"));

/// Where the rule documents are published (`helpUri` base).
pub const DOCS_BASE: &str = "https://github.com/retrylint/retrylint/blob/main/rules/";

/// A rule's document: its file name and its Markdown body (front matter removed).
#[derive(Debug, Clone, Copy)]
pub struct RuleDoc {
    /// `RL201-unprotected-retry.md`.
    pub file_name: &'static str,
    /// The Markdown after the front matter.
    pub body: &'static str,
}

impl RuleDoc {
    /// The published URL of the document.
    pub fn url(&self) -> String {
        format!("{DOCS_BASE}{}", self.file_name)
    }

    /// The first paragraph of the "What it does" section, joined into one line.
    pub fn what_it_does(&self) -> Option<String> {
        let start = self.body.find("## What it does")?;
        let rest = &self.body[start + "## What it does".len()..];
        let para: Vec<&str> = rest
            .trim_start()
            .lines()
            .take_while(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .map(str::trim)
            .collect();
        (!para.is_empty()).then(|| para.join(" "))
    }
}

/// The document of rule `code`, if there is one.
pub fn doc(code: &str) -> Option<RuleDoc> {
    RULE_DOCS
        .iter()
        .find(|(c, _, _)| *c == code)
        .map(|(_, file_name, text)| RuleDoc {
            file_name,
            body: strip_front_matter(text),
        })
}

fn strip_front_matter(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("---\n") else {
        return text;
    };
    match rest.find("\n---\n") {
        Some(end) => rest[end + 5..].trim_start(),
        None => text,
    }
}
