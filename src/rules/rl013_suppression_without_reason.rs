//! RL013 suppression-without-reason: a suppression (`x-retrylint-ignore` or a policy
//! `ignore`) without a non-empty `reason`. Such a suppression is not applied.
//! Reported by [`crate::suppress`].

use super::RuleMeta;
use crate::diagnostic::catalog;

/// Rule metadata ([`catalog::SUPPRESSION_WITHOUT_REASON`]).
pub const META: RuleMeta = catalog::SUPPRESSION_WITHOUT_REASON;
