//! RL010 unused-suppression: a reasoned suppression (`x-retrylint-ignore` or a policy
//! `ignore`) that matched no finding in the run. Reported by [`crate::suppress`].

use super::RuleMeta;
use crate::diagnostic::catalog;

/// Rule metadata ([`catalog::UNUSED_SUPPRESSION`]).
pub const META: RuleMeta = catalog::UNUSED_SUPPRESSION;
