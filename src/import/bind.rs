//! Binding imported route tables to OpenAPI operations (`layers.md` "Binding a config
//! to operations"): which API (`.retrylint.yaml` `services:`, a host equal to a spec
//! server's host, or the only spec of the run), which operations (each route's
//! matches with its rewrite inverted, first match wins), and the synthetic policy
//! file each bound source becomes for the join.
