//! Command-line definitions (clap) only; no logic.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Static retry-policy linter and contract checker for HTTP APIs.
///
/// Reads OpenAPI documents (Swagger 2.0, OpenAPI 3.0 and 3.1; YAML or JSON),
/// retry-policy files, the retry configs of proxies, meshes and clients (Istio, Envoy,
/// NGINX, gRPC, Resilience4j, ...) and retry clients in source code (urllib3,
/// axios-retry, resty, Polly, ...), joins them operation by operation, and reports
/// retries that can duplicate a write, stampede a recovering upstream, or wait past a
/// deadline.
///
/// Exit codes: 0 no finding at or above --fail-on; 1 findings; 2 could not lint (a
/// file could not be read or parsed, or the command line is wrong).
#[derive(Debug, Parser)]
#[command(name = "retrylint", version, max_term_width = 100)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Lint OpenAPI documents, retry policies, retry configs and retry clients in
    /// source code (directories are walked, honouring .gitignore).
    Check(CheckArgs),
    /// List every rule: code, name, default severity, readiness question.
    Rules(RulesArgs),
    /// Per-endpoint readiness matrix: the four answers and a verdict for every operation.
    Readiness(ReadinessArgs),
    /// Show one rule's documentation (by code or name): `retrylint rule RL201`.
    Rule(RuleArgs),
    /// Ask the reference retry decision function what to do after a failed attempt.
    Plan(Box<PlanArgs>),
    /// Simulate N clients retrying through an outage under an operation's policy (or
    /// the chain of its layers: client -> gateway -> mesh).
    Simulate(SimulateArgs),
    /// Print the v1 retry policy retrylint reads from retry configs (Istio, Envoy,
    /// Gateway API, Linkerd, NGINX, HAProxy, Traefik, Kong, gRPC, Spring, AWS) and
    /// retry clients in source code (urllib3, tenacity, axios-retry, resty, Polly,
    /// ...), each value commented with its source line: `retrylint import
    /// virtual-service.yaml`, `retrylint import app/client.py`.
    Import(ImportArgs),
    /// Write a starter retry policy for the operations of a spec: what the spec and
    /// its retry configs answer, every open readiness question as `todo` (RL018):
    /// `retrylint init openapi.yaml`.
    Init(InitArgs),
    /// Show every layer that retries one operation (client, gateways, mesh), each
    /// effective value with its origin, and the composed worst case:
    /// `retrylint layers 'POST /payments' fixtures/examples/layers`.
    Layers(LayersArgs),
    /// Write one self-contained HTML page: summary counts, the readiness matrix with
    /// filters, each finding with its source, each operation's layers, and the
    /// simulated retry load of the riskiest operations:
    /// `retrylint report --format html fixtures/examples/shop -o report.html`.
    Report(ReportArgs),
    /// What got worse in a change: retry-contract regressions and new findings between
    /// two trees (`retrylint diff BASE HEAD`) or since a git revision (`retrylint diff
    /// --base main`).
    Diff(DiffArgs),
    /// Print the JSON Schema of the retry-policy format (for editors).
    Schema,
    /// Language server (LSP over standard input/output): `check`'s findings in the
    /// editor as you type, with hover, completion, go to definition and quick fixes.
    Lsp,
    /// Print a shell completion script: `retrylint completions bash > ...`.
    Completions(CompletionsArgs),
    /// Run a real client against a loopback fault server and judge what it does on
    /// the wire (Retry-After, herd spread, duplicate writes, keys, deadlines):
    /// `retrylint probe fixtures/examples/shop --operation 'POST /orders' -- ./client.sh`.
    Probe(Box<ProbeArgs>),
}

/// Output formats of `probe`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProbeFormat {
    /// A timeline per scenario, its findings (expected vs observed), the observed
    /// policy.
    Human,
    /// The whole run: journals, findings, observed policy (stable field names).
    Json,
    /// JUnit XML: a test case per finding, one per clean scenario.
    Junit,
}

