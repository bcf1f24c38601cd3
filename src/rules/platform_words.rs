//! Help in the platform's own words: a finding located on an imported config or a
//! retry client in code names the setting of that platform to change, never a
//! retrylint policy key (`deadline: 3s`, `backoff.jitter: full`), which nobody can
//! write in an Istio `VirtualService` or a .NET handler. Policy keys stay for
//! policy files.
//!
//! One table, [`words`]: (platform, [`Setting`]) to the platform's spelling of that
//! setting; [`Setting::of_rule`] says which setting each rule's finding is about.
//! [`apply`] rewrites the help of the run's findings from it; where a platform has
//! no spelling for the setting, the help says the behaviour to get, still in no
//! policy's keys.

use super::Context;
use crate::diagnostic::Diagnostic;
use crate::policy::model::{ImportedFrom, PolicyFile};
use crate::policy::platform::Platform;
use std::collections::HashMap;
use std::path::Path;

/// What a finding asks to change, independent of how a platform spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    /// Which requests are retried after they were sent (RL201): the methods or the
    /// conditions that may resend a processed request.
    Methods,
    /// A bound on the whole operation, every attempt and wait (RL301).
    Deadline,
    /// Randomised waits between attempts (RL305).
    Jitter,
    /// Waiting at least what `Retry-After` asks (RL306).
    HonorRetryAfter,
    /// A cap on the `Retry-After` wait (RL307).
    CapRetryAfter,
    /// How long one attempt may take, within the whole bound (RL309).
    AttemptTimeout,
    /// How many attempts (RL303).
    Attempts,
    /// Retrying on a status that says the request was processed (RL308).
    ClientErrorRetry,
    /// Retrying an attempt that timed out (RL312).
    TimeoutRetry,
    /// Hedged requests of a write (RL207).
    Hedging,
    /// An inner layer's whole time within the outer layer's wait (RL313): spelled
    /// as the platform's [`Setting::Deadline`].
    InnerBound,
}

impl Setting {
    /// The setting a finding of rule `code` asks to change; `None` for a rule whose
    /// help names no retry setting.
    pub fn of_rule(code: &str) -> Option<Setting> {
        Some(match code {
            "RL201" => Setting::Methods,
            "RL301" => Setting::Deadline,
            "RL305" => Setting::Jitter,
            "RL306" => Setting::HonorRetryAfter,
            "RL307" => Setting::CapRetryAfter,
            "RL309" => Setting::AttemptTimeout,
            "RL313" => Setting::InnerBound,
            "RL303" => Setting::Attempts,
            "RL308" => Setting::ClientErrorRetry,
            "RL312" => Setting::TimeoutRetry,
            "RL207" => Setting::Hedging,
            _ => return None,
        })
    }
}

