//! The journal: what the fault server observed, per attempt and per client process.
//! Times are ms since the start of the scenario run (one clock for the whole herd);
//! `wall_ms` is epoch ms, for the absolute HTTP-date check.

use super::scenario::Answer;
use serde::{Deserialize, Serialize};

/// What happened to the effect of one attempt on the fault server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EffectRecord {
    /// Not processed (an error status).
    None,
    /// Processed: a new effect (an order created).
    Recorded,
    /// Processed with an idempotency key already seen: the stored result replayed,
    /// no new effect.
    Replayed,
}

/// One request the server received.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    /// Which copy of the client (0-based; always 0 without a herd).
    pub client: usize,
    /// 0-based attempt of this client.
    pub index: usize,
    /// When the request head was complete, ms since the run start.
    pub t_ms: f64,
    /// The same instant in epoch ms.
    pub wall_ms: f64,
    /// The request method as sent.
    pub method: String,
    /// The request target as sent.
    pub path: String,
    /// The idempotency-key header as sent: its name (as the client spelled it) and
    /// value; `None` when the request carried none.
    pub key: Option<(String, String)>,
    /// A hash of the body (attempts of one operation compare equal when unchanged).
    pub body_hash: u64,
    /// Body length in bytes.
    pub body_len: usize,
    /// The answer the script gave.
    pub answer: Answer,
    /// The Retry-After value sent, verbatim.
    pub retry_after: Option<String>,
    /// The `Date` value sent with it.
    pub date: Option<String>,
    /// When the answer was complete (response written, reset sent), ms since the
    /// run start; `None` for a hang.
    pub answered_ms: Option<f64>,
    /// When the client closed the connection of a hang or slow body, ms since the
    /// run start; `None` when it never did.
    pub closed_ms: Option<f64>,
    /// The effect on the server.
    pub effect: EffectRecord,
}

impl Attempt {
    /// When the client learned the outcome (or gave up on it): the answer's end, else
    /// its own close of a hung connection. The gap to the next attempt starts here.
    pub fn outcome_ms(&self) -> Option<f64> {
        match self.answer {
            Answer::Hang | Answer::SlowBody => self.closed_ms.or(self.answered_ms),
            _ => self.answered_ms,
        }
    }
}

/// How one client process ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClientEnd {
    /// Which copy of the client.
    pub client: usize,
    /// Its exit code (`None`: killed by the probe or by a signal).
    pub exit_code: Option<i32>,
    /// When it ended or was killed, ms since the run start.
    pub ended_ms: f64,
    /// Why the probe ended it, when it did: `idle` (no new attempt within the wait
    /// bound), `time-limit` (the scenario's limit).
    pub killed: Option<String>,
}

/// Everything observed in one scenario run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Journal {
    /// The scenario's name.
    pub scenario: String,
    /// Every attempt of every client, in arrival order.
    pub attempts: Vec<Attempt>,
    /// One per client process.
    pub clients: Vec<ClientEnd>,
    /// The refused window, when the scenario refused the first connections (ms).
    pub refused_ms: Option<u64>,
}

impl Journal {
    /// The attempts of one client, in order.
    pub fn of_client(&self, client: usize) -> Vec<&Attempt> {
        let mut v: Vec<&Attempt> = self
            .attempts
            .iter()
            .filter(|a| a.client == client)
            .collect();
        v.sort_by_key(|a| a.index);
        v
    }

    /// The number of clients (from the processes, else from the attempts).
    pub fn client_count(&self) -> usize {
        self.clients.len().max(
            self.attempts
                .iter()
                .map(|a| a.client + 1)
                .max()
                .unwrap_or(0),
        )
    }
}
