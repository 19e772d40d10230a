import os

# keep hypothesis deterministic and quick under CI's two cores
from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci")
os.environ.setdefault("GELU_LAB_DATA", os.path.join(os.path.dirname(__file__), "..", ".pytest_cache", "gelu-lab-data"))
