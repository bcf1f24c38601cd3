//! The Python extractor on small sources: values, defaults and counting per library.

use super::super::model::{CodeFacts, Known, Url};
use super::super::{parse, CodeFile, Language};
use crate::policy::model::{Jitter, Signal};
use crate::source::loader::{Limits, Workspace};
use std::path::{Path, PathBuf};

fn facts(src: &str) -> CodeFacts {
    let ws = Workspace::new(PathBuf::from("/"), Limits::default());
    let doc = ws.load_text(Path::new("/t/client.py"), src);
    let parse::Parsed::Tree(tree) = parse::parse(Language::Python, src) else {
        panic!("parses");
    };
    super::extract(&CodeFile {
        doc: &doc,
        text: src,
        language: Language::Python,
        tree: &tree,
        boundary: &crate::source::boundary::ReadBoundary::unbounded(),
    })
}

#[test]
fn urllib3_counts_retries_and_reads_constants() {
    let f = facts(
        "from urllib3.util.retry import Retry\nN = 2 + 1\nCODES = (500, # a\n 503)\nr = Retry(total=N, status_forcelist=CODES, allowed_methods=False, backoff_factor=0.5)\n",
    );
    let c = &f.clients[0];
    assert_eq!(c.attempts.as_ref().unwrap().value, 4);
    assert_eq!(c.attempts.as_ref().unwrap().known, Known::Literal);
    assert!(c.methods.is_none(), "allowed_methods=False: every method");
    let on = &c.retry_on.as_ref().unwrap().value;
    assert!(on.contains(&Signal::Status(500)) && on.contains(&Signal::Status(503)));
    assert_eq!(c.backoff.base.as_ref().unwrap().value, 500.0);
    assert_eq!(c.names[0].0, "r");
}

#[test]
fn urllib3_defaults_and_unknowns() {
    let f = facts("from urllib3 import Retry\ndef f(n):\n    return Retry(total=n, read=False)\n");
    let c = &f.clients[0];
    assert!(matches!(
        c.attempts.as_ref().unwrap().known,
        Known::Assumed { .. }
    ));
    assert_eq!(c.attempts.as_ref().unwrap().value, 11);
    let on = &c.retry_on.as_ref().unwrap().value;
    assert!(on.contains(&Signal::ConnectFailure) && !on.contains(&Signal::Timeout));
    assert_eq!(c.methods.as_ref().unwrap().value.len(), 6);
    assert_eq!(c.backoff.jitter.as_ref().unwrap().value, Jitter::None);
}

#[test]
fn adapter_int_and_mount_name_the_session() {
    let f = facts(
        "import requests\nfrom requests.adapters import HTTPAdapter\ns = requests.Session()\ns.mount('https://api.example.com/', HTTPAdapter(max_retries=3))\ns.post('/orders')\n",
    );
    let c = &f.clients[0];
    assert_eq!(c.attempts.as_ref().unwrap().value, 4);
    let names: Vec<&str> = c.names.iter().map(|(n, _)| n.as_str()).collect();
    assert!(
        names.contains(&"s") && names.contains(&"api.example.com"),
        "{names:?}"
    );
    assert_eq!(f.calls[0].url, Url::Literal("/orders".into()));
}

#[test]
fn tenacity_stop_wait_and_forever() {
    let f = facts(
        "import tenacity\nfrom tenacity import *\n@retry(stop=stop_after_attempt(4) | stop_after_delay(timedelta(seconds=30)), wait=wait_fixed(1) + wait_random(0, 2))\ndef a():\n    pass\n@retry\ndef b():\n    pass\n",
    );
    let a = &f.clients[0];
    assert_eq!(a.attempts.as_ref().unwrap().value, 4);
    assert_eq!(a.deadline.as_ref().unwrap().value, 30_000.0);
    assert_eq!(a.backoff.base.as_ref().unwrap().value, 1000.0);
    assert_ne!(a.backoff.jitter.as_ref().unwrap().value, Jitter::None);
    let b = &f.clients[1];
    assert_eq!(b.attempts.as_ref().unwrap().value, super::tenacity::FOREVER);
    assert!(matches!(
        b.attempts.as_ref().unwrap().known,
        Known::Default(_)
    ));
    assert!(b.deadline.is_none() && b.methods.is_none());
}

#[test]
fn tenacity_retrying_loop_and_regenerated_key() {
    let f = facts(
        "import uuid, requests\nfrom tenacity import Retrying, stop_after_attempt\nfor attempt in Retrying(stop=stop_after_attempt(3)):\n    with attempt:\n        key = uuid.uuid4().hex\n        requests.post(f'{BASE}/orders/{oid}/pay', headers={'Idempotency-Key': key})\n",
    );
    let c = &f.clients[0];
    assert_eq!(c.calls.len(), 1);
    assert_eq!(c.calls[0].url, Url::Template("{}/orders/{}/pay".into()));
    assert_eq!(c.calls[0].headers, ["idempotency-key"]);
    assert_eq!(c.findings.len(), 1);
    assert_eq!(c.findings[0].code, "RL208");
}

#[test]
fn backoff_reads_generator_keywords_and_jitter() {
    let f = facts(
        "import backoff, requests\n@backoff.on_exception(backoff.expo, requests.exceptions.Timeout, max_tries=3, max_time=60, factor=0.5, max_value=8, jitter=None)\ndef a():\n    pass\n",
    );
    let c = &f.clients[0];
    assert_eq!(c.attempts.as_ref().unwrap().value, 3);
    assert_eq!(c.deadline.as_ref().unwrap().value, 60_000.0);
    assert_eq!(c.backoff.base.as_ref().unwrap().value, 500.0);
    assert_eq!(c.backoff.cap.as_ref().unwrap().value, 8000.0);
    assert_eq!(c.backoff.jitter.as_ref().unwrap().value, Jitter::None);
    assert_eq!(c.retry_on.as_ref().unwrap().value, [Signal::Timeout]);
}

