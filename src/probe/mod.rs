//! `retrylint probe`: the four behaviour tests run against a real client on the wire.
//!
//! A loopback HTTP/1.1 fault server ([`server`]) answers each attempt of the client
//! from a scenario's script ([`scenario`]) and records what it saw ([`journal`]);
//! [`run`] starts the client (a herd of copies for the storm scenario) and bounds
//! every run in time; [`judge`] (one file per rule, over [`measure`]) is a pure function from a journal and the
//! operation's expectations ([`expect`]: the same policy loading as `check`, the
//! decision behind `plan` as the oracle) to findings RL601-RL609; [`infer`] reads the
//! policy the client actually follows and prints it as a v1 policy; [`report`]
//! renders human, JSON and JUnit output;
//! [`html`] reads that JSON back for the probe section of `report --format html`.

pub mod expect;
pub mod html;
pub mod infer;
pub mod journal;
pub mod judge;
pub mod measure;
pub mod report;
pub mod run;
pub mod scenario;
pub mod server;
