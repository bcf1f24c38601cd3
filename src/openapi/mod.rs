//! Located tree -> endpoint model, one code path for Swagger 2.0, OpenAPI 3.0, 3.1.

pub mod build;
pub mod literal;
pub mod model;
pub mod rl007_unsupported_document;
pub mod rl009_duplicate_parameter;
pub mod rl011_ref_siblings_ignored;
pub mod rl012_invalid_status_key;

pub use build::{
    build_document, check_all_refs, dedup_findings, is_openapi, lint_document,
    lint_document_beside, reached_files, ref_problem_diagnostic,
};
