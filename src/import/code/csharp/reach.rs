//! Which `HttpClient` a call is made through, as far as binding and the factory's
//! defaults are concerned (`layers.md` "Binding a config to operations", .NET):
//!
//! - [`base_address`]: a typed or named client's `BaseAddress`, set where it is
//!   registered (`AddHttpClient<OrderingService>(o => o.BaseAddress =
//!   new("https+http://ordering-api"))`), is the base its calls' relative URLs
//!   resolve against, so the host it names binds them. Aspire's service-discovery
//!   scheme `https+http://` means "https, else http" and reads as `https://`
//!   (`http+https://` as `http://`).
//! - [`PLAIN`]: a call through `new HttpClient(...)` is no client of
//!   `IHttpClientFactory`, so `ConfigureHttpClientDefaults` never reaches it; nor
//!   is a call of a class that builds its own clients and is given none
//!   ([`builds_its_own_clients`]: eShop's MAUI `RequestProvider`, whose clients come
//!   from a `Lazy<HttpClient>` of `new HttpClient(handler)`).
//! - [`is_test_code`]: a call in test code (a test project, a `tests/` folder, a
//!   class with `[Fact]`, `[Theory]`, `[Test]`, `[TestMethod]`) is not evidence of
//!   production retries.

use super::super::CodeFile;
use super::syntax;
use tree_sitter::Node;

/// The receiver of a call made through an `HttpClient` the code builds itself
/// (`new HttpClient()`): it starts with no `HttpClient:` prefix, so the factory's
/// defaults (`HttpClient:*`) do not join it, and no client is named so.
pub const PLAIN: &str = "new HttpClient()";

/// True when `init` (a variable's initial value) builds an `HttpClient` itself:
/// `new HttpClient()`, `new HttpClient(handler)`, `new()` of a declared
/// `HttpClient`.
pub fn is_plain_client(file: &CodeFile<'_>, init: Node<'_>) -> bool {
    let text = file.text_of(init).trim_start();
    if text.starts_with("new HttpClient(") || text.starts_with("new System.Net.Http.HttpClient(") {
        return true;
    }
    // `HttpClient client = new();`: the declared type says which.
    text.starts_with("new(")
        && init
            .parent()
            .and_then(|d| d.parent())
            .filter(|v| v.kind() == "variable_declaration")
            .and_then(|v| v.child_by_field_name("type"))
            .is_some_and(|t| file.text_of(t).trim().ends_with("HttpClient"))
}

/// True when the type `class` builds its `HttpClient`s itself and is given none:
/// it writes `new HttpClient(` and neither asks for an `IHttpClientFactory` nor
/// takes an `HttpClient` in a constructor (primary or not), the two ways a factory
/// client reaches a class (a typed client is constructed with one, by the
/// factory). Every call it makes is then through a client of its own.
pub fn builds_its_own_clients(file: &CodeFile<'_>, class: Node<'_>) -> bool {
    let text = file.text_of(class);
    if !(text.contains("new HttpClient(") || text.contains("new System.Net.Http.HttpClient("))
        || text.contains("IHttpClientFactory")
    {
        return false;
    }
    let given_one = |list: Node<'_>| {
        let mut c = list.walk();
        let given = list.named_children(&mut c).any(|p| {
            p.kind() == "parameter"
                && p.child_by_field_name("type").is_some_and(|t| {
                    file.text_of(t)
                        .trim()
                        .trim_end_matches('?')
                        .ends_with("HttpClient")
                })
        });
        given
    };
    // The primary constructor's parameters, then each constructor's.
    let mut c = class.walk();
    if class
        .named_children(&mut c)
        .any(|n| n.kind() == "parameter_list" && given_one(n))
    {
        return false;
    }
    !syntax::descendants(class, 50_000)
        .into_iter()
        .filter(|n| n.kind() == "constructor_declaration")
        .filter_map(|n| n.child_by_field_name("parameters"))
        .any(given_one)
}

