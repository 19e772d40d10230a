import os
import sys

import pytest

# keep hypothesis deterministic and quick under CI's two cores
from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci")
os.environ.setdefault("GELU_LAB_DATA", os.path.join(os.path.dirname(__file__), "..", ".pytest_cache", "gelu-lab-data"))


@pytest.fixture(autouse=True)
def _server_errors_fail_browser_tests(request):
    """Every test that drives the browser fails on an error the app's server logged while it
    ran (a callback that raised is answered 204 and only logged: tests/app_browser.py), also
    when it never called log.check(). Tests that hit the server on purpose without a browser
    (junk requests) answer for their own log."""
    harness = sys.modules.get("app_browser")  # loaded by every module that uses the app's fixtures
    if harness is not None:
        harness.SERVER_LOG.test_start = len(harness.SERVER_LOG.records)
    yield
    if harness is not None and "browser" in request.fixturenames:
        harness.check_server_log()