/// Arguments of `probe`.
#[derive(Debug, Args)]
#[command(
    after_help = "The client gets the base URL of the fault server as `{base_url}` in its arguments \
and in RETRYLINT_BASE_URL. Each scenario gets its own loopback port per client copy and runs \
concurrently with the others; every run is bounded by --time-limit.\n\n\
Exit codes: 0 no finding at or above --fail-on; 1 findings; 2 the command line, the files or \
the client could not be used (a client that never connected: did it read RETRYLINT_BASE_URL?).\n\n\
Example:\n  retrylint probe fixtures/examples/shop --operation 'POST /orders' --scenario post-503 \\\n    -- curl -sS --retry 3 -X POST -d '{}' -o out.json '{base_url}/orders'"
)]
pub struct ProbeArgs {
    /// Files or directories: specs, policies, retry configs (the same loading as
    /// `check`). None: no policy, the safety checks alone.
    pub paths: Vec<PathBuf>,
    /// A retry-policy file, whatever its name (repeatable).
    #[arg(long = "policy", value_name = "FILE")]
    pub policies: Vec<PathBuf>,
    /// The operation: an operationId or `METHOD /path` (`'POST /orders'`).
    #[arg(long, value_name = "SELECTOR")]
    pub operation: String,
    /// Run this scenario (repeatable): a built-in or one from --scenarios.
    #[arg(long = "scenario", value_name = "NAME", conflicts_with = "all")]
    pub scenario: Vec<String>,
    /// Run every scenario (the default when no --scenario is given).
    #[arg(long)]
    pub all: bool,
    /// A YAML scenario file (`scenarios: [...]`); its scenarios join the built-ins.
    #[arg(long = "scenarios", value_name = "FILE")]
    pub scenario_file: Option<PathBuf>,
    /// Copies of the client in the herd scenario (storm-503) [default: 8].
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u16).range(1..=64))]
    pub herd: Option<u16>,
    /// The deadline when the policy has none (`10s`); without either, the deadline
    /// check is skipped and the report says so.
    #[arg(long, value_name = "DURATION")]
    pub deadline: Option<String>,
    /// The longest wait for one Retry-After worth waiting when the policy sets no
    /// `retry_after.max` and no deadline [default: 5s].
    #[arg(long, value_name = "DURATION")]
    pub wait_bound: Option<String>,
    /// Time allowed past a bound before it counts as overrun [default: 1s].
    #[arg(long, value_name = "DURATION")]
    pub grace: Option<String>,
    /// Tolerance of each timing comparison [default: 50ms].
    #[arg(long, value_name = "DURATION")]
    pub epsilon: Option<String>,
    /// Hard limit of one scenario [default: 60s].
    #[arg(long, value_name = "DURATION")]
    pub time_limit: Option<String>,
    /// Bind the fault server to this address instead of 127.0.0.1 (explicit only).
    #[arg(long, value_name = "IP")]
    pub bind: Option<std::net::IpAddr>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ProbeFormat::Human)]
    pub format: ProbeFormat,
    /// Lowest severity that fails the run (exit 1) [default: the configuration's
    /// `fail_on`, else error].
    #[arg(long, value_enum)]
    pub fail_on: Option<FailOn>,
    /// Write the observed policy (v1 YAML) to this file.
    #[arg(long, value_name = "FILE")]
    pub observed_policy: Option<PathBuf>,
    /// Project root that bounds `$ref`s.
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Configuration file [default: `.retrylint.yaml` found as `check` finds it].
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The client command and its arguments (after `--`); `{base_url}` is replaced.
    #[arg(last = true, required = true, value_name = "CLIENT")]
    pub client: Vec<String>,
}

/// Arguments of `completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Output formats of `check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Annotated source excerpts for people; paths relative to the current directory.
    Human,
    /// `{"version": 1, "diagnostics": [...]}` for machines; paths relative to the
    /// current directory.
    Json,
    /// SARIF 2.1.0 (GitHub code scanning); percent-encoded URIs relative to the project
    /// root; within GitHub's upload limits.
    Sarif,
    /// GitHub Actions workflow commands (`::error file=...::message`); paths relative
    /// to `GITHUB_WORKSPACE` when set, else the project root.
    Github,
    /// JUnit XML: a test case per finding, each a failure, classed by file (one
    /// passing case when there is none); paths relative to the current directory.
    Junit,
    /// GitLab Code Quality JSON; paths relative to the project root.
    Gitlab,
    /// A pull-request comment (GitHub-flavoured Markdown): a verdict line, a table of
    /// the findings, the help in a `<details>` block; within GitHub's 65,536-character
    /// comment limit; paths relative to the project root.
    Markdown,
}

/// Lowest severity that makes the exit code 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// Errors only (default).
    Error,
    /// Warnings and errors.
    Warning,
    /// Any finding.
    Info,
    /// Never exit 1 (2 still means "could not lint").
    Never,
}

