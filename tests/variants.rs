//! Variants and entry paths (`docs/layers.md`, "Variants and entry paths"): the
//! alternatives a request may take (callers in code, Spring profiles, Istio entry
//! paths) are each judged on their own, and layers multiply only along one path.
//! Fixtures under `fixtures/variants/`.

use retrylint::analysis::paths_of;
use retrylint::policy::model::Variant;
use std::path::{Path, PathBuf};

mod common;

fn dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/variants")
        .join(name)
}

/// `(code, "file:line")` of every finding of `check . --format json` in `name`.
fn found(name: &str) -> (i32, Vec<(String, String)>) {
    let (code, out, err) = common::retrylint_in(&dir(name), &["check", ".", "--format", "json"]);
    let json: serde_json::Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    let list = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                format!("{}:{}", d["path"].as_str().unwrap(), d["line"]),
            )
        })
        .collect();
    (code, list)
}

fn has(list: &[(String, String)], code: &str, at: &str) -> bool {
    list.iter().any(|(c, a)| c == code && a == at)
}

/// The readiness rows of `name`: (operation, path label, amplification).
fn readiness(name: &str) -> Vec<(String, String, i64)> {
    let (_, out, err) = common::retrylint_in(&dir(name), &["readiness", ".", "--format", "json"]);
    let json: serde_json::Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    json["operations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                format!(
                    "{} {}",
                    r["method"].as_str().unwrap(),
                    r["path"].as_str().unwrap()
                ),
                r["variant"].as_str().unwrap_or("").to_string(),
                r["amplification"].as_i64().unwrap(),
            )
        })
        .collect()
}

/// The default profile retries `POST /orders` (no key) on 5xx; `prod` turns the
/// retry off and `staging` (its own file) retries nine times. `prod` hides nothing:
/// RL201 for the default profile, RL201 and RL303 for staging, no RL311 between
/// profiles; readiness shows a row per profile.
#[test]
fn every_spring_profile_is_judged() {
    let (code, f) = found("spring-profiles");
    assert_eq!(code, 1, "{f:?}");
    assert!(has(&f, "RL201", "application.yml:10"), "{f:?}");
    assert!(has(&f, "RL201", "application-staging.yml:10"), "{f:?}");
    assert!(has(&f, "RL303", "application-staging.yml:7"), "{f:?}");
    assert!(!f.iter().any(|(c, _)| c == "RL311"), "{f:?}");
    assert!(
        !f.iter().any(|(_, a)| a.starts_with("application.yml:2")),
        "{f:?}"
    );
    let rows = readiness("spring-profiles");
    let orders: Vec<_> = rows.iter().filter(|r| r.0 == "POST /orders").collect();
    assert_eq!(
        orders
            .iter()
            .map(|r| (r.1.as_str(), r.2))
            .collect::<Vec<_>>(),
        vec![
            ("default profile", 3),
            ("profile `prod`", 1),
            ("profile `staging`", 9)
        ],
        "{rows:?}"
    );
    let (_, human, _) =
        common::retrylint_in(&dir("spring-profiles"), &["check", ".", "--color", "never"]);
    assert!(human.contains("note: path: default profile"), "{human}");
    insta::assert_snapshot!("variants_spring_profiles_check", human);
    let (_, table, _) = common::retrylint_in(&dir("spring-profiles"), &["readiness", "."]);
    insta::assert_snapshot!("variants_spring_profiles_readiness", table);
}

/// A `.properties` profile document (after `#---`) is a variant too: 4 attempts by
/// default, 9 under `eu` (RL303 there only).
#[test]
fn a_properties_profile_document_is_a_variant() {
    let (_, f) = found("properties-profile");
    assert!(has(&f, "RL303", "application.properties:9"), "{f:?}");
    assert_eq!(f.iter().filter(|(c, _)| c == "RL303").count(), 1, "{f:?}");
    assert!(!f.iter().any(|(c, _)| c == "RL311"), "{f:?}");
    let rows = readiness("properties-profile");
    let get: Vec<(&str, i64)> = rows
        .iter()
        .filter(|r| r.0 == "GET /orders/{id}")
        .map(|r| (r.1.as_str(), r.2))
        .collect();
    assert_eq!(get, vec![("default profile", 4), ("profile `eu`", 9)]);
}

/// Two callers behind one mesh: each caller multiplies with the mesh (RL311 at each,
/// 3 x 3 and 70 x 3), never with the other caller (no 3 x 70 x 3).
#[test]
fn layers_multiply_within_one_path() {
    let (_, f) = found("clients-behind-mesh");
    assert!(has(&f, "RL311", "a.py:3"), "{f:?}");
    assert!(has(&f, "RL311", "b.py:3"), "{f:?}");
    let (_, out, _) = common::retrylint_in(
        &dir("clients-behind-mesh"),
        &["check", ".", "--format", "json"],
    );
    assert!(out.contains("client 3 x mesh 3 = 9 attempts"), "{out}");
    assert!(out.contains("client 70 x mesh 3 = 210 attempts"), "{out}");
    assert!(!out.contains("630"), "{out}");
    let rows = readiness("clients-behind-mesh");
    let pay: Vec<(&str, i64)> = rows
        .iter()
        .filter(|r| r.0 == "POST /api/pay")
        .map(|r| (r.1.as_str(), r.2))
        .collect();
    assert_eq!(pay, vec![("client `a.py`", 9), ("client `b.py`", 210)]);
}