/// How `platform` spells `setting`, as an imperative help sentence in the
/// platform's own keys; `None` when retrylint knows no such setting there.
pub fn words(platform: Platform, setting: Setting) -> Option<&'static str> {
    use Platform as P;
    use Setting as S;
    Some(match (platform, setting) {
        (P::Istio, S::Methods) => "keep only `connect-failure,refused-stream,reset-before-request` in the route's `retries.retryOn` (no `5xx`, `gateway-error`, `reset` or `retriable-status-codes`), or send writes to a route without `retries`",
        (P::Istio, S::Deadline) => "set the route's `timeout:` (e.g. `timeout: 3s`): it bounds every attempt and wait",
        (P::Istio, S::Jitter) => return None,
        (P::Istio, S::AttemptTimeout) => "set `retries.perTryTimeout` below the route `timeout:` (or lower `retries.attempts`) so every attempt fits in it",
        (P::Envoy, S::Methods) => "narrow the route's `retry_on` to `connect-failure,refused-stream,reset-before-request` for routes that take writes",
        (P::Envoy, S::Deadline) => "set the route's `timeout` (e.g. `timeout: 3s`; `0s` turns it off)",
        (P::Envoy, S::HonorRetryAfter) => "add `rate_limited_retry_back_off` with `reset_headers: [{name: Retry-After, format: SECONDS}]` (Envoy does not read the HTTP-date form)",
        (P::Envoy, S::CapRetryAfter) => "set `max_interval` in the route's `rate_limited_retry_back_off`",
        (P::Envoy, S::AttemptTimeout) => "set `retry_policy.per_try_timeout` below the route `timeout` (or lower `num_retries`)",
        (P::SpringCloudGateway, S::Methods) => "set the `Retry` filter's `methods` to `GET` (the idempotent methods only)",
        (P::SpringCloudGateway, S::Jitter) => "the `Retry` filter's `backoff` has no jitter: retry fewer times, or move the retry to a client that randomises its waits",
        (P::SpringCloudGateway, S::Deadline) => "set `spring.cloud.gateway.httpclient.response-timeout` (or the route's `metadata.response-timeout`) and keep the `Retry` filter's `backoff` within it",
        (P::Resilience4j, S::Jitter) => "set `enableRandomizedWait: true` (with a `waitDuration`) in the retry instance",
        (P::Resilience4j, S::Methods) => "set `retryExceptions` / `retryOnResultPredicate` so the instance never retries a write whose request may have been processed",
        (P::Resilience4j, S::Deadline) => "bound the call with a Resilience4j `TimeLimiter` (`timeoutDuration`) around the retry, within `maxAttempts` x `waitDuration`",
        (P::Nginx, S::Methods) => "remove `non_idempotent` from `proxy_next_upstream`",
        (P::Nginx, S::Deadline) => "set `proxy_next_upstream_timeout` (e.g. `proxy_next_upstream_timeout 3s;`)",
        (P::Nginx, S::AttemptTimeout) => "set `proxy_read_timeout` below `proxy_next_upstream_timeout` (or lower `proxy_next_upstream_tries`)",
        (P::IngressNginx, S::Methods) => "set `retry-non-idempotent: \"false\"` in the controller ConfigMap (or remove `non_idempotent` from `nginx.ingress.kubernetes.io/proxy-next-upstream`)",
        (P::IngressNginx, S::Deadline) => "set `nginx.ingress.kubernetes.io/proxy-next-upstream-timeout` (seconds)",
        (P::Haproxy, S::Methods) => "keep only `conn-failure`, `empty-response` and `0rtt-rejected` in `retry-on` (no `response-timeout` or status codes) for backends that take writes",
        (P::Haproxy, S::Deadline) => "set `timeout queue` and `timeout server` so `retries` x (timeout server + `timeout connect`) stays within the caller's wait",
        (P::Traefik, S::Methods) => "add a `retry` middleware only to routers whose requests are idempotent (Traefik retries any method on a network error)",
        (P::Traefik, S::Jitter) => return None,
        (P::Kong, S::Methods) => "set the service's `retries: 0` for routes that take writes",
        (P::Kong, S::Deadline) => "set the service's `read_timeout` / `write_timeout` / `connect_timeout` (ms) so `retries` x them stays within the caller's wait",
        (P::Linkerd, S::Methods) => "set `isRetryable: false` (or remove `retry.linkerd.io/http`) on routes that take writes",
        (P::Linkerd, S::Deadline) => "set the route's `timeout` (`retry.linkerd.io/timeout`, or `timeouts.request`)",
        (P::GatewayApi, S::Methods) => "remove `retry` from the `HTTPRoute` rules that match writes, or keep `retry.codes` to statuses a processed request never returns",
        (P::GatewayApi, S::Deadline) => "set the rule's `timeouts.request` (e.g. `request: 3s`)",
        (P::GatewayApi, S::AttemptTimeout) => "set the rule's `timeouts.backendRequest` below `timeouts.request`",
        (P::EnvoyGateway, S::Methods) => "narrow the `BackendTrafficPolicy`'s `retry.retryOn.triggers` to `connect-failure` and `refused-stream` for routes that take writes",
        (P::EnvoyGateway, S::Deadline) => "set the `BackendTrafficPolicy`'s `timeout.http.requestTimeout`",
        (P::EnvoyGateway, S::AttemptTimeout) => "set `retry.perRetry.timeout` below the request timeout",
        (P::Grpc, S::Methods) => "remove the `retryPolicy` from methods that are not idempotent, or keep `retryableStatusCodes` to `UNAVAILABLE` only",
        (P::Grpc, S::Deadline) => "set the method config's `timeout` (e.g. `\"timeout\": \"3s\"`)",
        (P::AwsSdk, S::Deadline) => "set the SDK client's total call timeout (Java `apiCallTimeout`, botocore `read_timeout` and `connect_timeout` per attempt), or lower `max_attempts`",
        (P::Urllib3, S::Methods) => "set `allowed_methods` without `POST` and `PATCH` (urllib3's default `Retry.DEFAULT_ALLOWED_METHODS`)",
        (P::Urllib3, S::Jitter) => "set `backoff_jitter` on the `Retry` (urllib3 2.x)",
        (P::Urllib3, S::HonorRetryAfter) => "set `respect_retry_after_header=True` on the `Retry`",
        (P::Urllib3, S::CapRetryAfter) => "urllib3 sleeps whatever `Retry-After` asks: set `respect_retry_after_header=False`, or subclass `Retry` with a `get_retry_after` that caps it",
        (P::Urllib3, S::Deadline) => "pass a total `timeout=` to the request (`Timeout(total=...)`) and keep `total` x the backoff within it",
        (P::Tenacity, S::Jitter) => "use `wait=wait_random_exponential(...)` (or add `wait_random`)",
        (P::Tenacity, S::Deadline) => "add `stop=stop_after_delay(...)` (combined with `stop_after_attempt` by `|`)",
        (P::Tenacity, S::Methods) => "retry only on exceptions raised before the request was sent (`retry=retry_if_exception_type(ConnectError)`) for writes",
        (P::Backoff, S::Jitter) => "pass `jitter=backoff.full_jitter` to the decorator",
        (P::Backoff, S::Deadline) => "pass `max_time=` to the decorator",
        (P::AxiosRetry, S::Methods) => "set `retryCondition` to `axiosRetry.isIdempotentRequestError` (or a condition that leaves out POST and PATCH)",
        (P::AxiosRetry, S::Jitter) => "set `retryDelay: axiosRetry.exponentialDelay` (it adds up to 20% random delay)",
        (P::AxiosRetry, S::Deadline) => "set the request `timeout` with `shouldResetTimeout: false` so it bounds every attempt",
        (P::Got, S::Methods) => "set `retry.methods` without `POST` and `PATCH`",
        (P::Got, S::Deadline) => "set `timeout.request` (it bounds every attempt and wait)",
        (P::Ky, S::Methods) => "set `retry.methods` without `post` and `patch`",
        (P::Ky, S::Deadline) => "set `timeout` (it bounds each attempt) and `retry.limit` so the sum stays within the caller's wait",
        (P::HttpResilience, S::Methods) => "call `DisableForUnsafeHttpMethods()` on the retry options (or `DisableFor(HttpMethod.Post, ...)`)",
        (P::Polly, S::Methods) => "make the retry's `ShouldHandle` (v8) or `HandleResult`/`Handle` (v7) leave out requests whose method is not idempotent",
        (P::Polly, S::Deadline) => "add a timeout strategy outside the retry (`AddTimeout` before `AddRetry` in v8, `Policy.WrapAsync(timeout, retry)` in v7)",
        (P::Polly, S::AttemptTimeout) => "keep the timeout inside the retry (`AddTimeout` after `AddRetry`) below the one outside it",
        (P::Polly | P::HttpResilience, S::Jitter) => "set `UseJitter = true` on the retry options (v7: `Backoff.DecorrelatedJitterBackoffV2`)",
        (P::HttpResilience, S::Deadline) => "set `TotalRequestTimeout.Timeout` (or add a timeout strategy outside the retry)",
        (P::HttpResilience, S::AttemptTimeout) => "set `AttemptTimeout.Timeout` below `TotalRequestTimeout.Timeout`",
        (P::HttpResilience, S::HonorRetryAfter) => "keep `ShouldRetryAfterHeader = true` on the retry options",
        (P::GoRetryablehttp, S::Methods) => "set a `CheckRetry` that leaves out requests whose method is not idempotent",
        (P::GoRetryablehttp, S::Deadline) => "pass a context with a deadline (`context.WithTimeout`) to each request",
        (P::Resty, S::Deadline) => "set `SetTimeout` and keep `SetRetryCount` x `SetRetryMaxWaitTime` within the caller's wait",
        (P::Resty, S::Methods) => "add a `RetryConditionFunc` (`AddRetryCondition`) that leaves out non-idempotent methods",
        (P::SpringRetry, S::Jitter) => "set `random = true` on `@Backoff` (or use `ExponentialRandomBackOffPolicy`)",
        (P::SpringRetry, S::Deadline) => "bound the call with `RetryTemplate`'s `TimeoutRetryPolicy` (or `maxDelay` with fewer `maxAttempts`)",
        (P::Feign, S::Methods) => "throw `RetryableException` only for requests that were never sent (Feign's `Retryer` retries any method)",
        (P::ReqwestRetry, S::Jitter) => "set `.jitter(Jitter::Full)` on the `ExponentialBackoff` builder",
        (P::ReqwestRetry, S::Deadline) => "use `build_with_total_retry_duration(...)` on the `ExponentialBackoff` builder",
        (P::Backon, S::Jitter) => "call `.with_jitter()` on the backoff builder",
        (P::Backon, S::Deadline) => "call `.with_total_delay(Some(...))` on the backoff builder",
        (P::StainlessSdk, S::Deadline) => "pass `timeout=` to the client constructor (it bounds each attempt) and keep `max_retries` low",
        (P::Istio, S::Attempts) => "lower `retries.attempts` to at most {retries} retries ({tries})",
        (P::Envoy, S::Attempts) => "lower `retry_policy.num_retries` to at most {retries}",
        (P::Urllib3, S::Attempts) => "lower `total` (and `connect`/`read`/`status`) on the `Retry` to at most {retries}",
        (P::Tenacity, S::Attempts) => "use `stop=stop_after_attempt({max})` or fewer",
        (P::Backoff, S::Attempts) => "pass `max_tries={max}` or fewer to the decorator",
        (P::AxiosRetry, S::Attempts) => "set `retries` to at most {retries}",
        (P::GoRetryablehttp, S::Attempts) => "set `RetryMax` to at most {retries}",
        (P::Envoy, S::ClientErrorRetry) => "remove `409` from `retriable_status_codes` (or `retry_on: retriable-4xx`)",
        (P::Istio, S::ClientErrorRetry) => "remove `409` and `retriable-4xx` from `retries.retryOn`",
        (P::Grpc, S::Hedging) => "remove the `hedgingPolicy` from this method's config, or have the client send an idempotency key the server de-duplicates on",
        (P::HttpResilience, S::CapRetryAfter) => "set `MaxDelay` on the retry options (it caps the `Retry-After` wait too)",
        (P::Polly, S::HonorRetryAfter) => "set a `DelayGenerator` (v8) or `sleepDurationProvider` (v7) that reads `Retry-After`",
        (P::Resilience4j, S::HonorRetryAfter) => "set an `intervalBiFunction` that reads `Retry-After` from the failed response",
        (P::Got, S::CapRetryAfter) => "set `retry.maxRetryAfter` (ms) at most the request's `timeout.request`",
        (P::Ky, S::CapRetryAfter) => "set `retry.maxRetryAfter` (ms) at most the request's `timeout`",
        _ => return None,
    })
}

