#!/usr/bin/env python3
"""Lays out the documentation site's source for mdBook (run by scripts/docs.sh).

Usage: scripts/docs_assemble.py OUT

OUT/book.toml     docs/book.toml
OUT/src/SUMMARY.md  docs/SUMMARY.md, with one entry per rule page added under the
                  `Rules` chapter (code and name, in code order)
OUT/src/introduction.md  docs/introduction.md, its links made relative to the site
                  root: mdBook also serves the first chapter as the root index.html,
                  where links relative to docs/ would break
OUT/src/docs/     docs/ as it is (pages link each other relatively)
OUT/src/rules/    rules/*.md, front matter turned into a line under the title
                  (severity, readiness question); their `../docs/...` links resolve
                  as in the repository

The repository keeps one copy of every page: the site is assembled, never committed.
"""
import pathlib
import posixpath
import re
import shutil
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent
RULES_CHAPTER = "- [Rules](docs/rules.md)"
INTRODUCTION = "[Introduction](docs/introduction.md)"
LINK = re.compile(r"\]\(([^)#][^)]*)\)")


def from_root(text, folder):
    """`text` with its relative links, written from `folder`, made relative to the root."""
    def fix(match):
        target = match.group(1)
        if re.match(r"^[a-z]+:", target):
            return match.group(0)
        return "](" + posixpath.normpath(posixpath.join(folder, target)) + ")"
    return LINK.sub(fix, text)


def front_matter(text):
    """(fields, body) of a page that starts with a `---` block of `key: value` lines."""
    if not text.startswith("---\n"):
        return {}, text
    end = text.index("\n---\n", 4)
    fields = {}
    for line in text[4:end].splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    return fields, text[end + len("\n---\n"):]


def rule_page(text):
    fields, body = front_matter(text)
    lines = body.lstrip("\n").split("\n")
    if not lines[0].startswith("# "):
        raise SystemExit(f"a rule page must start with its `# CODE name` title: {lines[0]!r}")
    facts = (
        f"**Severity:** {fields.get('severity', '?')} · "
        f"**Question:** {fields.get('question', '?')} · "
        f"`retrylint rule {fields.get('code', '?')}` prints this page"
    )
    return "\n".join([lines[0], "", facts] + lines[1:])


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    out = pathlib.Path(sys.argv[1])
    if out.exists():
        shutil.rmtree(out)
    src = out / "src"
    shutil.copytree(REPO / "docs", src / "docs")
    shutil.move(str(src / "docs" / "book.toml"), out / "book.toml")
    summary = (src / "docs" / "SUMMARY.md").read_text()
    (src / "docs" / "SUMMARY.md").unlink()

    if summary.count(INTRODUCTION) != 1:
        raise SystemExit(f"docs/SUMMARY.md must hold the line `{INTRODUCTION}` once")
    intro = src / "docs" / "introduction.md"
    (src / "introduction.md").write_text(from_root(intro.read_text(), "docs"))
    intro.unlink()
    summary = summary.replace(INTRODUCTION, "[Introduction](introduction.md)")

    entries = []
    (src / "rules").mkdir()
    for page in sorted((REPO / "rules").glob("RL*.md")):
        text = page.read_text()
        fields, _ = front_matter(text)
        (src / "rules" / page.name).write_text(rule_page(text))
        entries.append(f"  - [{fields['code']} {fields['name']}](rules/{page.name})")
    if not entries:
        raise SystemExit("no rule pages under rules/")
    if summary.count(RULES_CHAPTER) != 1:
        raise SystemExit(f"docs/SUMMARY.md must hold the line `{RULES_CHAPTER}` once")
    summary = summary.replace(RULES_CHAPTER, "\n".join([RULES_CHAPTER] + entries))
    (src / "SUMMARY.md").write_text(summary)
    print(f"assembled {out}: {len(entries)} rule pages", file=sys.stderr)


if __name__ == "__main__":
    main()
