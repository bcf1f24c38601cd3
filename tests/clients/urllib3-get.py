"""urllib3 Retry(total=3, status_forcelist=[503], backoff_factor=0.5): GET /orders/1
at $RETRYLINT_BASE_URL (tests/probe_clients.rs)."""
import os
import sys

import urllib3
from urllib3.util.retry import Retry

retry = Retry(total=3, status_forcelist=[503], backoff_factor=0.5)
http = urllib3.PoolManager(retries=retry, timeout=urllib3.Timeout(connect=2, read=2))
try:
    response = http.request("GET", os.environ["RETRYLINT_BASE_URL"] + "/orders/1")
    sys.exit(0 if response.status < 400 else 1)
except Exception as e:  # the probe judges the wire, not the exception
    print(e, file=sys.stderr)
    sys.exit(1)