/// What to change where a platform has no spelling of its own for `setting` in
/// [`words`]: the behaviour to get, in no policy's keys.
fn fallback(setting: Setting) -> &'static str {
    match setting {
        Setting::Methods => "retry a write only when it carries an idempotency key the server de-duplicates on, or only on failures before the request was sent",
        Setting::Deadline => "bound the whole call (every attempt and wait) with a timeout around the retry",
        Setting::Jitter => "randomise the wait between attempts (this retry has no jitter setting: wrap its wait, or retry in a layer that has one)",
        Setting::HonorRetryAfter => "this retry does not wait for `Retry-After`: stop retrying 429 and 503 here, or retry them in a client that honours the header",
        Setting::CapRetryAfter => "cap the `Retry-After` wait at the call's time budget, or give up on a larger value",
        Setting::AttemptTimeout => "keep each attempt's timeout below the whole call's timeout",
        Setting::InnerBound => "bound this layer's retries within the outer layer's wait",
        Setting::Attempts => "lower its number of attempts to at most {max} (counting the first)",
        Setting::ClientErrorRetry => "stop retrying 409 unless the request carries an idempotency key (409 then means \"still in progress\")",
        Setting::TimeoutRetry => "retry a timed-out attempt only where repeating is safe, or let one attempt use the whole remaining time",
        Setting::Hedging => "stop hedging this write, or have the client send an idempotency key the server de-duplicates on",
    }
}

