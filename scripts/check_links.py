#!/usr/bin/env python3
"""Checks every internal link of a built HTML site (run by scripts/docs.sh).

Usage: scripts/check_links.py SITE_DIR

For every `href` and `src` in every `*.html` file under SITE_DIR that is not an
external URL (a scheme such as `https:` or `mailto:`), the target file must exist
and, when the link has a `#fragment`, the target page must have an element with that
`id` (or an `<a name>`). Prints each broken link as `page: link (why)` and exits 1
when there is one, 0 otherwise. Standard library only.
"""
import html.parser
import pathlib
import sys
import urllib.parse


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids = set()
        self.links = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("id",):
            if attrs.get(key):
                self.ids.add(attrs[key])
        if tag == "a" and attrs.get("name"):
            self.ids.add(attrs["name"])
        for key in ("href", "src"):
            if attrs.get(key) is not None:
                self.links.append(attrs[key])


def parse(path, cache):
    if path not in cache:
        page = Page()
        page.feed(path.read_text(encoding="utf-8", errors="replace"))
        cache[path] = page
    return cache[path]


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    site = pathlib.Path(sys.argv[1]).resolve()
    cache = {}
    broken = []
    checked = 0
    pages = sorted(site.rglob("*.html"))
    for path in pages:
        # The 404 page is served from any depth and links from the site root.
        if path.name == "404.html":
            continue
        for link in parse(path, cache).links:
            parts = urllib.parse.urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith("/"):
                continue
            checked += 1
            target = path if not parts.path else (path.parent / urllib.parse.unquote(parts.path))
            target = target.resolve()
            if target.is_dir():
                target = target / "index.html"
            where = path.relative_to(site)
            if not target.is_file():
                broken.append(f"{where}: {link} (no such file)")
                continue
            if parts.fragment and target.suffix == ".html":
                fragment = urllib.parse.unquote(parts.fragment)
                if fragment not in parse(target, cache).ids:
                    broken.append(f"{where}: {link} (no element with id `{fragment}`)")
    for line in broken:
        print(line)
    print(f"check_links: {len(pages)} pages, {checked} internal links, {len(broken)} broken",
          file=sys.stderr)
    sys.exit(1 if broken or not checked else 0)


if __name__ == "__main__":
    main()
