//! The platform a retry config or a retry client in code comes from. It lives with the
//! policy model so that an imported policy can say where it came from
//! ([`super::model::ImportedFrom::platform`]); `crate::import` re-exports it.

/// The platform a config object comes from; names the layer in messages and
/// `retrylint layers`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Platform {
    /// Istio (`VirtualService`, mesh config).
    Istio,
    /// Envoy (bootstrap, route configuration, listener, config dump).
    Envoy,
    /// Kubernetes Gateway API (`HTTPRoute`, `GRPCRoute`).
    GatewayApi,
    /// Envoy Gateway (`BackendTrafficPolicy`).
    EnvoyGateway,
    /// Linkerd (route annotations, `ServiceProfile`).
    Linkerd,
    /// NGINX (`proxy_next_upstream`).
    Nginx,
    /// ingress-nginx (`Ingress` annotations, controller ConfigMap).
    IngressNginx,
    /// HAProxy (`retries`, `retry-on`).
    Haproxy,
    /// Traefik (`retry` middleware).
    Traefik,
    /// Kong (declarative config).
    Kong,
    /// gRPC (a service config's `methodConfig`, gRFC A6).
    Grpc,
    /// Resilience4j (`resilience4j.retry.*` in Spring files).
    Resilience4j,
    /// Spring Cloud Gateway (the `Retry` filter).
    SpringCloudGateway,
    /// AWS SDK (shared config `max_attempts`, `retry_mode`).
    AwsSdk,
    // Retry libraries read from application code (`code`).
    /// urllib3 `Retry` (also through requests `HTTPAdapter`).
    Urllib3,
    /// tenacity (`@retry`, `Retrying`).
    Tenacity,
    /// backoff (`@backoff.on_exception`, `on_predicate`).
    Backoff,
    /// aiohttp-retry (`RetryClient`, `ExponentialRetry`).
    AiohttpRetry,
    /// axios-retry (`axiosRetry(instance, {...})`).
    AxiosRetry,
    /// got (`retry` options, `got.extend`).
    Got,
    /// ky (`retry` options).
    Ky,
    /// ofetch (`$fetch.create({retry})`).
    Ofetch,
    /// @octokit/plugin-retry.
    OctokitRetry,
    /// Polly v7 policies and v8 pipelines.
    Polly,
    /// Microsoft.Extensions.Http.Resilience (`AddStandardResilienceHandler`).
    HttpResilience,
    /// hashicorp/go-retryablehttp.
    GoRetryablehttp,
    /// go-resty (v2, v3).
    Resty,
    /// Spring Retry and Spring Framework 7 `@Retryable`.
    SpringRetry,
    /// OpenFeign `Retryer`.
    Feign,
    /// reqwest-retry (`RetryTransientMiddleware`).
    ReqwestRetry,
    /// backon (`.retry(ExponentialBuilder...)`).
    Backon,
    /// A Stainless-generated SDK's own retry loop (`OpenAI(max_retries=...)`,
    /// `Anthropic(...)`): the constructor with the SDK's known defaults.
    StainlessSdk,
}

impl Platform {
    /// True for a retry library read from application code (`code`).
    pub fn is_code(self) -> bool {
        matches!(
            self,
            Platform::Urllib3
                | Platform::Tenacity
                | Platform::Backoff
                | Platform::AiohttpRetry
                | Platform::AxiosRetry
                | Platform::Got
                | Platform::Ky
                | Platform::Ofetch
                | Platform::OctokitRetry
                | Platform::Polly
                | Platform::HttpResilience
                | Platform::GoRetryablehttp
                | Platform::Resty
                | Platform::SpringRetry
                | Platform::Feign
                | Platform::ReqwestRetry
                | Platform::Backon
                | Platform::StainlessSdk
        )
    }

    /// The name used in messages: `Istio`, `Envoy`, `Gateway API`, ...
    pub fn display_name(self) -> &'static str {
        match self {
            Platform::Istio => "Istio",
            Platform::Envoy => "Envoy",
            Platform::GatewayApi => "Gateway API",
            Platform::EnvoyGateway => "Envoy Gateway",
            Platform::Linkerd => "Linkerd",
            Platform::Nginx => "NGINX",
            Platform::IngressNginx => "ingress-nginx",
            Platform::Haproxy => "HAProxy",
            Platform::Traefik => "Traefik",
            Platform::Kong => "Kong",
            Platform::Grpc => "gRPC",
            Platform::Resilience4j => "Resilience4j",
            Platform::SpringCloudGateway => "Spring Cloud Gateway",
            Platform::AwsSdk => "AWS SDK",
            Platform::Urllib3 => "urllib3",
            Platform::Tenacity => "tenacity",
            Platform::Backoff => "backoff",
            Platform::AiohttpRetry => "aiohttp-retry",
            Platform::AxiosRetry => "axios-retry",
            Platform::Got => "got",
            Platform::Ky => "ky",
            Platform::Ofetch => "ofetch",
            Platform::OctokitRetry => "Octokit plugin-retry",
            Platform::Polly => "Polly",
            Platform::HttpResilience => "Microsoft.Extensions.Http.Resilience",
            Platform::GoRetryablehttp => "go-retryablehttp",
            Platform::Resty => "resty",
            Platform::SpringRetry => "Spring Retry",
            Platform::Feign => "Feign",
            Platform::ReqwestRetry => "reqwest-retry",
            Platform::Backon => "backon",
            Platform::StainlessSdk => "Stainless SDK",
        }
    }
}
