//! Java exception classes named in Resilience4j `retryExceptions`/`ignoreExceptions`
//! mapped onto retrylint signals (`retry-configs.md` §7.1, §12 row Resilience4j;
//! case README Q22).
//!
//! A Resilience4j retry wraps a Java method, so HTTP outcomes are visible only as the
//! exceptions the HTTP client throws: Spring's `RestTemplate`/`RestClient`
//! (`ResourceAccessException` around every I/O error, `HttpServerErrorException` and
//! `HttpClientErrorException` with one nested class per status), `WebClient`
//! (`WebClientRequestException`, `WebClientResponseException`), OpenFeign
//! (`RetryableException`, `FeignException` and its nested classes) and the JDK
//! (`IOException`, `ConnectException`, `SocketTimeoutException`, `TimeoutException`).
//! Resilience4j matches a class and its subclasses (`isAssignableFrom`), so a
//! superclass stands for every signal of its subclasses. Application exceptions map
//! to no signal.

use crate::policy::model::Signal;

/// What one exception class stands for.
#[derive(Debug, Clone, PartialEq)]
pub enum Mapped {
    /// These signals.
    Signals(Vec<Signal>),
    /// Every failure (`Exception`, `Throwable`, `RestClientException`,
    /// `FeignException`): [`any_exception`].
    Any,
    /// An exception retrylint cannot relate to a request outcome (an application or
    /// programming error, `CallNotPermittedException`): no signal.
    Unmapped,
}

/// The signals "any exception" stands for: a connection that failed, a response that
/// did not come in time, a connection lost after sending, and every 4xx and 5xx
/// response (Spring's clients raise an exception for each; `retry-configs.md` §7.1:
/// no lists and no predicate retry every exception).
pub fn any_exception() -> Vec<Signal> {
    vec![
        Signal::ConnectFailure,
        Signal::Timeout,
        Signal::Reset,
        Signal::Class(4),
        Signal::Class(5),
    ]
}

const IO: [Signal; 3] = [Signal::ConnectFailure, Signal::Reset, Signal::Timeout];

/// Nested status classes of Spring's `HttpServerErrorException`,
/// `HttpClientErrorException`, `WebClientResponseException` and OpenFeign's
/// `FeignException` (`HttpServerErrorException.ServiceUnavailable`, written with `.`
/// or `$`).
const STATUS_CLASSES: &[(&str, u16)] = &[
    ("BadRequest", 400),
    ("Unauthorized", 401),
    ("Forbidden", 403),
    ("NotFound", 404),
    ("MethodNotAllowed", 405),
    ("NotAcceptable", 406),
    ("Conflict", 409),
    ("Gone", 410),
    ("UnsupportedMediaType", 415),
    ("UnprocessableEntity", 422),
    ("UnprocessableContent", 422),
    ("TooManyRequests", 429),
    ("InternalServerError", 500),
    ("NotImplemented", 501),
    ("BadGateway", 502),
    ("ServiceUnavailable", 503),
    ("GatewayTimeout", 504),
    ("HttpVersionNotSupported", 505),
    ("VariantAlsoNegotiates", 506),
    ("InsufficientStorage", 507),
    ("LoopDetected", 508),
    ("BandwidthLimitExceeded", 509),
    ("NotExtended", 510),
    ("NetworkAuthenticationRequired", 511),
];

/// The signals a fully qualified (or simple) Java class name stands for.
pub fn map(class: &str) -> Mapped {
    let class = class.trim();
    // `Outer$Inner` and `Outer.Inner`: the last two simple names.
    let parts: Vec<&str> = class.split(['.', '$']).filter(|s| !s.is_empty()).collect();
    let Some(&last) = parts.last() else {
        return Mapped::Unmapped;
    };
    let outer = parts
        .len()
        .checked_sub(2)
        .map(|i| parts[i])
        .filter(|p| p.chars().next().is_some_and(char::is_uppercase));
    if let Some(outer) = outer {
        if matches!(
            outer,
            "HttpServerErrorException"
                | "HttpClientErrorException"
                | "WebClientResponseException"
                | "FeignException"
        ) {
            if let Some(&(_, code)) = STATUS_CLASSES.iter().find(|(n, _)| *n == last) {
                return Mapped::Signals(vec![Signal::Status(code)]);
            }
            return match last {
                "FeignServerException" => Mapped::Signals(vec![Signal::Class(5)]),
                "FeignClientException" => Mapped::Signals(vec![Signal::Class(4)]),
                _ => Mapped::Unmapped,
            };
        }
    }
    match last {
        "Throwable"
        | "Exception"
        | "RuntimeException"
        | "RestClientException"
        | "FeignException"
        | "WebClientException" => Mapped::Any,
        "ConnectException"
        | "UnknownHostException"
        | "NoRouteToHostException"
        | "PortUnreachableException"
        | "HttpHostConnectException"
        | "ConnectTimeoutException"
        | "HttpConnectTimeoutException"
        | "ConnectionClosedBeforeSendException" => Mapped::Signals(vec![Signal::ConnectFailure]),
        "SocketTimeoutException"
        | "TimeoutException"
        | "ReadTimeoutException"
        | "HttpTimeoutException"
        | "InterruptedIOException"
        | "WriteTimeoutException" => Mapped::Signals(vec![Signal::Timeout]),
        // A SocketException is a reset, a broken pipe, or (subclass) a refused
        // connection.
        "SocketException"
        | "ClosedChannelException"
        | "EOFException"
        | "PrematureCloseException" => Mapped::Signals(vec![Signal::ConnectFailure, Signal::Reset]),
        // Every I/O failure: before sending, after sending, no response in time.
        "IOException"
        | "UncheckedIOException"
        | "ResourceAccessException"
        | "WebClientRequestException"
        | "RetryableException" => Mapped::Signals(IO.to_vec()),
        "HttpServerErrorException" | "FeignServerException" => {
            Mapped::Signals(vec![Signal::Class(5)])
        }
        "HttpClientErrorException" | "FeignClientException" => {
            Mapped::Signals(vec![Signal::Class(4)])
        }
        "HttpStatusCodeException"
        | "RestClientResponseException"
        | "WebClientResponseException" => Mapped::Signals(vec![Signal::Class(4), Signal::Class(5)]),
        _ => Mapped::Unmapped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes() {
        assert_eq!(
            map("org.springframework.web.client.HttpServerErrorException"),
            Mapped::Signals(vec![Signal::Class(5)])
        );
        assert_eq!(
            map("org.springframework.web.client.HttpServerErrorException$ServiceUnavailable"),
            Mapped::Signals(vec![Signal::Status(503)])
        );
        assert_eq!(
            map("org.springframework.web.client.HttpServerErrorException.ServiceUnavailable"),
            Mapped::Signals(vec![Signal::Status(503)])
        );
        assert_eq!(map("java.io.IOException"), Mapped::Signals(IO.to_vec()));
        assert_eq!(
            map("java.net.ConnectException"),
            Mapped::Signals(vec![Signal::ConnectFailure])
        );
        assert_eq!(
            map("java.util.concurrent.TimeoutException"),
            Mapped::Signals(vec![Signal::Timeout])
        );
        assert_eq!(map("java.lang.Exception"), Mapped::Any);
        assert_eq!(
            map("io.github.robwin.exception.BusinessException"),
            Mapped::Unmapped
        );
        assert_eq!(map("java.lang.NullPointerException"), Mapped::Unmapped);
        assert_eq!(map(""), Mapped::Unmapped);
    }
}
