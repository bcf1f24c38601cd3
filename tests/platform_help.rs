//! Help in the platform's own words (issue 39): over every fixture project, a finding
//! of a rule that asks to change a retry setting, located on an imported config or a
//! retry client in code, names that platform's setting and no retrylint policy key;
//! a finding in a policy file keeps the policy keys. The main platforms must each
//! have such a finding among the fixtures, so the test cannot pass on nothing.

mod common;

use retrylint::check::{run_full, CheckOptions};
use retrylint::import::Platform;
use retrylint::rules::platform_words::{help, Setting};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every fixture project: `fixtures/{rules,fix,import}/<group>/<case>` and the code
/// fixtures `fixtures/code/<language>/<case>`.
fn fixture_dirs() -> Vec<PathBuf> {
    common::fixture_dirs(&[
        "fixtures/rules",
        "fixtures/fix",
        "fixtures/import",
        "fixtures/code",
    ])
}

fn options(dir: &Path) -> CheckOptions {
    common::fixture_options(dir)
}

/// Policy keys an imported config cannot spell.
const POLICY_KEYS: [&str; 7] = [
    "`deadline",
    "backoff.jitter",
    "`jitter:",
    "`attempt_timeout",
    "`retry_after",
    "`idempotency_key",
    "`methods:",
];

#[test]
fn findings_on_imported_configs_name_the_platforms_setting() {
    // platform -> findings seen with the platform's words.
    let mut seen: BTreeMap<Platform, usize> = BTreeMap::new();
    let mut policy_findings = 0;
    for dir in fixture_dirs() {
        let (analyzed, diagnostics) = run_full(&options(&dir));
        for d in &diagnostics {
            let Some(_) = Setting::of_rule(d.code) else {
                continue;
            };
            let file = &d.primary.location.file.path;
            let platforms: Vec<Platform> = analyzed
                .analysis
                .policies
                .iter()
                .filter(|p| &p.doc.file.path == file)
                .filter_map(|p| p.imported.as_ref().map(|i| i.platform))
                .collect();
            let h = d.help.clone().unwrap_or_default();
            let Some(&platform) = platforms.first() else {
                // A written policy: its help speaks in policy keys.
                if analyzed
                    .analysis
                    .policies
                    .iter()
                    .any(|p| &p.doc.file.path == file)
                {
                    policy_findings += 1;
                    assert!(
                        !h.starts_with("in "),
                        "{}: {} in a policy file got platform help: {h}",
                        dir.display(),
                        d.code
                    );
                }
                continue;
            };
            if platforms.iter().any(|&p| p != platform) {
                continue; // two importers read the file: the location decides.
            }
            // The fixtures keep the default RL303 threshold (5 attempts).
            let want = help(d.code, platform, 5).expect("a rule with a setting has platform help");
            assert!(
                h.starts_with(&want),
                "{}: {} on {platform:?}: help is {h:?}, want {want:?}",
                dir.display(),
                d.code
            );
            for k in POLICY_KEYS {
                assert!(
                    !h.contains(k),
                    "{}: {} on {platform:?} names the policy key {k}: {h}",
                    dir.display(),
                    d.code
                );
            }
            *seen.entry(platform).or_default() += 1;
        }
    }
    assert!(policy_findings > 0, "no finding in a policy file");
    for p in [
        Platform::Istio,
        Platform::Envoy,
        Platform::SpringCloudGateway,
        Platform::Resilience4j,
        Platform::Nginx,
        Platform::Urllib3,
        Platform::AxiosRetry,
    ] {
        assert!(
            seen.contains_key(&p),
            "no fixture finding on {p:?} with its own words; seen: {seen:?}"
        );
    }
    assert!(
        seen.contains_key(&Platform::HttpResilience) || seen.contains_key(&Platform::Polly),
        "no .NET finding; seen: {seen:?}"
    );
}
