//! The unified diff `check --diff` prints: one file's old and new text as `---`/`+++`
//! headers and `@@` hunks with three lines of context, as `diff -u` and `git diff`
//! write them (`similar`'s unified diff).

/// The unified diff from `old` to `new` of the file shown as `display`
/// (`--- a/display`, `+++ b/display`); empty when they are equal.
pub fn unified(display: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .missing_newline_hint(true)
        .header(&format!("a/{display}"), &format!("b/{display}"))
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_line_is_one_hunk_with_context() {
        let old = "a: 1\nb: 2\nc: 3\n";
        let new = "a: 1\nb: 20\nc: 3\n";
        assert_eq!(
            unified("p.yaml", old, new),
            "--- a/p.yaml\n+++ b/p.yaml\n@@ -1,3 +1,3 @@\n a: 1\n-b: 2\n+b: 20\n c: 3\n"
        );
        assert_eq!(unified("p.yaml", old, old), "");
    }
}