/// When to use colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Color {
    /// Colour when writing to a terminal and NO_COLOR is unset.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// Arguments of `check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Files or directories to lint [default: the current directory]; `-` reads
    /// rendered manifests from standard input (`helm template . | retrylint check -`)
    /// with the current folder.
    pub paths: Vec<PathBuf>,
    /// A retry-policy file, whatever its name (repeatable).
    #[arg(long = "policy", value_name = "FILE")]
    pub policies: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Lowest severity that fails the run (exit 1) [default: the configuration's
    /// `fail_on`, else error].
    #[arg(long, value_enum)]
    pub fail_on: Option<FailOn>,
    /// Configuration file [default: `.retrylint.yaml` in the folder holding the checked
    /// paths (the current directory when none is given) or its nearest parent].
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Report only these rules: codes, names or code prefixes such as `RL3`
    /// (comma-separated or repeated; overrides the configuration).
    #[arg(long, value_name = "RULES", value_delimiter = ',')]
    pub select: Vec<String>,
    /// Turn these rules off: codes, names or code prefixes (comma-separated or
    /// repeated; overrides the configuration). RL001 (a file that could not be read
    /// or parsed, exit 2) is always reported.
    #[arg(long, value_name = "RULES", value_delimiter = ',')]
    pub ignore: Vec<String>,
    /// Colour in human output.
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    pub color: Color,
    /// Project root that bounds `$ref`s [default: the enclosing git work tree, else the path given].
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Worker threads, 1 to 1024; more than the cores is capped at the cores, with a
    /// note [default: all cores; one for a run of a few small files].
    #[arg(long, value_name = "N", value_parser = parse_jobs)]
    pub jobs: Option<usize>,
    /// Largest file read, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 256 * 1024 * 1024)]
    pub max_file_size: u64,
    /// Write the report to FILE instead of standard output (`-`: standard output),
    /// whole or not at all.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also list skipped files (YAML/JSON that is neither an OpenAPI document nor a policy).
    #[arg(long, short = 'v')]
    pub verbose: bool,
    /// Print how many findings each rule gave, most first, instead of the findings
    /// (human and json formats); the exit code is the same as without it. Not with
    /// --diff, which prints fixes, not findings.
    #[arg(long, conflicts_with = "diff")]
    pub statistics: bool,
    /// Also list the findings that suppressions hid, with each suppression's reason
    /// (human format; standard error for the other formats).
    #[arg(long)]
    pub show_suppressed: bool,
    /// Report only findings not recorded in this baseline file (keyed by rule, file,
    /// JSON Pointer and operation, so moved lines do not make old findings new and a
    /// new operation joining a recorded finding is reported). A file of an older
    /// format is refused (exit 2): record it again with --write-baseline.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Record the current findings as a baseline in FILE (the report is still printed).
    /// FILE cannot be `-`: standard output carries the report.
    #[arg(long, value_name = "FILE", value_parser = parse_baseline_file)]
    pub write_baseline: Option<PathBuf>,
    /// Apply the safe fixes to the files, then report what remains (the exit code is
    /// that of the remaining findings). Nothing is written when a file could not be
    /// read (RL001).
    #[arg(long)]
    pub fix: bool,
    /// Apply unsafe fixes too (they change which requests are retried or the API);
    /// implies --fix unless --diff is given.
    #[arg(long)]
    pub unsafe_fixes: bool,
    /// Print the fixes as a unified diff on standard output and change nothing: exit 1
    /// when a fix would change a file, 0 when none would, 2 when a file could not be
    /// read.
    #[arg(long, conflicts_with = "fix")]
    pub diff: bool,
}

/// Arguments of `rules`.
#[derive(Debug, Args)]
pub struct RulesArgs {
    /// Output as JSON instead of a table.
    #[arg(long, conflicts_with = "markdown")]
    pub json: bool,
    /// Output as a Markdown table (the README's list).
    #[arg(long)]
    pub markdown: bool,
}

/// Output formats of `plan`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PlanFormat {
    /// One sentence.
    Human,
    /// `{"retry":true,"delayMs":200,"backoffMs":400}`.
    Json,
}

