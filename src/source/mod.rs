//! Text in, located tree out.
//!
//! A [`SourceFile`] (defined at the bottom, beside the diagnostics that point into
//! it, and re-exported here) owns one file's text. [`boundary`] decides which
//! paths a run may open at all. The [`tree`] module parses the
//! text into a located tree; [`loader`] reads files into [`loader::Loaded`] trees;
//! [`refs`] resolves `$ref`s across files, with [`schema_ids`] for the `$id`s and
//! anchors of OpenAPI 3.1 schemas. The input findings this stage reports (RL001
//! syntax, RL002 duplicate keys, RL003/RL004 refs, RL014 streams) are built in their
//! own files here, with identities from [`crate::diagnostic::catalog`].

pub mod boundary;
pub mod encoding;
pub mod language;
pub mod loader;
pub mod pointer;
pub mod refs;
pub mod rendered;
pub mod rl001_invalid_syntax;
pub mod rl002_duplicate_key;
pub mod rl003_unresolved_ref;
pub mod rl004_ref_cycle;
pub mod rl014_multiple_documents;
pub mod schema_ids;
pub mod strict;
pub mod tree;

pub use crate::diagnostic::source_file::{LineCol, SourceFile, NO_EXCERPT};
