//! Which service a server's source file belongs to, and which services a written
//! OpenAPI document already serves (those are not read from code: the spec wins).

use crate::import::code::java::properties;
use crate::import::code::Language;
use crate::openapi::model::Document;
use crate::source::boundary::ReadBoundary;
use crate::source::tree::Kind;
use std::path::Path;

/// Files that mark the root folder of a module (a build of its own).
const MODULE_MARKERS: &[&str] = &[
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "go.mod",
    "package.json",
    "pyproject.toml",
    "requirements.txt",
    "setup.py",
];

/// Folders searched upwards for a module root.
const MAX_LEVELS: usize = 16;

/// The service name of the source file at `path`: Spring's
/// `spring.application.name` in the module's base `application.*` (Java), else
/// the name of the module's folder (the nearest ancestor holding a build file, a
/// `*.csproj` included), else of the file's folder. Lower case.
pub fn name(path: &Path, language: Language, boundary: &ReadBoundary) -> String {
    if language == Language::Java {
        let props = properties::near(path, boundary);
        if let Some((v, _)) = props.get("spring.application.name") {
            let v = v.trim();
            if !v.is_empty() && !v.contains("${") {
                return v.to_ascii_lowercase();
            }
        }
    }
    let mut dir = path.parent();
    for _ in 0..MAX_LEVELS {
        let Some(d) = dir else { break };
        let marked = MODULE_MARKERS.iter().any(|m| d.join(m).is_file())
            || std::fs::read_dir(d).is_ok_and(|entries| {
                entries
                    .flatten()
                    .any(|e| e.path().extension().is_some_and(|x| x == "csproj"))
            });
        if marked {
            return folder_name(d);
        }
        dir = d.parent();
    }
    path.parent().map(folder_name).unwrap_or_default()
}

fn folder_name(d: &Path) -> String {
    d.file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
}

/// The hosts the written documents are served at (`servers[].url`, Swagger 2.0
/// `host`), lower case, without a port.
pub fn served_hosts(specs: &[Document]) -> Vec<String> {
    let mut out = Vec::new();
    for d in specs.iter().filter(|d| d.server_code.is_none()) {
        let Ok(tree) = &d.doc.tree else { continue };
        let Some(root) = tree.root() else { continue };
        if let Some(list) = tree
            .get(root, "servers")
            .filter(|&n| tree.kind(n) == Kind::Seq)
        {
            for &item in tree.items(list) {
                if let Some(url) = tree.get(item, "url").and_then(|u| tree.as_str(u)) {
                    if let Some((_, rest)) = url.split_once("://") {
                        out.push(host_of(rest));
                    }
                }
            }
        }
        if let Some(host) = tree.get(root, "host").and_then(|h| tree.as_str(h)) {
            out.push(host_of(host));
        }
    }
    out.retain(|h| !h.is_empty());
    out
}

fn host_of(rest: &str) -> String {
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = host
        .rsplit_once(':')
        .filter(|(_, port)| port.chars().all(|c| c.is_ascii_digit()))
        .map_or(host, |(h, _)| h);
    host.to_ascii_lowercase()
}

/// True when a written document is served at `service` (the same host, or the same
/// Kubernetes service written short and long).
pub fn is_served(service: &str, hosts: &[String]) -> bool {
    let short = |s: &str| s.split('.').next().unwrap_or("").to_string();
    hosts
        .iter()
        .any(|h| h == service || (h.contains(".svc") || !h.contains('.')) && short(h) == service)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_drop_ports_and_paths() {
        assert_eq!(host_of("Customers-Service:8081/api"), "customers-service");
        assert_eq!(host_of("u@api.example.com/v1"), "api.example.com");
    }

    #[test]
    fn a_spec_serving_the_host_wins() {
        let hosts = vec![
            "customers-service.default.svc.cluster.local".to_string(),
            "api.example.com".to_string(),
        ];
        assert!(is_served("customers-service", &hosts));
        assert!(!is_served("api", &hosts));
        assert!(!is_served("visits-service", &hosts));
    }
}