/// Arguments of `plan`. Times are milliseconds on one clock (epoch ms).
#[derive(Debug, Args)]
#[command(
    after_help = "Example (the worked example of docs/domain.md):\n  retrylint plan --method POST --status 503 --attempt 2 --now-ms 1000 --deadline-ms 3000 --idempotency-key --format json"
)]
pub struct PlanArgs {
    /// HTTP method token (case-sensitive, RFC 9110). Required without --input or
    /// --policy.
    #[arg(long, required_unless_present_any = ["input", "policy"])]
    pub method: Option<String>,
    /// HTTP status of the failed attempt, 100 to 599 (RFC 9110 §15: the first
    /// digit is the class, 1xx to 5xx). Required without --transport-error, --input
    /// or --policy.
    #[arg(
        long,
        required_unless_present_any = ["transport_error", "input", "policy"],
        value_parser = clap::value_parser!(u16).range(100..=599)
    )]
    pub status: Option<u16>,
    /// The attempt failed with a transport error (timeout, reset, refused).
    #[arg(long)]
    pub transport_error: bool,
    /// 0-based index of the retry being planned (0 = first retry). Required without
    /// --input or --policy (policy mode: default 0).
    #[arg(long, allow_negative_numbers = true, required_unless_present_any = ["input", "policy"])]
    pub attempt: Option<f64>,
    /// Now, in epoch ms. Required without --input or --policy. Policy mode: the
    /// clock an HTTP-date Retry-After is measured from [default: the current time].
    #[arg(long, allow_negative_numbers = true, required_unless_present_any = ["input", "policy"])]
    pub now_ms: Option<f64>,
    /// Deadline of the whole operation, in epoch ms. Required without --input or
    /// --policy.
    #[arg(long, allow_negative_numbers = true, required_unless_present_any = ["input", "policy"])]
    pub deadline_ms: Option<f64>,
    /// Backoff base in ms [default: 100].
    #[arg(long, allow_negative_numbers = true)]
    pub base_ms: Option<f64>,
    /// Backoff cap in ms [default: 2000].
    #[arg(long, allow_negative_numbers = true)]
    pub cap_ms: Option<f64>,
    /// Maximum retries, not counting the first try, as the reference function of
    /// docs/domain.md counts them [default: 3]. A policy's `attempts` counts tries:
    /// `--max-attempts 2` is `attempts: 3` (or write `--attempts 3`).
    #[arg(long, allow_negative_numbers = true)]
    pub max_attempts: Option<f64>,
    /// Total tries including the first, as a policy's `attempts` counts them:
    /// `--attempts 3` is `--max-attempts 2`.
    #[arg(long, allow_negative_numbers = true, conflicts_with = "max_attempts")]
    pub attempts: Option<f64>,
    /// Random unit in [0, 1] [default: 0.5]; outside it is a usage error (exit 2).
    #[arg(long, allow_negative_numbers = true, value_parser = unit_interval)]
    pub random_unit: Option<f64>,
    /// Retry-After already in ms.
    #[arg(long, allow_negative_numbers = true, conflicts_with = "retry_after")]
    pub retry_after_ms: Option<f64>,
    /// Raw Retry-After header value (delay-seconds or HTTP-date, relative to --now-ms;
    /// a date in the past means no extra wait).
    #[arg(long, allow_hyphen_values = true)]
    pub retry_after: Option<String>,
    /// An idempotency key protects the operation.
    #[arg(long)]
    pub idempotency_key: bool,
    /// A status endpoint lets the client learn the outcome.
    #[arg(long)]
    pub status_endpoint: bool,
    /// Read inputs as JSON from FILE (`-` for standard input): one object, or an array
    /// answered as JSON Lines.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["method", "status", "attempt"])]
    pub input: Option<PathBuf>,
    /// Policy mode: decide with this retry-policy file's effective settings (needs
    /// --operation and --signal).
    #[arg(long, value_name = "FILE", requires = "operation", requires = "signal")]
    pub policy: Option<PathBuf>,
    /// Policy mode: the operation (`"POST /orders"` or an operationId).
    #[arg(long, value_name = "SELECTOR", requires = "policy")]
    pub operation: Option<String>,
    /// Policy mode: the layer whose settings apply [default: client].
    #[arg(long, value_name = "LAYER")]
    pub layer: Option<String>,
    /// Policy mode: the observed signal (`timeout`, `connect-failure`, `503`, ...).
    #[arg(long, value_name = "SIGNAL", requires = "policy")]
    pub signal: Option<String>,
    /// Policy mode: time since the first attempt started (`1.5s`, `250ms`).
    #[arg(long, value_name = "DURATION", requires = "policy")]
    pub elapsed: Option<String>,
    /// Policy mode, decorrelated jitter: the previous delay in ms.
    #[arg(long, value_name = "MS", requires = "policy")]
    pub previous_ms: Option<f64>,
    /// Policy mode: seed of the random unit (reproducible jitter).
    #[arg(long, value_name = "SEED", default_value_t = 0)]
    pub seed: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = PlanFormat::Human)]
    pub format: PlanFormat,
}