/// The help of a finding of rule `code` located on a config of `platform`: the
/// platform's own setting ([`words`]), else the behaviour to get in no policy's
/// keys, prefixed with the platform's name; `None` for a rule that names no retry
/// setting (its help stays).
///
/// `max_attempts` is the run's RL303 threshold (`thresholds.max_attempts`, attempts
/// counting the first): the attempts words say it, and the retries it leaves.
pub fn help(code: &str, platform: Platform, max_attempts: u32) -> Option<String> {
    let name = platform.display_name();
    let help = help_words(code, platform, name)?;
    Some(
        help.replace(
            "{tries}",
            &if max_attempts == 1 {
                "1 try".to_owned()
            } else {
                format!("{max_attempts} tries")
            },
        )
        .replace("{max}", &max_attempts.to_string())
        .replace("{retries}", &max_attempts.saturating_sub(1).to_string()),
    )
}

fn help_words(code: &str, platform: Platform, name: &str) -> Option<String> {
    Some(match Setting::of_rule(code)? {
        Setting::InnerBound => {
            let w = words(platform, Setting::Deadline).unwrap_or(fallback(Setting::InnerBound));
            format!("in {name}: keep this layer within the outer layer's wait: {w}; or retry in one layer only")
        }
        Setting::Methods => {
            let w = words(platform, Setting::Methods).unwrap_or(fallback(Setting::Methods));
            format!("in {name}: {w}; or have the client send an idempotency key header the server de-duplicates on")
        }
        s => format!("in {name}: {}", words(platform, s).unwrap_or(fallback(s))),
    })
}