/// For a registration `AddHttpClient<T>(...)`, `AddHttpClient<I, T>(...)` or
/// `AddHttpClient("name", ...)` whose options lambda sets `BaseAddress` to a
/// literal URL: the receiver of the calls made through that client
/// (`HttpClient:T`, `HttpClient:name`) and the URL, with Aspire's scheme read.
pub fn base_address(file: &CodeFile<'_>, call: Node<'_>) -> Option<(String, String)> {
    if syntax::method_name(file, call) != "AddHttpClient" {
        return None;
    }
    let owner = syntax::type_args(file, call)
        .last()
        .map(|(t, _)| t.clone())
        .or_else(|| {
            syntax::args(call)
                .first()
                .filter(|(_, a)| a.kind() == "string_literal")
                .map(|(_, a)| file.text_of(*a).trim_matches('"').to_string())
        })?;
    let url = syntax::args(call).iter().find_map(|(_, a)| {
        (a.kind() == "lambda_expression")
            .then(|| assigned_base(file, *a))
            .flatten()
    })?;
    Some((super::attach::receiver_for(&owner), url))
}

/// The literal URL assigned to `.BaseAddress` inside `lambda`.
fn assigned_base(file: &CodeFile<'_>, lambda: Node<'_>) -> Option<String> {
    syntax::descendants(lambda, 2_000)
        .into_iter()
        .find_map(|n| {
            if n.kind() != "assignment_expression" {
                return None;
            }
            let left = n.child_by_field_name("left")?;
            if !file.text_of(left).trim().ends_with("BaseAddress") {
                return None;
            }
            let right = n.child_by_field_name("right")?;
            let lit = syntax::descendants(right, 64)
                .into_iter()
                .find(|x| x.kind() == "string_literal")?;
            let raw = file.text_of(lit).trim_matches('"');
            aspire_scheme(raw)
        })
}

/// `https+http://name` -> `https://name`, `http+https://name` -> `http://name`; an
/// absolute URL as it is; anything else (relative, empty) is no base.
fn aspire_scheme(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let first = scheme.split('+').next().unwrap_or(scheme);
    (!first.is_empty() && !rest.is_empty()).then(|| format!("{first}://{rest}"))
}

/// `relative` resolved against `base` as `HttpClient` does (RFC 3986): a path
/// starting with `/` replaces the base's path; any other replaces its last
/// segment; an absolute URL stays as it is.
pub fn resolve(base: &str, relative: &str) -> String {
    if relative.contains("://") {
        return relative.to_string();
    }
    let (scheme, rest) = base.split_once("://").unwrap_or(("", base));
    let (authority, path) = rest.split_once('/').map_or((rest, ""), |(a, p)| (a, p));
    if let Some(abs) = relative.strip_prefix('/') {
        return format!("{scheme}://{authority}/{abs}");
    }
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    if dir.is_empty() {
        format!("{scheme}://{authority}/{relative}")
    } else {
        format!("{scheme}://{authority}/{dir}/{relative}")
    }
}

/// True when the file is in a test project or a test folder: a path segment
/// `test`, `tests` (any case), or one ending in `.Tests`, `.Test`, `Tests`
/// (`Catalog.FunctionalTests`, `Ordering.UnitTests`).
pub fn is_test_path(path: &std::path::Path) -> bool {
    path.parent()
        .into_iter()
        .flat_map(|p| p.components())
        .any(|c| {
            let s = c.as_os_str().to_string_lossy();
            let lower = s.to_ascii_lowercase();
            lower == "test"
                || lower == "tests"
                || s.ends_with(".Tests")
                || s.ends_with(".Test")
                || s.ends_with("Tests")
        })
}