fn v(group: &str, label: &str) -> Variant {
    Variant {
        group: group.into(),
        label: label.into(),
    }
}

/// One variant of each group per path, every combination, first-seen order.
#[test]
fn paths_combine_one_variant_per_group() {
    assert_eq!(paths_of(std::iter::empty()), vec![Vec::<Variant>::new()]);
    let list = [
        v("client", "a"),
        v("istio entry", "mesh"),
        v("client", "b"),
        v("istio entry", "ingress"),
        v("client", "a"),
    ];
    let paths = paths_of(list.iter());
    let names: Vec<Vec<&str>> = paths
        .iter()
        .map(|p| p.iter().map(|x| x.label.as_str()).collect())
        .collect();
    assert_eq!(
        names,
        vec![
            vec!["a", "mesh"],
            vec!["a", "ingress"],
            vec!["b", "mesh"],
            vec!["b", "ingress"]
        ]
    );
}

/// Copies `from` (a folder of `fixtures/`) into `to`.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// `diff` pairs the paths of an operation by their variants: a copy against itself
/// is no change; removing one caller removes its path (not "70 attempts, was 3"); a
/// profile that starts retrying is a regression named after the profile.
#[test]
fn diff_pairs_paths_by_variant() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/cases");
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    copy_dir(&cases.join("79-second-client-dropped"), &a);
    copy_dir(&cases.join("79-second-client-dropped"), &b);
    let (code, out, err) = common::retrylint_in(tmp.path(), &["diff", "a", "b"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("0 regressions, 0 improvements; findings: 0 new, 0 fixed"),
        "{out}"
    );
    std::fs::remove_file(b.join("a.py")).unwrap();
    let (_, out, err) = common::retrylint_in(tmp.path(), &["diff", "a", "b"]);
    assert!(
        out.contains("operations removed: POST /api/pay [client `a/a.py`]"),
        "{out}{err}"
    );
    assert!(!out.contains("attempts-raised"), "{out}");

    let (c, d) = (tmp.path().join("c"), tmp.path().join("d"));
    copy_dir(&dir("spring-profiles"), &c);
    copy_dir(&dir("spring-profiles"), &d);
    let yml = std::fs::read_to_string(d.join("application.yml")).unwrap();
    std::fs::write(
        d.join("application.yml"),
        yml.replace("max-attempts: 1", "max-attempts: 4"),
    )
    .unwrap();
    let (code, out, err) = common::retrylint_in(tmp.path(), &["diff", "c", "d"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("regression starts-retrying-non-idempotent: POST /orders [profile `prod`]"),
        "{out}"
    );
    assert!(!out.contains("[default profile]"), "{out}");
}

/// A call that goes through two clients (a tenacity decorator around a call of a
/// retrying session) is one caller whose clients stack (RL311, 3 x 3); another
/// service's client of the same operation is another caller, never multiplied with
/// them (no 3 x 3 x 2).
#[test]
fn stacked_clients_are_one_caller() {
    let (_, out, err) = common::retrylint_in(
        &dir("stacked-and-another-caller"),
        &["check", ".", "--format", "json"],
    );
    assert!(
        out.contains("client 3 x client 3 = 9 attempts"),
        "{out}{err}"
    );
    assert!(!out.contains("18 attempts"), "{out}");
    let rows = readiness("stacked-and-another-caller");
    let amplification: Vec<i64> = rows.iter().map(|r| r.2).collect();
    assert_eq!(amplification, vec![9, 2], "{rows:?}");
}

/// Overlay copies of one Kubernetes object (`layers.md` item 6: `kustomize/`,
/// `release/`): the same VirtualService name in two files is never applied together,
/// so each copy is a variant judged on its own. The release copy's `attempts: 5`
/// (RL303) was hidden behind the first file's routes, and `import` of it said
/// "nothing imported" (issue 42).
#[test]
fn overlay_copies_of_one_virtual_service_are_variants() {
    let (code, list) = found("overlay-copies");
    assert_eq!(code, 1);
    assert!(has(&list, "RL303", "release/vs.yaml:8"), "{list:?}");
    assert!(!has(&list, "RL303", "kustomize/vs.yaml:8"), "{list:?}");
    for file in ["kustomize/vs.yaml:8", "release/vs.yaml:8"] {
        assert!(has(&list, "RL201", file), "{file}: {list:?}");
    }
    let (code, out, err) =
        common::retrylint_in(&dir("overlay-copies"), &["import", "release/vs.yaml"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("nothing imported"), "{err}");
    assert!(out.contains("attempts: 6"), "{out}");
    let (_, out, _) =
        common::retrylint_in(&dir("overlay-copies"), &["layers", "POST /orders", "."]);
    assert!(
        out.contains("path 1 of 2: entry path: mesh (overlay `kustomize/vs.yaml`)"),
        "{out}"
    );
    assert!(
        out.contains("path 2 of 2: entry path: mesh (overlay `release/vs.yaml`)"),
        "{out}"
    );
    // Never multiplied: each path is one mesh layer.
    assert!(!out.contains("4 x 6"), "{out}");
}
