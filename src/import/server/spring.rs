//! Spring MVC and WebFlux controllers: a class annotated `@RestController` or
//! `@Controller`, its class-level `@RequestMapping` prefix, and each handler method's
//! `@GetMapping`/`@PostMapping`/`@PutMapping`/`@DeleteMapping`/`@PatchMapping` or
//! `@RequestMapping(method = RequestMethod.X)`. A `@RequestMapping` without a
//! `method` (every method) is not read: it would claim writes nobody declared.
//! `@RequestHeader("X")` parameters are required unless `required = false` or a
//! `defaultValue` is given (Spring's own rule).

use super::route::{braces, join, ServerRoute};
use crate::import::code::java::ast::{self, FileIndex};
use crate::import::code::CodeFile;
use tree_sitter::Node;

const MAPPINGS: &[(&str, Option<&str>)] = &[
    ("GetMapping", Some("get")),
    ("PostMapping", Some("post")),
    ("PutMapping", Some("put")),
    ("DeleteMapping", Some("delete")),
    ("PatchMapping", Some("patch")),
    ("RequestMapping", None),
];

const METHODS: &[&str] = &["get", "post", "put", "delete", "patch", "head", "options"];

/// Text that a file with a Spring controller holds.
pub const MARKERS: &[&str] = &["Controller"];

/// Every route of every controller class in `file`.
pub fn routes(file: &CodeFile<'_>) -> Vec<ServerRoute> {
    let idx = ast::index(file);
    let mut out = Vec::new();
    for class in ast::descendants(file.tree.root_node(), "class_declaration") {
        let controller = ast::annotations(class).into_iter().any(|a| {
            matches!(
                ast::annotation_simple(file, a),
                "RestController" | "Controller"
            )
        });
        if !controller {
            continue;
        }
        let prefixes = ast::find_annotation(file, class, "RequestMapping")
            .map(|a| paths(file, &idx, a))
            .filter(|p| !p.is_empty())
            .unwrap_or_else(|| vec![String::new()]);
        let Some(body) = class.child_by_field_name("body") else {
            continue;
        };
        let mut c = body.walk();
        for m in body
            .named_children(&mut c)
            .filter(|m| m.kind() == "method_declaration")
        {
            for a in ast::annotations(m) {
                let simple = ast::annotation_simple(file, a);
                let Some((_, verb)) = MAPPINGS.iter().find(|(n, _)| *n == simple) else {
                    continue;
                };
                let verbs: Vec<String> = match verb {
                    Some(v) => vec![v.to_string()],
                    None => request_methods(file, &idx, a),
                };
                let mut own = paths(file, &idx, a);
                if own.is_empty() {
                    own.push(String::new());
                }
                let headers = required_headers(file, &idx, m);
                for prefix in &prefixes {
                    for p in &own {
                        for v in &verbs {
                            out.push(ServerRoute {
                                method: v.clone(),
                                path: braces(&join(prefix, p)),
                                at: a.byte_range(),
                                required_headers: headers.clone(),
                            });
                        }
                    }
                }
            }
        }
    }
    out
}

/// The paths of a mapping annotation (`value`, `path`; one string or an array).
fn paths(file: &CodeFile<'_>, idx: &FileIndex, a: Node<'_>) -> Vec<String> {
    let args = ast::annotation_args(file, a);
    ast::arg(&args, &["value", "path"])
        .map(|v| {
            ast::elements(v)
                .into_iter()
                .filter_map(|e| ast::string_value(file, idx, e))
                .filter(|p| !p.contains("${"))
                .collect()
        })
        .unwrap_or_default()
}

