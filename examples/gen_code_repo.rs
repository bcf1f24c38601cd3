//! Writes a generated application repository for `scripts/bench.sh`: one spec under
//! `api/` and FILES source files under `services/` (Python, TypeScript and Go in
//! turn, about 4 kB each), one in RETRY_EVERY of them building a retry client (urllib3
//! `Retry`, got, resty) that POSTs to the spec; the others are ordinary code that
//! mentions no retry library, the shape of a monorepo's application code.
//!
//! `cargo run --release --example gen_code_repo -- DIR [FILES] [RETRY_EVERY]`
//! (defaults 10000 and 20)

#![allow(clippy::disallowed_macros)] // output for the reader (clippy.toml)

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

const SPEC: &str = "openapi: 3.0.3\ninfo: {title: Orders, version: '1'}\nservers:\n  - url: https://orders.example.com\npaths:\n  /orders:\n    post:\n      operationId: createOrder\n      responses:\n        '201': {description: created}\n  /orders/{id}:\n    get:\n      operationId: getOrder\n      parameters:\n        - {name: id, in: path, required: true, schema: {type: string}}\n      responses:\n        '200': {description: ok}\n";

fn python(n: usize, retry: bool) -> String {
    let mut s =
        String::from("import json\nimport logging\n\nlog = logging.getLogger(__name__)\n\n");
    if retry {
        let _ = write!(
            s,
            "import requests\nfrom requests.adapters import HTTPAdapter\nfrom urllib3.util.retry import Retry\n\nsession = requests.Session()\nsession.mount(\"https://\", HTTPAdapter(max_retries=Retry(total=3, backoff_factor=0.5, allowed_methods=None)))\n\n\ndef create_order_{n}(body):\n    return session.post(\"https://orders.example.com/orders\", json=body)\n\n"
        );
    }
    for f in 0..40 {
        let _ = write!(
            s,
            "def handler_{n}_{f}(event, context=None):\n    items = [x * {f} for x in event.get(\"items\", [])]\n    if not items:\n        log.info(\"empty %s\", {f})\n        return None\n    return json.dumps({{\"total\": sum(items), \"n\": len(items)}})\n\n\n"
        );
    }
    s
}

fn typescript(n: usize, retry: bool) -> String {
    let mut s = String::from("import { readFile } from 'node:fs/promises';\n\n");
    if retry {
        let _ = write!(
            s,
            "import got from 'got';\n\nexport const client{n} = got.extend({{ prefixUrl: 'https://orders.example.com', retry: {{ limit: 2, methods: ['GET', 'POST'] }} }});\n\nexport async function createOrder{n}(body: unknown) {{\n  return client{n}.post('orders', {{ json: body }});\n}}\n\n"
        );
    }
    for f in 0..40 {
        let _ = write!(
            s,
            "export async function load{n}_{f}(path: string): Promise<number> {{\n  const text = await readFile(path, 'utf8');\n  const lines = text.split('\\n').filter((l) => l.length > {f});\n  return lines.reduce((acc, l) => acc + l.length, 0);\n}}\n\n"
        );
    }
    s
}

fn go(n: usize, retry: bool) -> String {
    let mut s = format!("package svc{n}\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n\t\"time\"\n");
    if retry {
        s.push_str("\t\"time\"\n\n\t\"github.com/go-resty/resty/v2\"\n");
    }
    s.push_str(")\n\n");
    if retry {
        let _ = write!(
            s,
            "var Client = resty.New().SetRetryCount(3).SetRetryWaitTime(500 * time.Millisecond)\n\nfunc CreateOrder(body string) error {{\n\t_, err := Client.R().SetBody(body).Post(\"https://orders.example.com/orders\")\n\treturn err\n}}\n\n"
        );
    }
    for f in 0..40 {
        let _ = write!(
            s,
            "func Join{f}(parts []string) string {{\n\tif len(parts) == 0 {{\n\t\treturn fmt.Sprint({f})\n\t}}\n\treturn strings.Join(parts, \",\")\n}}\n\n"
        );
    }
    s
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(dir) = args.first().map(PathBuf::from) else {
        eprintln!("usage: gen_code_repo DIR [FILES] [RETRY_EVERY]");
        return ExitCode::from(2);
    };
    let files: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let every: usize = args
        .get(2)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20)
        .max(1);
    let write = |path: PathBuf, text: &str| {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, text)
    };
    if let Err(e) = write(dir.join("api/openapi.yaml"), SPEC) {
        eprintln!("gen_code_repo: {e}");
        return ExitCode::from(2);
    }
    let mut with_retry = 0;
    for n in 0..files {
        let retry = n % every == 0;
        with_retry += usize::from(retry);
        let (name, text) = match n % 3 {
            0 => (format!("services/py/m{n}.py"), python(n, retry)),
            1 => (format!("services/ts/m{n}.ts"), typescript(n, retry)),
            _ => (format!("services/go/svc{n}/main.go"), go(n, retry)),
        };
        if let Err(e) = write(dir.join(name), &text) {
            eprintln!("gen_code_repo: {e}");
            return ExitCode::from(2);
        }
    }
    println!("{files} source files, {with_retry} with a retry client");
    ExitCode::SUCCESS
}