/// Output formats of `simulate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SimulateFormat {
    /// The figures and a text histogram of the load over time.
    Human,
    /// `{"clients": ..., "total_attempts": ..., "retry_peak": ..., "buckets": [...]}`,
    /// and `"chain": {"layers": [...], "amplification_bound": ...}` for several layers
    /// (with `"budget_bound"` when a budget lowers the count under load).
    Json,
}

/// Arguments of `simulate`.
#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  retrylint simulate --policy fixtures/examples/shop/shop.retry-policy.yaml --operation 'POST /orders' --clients 1000 --outage 2s"
)]
pub struct SimulateArgs {
    /// The retry-policy file (its `spec:` documents are read too). Repeat it to give
    /// the policies of several layers (client, gateway, mesh): the operation's layers
    /// are simulated nested, client outermost.
    #[arg(long, value_name = "FILE", required = true)]
    pub policy: Vec<PathBuf>,
    /// The operation (`"POST /orders"` or an operationId).
    #[arg(long, value_name = "SELECTOR")]
    pub operation: String,
    /// Simulate this layer alone (client, gateway or mesh) [default: every layer
    /// that applies to the operation, nested].
    #[arg(long, value_name = "LAYER")]
    pub layer: Option<String>,
    /// Number of clients whose first attempts fail together.
    #[arg(long, default_value_t = 1000)]
    pub clients: u32,
    /// How long the upstream fails: answers 503, or does not answer under `--failure
    /// timeout` (`2s`, `500ms`).
    #[arg(long, value_name = "DURATION", default_value = "2s")]
    pub outage: String,
    /// Retry-After sent with each 503 (a duration such as `1s`, sent as delay-seconds,
    /// or a raw header value in quotes).
    #[arg(long, value_name = "VALUE")]
    pub retry_after: Option<String>,
    /// Random seed (the run is deterministic for a seed).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = SimulateFormat::Human)]
    pub format: SimulateFormat,
    /// How attempts fail during the outage: `status` (a 503 after `--attempt-ms`) or
    /// `timeout` (no answer: each layer waits for its `attempt_timeout`, or its
    /// deadline under `attempt_timeout: remaining`).
    #[arg(long, value_enum, default_value_t = SimulateFailure::Status)]
    pub failure: SimulateFailure,
    /// How long a failing attempt takes before its 503 arrives, in ms (with
    /// `--failure status`) [default: 0, an instant answer].
    #[arg(long, value_name = "MS")]
    pub attempt_ms: Option<u64>,
}

/// How attempts fail in `simulate` (`--failure`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SimulateFailure {
    /// The upstream answers 503 (after `--attempt-ms`).
    Status,
    /// The upstream hangs until each layer's attempt timeout.
    Timeout,
}