#[test]
fn aiohttp_retry_defaults_include_post() {
    let f = facts(
        "from aiohttp_retry import RetryClient, ExponentialRetry\nopts = ExponentialRetry()\nclient = RetryClient(retry_options=opts)\n",
    );
    let c = &f.clients[0];
    assert_eq!(c.attempts.as_ref().unwrap().value, 3);
    assert!(c
        .methods
        .as_ref()
        .unwrap()
        .value
        .contains(&"POST".to_string()));
    let names: Vec<&str> = c.names.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["opts", "client"]);
}

#[test]
fn half_typed_and_deep_code_does_not_panic() {
    let deep = format!(
        "from urllib3 import Retry\nr = Retry(total={}1{})\n",
        "(".repeat(5000),
        ")".repeat(5000)
    );
    let _ = facts(&deep);
    let _ = facts(
        "from tenacity import retry\n@retry(stop=stop_after_attempt(\ndef f(:\n  requests.post(",
    );
    let sum = format!(
        "from urllib3 import Retry\nr = Retry(total={})\n",
        vec!["1"; 3000].join(" + ")
    );
    let _ = facts(&sum);
}

#[test]
fn stainless_constructor_defaults() {
    let f = facts("from openai import OpenAI\nclient = OpenAI()\nother = OpenAI(max_retries=0)\n");
    assert_eq!(f.clients[0].attempts.as_ref().unwrap().value, 3);
    assert!(f.clients[0].methods.is_none(), "every method");
    assert_eq!(f.clients[1].attempts.as_ref().unwrap().value, 1);
}

#[test]
fn mount_prefixes_are_kept_when_literal() {
    let f = facts(
        "import requests\nfrom requests.adapters import HTTPAdapter\ns = requests.Session()\ns.mount('https://', HTTPAdapter(max_retries=3))\n",
    );
    let p: Vec<&str> = f.clients[0]
        .url_prefixes
        .iter()
        .map(|(p, _)| p.as_str())
        .collect();
    assert_eq!(p, ["https://"]);
    let f = facts(
        "import requests\nfrom requests.adapters import HTTPAdapter\ns = requests.Session()\na = HTTPAdapter(max_retries=3)\ns.mount('https://', a)\ns.mount(SCHEME, a)\n",
    );
    assert!(
        f.clients[0].url_prefixes.is_empty(),
        "a prefix not known: every URL"
    );
}

#[test]
fn a_tenacity_decorator_in_a_variable() {
    // Used in its own file: one client, the decorated function's.
    let f = facts(
        "import requests\nfrom tenacity import retry, stop_after_attempt\napi_retry = retry(stop=stop_after_attempt(3))\n\n@api_retry\ndef cancel(i):\n    return requests.post('/orders/' + i + '/cancel')\n",
    );
    assert_eq!(f.clients.len(), 1);
    let c = &f.clients[0];
    assert_eq!(c.attempts.as_ref().unwrap().value, 3);
    assert_eq!(c.names[0].0, "cancel");
    assert_eq!(c.calls.len(), 1);
    // Defined only: a client named by its variable, for the files importing it.
    let f = facts("from tenacity import retry, stop_after_attempt\napi_retry = retry(stop=stop_after_attempt(3))\n");
    assert_eq!(f.clients.len(), 1);
    assert_eq!(f.clients[0].names[0].0, "api_retry");
    // Another library's `retry` is not tenacity's.
    let f = facts("from retrying import retry\napi_retry = retry(stop_max_attempt_number=3)\n");
    assert!(f.clients.is_empty());
}

#[test]
fn a_function_decorated_by_an_imported_name_calls_through_it() {
    let f = facts(
        "import requests\nfrom app.retry_config import api_retry\n\n@api_retry\ndef refund(i):\n    return requests.post('/orders/' + i + '/refund')\n",
    );
    let receivers: Vec<&str> = f.calls.iter().map(|c| c.receiver.as_str()).collect();
    assert!(receivers.contains(&"api_retry"), "{receivers:?}");
}

#[test]
fn raise_for_status_under_any_exception_retries_4xx() {
    let f = facts(
        "import requests\nfrom tenacity import retry\n\n@retry\ndef create(o):\n    r = requests.post('/orders', json=o)\n    r.raise_for_status()\n",
    );
    assert!(f.clients[0]
        .retry_on
        .as_ref()
        .unwrap()
        .value
        .contains(&Signal::Class(4)));
    let f = facts(
        "import requests\nfrom tenacity import retry\n\n@retry\ndef create(o):\n    return requests.post('/orders', json=o)\n",
    );
    assert!(!f.clients[0]
        .retry_on
        .as_ref()
        .unwrap()
        .value
        .contains(&Signal::Class(4)));
}

#[test]
fn a_plain_session_of_its_own_class_is_no_linkable_receiver() {
    let f = facts(
        "from requests import Session\nclass Mail:\n    def __init__(self):\n        self.session = None\n    def open(self):\n        self.session = Session()\n    def send(self, m):\n        return self.session.post('/mail', data=m)\n",
    );
    assert!(f.calls.is_empty(), "{:?}", f.calls);
    // A session attribute assigned something else may be a retry session.
    let f = facts(
        "class Mail:\n    def open(self):\n        self.session = make_session()\n    def send(self, m):\n        return self.session.post('/mail', data=m)\n",
    );
    assert_eq!(f.calls.len(), 1);
}
