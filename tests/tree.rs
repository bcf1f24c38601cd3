//! Located-tree behaviour on the inputs that break other YAML/JSON tools.

use retrylint::source::tree::{Kind, Tree};
use retrylint::source::SourceFile;
use std::path::PathBuf;
use std::sync::Arc;

fn parse(text: &str) -> (SourceFile, Tree) {
    let file = SourceFile::new(PathBuf::from("t.yaml"), "t.yaml".into(), text);
    let tree = Tree::parse(file.text.clone()).expect("parses");
    (file, tree)
}

fn at(file: &SourceFile, offset: usize) -> (u32, u32) {
    let lc = file.line_col(offset);
    (lc.line, lc.column)
}

#[test]
fn core_schema_typing() {
    let (_, t) = parse(
        "a: YES\nb: on\nc: =\nd: 0777\ne: 18446744073709552000\nf: true\ng: ~\nh: 1.5\ni: '12'\n",
    );
    let r = t.root().unwrap();
    let kind = |k: &str| t.kind(t.get(r, k).unwrap());
    assert_eq!(kind("a"), Kind::Str);
    assert_eq!(kind("b"), Kind::Str);
    assert_eq!(kind("c"), Kind::Str);
    assert_eq!(kind("d"), Kind::Int);
    assert_eq!(t.as_i64(t.get(r, "d").unwrap()), Some(777));
    assert_eq!(kind("e"), Kind::Int);
    assert_eq!(t.as_i64(t.get(r, "e").unwrap()), None);
    assert_eq!(
        t.scalar(t.get(r, "e").unwrap()),
        Some("18446744073709552000")
    );
    assert_eq!(kind("f"), Kind::Bool);
    assert_eq!(kind("g"), Kind::Null);
    assert_eq!(kind("h"), Kind::Float);
    assert_eq!(kind("i"), Kind::Str);
}

#[test]
fn tab_indentation_is_a_syntax_error_at_the_tab() {
    let text = "a:\n  b: 1\n\tc: 2\n";
    let err = Tree::parse(Arc::from(text)).unwrap_err();
    let file = SourceFile::new(PathBuf::from("t.yaml"), "t".into(), text);
    assert_eq!(at(&file, err.offset), (3, 1), "{err:?}");
}

#[test]
fn tab_indented_json_parses() {
    let (_, t) = parse("{\n\t\"a\": {\n\t\t\"b\": 1\n\t}\n}\n");
    let r = t.root().unwrap();
    let a = t.get(r, "a").unwrap();
    assert_eq!(t.as_i64(t.get(a, "b").unwrap()), Some(1));
}

#[test]
fn json_surrogate_pairs_decode() {
    let (_, t) = parse("{\"t\": \"ok \\ud83d\\udc4d\"}");
    let r = t.root().unwrap();
    assert_eq!(t.as_str(t.get(r, "t").unwrap()), Some("ok \u{1F44D}"));
}

#[test]
fn bom_and_crlf_positions() {
    let (f, t) = parse("\u{feff}a: 1\r\nbb:\r\n  c: x\r\n");
    let r = t.root().unwrap();
    let bb = t.get(r, "bb").unwrap();
    let c = t.get_entry(bb, "c").unwrap().0;
    assert_eq!(at(&f, t.span(c).start), (3, 3));
    let a = t.get_entry(r, "a").unwrap().0;
    assert_eq!(at(&f, t.span(a).start), (1, 1));
}

#[test]
fn columns_count_characters() {
    let (f, t) = parse("é: {ü: x, k: y}\n");
    let r = t.root().unwrap();
    let m = t.get(r, "é").unwrap();
    let k = t.get_entry(m, "k").unwrap().0;
    assert_eq!(at(&f, t.span(k).start), (1, 11));
}

#[test]
fn duplicates_recorded_and_last_wins() {
    let (f, t) = parse("a: 1\nb: 2\na: 3\na: 4\n");
    let r = t.root().unwrap();
    assert_eq!(t.as_i64(t.get(r, "a").unwrap()), Some(4));
    let d = t.duplicates();
    assert_eq!(d.len(), 2);
    assert_eq!(at(&f, t.span(d[0].first).start), (1, 1));
    assert_eq!(at(&f, t.span(d[0].repeated).start), (3, 1));
    assert_eq!(at(&f, t.span(d[1].first).start), (3, 1));
    assert_eq!(t.entries(r).len(), 2);
}

#[test]
fn merge_keys_explicit_wins_and_merge_is_never_a_key() {
    let (_, t) = parse("base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\n");
    let r = t.root().unwrap();
    let m = t.get(r, "m").unwrap();
    assert_eq!(t.as_i64(t.get(m, "x").unwrap()), Some(1));
    assert_eq!(t.as_i64(t.get(m, "y").unwrap()), Some(3));
    assert!(t.get(m, "<<").is_none());
    let keys: Vec<_> = t
        .entries(m)
        .iter()
        .map(|(k, _)| t.scalar(*k).unwrap().to_string())
        .collect();
    assert_eq!(keys, vec!["y", "x"]);
    // A quoted '<<' is an ordinary key.
    let (_, t) = parse("m: {'<<': 1}\n");
    let m = t.get(t.root().unwrap(), "m").unwrap();
    assert_eq!(t.as_i64(t.get(m, "<<").unwrap()), Some(1));
}

#[test]
fn alias_bomb_costs_nothing() {
    let mut text = String::from("a: &a [x, x, x, x, x, x, x, x, x]\n");
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
    for w in names.windows(2) {
        text.push_str(&format!(
            "{}: &{} [{}]\n",
            w[1],
            w[1],
            vec![format!("*{}", w[0]); 9].join(", ")
        ));
    }
    let (_, t) = parse(&text);
    assert!(t.len() < 200, "arena holds {} nodes", t.len());
}

