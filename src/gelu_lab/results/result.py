"""What :func:`gelu_lab.results.latest` answers: a measured value and where it came from."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Result:
    value: object  # what was measured
    provenance: dict  # how, where and when (command, versions, CPU, date)
    source: str  # "store": the reader's runs store; "shipped": gelu_lab/data
    run: dict | None = field(default=None, compare=False)  # the run row (id, kind, key, config, ...), when known