/// True when `call` is test code: its file is ([`is_test_path`]), or the type
/// that holds it has a test-framework attribute (xUnit `[Fact]`/`[Theory]`, NUnit
/// `[Test]`/`[TestCase]`/`[TestFixture]`, MSTest `[TestMethod]`/`[TestClass]`).
pub fn is_test_code(file: &CodeFile<'_>, call: Node<'_>) -> bool {
    // The path as shown (relative to the run), so a checkout under a `tests`
    // folder of the machine is not test code.
    if is_test_path(std::path::Path::new(&file.doc.file.display)) {
        return true;
    }
    // Most files hold no test attribute at all: no walk of the class then.
    let text = file.text;
    if ![
        "[Fact", "[Theory", "[Test", "Fact]", "Theory]", "Test]", ", Fact", ", Theory", ", Test",
    ]
    .iter()
    .any(|m| text.contains(m))
    {
        return false;
    }
    let Some(class) = syntax::enclosing(call, &["class_declaration", "record_declaration"]) else {
        return false;
    };
    syntax::descendants(class, 50_000)
        .into_iter()
        .filter(|n| n.kind() == "attribute")
        .any(|a| {
            let name = a
                .child_by_field_name("name")
                .map_or("", |n| file.text_of(n))
                .trim();
            let name = name.rsplit('.').next().unwrap_or(name);
            let name = name.strip_suffix("Attribute").unwrap_or(name);
            matches!(
                name,
                "Fact"
                    | "Theory"
                    | "Test"
                    | "TestCase"
                    | "TestFixture"
                    | "TestMethod"
                    | "TestClass"
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aspire_schemes_and_relative_urls() {
        assert_eq!(
            aspire_scheme("https+http://ordering-api").as_deref(),
            Some("https://ordering-api")
        );
        assert_eq!(
            aspire_scheme("http://x:8080/api/").as_deref(),
            Some("http://x:8080/api/")
        );
        assert_eq!(aspire_scheme("/api"), None);
        assert_eq!(
            resolve("https://ordering-api", "/api/orders"),
            "https://ordering-api/api/orders"
        );
        assert_eq!(resolve("http://x/api/", "orders"), "http://x/api/orders");
        assert_eq!(resolve("http://x/api", "orders"), "http://x/orders");
        assert_eq!(resolve("http://x/api/", "http://y/z"), "http://y/z");
    }

    #[test]
    fn a_class_that_builds_its_own_clients_and_is_given_none() {
        use crate::import::code::{parse, Language};
        use crate::source::loader::{Limits, Workspace};
        let judge = |src: &str| {
            let ws = Workspace::new(std::path::PathBuf::from("/"), Limits::default());
            let doc = ws.load_text(std::path::Path::new("/t/A.cs"), src);
            let parse::Parsed::Tree(tree) = parse::parse(Language::CSharp, src) else {
                panic!("parses");
            };
            let file = CodeFile {
                doc: &doc,
                text: src,
                language: Language::CSharp,
                tree: &tree,
                boundary: &crate::source::boundary::ReadBoundary::unbounded(),
            };
            let class = syntax::descendants(tree.root_node(), 10_000)
                .into_iter()
                .find(|n| n.kind() == "class_declaration")
                .expect("a class");
            builds_its_own_clients(&file, class)
        };
        let own = "public class RequestProvider(HttpMessageHandler h) {\n  private readonly Lazy<HttpClient> _c = new(() => new HttpClient(h));\n  HttpClient Get() => _c.Value;\n  public Task P(string uri) { var c = Get(); return c.PostAsync(uri, null); }\n}\n";
        assert!(judge(own));
        // Given a client (a typed client), or a factory: not its own.
        assert!(!judge(
            "public class A(HttpClient c) { HttpClient d = new HttpClient(); }"
        ));
        assert!(!judge(
            "public class A { public A(HttpClient c) {} HttpClient d = new HttpClient(); }"
        ));
        assert!(!judge(
            "public class A(IHttpClientFactory f) { HttpClient d = new HttpClient(); }"
        ));
        // No client built at all: nothing said.
        assert!(!judge(
            "public class A { Task P(HttpClient c) => c.GetAsync(\"/x\"); }"
        ));
    }

    #[test]
    fn test_folders_and_projects() {
        use std::path::Path;
        assert!(is_test_path(Path::new("tests/CatalogApiTests.cs")));
        assert!(is_test_path(Path::new(
            "src/Catalog.FunctionalTests/CatalogApiTests.cs"
        )));
        assert!(is_test_path(Path::new("Ordering.UnitTests/A.cs")));
        assert!(!is_test_path(Path::new(
            "src/WebApp/Services/OrderingService.cs"
        )));
        assert!(!is_test_path(Path::new("tests.cs")));
    }
}