/// Arguments of `import`.
#[derive(Debug, Args)]
#[command(
    after_help = "Each synthetic policy is one YAML document (one per config object, layer and bound spec); \
its `spec:` is relative to the config file's folder, so save it beside the config. \
The specs are found as `check FILE` finds them: the OpenAPI documents of the \
config's project (the git work tree, or --root DIR), and the `services:` specs of \
`.retrylint.yaml`; bind a config to its spec there when the project holds several.\n\n\
Exit codes: 0 every named config was read; 1 a named file holds no retry config \
retrylint reads; 2 a file could not be read or parsed.\n\n\
Examples:\n  retrylint import k8s/virtual-service.yaml\n  retrylint import app/payments_client.py"
)]
pub struct ImportArgs {
    /// The retry configs to translate (OpenAPI documents named here are used as the
    /// specs they bind to, not printed).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Project root: where the specs the configs bind to are looked for, and the
    /// bound of `$ref`s [default: the enclosing git work tree].
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Configuration file (`services:` bindings, `platforms:` versions) [default:
    /// `.retrylint.yaml` in the folder holding the named files or its nearest parent].
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// Arguments of `init`.
#[derive(Debug, Args)]
#[command(
    after_help = "The policy answers what the spec (and any retry config of the layer bound to it) \
answers: an idempotent method, an idempotency-key header, 409/422 key errors, Retry-After on \
429/503, an imported layer's attempts, deadline and backoff. Every other readiness question is \
the value `todo`, which `retrylint check` reports as RL018 until it is answered. A \
non-idempotent operation without a key is never retried (`effect: todo`, `retry: false`).\n\n\
Output: `retry-policy.yaml` beside the first spec (found by `check` when it walks that \
folder), or -o FILE, or -o - for standard output. An existing file is never overwritten.\n\n\
Exit codes: 0 written; 2 usage error, an existing output file, or a spec that could not be read.\n\n\
Examples:\n  retrylint init openapi.yaml\n  retrylint init api/openapi.yaml --layer gateway -o gateway.retry-policy.yaml\n  retrylint init openapi.yaml -o -"
)]
pub struct InitArgs {
    /// The OpenAPI documents (files or folders) whose operations the policy covers.
    #[arg(required = true, value_name = "SPEC")]
    pub specs: Vec<PathBuf>,
    /// Where to write the policy (`-` for standard output) [default:
    /// `retry-policy.yaml` beside the first spec].
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The layer that performs these retries.
    #[arg(long, value_enum, default_value = "client")]
    pub layer: InitLayer,
    /// Project root: where the retry configs bound to the spec are looked for, and
    /// the bound of `$ref`s [default: the enclosing git work tree].
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
}

/// `init --layer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InitLayer {
    /// A client SDK.
    Client,
    /// An API gateway.
    Gateway,
    /// A service-mesh sidecar.
    Mesh,
}

/// Output formats of `layers`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LayersFormat {
    /// Aligned text: a block per layer, then the composed worst case.
    Human,
    /// `{"version": 1, "operations": [{"layers": [...], "composed": {...}}]}`.
    Json,
}

/// Arguments of `layers`.
#[derive(Debug, Args)]
#[command(
    after_help = "Layers are listed outermost first (client, gateways, mesh); a value no file \
wrote is a built-in default, or a platform default named with its source.\n\n\
Example:\n  retrylint layers 'POST /payments' fixtures/examples/layers"
)]
pub struct LayersArgs {
    /// The operation: an operationId or `METHOD /path` (`'POST /payments'`); every
    /// operation it matches is shown, each with its document.
    pub operation: String,
    /// Files or directories: specs, policies, retry configs [default: the current
    /// directory].
    pub paths: Vec<PathBuf>,
    /// A retry-policy file, whatever its name (repeatable).
    #[arg(long = "policy", value_name = "FILE")]
    pub policies: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = LayersFormat::Human)]
    pub format: LayersFormat,
    /// Project root that bounds `$ref`s.
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Configuration file [default: `.retrylint.yaml` in the folder holding the checked
    /// paths (the current directory when none is given) or its nearest parent].
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// Output formats of `report`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// One HTML page, CSS, script and charts inline (no network).
    Html,
}

/// Arguments of `report`.
#[derive(Debug, Args)]
#[command(
    after_help = "Exit codes as `check`: 0 no finding at or above --fail-on; 1 findings; 2 a file \
could not be read or parsed, or the output names an input file.\n\n\
Example:\n  retrylint report --format html fixtures/examples/shop -o report.html"
)]
pub struct ReportArgs {
    /// Files or directories [default: the current directory].
    pub paths: Vec<PathBuf>,
    /// A retry-policy file, whatever its name (repeatable).
    #[arg(long = "policy", value_name = "FILE")]
    pub policies: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Html)]
    pub format: ReportFormat,
    /// A probe report (`retrylint probe --format json` output): adds a section with
    /// its timeline per scenario and its findings. Does not change the exit code.
    #[arg(long, value_name = "FILE")]
    pub probe: Option<PathBuf>,
    /// Write the page to FILE instead of standard output (`-`: standard output), whole
    /// or not at all, never over an input file.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Lowest severity that fails the run (exit 1) [default: the configuration's
    /// `fail_on`, else error].
    #[arg(long, value_enum)]
    pub fail_on: Option<FailOn>,
    /// Project root that bounds `$ref`s.
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Configuration file [default: `.retrylint.yaml` in the folder holding the checked
    /// paths (the current directory when none is given) or its nearest parent].
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// Output formats of `diff`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DiffFormat {
    /// Each regression with its source line, improvements, new findings as `check`
    /// shows them, fixed findings.
    Human,
    /// `{"version": 1, "regressions": [...], "new_findings": [...], ...}`.
    Json,
    /// A pull-request comment: verdict line, table of regressions, `<details>` for the
    /// rest (within GitHub's 65,536-character limit).
    Markdown,
    /// GitHub Actions workflow commands: regressions, then new findings.
    Github,
    /// SARIF 2.1.0 of the new findings only (as `check --format sarif`).
    Sarif,
}

