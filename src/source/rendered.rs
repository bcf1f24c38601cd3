//! Rendered manifests: a multi-document YAML stream as `helm template` and
//! `kustomize build` print it (`retrylint check -`), split back into the files it
//! came from.
//!
//! Helm writes `# Source: <chart>/templates/<file>.yaml` as the first comment of
//! every document it renders. Each such document goes to a file named by that
//! path, its text starting on the line after the comment, so a finding names the
//! template and its line within the rendered document; documents of one template
//! are joined by `---` in stream order. Documents without a `# Source:` comment
//! (`kustomize build`, plain YAML) stay in one file named [`STDIN_NAME`] at their
//! own lines of the stream (the other lines left blank).

/// The name of the file that holds the documents without a `# Source:` comment:
/// plainly not a file of the project, and a `.yaml` name so it is read for its
/// content like any YAML file.
pub const STDIN_NAME: &str = "(stdin).yaml";

/// One file of a rendered stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedFile {
    /// The path as the `# Source:` comment writes it (relative, `/`-separated), or
    /// [`STDIN_NAME`].
    pub name: String,
    /// Its text: the documents rendered from it.
    pub text: String,
}

/// Splits `stream` into its files: those named by `# Source:` in order of first
/// appearance, then [`STDIN_NAME`] when some document has none (and holds more
/// than comments and blank lines). A source path that is absolute or climbs out
/// with `..` is not trusted as a name: its document stays in [`STDIN_NAME`].
pub fn split(stream: &str) -> Vec<RenderedFile> {
    let lines: Vec<&str> = stream.split_inclusive('\n').collect();
    let mut named: Vec<RenderedFile> = Vec::new();
    // Each line's owner: `Some(i)` a named file, `None` standard input.
    let mut stdin_text = String::new();
    let mut stdin_has_content = false;
    let mut i = 0;
    while i < lines.len() {
        // One document: up to the next `---` line (exclusive).
        let start = i;
        let mut end = i + 1;
        while end < lines.len() && !is_separator(lines[end]) {
            end += 1;
        }
        let doc = &lines[start..end];
        match source_of(doc) {
            Some((k, name)) => {
                // The separator (when the document starts with one) and the lines
                // up to the comment stay blank in the stdin file.
                for _ in 0..=k {
                    stdin_text.push('\n');
                }
                let body: String = doc[k + 1..].concat();
                for _ in k + 1..doc.len() {
                    stdin_text.push('\n');
                }
                match named.iter_mut().find(|f| f.name == name) {
                    Some(f) => {
                        if !f.text.ends_with('\n') && !f.text.is_empty() {
                            f.text.push('\n');
                        }
                        f.text.push_str("---\n");
                        f.text.push_str(&body);
                    }
                    None => named.push(RenderedFile { name, text: body }),
                }
            }
            None => {
                for l in doc {
                    let t = l.trim();
                    if !(t.is_empty() || t.starts_with('#') || is_separator(l) || t == "...") {
                        stdin_has_content = true;
                    }
                    stdin_text.push_str(l);
                }
            }
        }
        i = end;
    }
    if stdin_has_content {
        named.push(RenderedFile {
            name: STDIN_NAME.to_string(),
            text: stdin_text,
        });
    }
    named
}

/// True for a document separator line (`---`, optionally followed by a comment or
/// content after a space).
fn is_separator(line: &str) -> bool {
    let l = line.trim_end_matches(['\n', '\r']);
    l == "---" || l.starts_with("--- ") || l.starts_with("---\t")
}

/// The `# Source:` comment of a document, among its leading separator, blank and
/// comment lines: its index in `doc` and the path, when the path is relative and
/// stays inside (no `..`, not absolute, no drive).
fn source_of(doc: &[&str]) -> Option<(usize, String)> {
    for (k, l) in doc.iter().enumerate() {
        let t = l.trim();
        if k == 0 && is_separator(l) {
            continue;
        }
        if let Some(rest) = t.strip_prefix("# Source:") {
            let path = rest.trim();
            return safe(path).then(|| (k, path.to_string()));
        }
        if !(t.is_empty() || t.starts_with('#')) {
            return None;
        }
    }
    None
}

/// A relative path without `..`, `.` segments only as written by Helm (none), no
/// backslash or drive: safe to name a file under the current folder.
fn safe(path: &str) -> bool {
    !path.is_empty()
        && !path.starts_with('/')
        && !path.contains('\\')
        && !path.contains(':')
        && !path.contains('\0')
        && path
            .split('/')
            .all(|s| !s.is_empty() && s != ".." && s != ".")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helm_sources_become_files_with_their_own_lines() {
        let stream = "---\n# Source: app/templates/vs.yaml\napiVersion: v1\nkind: A\n---\n# Source: app/templates/ing.yaml\nkind: B\n---\n# Source: app/templates/vs.yaml\nkind: C\n";
        let files = split(stream);
        assert_eq!(files.len(), 2, "{files:?}");
        assert_eq!(files[0].name, "app/templates/vs.yaml");
        assert_eq!(files[0].text, "apiVersion: v1\nkind: A\n---\nkind: C\n");
        assert_eq!(files[1].name, "app/templates/ing.yaml");
        assert_eq!(files[1].text, "kind: B\n");
    }

    #[test]
    fn documents_without_source_keep_their_stream_lines() {
        let stream = "---\n# Source: app/templates/a.yaml\nkind: A\n---\nkind: B\nx: 1\n";
        let files = split(stream);
        assert_eq!(files.len(), 2, "{files:?}");
        let stdin = &files[1];
        assert_eq!(stdin.name, STDIN_NAME);
        let lines: Vec<&str> = stdin.text.lines().collect();
        assert_eq!(lines[4], "kind: B", "{lines:?}");
        assert_eq!(lines[5], "x: 1");
        assert!(lines[..3].iter().all(|l| l.is_empty()), "{lines:?}");
    }

    #[test]
    fn unsafe_source_paths_stay_on_stdin_and_empty_input_is_no_file() {
        let files = split("# Source: ../../etc/passwd\nkind: A\n");
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].name, STDIN_NAME);
        assert!(split("").is_empty());
        assert!(split("---\n# just a comment\n").is_empty());
        assert!(split("# Source: /abs/x.yaml\nkind: A\n")[0].name == STDIN_NAME);
    }
}
