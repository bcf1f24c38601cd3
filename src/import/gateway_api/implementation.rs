//! Which Gateway API implementation gives a `retry` stanza its meaning, and what each
//! one makes of it (`retry-configs.md` §4.1, §4.2; case README Q9).
//!
//! GEP-1731 leaves four things to the implementation: the connection errors retried
//! besides `codes`, the default `attempts`, the default backoff and deadline, and
//! whether a `backendRequest` expiry is retried. `.retrylint.yaml`
//! `platforms.gateway_api.implementation` names it; otherwise the run's own evidence
//! does (a `GatewayClass` `controllerName`, an Envoy Gateway `BackendTrafficPolicy`);
//! otherwise the reading is the least safe one across the implementations, and
//! RL314 states each reading.

use crate::import::stream::KubeObject;
use crate::import::ImportContext;
use crate::policy::duration::Millis;
use crate::policy::model::Signal;
use crate::retry::GrpcCode;

/// A Gateway API implementation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Implementation {
    /// Istio (IST-GW: `retry` becomes a VirtualService `retries`).
    Istio,
    /// Envoy Gateway (EG-TR `buildRetryPolicy`).
    EnvoyGateway,
    /// Cilium (cilium/cilium#46433).
    Cilium,
    /// The GEP's own text (GW-T: "SHOULD retry on connection errors (disconnect,
    /// reset, timeout, TCP failure)").
    Gep,
    /// Not known: the least safe reading of each point.
    Unknown,
}

/// The implementation and why retrylint believes it.
#[derive(Debug, Clone)]
pub struct Choice {
    /// The implementation.
    pub imp: Implementation,
    /// How it was decided, for notes ("named in `.retrylint.yaml`", "inferred from
    /// GatewayClass `eg`").
    pub why: String,
}

/// The Envoy route timeout that applies when nothing sets one (ENV-P
/// `RouteAction.timeout`): 15 s.
pub const ENVOY_ROUTE_TIMEOUT_MS: Millis = 15_000.0;

impl Implementation {
    /// The name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Implementation::Istio => "Istio",
            Implementation::EnvoyGateway => "Envoy Gateway",
            Implementation::Cilium => "Cilium",
            Implementation::Gep => "the GEP-1731 text",
            Implementation::Unknown => "an unnamed implementation (least safe reading)",
        }
    }

    /// The signals a `retry` stanza retries besides `codes`; `codes_absent` adds
    /// Envoy Gateway's default 503.
    pub fn stanza_signals(self, codes_absent: bool) -> Vec<Signal> {
        use Signal as S;
        let grpc = [S::Grpc(GrpcCode::Unavailable), S::Grpc(GrpcCode::Cancelled)];
        let mut out = match self {
            Implementation::Istio => vec![S::ConnectFailure, S::RefusedStream],
            Implementation::EnvoyGateway => vec![S::ConnectFailure, S::RefusedStream],
            Implementation::Cilium => {
                vec![S::ConnectFailure, S::Reset, S::Timeout, S::RefusedStream]
            }
            Implementation::Gep => vec![S::ConnectFailure, S::Reset, S::Timeout],
            Implementation::Unknown => {
                vec![S::ConnectFailure, S::RefusedStream, S::Reset, S::Timeout]
            }
        };
        if matches!(
            self,
            Implementation::Istio | Implementation::EnvoyGateway | Implementation::Unknown
        ) {
            out.extend(grpc);
        }
        if codes_absent && matches!(self, Implementation::EnvoyGateway | Implementation::Unknown) {
            out.push(S::Status(503));
        }
        out
    }

    /// The text of the note on the connection-error signals.
    pub fn signals_text(self) -> &'static str {
        match self {
            Implementation::Istio => "Istio retries `connect-failure,refused-stream,unavailable,cancelled` besides `codes`; a `backendRequest` expiry is not retried (retry-configs.md §4.2, IST-GW)",
            Implementation::EnvoyGateway => "Envoy Gateway retries `connect-failure,refused-stream,unavailable,cancelled` besides `codes`, and 503 when `codes` is absent; a `backendRequest` expiry is not retried (retry-configs.md §4.2, EG-TR)",
            Implementation::Cilium => "Cilium retries `connect-failure,reset,refused-stream` besides `codes`; Envoy's `reset` includes resets after sending and a per-try timeout (retry-configs.md §4.2)",
            Implementation::Gep => "GEP-1731: implementations SHOULD retry connection errors (disconnect, reset, timeout, TCP failure) besides `codes` (retry-configs.md §4.1, GW-T)",
            Implementation::Unknown => "no implementation named, so the least safe reading: connection failures, refused streams, resets and timeouts (GEP-1731 text, Cilium), gRPC unavailable/cancelled (Istio, Envoy Gateway) and 503 when `codes` is absent (Envoy Gateway) (retry-configs.md §4.1, §4.2)",
        }
    }

    /// The default deadline (ms) when `timeouts.request` is absent; `None`: none.
    pub fn default_deadline(self) -> Option<Millis> {
        match self {
            Implementation::EnvoyGateway => Some(ENVOY_ROUTE_TIMEOUT_MS),
            _ => None,
        }
    }

    /// The note on the deadline default.
    pub fn deadline_text(self) -> &'static str {
        match self {
            Implementation::EnvoyGateway => "no `timeouts.request`: Envoy Gateway leaves Envoy's 15 s route timeout (retry-configs.md §3.1, §4.2)",
            Implementation::Istio => "no `timeouts.request`: Istio sets no route timeout, so no deadline (retry-configs.md §1 fact 5, §4.2)",
            Implementation::Cilium => "no `timeouts.request`: retry-configs.md §4.2 documents no Cilium default, so no deadline is assumed",
            Implementation::Gep => "no `timeouts.request`: GEP-1731 leaves the deadline to the implementation, so no deadline is assumed (retry-configs.md §4.1)",
            Implementation::Unknown => "no `timeouts.request` and no implementation named: the least safe reading is no deadline (Istio; Envoy Gateway would apply 15 s) (retry-configs.md §4.2)",
        }
    }
}