#[test]
fn pointers_escape_and_lookup() {
    let (_, t) = parse("paths:\n  /a/{b}:\n    get: {x: [1, 2]}\n");
    let r = t.root().unwrap();
    let p = t.get(r, "paths").unwrap();
    let op = t.get(t.get(p, "/a/{b}").unwrap(), "get").unwrap();
    let two = t.items(t.get(op, "x").unwrap())[1];
    assert_eq!(t.pointer(two), "/paths/~1a~1{b}/get/x/1");
    let tokens: Vec<String> = ["paths", "/a/{b}", "get"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(t.lookup(&tokens), Some(op));
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let text = "[".repeat(100_000);
    assert!(Tree::parse(Arc::from(text.as_str())).is_err());
    let mut text = String::new();
    for i in 0..2000 {
        text.push_str(&" ".repeat(i));
        text.push_str("a:\n");
    }
    assert!(Tree::parse(Arc::from(text.as_str())).is_err());
}

/// `Tree::parse_keeping_stream` reads a file once and gives what `Tree::parse` and,
/// for a stream of several documents, `Tree::parse_stream` give (the loader uses it
/// so that an importer never parses a Kubernetes manifest again).
fn assert_keeping_stream_agrees(text: &str, name: &str) {
    let text: Arc<str> = Arc::from(text);
    let kept = Tree::parse_keeping_stream(text.clone());
    let first = Tree::parse(text.clone());
    match (&kept, &first) {
        (Err(a), Err(b)) => assert_eq!(a, b, "{name}"),
        (Ok((tree, documents)), Ok(parsed)) => {
            assert_eq!(format!("{tree:?}"), format!("{parsed:?}"), "{name}");
            let mentions_retries = text.contains("retr") || text.contains("Retr");
            if parsed.later_documents().is_empty() || !mentions_retries {
                // Only a stream that mentions retries keeps its documents.
                assert!(documents.is_empty(), "{name}");
            } else {
                let stream = Tree::parse_stream(text.clone()).expect("a stream that parsed");
                assert_eq!(format!("{documents:?}"), format!("{stream:?}"), "{name}");
                assert_eq!(
                    documents.len(),
                    parsed.later_documents().len() + 1,
                    "{name}"
                );
            }
        }
        _ => panic!("{name}: one parse failed, the other did not: {kept:?} / {first:?}"),
    }
}

#[test]
fn keeping_the_stream_gives_what_parse_and_parse_stream_give() {
    for text in [
        "",
        "# only a comment\n",
        "---\n",
        "---\n---\n",
        "a: 1\n",
        "a: 1\n---\n",
        "---\na: 1\n---\nb: 2\n",
        "a: 1\n...\nb: 2\n",
        "a: 1\n...\n---\nb: 2\n---\n# empty\n---\nc: [3]\n",
        "---\n---\na: 1\n---\n~\n---\n''\n",
        "{\"a\": 1}\n",
        "{a: 1}\n---\n{b: 2}\n",
        "a: &x 1\nb: *x\n---\nc: &y {d: 1}\ne: *y\n",
        "a: 1\n---\nb: [\n",
        "a:\tb\n---\nc: 1\n",
        "a: 1\na: 2\n---\nb: 1\nb: 2\n",
        "%YAML 1.2\n---\na: 1\n---\nb: 2\n",
    ] {
        assert_keeping_stream_agrees(text, &format!("{text:?}"));
        // A comment naming retries: the stream is kept.
        let kept = format!("{text}# retries\n");
        assert_keeping_stream_agrees(&kept, &format!("{kept:?}"));
    }
    let mut checked = 0;
    for entry in walkdir::WalkDir::new(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures")) {
        let entry = entry.unwrap();
        let path = entry.path();
        let yaml = path
            .extension()
            .is_some_and(|e| e == "yaml" || e == "yml" || e == "json");
        if !entry.file_type().is_file() || !yaml {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        assert_keeping_stream_agrees(&text, &path.display().to_string());
        checked += 1;
    }
    assert!(checked > 500, "only {checked} fixture files");
}

#[test]
fn a_stream_of_many_tiny_documents_keeps_only_where_each_starts() {
    // 5,000 documents of a dozen bytes: as trees they would cost about 40 times the
    // text; the loader keeps the first tree and the starts, as `Tree::parse` does.
    let text: String = (0..5_000).map(|i| format!("---\na: {i}\n")).collect();
    let (first, documents) = Tree::parse_keeping_stream(Arc::from(text.as_str())).unwrap();
    assert!(documents.is_empty());
    assert_eq!(first.later_documents().len(), 4_999);
    let parsed = Tree::parse(Arc::from(text.as_str())).unwrap();
    assert!(
        format!("{first:?}") == format!("{parsed:?}"),
        "the first tree is the one `Tree::parse` gives"
    );
    // Fewer, larger documents that mention retries are kept; without retries, not.
    let text: String = (0..1_500)
        .map(|i| format!("---\nkind: VirtualService\nmetadata: {{name: r{i}, namespace: shop}}\nspec: {{hosts: [orders], http: [{{retries: {{attempts: 3, retryOn: 5xx}}}}]}}\n# {}\n", "x".repeat(200)))
        .collect();
    let (_, documents) = Tree::parse_keeping_stream(Arc::from(text.as_str())).unwrap();
    assert_eq!(documents.len(), 1_500);
    let text = text
        .replace("retries", "replicas")
        .replace("retryOn", "image");
    let (_, documents) = Tree::parse_keeping_stream(Arc::from(text.as_str())).unwrap();
    assert!(documents.is_empty());
}
