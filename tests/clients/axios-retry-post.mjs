// axios + axios-retry with its defaults (retries: 3): POST /orders at
// $RETRYLINT_BASE_URL (tests/probe_clients.rs).
import axios from "axios";
import axiosRetry from "axios-retry";

axiosRetry(axios, { retries: 3 });
try {
  await axios.post(`${process.env.RETRYLINT_BASE_URL}/orders`, { item: 1 }, { timeout: 5000 });
  process.exit(0);
} catch (e) {
  console.error(e.message);
  process.exit(1);
}