/// The methods of `@RequestMapping(method = ...)` (`RequestMethod.POST` or an
/// array); none when `method` is absent.
fn request_methods(file: &CodeFile<'_>, idx: &FileIndex, a: Node<'_>) -> Vec<String> {
    let args = ast::annotation_args(file, a);
    let Some(v) = ast::arg(&args, &["method"]) else {
        return Vec::new();
    };
    ast::elements(v)
        .into_iter()
        .filter_map(|e| {
            let t = ast::string_value(file, idx, e).unwrap_or_else(|| file.text_of(e).to_string());
            let t = t.rsplit('.').next().unwrap_or(&t).to_ascii_lowercase();
            METHODS.contains(&t.as_str()).then_some(t)
        })
        .collect()
}

/// The `@RequestHeader` parameters of a handler that a request must carry.
fn required_headers(
    file: &CodeFile<'_>,
    idx: &FileIndex,
    m: Node<'_>,
) -> Vec<(String, std::ops::Range<usize>)> {
    let mut out = Vec::new();
    let Some(params) = m.child_by_field_name("parameters") else {
        return out;
    };
    for p in ast::descendants(params, "formal_parameter") {
        let Some(a) = ast::find_annotation(file, p, "RequestHeader") else {
            continue;
        };
        let args = ast::annotation_args(file, a);
        let optional = ast::arg(&args, &["required"]).is_some_and(|v| file.text_of(v) == "false")
            || ast::arg(&args, &["defaultValue"]).is_some();
        if optional {
            continue;
        }
        // `@RequestHeader String idempotencyKey` names the header after the parameter
        // only when compiled with `-parameters`; the explicit name is what is read.
        if let Some(name) =
            ast::arg(&args, &["value", "name"]).and_then(|v| ast::string_value(file, idx, v))
        {
            out.push((name, a.byte_range()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::testing::routes_of;
    use crate::import::code::Language;

    fn read(src: &str) -> Vec<(String, String, Vec<String>)> {
        routes_of(Language::Java, "R.java", src)
            .into_iter()
            .map(|r| {
                (
                    r.method,
                    r.path,
                    r.required_headers.into_iter().map(|h| h.0).collect(),
                )
            })
            .collect()
    }

    #[test]
    fn class_prefix_and_method_mappings() {
        let got = read(
            r#"
@RestController
@RequestMapping({"/owners", "/v2/owners"})
class OwnerResource {
    @PostMapping
    Owner create(@RequestBody Owner o) { return o; }
    @GetMapping(value = "/{ownerId:\\d+}")
    Owner one(@PathVariable int ownerId) { return null; }
    @RequestMapping(path = "{id}/pets", method = {RequestMethod.PUT, RequestMethod.PATCH})
    void pets() {}
    @RequestMapping("/any")
    void every() {}
    void helper() {}
}
"#,
        );
        let pairs: Vec<(&str, &str)> = got
            .iter()
            .map(|(m, p, _)| (m.as_str(), p.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("post", "/owners"),
                ("post", "/v2/owners"),
                ("get", "/owners/{ownerId}"),
                ("get", "/v2/owners/{ownerId}"),
                ("put", "/owners/{id}/pets"),
                ("patch", "/owners/{id}/pets"),
                ("put", "/v2/owners/{id}/pets"),
                ("patch", "/v2/owners/{id}/pets"),
            ]
        );
    }

    #[test]
    fn required_request_headers_are_key_headers() {
        let got = read(
            r#"
@RestController
class Orders {
    @PostMapping("orders")
    void create(@RequestHeader("Idempotency-Key") String key,
                @RequestHeader(value = "X-Trace", required = false) String t,
                @RequestHeader(name = "X-Tenant", defaultValue = "a") String tenant) {}
}
"#,
        );
        assert_eq!(
            got,
            [(
                "post".to_string(),
                "/orders".to_string(),
                vec!["Idempotency-Key".to_string()]
            )]
        );
    }

    #[test]
    fn classes_that_are_not_controllers_declare_nothing() {
        assert!(read(
            "@FeignClient(\"x\") interface C { @PostMapping(\"/a\") void a(); }\n@Service class S { @PostMapping(\"/b\") void b() {} }\nclass Broken {"
        )
        .is_empty());
    }
}