/// The implementation for the run: `.retrylint.yaml` first, then a `GatewayClass`
/// whose controller is known, then an Envoy Gateway object in the run.
pub fn choose(objects: &[KubeObject], ctx: &ImportContext<'_>) -> Choice {
    if let Some(name) = &ctx.platforms.gateway_api_implementation {
        if let Some(imp) = parse(name) {
            return Choice {
                imp,
                why: "named in `.retrylint.yaml` `platforms.gateway_api.implementation`".into(),
            };
        }
    }
    for o in objects.iter().filter(|o| o.kind == "GatewayClass") {
        let Some(t) = o.doc.tree.as_ref().ok() else {
            continue;
        };
        let controller = t
            .get(o.node, "spec")
            .and_then(|s| t.get(s, "controllerName"))
            .and_then(|n| t.as_str(n))
            .unwrap_or("");
        let imp = if controller.starts_with("gateway.envoyproxy.io/") {
            Implementation::EnvoyGateway
        } else if controller.starts_with("istio.io/") {
            Implementation::Istio
        } else if controller.starts_with("io.cilium/") {
            Implementation::Cilium
        } else {
            continue;
        };
        return Choice {
            imp,
            why: format!("inferred from GatewayClass `{}` (`{controller}`)", o.name),
        };
    }
    if let Some(o) = objects
        .iter()
        .find(|o| o.group() == "gateway.envoyproxy.io")
    {
        return Choice {
            imp: Implementation::EnvoyGateway,
            why: format!("inferred from {} `{}` in the run", o.kind, o.name),
        };
    }
    Choice {
        imp: Implementation::Unknown,
        why: "no `platforms.gateway_api.implementation` in `.retrylint.yaml`".into(),
    }
}

fn parse(name: &str) -> Option<Implementation> {
    Some(match name {
        "istio" => Implementation::Istio,
        "envoy-gateway" => Implementation::EnvoyGateway,
        "cilium" => Implementation::Cilium,
        "gep" => Implementation::Gep,
        _ => return None,
    })
}