/// Arguments of `diff`.
#[derive(Debug, Args)]
#[command(
    after_help = "Exit codes: 0 no regression and no new finding at the --fail-on-new level; \
1 some (regressions count unless --allow-regressions); 2 usage error, or a file of HEAD \
(or the revision) could not be read.\n\nExamples:\n  retrylint diff old/ new/\n  \
retrylint diff --base origin/main --fail-on-new error --format markdown"
)]
pub struct DiffArgs {
    /// Without --base: BASE and HEAD (two folders or two files). With --base: the
    /// paths to compare in the working tree [default: the current directory].
    pub paths: Vec<PathBuf>,
    /// Compare the working tree with this git revision (a branch, tag, commit,
    /// `HEAD~1`): it is extracted with `git archive` into a temporary folder.
    #[arg(long, value_name = "REF")]
    pub base: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DiffFormat::Human)]
    pub format: DiffFormat,
    /// Lowest severity of a new finding that fails the run (exit 1) [default: the
    /// configuration's `fail_on`, else error].
    #[arg(long, value_enum)]
    pub fail_on_new: Option<FailOn>,
    /// Report regressions without failing on them (exit 1 then only for new
    /// findings at the --fail-on-new level).
    #[arg(long)]
    pub allow_regressions: bool,
    /// Configuration file [default: HEAD's `.retrylint.yaml`, found as `check` finds
    /// it]; it applies to both sides.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Colour in human output.
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    pub color: Color,
    /// Write the report to FILE instead of standard output (`-`: standard output),
    /// whole or not at all.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Arguments of `rule`.
#[derive(Debug, Args)]
pub struct RuleArgs {
    /// The rule's code (`RL201`) or name (`unprotected-retry`).
    pub rule: String,
}

/// Output formats of `readiness`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReadinessFormat {
    /// Aligned table for terminals.
    Table,
    /// Markdown for a pull-request comment or a docs page.
    Markdown,
    /// `{"version": 1, "operations": [...]}`.
    Json,
}

/// Arguments of `readiness`.
#[derive(Debug, Args)]
pub struct ReadinessArgs {
    /// Files or directories [default: the current directory].
    pub paths: Vec<PathBuf>,
    /// A retry-policy file, whatever its name (repeatable).
    #[arg(long = "policy", value_name = "FILE")]
    pub policies: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReadinessFormat::Table)]
    pub format: ReadinessFormat,
    /// Project root that bounds `$ref`s.
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Configuration file [default: `.retrylint.yaml` in the folder holding the checked
    /// paths (the current directory when none is given) or its nearest parent].
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Write the matrix to FILE instead of standard output (`-`: standard output),
    /// whole or not at all.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Parses `--random-unit`: a number in [0, 1], the domain of the random unit of the
/// reference decision function (docs/domain.md; 1 gives the full backoff). NaN,
/// infinities and numbers outside are rejected, so clap exits 2 naming the flag.
pub fn unit_interval(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number"))?;
    if (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(format!("`{text}` is outside [0, 1]"))
    }
}

/// `--write-baseline`: a file, never `-` (standard output carries the report; a
/// baseline mixed into it could be read back by nobody).
fn parse_baseline_file(s: &str) -> Result<PathBuf, String> {
    if s == "-" {
        Err("the baseline is written to a file; `-` (standard output) carries the report".into())
    } else {
        Ok(PathBuf::from(s))
    }
}

/// `--jobs`: 1 to 1024 threads. 0 used to mean one thread, and a huge count spent
/// minutes starting threads (each reserves a deep stack, `crate::deep_stack`).
fn parse_jobs(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n @ 1..=crate::deep_stack::MAX_THREADS) => Ok(n),
        Ok(_) => Err(format!(
            "must be from 1 to {}",
            crate::deep_stack::MAX_THREADS
        )),
        Err(e) => Err(e.to_string()),
    }
}
