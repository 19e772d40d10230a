"""Public mode: what a visitor of a shared server may do, and the words for what they may not.

    configure(Policy.public_server(...))    once, before the app is built (gelu-lab serve does it)
    current() -> Policy                      what the app in this process allows
    refusal(kind, lang, **numbers) -> str    the message for a refused request, in the reader's language

On loopback (``gelu-lab serve``'s default) the server is the reader's own: every job box
works and nothing is budgeted. A public server (``--public``, the default off loopback)
lets visitors read every page and compute live (sliders, checks, their own formula), but:

- no background job: the job boxes show the command to run it yourself, their buttons are
  off, and the server refuses a forged click (``jobs`` False); the process writes nothing
  (:mod:`gelu_lab.results.writes`), so neither the runs store nor the jobs' files change;
- each request has a budget of CPU time and memory (:mod:`gelu_lab.budget`);
- each client has a rate: requests a minute, and CPU seconds a minute (:mod:`.guard`).

``--allow-jobs`` turns the jobs back on (the rest stays). The policy is a setting of the
process, like Dash's own: set before :func:`gelu_lab.app.get_app`; forked server processes
inherit it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from . import content


@dataclass(frozen=True)
class Policy:
    """public: budgets and rates apply; jobs: a visitor may start and cancel jobs. seconds:
    CPU time of one request; megabytes: arrays one request may hold; rate: requests a
    minute per client; cpu_rate: CPU seconds a minute per client (0: no limit of that kind);
    proxies: peers whose X-Real-IP header names the client (nginx on this machine)."""

    public: bool = False
    jobs: bool = True
    seconds: float = 3.0
    megabytes: float = 256.0
    rate: float = 240.0
    cpu_rate: float = 30.0
    proxies: frozenset = frozenset({"127.0.0.1", "::1"})

    @classmethod
    def public_server(cls, allow_jobs: bool = False, **limits) -> "Policy":
        """A public server's policy; limits (seconds, megabytes, rate, cpu_rate) override the defaults."""
        p = replace(cls(public=True, jobs=allow_jobs), **{k: v for k, v in limits.items() if v is not None})
        for name in ("seconds", "megabytes", "rate", "cpu_rate"):
            v = getattr(p, name)
            if not (isinstance(v, (int, float)) and v >= 0 and v == v and v != float("inf")):
                raise ValueError(f"{name} must be a number >= 0, got {v!r}")
        if p.seconds == 0 or p.megabytes == 0:
            raise ValueError("a request's budget must be above 0 (seconds, megabytes)")
        return p

    def limits(self) -> dict:
        """The numbers the refusal messages quote."""
        return {"seconds": f"{self.seconds:g}", "megabytes": f"{self.megabytes:g}", "rate": f"{self.rate:g}", "cpu": f"{self.cpu_rate:g}"}


LOCAL = Policy()
_NOW = [LOCAL]


def configure(policy: Policy) -> None:
    """The policy of this process's app: call before the app is built."""
    _NOW[0] = policy


def current() -> Policy:
    return _NOW[0]


def refusal(kind: str, lang: str, **numbers) -> str:
    """The message for a request refused as `kind` ("rate", "cpu", "time", "memory", "jobs.off",
    "jobs.refused"), with the policy's numbers and `numbers` (such as wait) filled in."""
    lang = lang if lang in content.LANGS else content.DEFAULT_LANG
    return content.fill(content.text(lang, "public")[kind], **{**current().limits(), **numbers})
