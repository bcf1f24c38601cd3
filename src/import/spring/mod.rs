//! Spring files: Resilience4j retries and Spring Cloud Gateway `Retry` filters
//! (`retry-configs.md` §7).
//!
//! [`source`] reads a Spring property file (YAML or `.properties`, every document,
//! profiles, relaxed binding, placeholders) into normalised located trees; each
//! platform's importer reads the variants Spring would bind from them.

pub mod exceptions;
pub mod gateway;
pub mod resilience4j;
pub mod source;

use super::{ImportContext, Imported};
use crate::source::loader::Loaded;
use std::sync::Arc;

/// Reads one Spring file. Never panics: a syntax error is RL001.
pub fn import(doc: &Arc<Loaded>, _ctx: &ImportContext<'_>) -> Imported {
    let mut out = Imported::default();
    // Read once: the variants, the documents and the repeated keys (RL002).
    let read = match source::read(doc) {
        Ok(read) => read,
        Err(e) => {
            out.diagnostics.push(*e);
            return out;
        }
    };
    out.diagnostics.extend(read.duplicates);
    // Only documents under a profile: the importers ask which profile writes what.
    out.extend(resilience4j::import(
        doc,
        &read.variants,
        &read.profile_documents,
    ));
    out.extend(gateway::import(&read.variants, &read.profile_documents));
    out
}

/// The variant a Resilience4j table or Spring Cloud Gateway route of `doc` belongs to: its application (the folder of its
/// `application*.yml` and `.properties` files, which Spring merges) and its profile,
/// `profile `prod`` or the default profile. The profiles of one application are
/// alternatives: each deployment runs one (`layers.md` "Variants and entry paths").
pub fn profile_variant(doc: &Loaded, profile: Option<&str>) -> crate::policy::model::Variant {
    let dir = doc
        .file
        .display
        .rsplit_once('/')
        .map_or("", |(d, _)| d)
        .to_string();
    crate::policy::model::Variant {
        group: format!("spring profiles {dir}"),
        label: match profile {
            Some(p) => format!("profile `{p}`"),
            None => crate::import::bind::DEFAULT_PROFILE.to_string(),
        },
    }
}