/// Rewrites the help of each finding located on an imported config or a retry
/// client in code (an imported policy's file holds its primary location) in that
/// platform's words. A file read by two importers (a Spring file with both
/// Resilience4j and a gateway `Retry` filter) takes the policy whose object holds
/// the location.
pub fn apply(ctx: &Context<'_>, mut found: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let imported: Vec<(&PolicyFile, &ImportedFrom)> = ctx
        .analysis
        .policies
        .iter()
        .filter_map(|p| Some((p, p.imported.as_ref()?)))
        .collect();
    if imported.is_empty() {
        return found;
    }
    // The imported objects of each file, in their order: a run of many clients has
    // as many objects and findings, and each finding looks only at its file's.
    let mut by_file: HashMap<&Path, Vec<&(&PolicyFile, &ImportedFrom)>> = HashMap::new();
    for i in &imported {
        by_file.entry(&i.0.doc.file.path).or_default().push(i);
    }
    for d in &mut found {
        let l = &d.primary.location;
        let here: &[&(&PolicyFile, &ImportedFrom)] = by_file
            .get(l.file.path.as_path())
            .map_or(&[], Vec::as_slice);
        let span = |p: &PolicyFile| p.at.value_location().span;
        let holds = |p: &PolicyFile| {
            let s = span(p);
            s.start <= l.span.start && l.span.end <= s.end
        };
        let platform = match here {
            [] => continue,
            [(_, i)] => i.platform,
            many => {
                let chosen = many
                    .iter()
                    .filter(|(p, _)| holds(p))
                    .min_by_key(|(p, _)| span(p).len())
                    .unwrap_or(&many[0]);
                chosen.1.platform
            }
        };
        if let Some(h) = help(d.code, platform, ctx.thresholds.max_attempts) {
            d.help = Some(crate::diagnostic::shared_text(h));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Policy keys that no platform's config can spell.
    const POLICY_KEYS: [&str; 6] = [
        "`deadline",
        "backoff.jitter",
        "`attempt_timeout",
        "`retry_after",
        "idempotency_key",
        "`methods:",
    ];

    #[test]
    fn no_platform_help_names_a_policy_key() {
        let settings = [
            Setting::Methods,
            Setting::Deadline,
            Setting::Jitter,
            Setting::HonorRetryAfter,
            Setting::CapRetryAfter,
            Setting::AttemptTimeout,
            Setting::InnerBound,
            Setting::Attempts,
            Setting::ClientErrorRetry,
            Setting::TimeoutRetry,
            Setting::Hedging,
        ];
        let mut n = 0;
        for p in PLATFORMS {
            for s in settings {
                for w in words(p, s).into_iter().chain([fallback(s)]) {
                    n += 1;
                    for k in POLICY_KEYS {
                        assert!(!w.contains(k), "{p:?} {s:?}: {w}");
                    }
                }
            }
        }
        assert!(n > 50, "{n}");
    }

    #[test]
    fn the_main_platforms_spell_their_settings() {
        let h = |c, p| help(c, p, 5).unwrap_or_default();
        assert!(h("RL301", Platform::Istio).contains("`timeout:`"));
        assert!(h("RL309", Platform::Istio).contains("`retries.perTryTimeout`"));
        assert!(h("RL313", Platform::Istio).contains("`timeout:`"));
        assert!(h("RL201", Platform::Istio).contains("`retries.retryOn`"));
        assert!(h("RL201", Platform::Envoy).contains("`retry_on`"));
        assert!(h("RL306", Platform::Envoy).contains("`rate_limited_retry_back_off`"));
        assert!(h("RL201", Platform::SpringCloudGateway).contains("`methods`"));
        assert!(h("RL305", Platform::Resilience4j).contains("`enableRandomizedWait: true`"));
        assert!(h("RL201", Platform::HttpResilience).contains("`DisableForUnsafeHttpMethods()`"));
        assert!(!h("RL201", Platform::Polly).contains("DisableForUnsafeHttpMethods"));
        assert!(h("RL201", Platform::Nginx).contains("`proxy_next_upstream`"));
        assert!(h("RL301", Platform::Nginx).contains("`proxy_next_upstream_timeout`"));
        assert!(h("RL201", Platform::Urllib3).contains("`allowed_methods`"));
        assert!(h("RL305", Platform::Urllib3).contains("`backoff_jitter`"));
        assert!(h("RL201", Platform::AxiosRetry).contains("`retryCondition`"));
        assert_eq!(help("RL101", Platform::Istio, 5), None);
    }

    const PLATFORMS: [Platform; 32] = [
        Platform::Istio,
        Platform::Envoy,
        Platform::GatewayApi,
        Platform::EnvoyGateway,
        Platform::Linkerd,
        Platform::Nginx,
        Platform::IngressNginx,
        Platform::Haproxy,
        Platform::Traefik,
        Platform::Kong,
        Platform::Grpc,
        Platform::Resilience4j,
        Platform::SpringCloudGateway,
        Platform::AwsSdk,
        Platform::Urllib3,
        Platform::Tenacity,
        Platform::Backoff,
        Platform::AiohttpRetry,
        Platform::AxiosRetry,
        Platform::Got,
        Platform::Ky,
        Platform::Ofetch,
        Platform::OctokitRetry,
        Platform::Polly,
        Platform::HttpResilience,
        Platform::GoRetryablehttp,
        Platform::Resty,
        Platform::SpringRetry,
        Platform::Feign,
        Platform::ReqwestRetry,
        Platform::Backon,
        Platform::StainlessSdk,
    ];
}
