#!/usr/bin/env bash
# Cost in proportion to the input (issue 43): every importer family and `report
# --format html` on generated inputs at 1x, 4x and 16x, each run's wall time and
# peak RSS (GNU time), the growth factor from the scale before (linear: about 4),
# and the memory per input byte: the peak RSS of the run minus that of the same
# run without the generated file, divided by the file's size. Targets: text
# configs (nginx, HAProxy, Traefik TOML, properties) within 20 bytes per byte;
# YAML/JSON configs a peak within 8x the file (once the file outweighs the fixed
# cost of a run). A row over its target is marked `!`.
#
#   scripts/scaling.sh                  every kind
#   scripts/scaling.sh nginx grpc       only these kinds
#   scripts/scaling.sh --list           the kinds and what 1x is
#
# Kinds (each with a two-operation spec served at `orders`, which the config names):
#   nginx        servers of 20 regex locations (case 83's shape), 1x = 256 servers
#   haproxy      one frontend routing to backends (case 87), 1x = 3,125 backends
#   traefik      Traefik TOML routers, each with its retry middleware, 1x = 2,500
#   properties   Spring Cloud Gateway routes in application.properties, 1x = 2,000
#   istio        one VirtualService with many http routes, 1x = 6,250 routes
#   envoy        one route configuration with many routes, 1x = 6,250 routes
#   gateway-api  a stream of HTTPRoutes with a retry each, 1x = 1,000 objects
#   grpc         one methodConfig naming many methods (case 84), 1x = 6,250 names
#   kong         Kong services with a route each, 1x = 2,000 services
#   report-html  `report --format html`: POST operations retried by a policy
#                (case 85), 1x = 500 operations
#
# Needs python3 and GNU time (/usr/bin/time; `apt-get install time`). Builds the
# release binary first (the figures in the lead's notes used
# CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_DEBUG=0
# CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16, as .ci/run builds); RETRYLINT=BIN times
# another build, NO_BUILD=1 skips the build, SCALES (default "1 4 16") sets the
# scales. Generated files live in a temporary folder removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BIN=${RETRYLINT:-$TARGET/release/retrylint}
SCALES=${SCALES:-"1 4 16"}
ALL="nginx haproxy traefik properties istio envoy gateway-api grpc kong report-html"

if [ "${1:-}" = "--list" ]; then
  sed -n '/^# Kinds/,/^#$/p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
kinds=${*:-$ALL}
for k in $kinds; do
  case " $ALL " in *" $k "*) ;; *) echo "scaling.sh: unknown kind $k (--list)" >&2; exit 2 ;; esac
