//! The rule documents of `rules/` (one Markdown page per rule, embedded at build
//! time): front matter, sections, and the runnable example files.

include!(concat!(env!("OUT_DIR"), "/rule_docs.rs"));

/// The `key: value` lines between the leading `---` fences.
pub fn front_matter(doc: &str) -> Vec<(&str, &str)> {
    let Some(rest) = doc.strip_prefix("---\n") else {
        return Vec::new();
    };
    let end = rest.find("\n---").unwrap_or(0);
    rest[..end]
        .lines()
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim(), v.trim()))
        .collect()
}

/// The document without its front matter.
pub fn body(doc: &str) -> &str {
    match doc
        .strip_prefix("---\n")
        .and_then(|r| r.find("\n---\n").map(|i| &r[i + 5..]))
    {
        Some(b) => b.trim_start(),
        None => doc,
    }
}

/// The document of the rule with this code (`RL201`).
pub fn doc_for(code: &str) -> Option<&'static str> {
    RULE_DOCS
        .iter()
        .find(|(name, _)| is_doc_of(name, code))
        .map(|(_, text)| *text)
}

/// True when the file name `RLnnn-name.md` documents `code`.
fn is_doc_of(file_name: &str, code: &str) -> bool {
    file_name.starts_with(code) && file_name.as_bytes().get(code.len()) == Some(&b'-')
}

/// The text of one `## Section` (up to the next `## `), if present.
pub fn section<'a>(doc: &'a str, title: &str) -> Option<&'a str> {
    let marker = format!("\n## {title}\n");
    let start = doc.find(&marker)? + marker.len();
    let end = doc[start..].find("\n## ").map_or(doc.len(), |i| start + i);
    Some(&doc[start..end])
}

/// The fenced code blocks of a section that carry a `file=NAME` attribute:
/// `(NAME, contents)`.
pub fn example_files(section: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut lines = section.lines();
    while let Some(line) = lines.next() {
        let Some(info) = line.trim_start().strip_prefix("```") else {
            continue;
        };
        let name = info
            .split_whitespace()
            .find_map(|w| w.strip_prefix("file="))
            .map(str::to_string);
        let mut text = String::new();
        for l in lines.by_ref() {
            if l.trim_start().starts_with("```") {
                break;
            }
            text.push_str(l);
            text.push('\n');
        }
        if let Some(name) = name {
            out.push((name, text));
        }
    }
    out
}

/// The first paragraph of "What it does", on one line (for SARIF and listings).
pub fn summary(doc: &str) -> String {
    section(doc, "What it does")
        .unwrap_or("")
        .trim()
        .split("\n\n")
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Where the rule documents are published (SARIF `helpUri` base).
pub const DOCS_BASE: &str = concat!(env!("CARGO_PKG_REPOSITORY"), "/blob/main/rules/");

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
        let s = summary(self.body);
        (!s.is_empty()).then_some(s)
    }
}

/// The document of rule `code` (`RL201`), if there is one.
pub fn doc(code: &str) -> Option<RuleDoc> {
    RULE_DOCS
        .iter()
        .find(|(name, _)| is_doc_of(name, code))
        .map(|(file_name, text)| RuleDoc {
            file_name,
            body: body(text),
        })
}

/// The "Fix" line a rule's page carries at the end of "What it does", from the
/// registry: `**Fix:** none.`, or the class, the flag that applies it and what it
/// changes (`**Fix:** safe (`check --fix`): sets `jitter: full` ...`).
pub fn fix_line(rule: &super::Rule) -> String {
    match &rule.fix {
        None => "**Fix:** none.".to_string(),
        Some(f) => {
            let flag = match f.safety {
                crate::fix::Safety::Safe => "`check --fix`",
                crate::fix::Safety::Unsafe => "`check --unsafe-fixes`",
            };
            format!("**Fix:** {} ({flag}): {}.", f.safety.as_str(), f.changes)
        }
    }
}
