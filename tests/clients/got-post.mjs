// got with its default retry: POST /orders at $RETRYLINT_BASE_URL
// (tests/probe_clients.rs).
import got from "got";

try {
  await got.post(`${process.env.RETRYLINT_BASE_URL}/orders`, {
    json: { item: 1 },
    timeout: { request: 5000 },
  });
  process.exit(0);
} catch (e) {
  console.error(e.message);
  process.exit(1);
}