done
for tool in python3 /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "scaling.sh needs $tool" >&2; exit 2; }
done
[ "${NO_BUILD:-0}" = 1 ] || cargo build --release --quiet --bin retrylint
[ -x "$BIN" ] || { echo "scaling.sh: $BIN is missing" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# gen KIND DIR SCALE: writes the spec and the kind's file at SCALE times its 1x size
# into DIR; prints the generated file's name (the spec alone is the run "without").
gen() {
  python3 - "$1" "$2" "$3" <<'PY'
import json, os, sys
kind, d, scale = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.makedirs(d, exist_ok=True)
SPEC = """openapi: 3.0.3
info: {title: orders, version: "1"}
servers: [{url: "http://orders"}]
paths:
  /api/p1:
    get:
      operationId: getP1
      responses:
        "200": {description: ok}
  /api/p2:
    post:
      operationId: postP2
      responses:
        "200": {description: ok}
"""

def write(name, text):
    with open(os.path.join(d, name), "w") as f:
        f.write(text)
    return name

def nginx(n):
    out = ["events {}\nhttp {\n  upstream orders { server 10.0.0.1:80; server 10.0.0.2:80; }\n"]
    for i in range(n):
        out.append("  server {\n    listen 80;\n    server_name orders;\n")
        for j in range(20):
            out.append("    location ~ ^/api/(p%d|items/%d)$ { proxy_pass http://orders; "
                       "proxy_next_upstream error timeout http_502 non_idempotent; "
                       "proxy_next_upstream_tries %d; proxy_next_upstream_timeout 10s; }\n"
                       % (j % 3, i * 20 + j, j % 5 + 1))
        out.append("  }\n")
    out.append("}\n")
    return write("nginx.conf", "".join(out))

def haproxy(n):
    s = ["defaults\n  mode http\n  retries 3\n  retry-on all-retryable-errors\nfrontend f\n  bind :80\n"]
    s += ["  use_backend b%d if { path_beg /api/p%d }\n" % (i, i) for i in range(n)]
    s += ["backend b%d\n  option redispatch\n  server s%d orders:80\n  server t%d orders2:80\n"
          % (i, i, i) for i in range(n)]
    return write("haproxy.cfg", "".join(s))

def traefik(n):
    s = ['[http.services.orders.loadBalancer]\n  [[http.services.orders.loadBalancer.servers]]\n'
         '    url = "http://orders:8080"\n']
    for i in range(n):
        s.append('[http.routers.r%d]\n  rule = "Host(`orders`) && PathPrefix(`/api/p%d`)"\n'
                 '  service = "orders"\n  middlewares = ["retry%d"]\n'
                 '[http.middlewares.retry%d.retry]\n  attempts = %d\n  initialInterval = "100ms"\n'
                 % (i, i, i, i, i % 4 + 2))
    return write("traefik.toml", "".join(s))

def properties(n):
    s = ["spring.application.name=edge\n"]
    for i in range(n):
        p = "spring.cloud.gateway.routes[%d]" % i
        s.append("%s.id=r%d\n%s.uri=http://orders\n%s.predicates[0]=Path=/api/p%d/**\n"
                 "%s.filters[0]=Retry=3,INTERNAL_SERVER_ERROR,GET,10ms,50ms,2,false,0.5,100ms\n"
                 % (p, i, p, p, i, p))
    return write("application.properties", "".join(s))

def istio(n):
    s = ["apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata:\n  name: orders\n"
         "spec:\n  hosts: [orders]\n  http:\n"]
    for i in range(n):
        s.append("  - name: r%d\n    match:\n    - uri: {prefix: /api/p%d}\n"
                 "    retries: {attempts: %d, perTryTimeout: 2s, retryOn: 5xx}\n"
                 "    timeout: 10s\n    route: [{destination: {host: orders}}]\n" % (i, i, i % 4 + 2))
    return write("virtual-service.yaml", "".join(s))

def envoy(n):
    s = ["virtual_hosts:\n- name: orders\n  domains: [orders]\n  routes:\n"]
    for i in range(n):
        s.append("  - match: {prefix: /api/p%d}\n    route:\n      cluster: orders\n      timeout: 2s\n"
                 "      retry_policy: {retry_on: 5xx, num_retries: %d, per_try_timeout: 0.5s}\n"
                 % (i, i % 4 + 1))
    return write("routes.yaml", "".join(s))

def gateway_api(n):
    s = []
    for i in range(n):
        s.append("---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n"
                 "  name: r%d\nspec:\n  hostnames: [orders]\n  rules:\n"
                 "  - matches:\n    - path: {type: PathPrefix, value: /api/p%d}\n"
                 "    retry: {codes: [503], attempts: 2, backoff: 100ms}\n"
                 "    timeouts: {request: 5s, backendRequest: 1s}\n"
                 "    backendRefs: [{name: orders, port: 80}]\n" % (i, i))
    return write("httproutes.yaml", "".join(s))

def grpc(n):
    names = [{"service": "a.S%d" % i, "method": "M"} for i in range(n)]
    return write("service_config.json", json.dumps({"methodConfig": [{"name": names, "retryPolicy": {
        "maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s",
        "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}))

def kong(n):
    s = ['_format_version: "3.0"\nservices:\n']
    for i in range(n):
        s.append("- name: s%d\n  host: orders\n  retries: %d\n  read_timeout: 5000\n"
                 "  routes:\n  - name: r%d\n    paths: [/api/p%d]\n    methods: [GET, POST]\n"
                 % (i, i % 4 + 1, i, i))
    return write("kong.yaml", "".join(s))

def report_html(n):
    p = "".join('  /a%d:\n    post:\n      responses:\n        "200": {description: ok}\n'
                '        "429": {description: slow}\n' % i for i in range(n))
    write("x.retry-policy.yaml",
          "version: 1\nspec: openapi.yaml\ndefaults: {retry: true, attempts: 4, retry_on: [5xx, 429]}\n")
    return write("openapi.yaml", 'openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths:\n' + p)

UNIT = {"nginx": (nginx, 256), "haproxy": (haproxy, 3125), "traefik": (traefik, 2500),
        "properties": (properties, 2000), "istio": (istio, 6250), "envoy": (envoy, 6250),
        "gateway-api": (gateway_api, 1000), "grpc": (grpc, 6250), "kong": (kong, 2000),
        "report-html": (report_html, 500)}
if kind != "report-html":
    write("openapi.yaml", SPEC)
f, unit = UNIT[kind]
print(f(unit * scale))
PY
}

# measure DIR COMMAND...: "seconds peak-KB" of COMMAND run in DIR (output discarded).
measure() {
  local dir=$1; shift
  (cd "$dir" && /usr/bin/time -f '%e %M' -o "$tmp/time.txt" "$@" >/dev/null 2>&1) || true
  tail -n 1 "$tmp/time.txt"
}

echo "| kind | scale | file | time | peak RSS | without the file | (peak − without) / size | growth: time, RSS |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for kind in $kinds; do
  prev_t="" prev_m=""
  for s in $SCALES; do
    dir=$tmp/$kind-$s
    file=$(gen "$kind" "$dir" "$s")
    size=$(stat -c %s "$dir/$file")
    if [ "$kind" = report-html ]; then
      cmd=("$BIN" report . --format html -o "$tmp/report.html")
      # Without the operations: the same run over a spec with none.
      mkdir -p "$dir-without"
      printf 'openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths: {}\n' >"$dir-without/openapi.yaml"
      cp "$dir/x.retry-policy.yaml" "$dir-without/"
    else
      cmd=("$BIN" check .)
      mkdir -p "$dir-without"
      cp "$dir/openapi.yaml" "$dir-without/"
    fi
    read -r t m <<<"$(measure "$dir" "${cmd[@]}")"
    read -r _ m0 <<<"$(measure "$dir-without" "${cmd[@]}")"
    per_byte=$(awk -v m="$m" -v z="$m0" -v b="$size" 'BEGIN{printf "%.1f", (m-z)*1024/b}')
    case $kind in
      nginx | haproxy | traefik | properties) limit=20 ;;
      *) limit=8 ;;
    esac
    # YAML/JSON: the whole peak within 8x the file; text: the difference within 20x.
    mark=$(awk -v m="$m" -v z="$m0" -v b="$size" -v l="$limit" -v k="$kind" 'BEGIN{
      r = (k ~ /^(nginx|haproxy|traefik|properties)$/) ? (m-z)*1024/b : m*1024/b;
      if (k == "report-html") r = 0;
      print (r > l) ? " !" : ""}')
    growth=""
    if [ -n "$prev_t" ]; then
      growth=$(awk -v t="$t" -v pt="$prev_t" -v m="$m" -v pm="$prev_m" \
        'BEGIN{printf "%.1fx, %.1fx", (pt>0.005?t/pt:0), m/pm}')
    fi
    printf '| %s | %sx | %s | %s s | %s MB | %s MB | %s B/B%s | %s |\n' "$kind" "$s" \
      "$(awk -v b="$size" 'BEGIN{printf "%.2f MB", b/1048576}')" "$t" \
      "$(awk -v m="$m" 'BEGIN{printf "%.0f", m/1024}')" \
      "$(awk -v m="$m0" 'BEGIN{printf "%.0f", m/1024}')" "$per_byte" "$mark" "$growth"
    prev_t=$t prev_m=$m
    rm -rf "$dir" "$dir-without"
  done
done
