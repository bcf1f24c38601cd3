//! Located tree -> endpoint model, one code path for Swagger 2.0, OpenAPI 3.0, 3.1.

pub mod build;
pub mod model;

pub use build::{
    build_document, check_all_refs, dedup_findings, is_openapi, lint_document, reached_files,
    ref_problem_diagnostic,
};
