"""gelu_lab.numerics: each input is evaluated by the one method of its region (the REGIONS table)."""

import numpy as np
import pytest

from gelu_lab import numerics as nm

X0 = -0.7517915241
EDGES = [-np.inf, -1e3, -40.0, -37.6, -1.0, X0 - 1 / 16, X0, X0 + 1 / 16, -0.5, -1 / 128, 0.0, 1 / 128, 3.0, 8.5, 40.0, 1e3, np.inf]


def grid() -> np.ndarray:
    """Every region's edges a few ulp either side, a dense sweep, signed zeros, infinities and nan."""
    near = [e + np.arange(-3, 4) * np.spacing(abs(e)) for e in EDGES if np.isfinite(e)]
    return np.concatenate(near + [np.linspace(-50, 12, 20001), np.geomspace(1e-300, 1e4, 2001), -np.geomspace(1e-300, 1e4, 2001),
                                  [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 1.7e308, -1.7e308]])


TABLES = {
    "Phi": (nm.Phi, nm.PHI_ROWS),
    "gelu_exact": (nm.gelu_exact, nm.GELU_ROWS),
    "gelu_exact_grad": (nm.gelu_exact_grad, nm.GELU_GRAD_ROWS),
    "gelu_exact_grad2": (nm.gelu_exact_grad2, nm.GELU_GRAD2_ROWS),
}
FORMS = {
    f"{form}[{order}]": (f, order)
    for form, fs in (("tanh", (nm.gelu_tanh, nm.gelu_tanh_grad, nm.gelu_tanh_grad2)),
                     ("sigmoid", (nm.gelu_sigmoid, nm.gelu_sigmoid_grad, nm.gelu_sigmoid_grad2)))
    for order, f in enumerate(fs)
}


def same(a, b) -> bool:
    """Equal bit for bit (any nan equals any nan)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and bool(np.all((a.view(np.uint64) == b.view(np.uint64)) | (np.isnan(a) & np.isnan(b))))


@pytest.mark.parametrize("name", list(TABLES))
def test_every_input_is_evaluated_by_exactly_one_row(name):
    """The rows' methods together see each input once, and every row sees some input (none is dead)."""
    _, rows = TABLES[name]
    x = grid()
    seen = []

    def recording(i, method):
        def m(v):
            seen.append((i, v.copy()))
            return method(v)

        return m

    traced = [nm.Row(r.where, r.holds, recording(i, r.method)) for i, r in enumerate(rows)]
    y = nm.piecewise(x, traced)
    assert same(y, TABLES[name][0](x))
    counts = {i: sum(v.size for j, v in seen if j == i) for i in range(len(rows))}
    assert sum(counts.values()) == x.size, counts
    assert all(counts.values()), {rows[i].where: c for i, c in counts.items()}
    assert np.array_equal(np.sort(np.concatenate([v for _, v in seen]).view(np.uint64)), np.sort(x.view(np.uint64)))


class _Counting:
    """Stands in for scipy.special inside numerics and counts the inputs each function receives."""

    def __init__(self, real):
        self.real, self.calls = real, {}

    def __getattr__(self, name):
        f = getattr(self.real, name)

        def counted(v):
            self.calls[name] = self.calls.get(name, 0) + np.size(v)
            return f(v)

        return counted


@pytest.mark.parametrize("f", [nm.gelu_exact, nm.gelu_exact_grad])
def test_the_tables_region_runs_no_other_method(f, monkeypatch):
    """Inside tables64's domain, away from the root of GELU', neither erfc nor erfcx is evaluated."""
    from scipy import special

    counting = _Counting(special)
    monkeypatch.setattr(nm, "special", counting)
    x = np.linspace(1 / 64, 8.0, 10001)
    y = f(x)
    assert counting.calls == {}, counting.calls
    monkeypatch.undo()
    assert same(y, f(x))


@pytest.mark.parametrize("name", list(TABLES) + list(FORMS))
def test_a_value_does_not_depend_on_its_neighbours(name):
    """Each entry alone, its region alone, and the whole mixed array give the same bits."""
    f = TABLES[name][0] if name in TABLES else FORMS[name][0]
    x = grid()
    whole = f(x)
    assert same(np.array([f(v) for v in x[::37]]), whole[::37])
    for lo, hi in [(-60, -37.6), (-1, 1), (9, 1e4)]:
        part = (x > lo) & (x < hi)
        assert same(f(x[part]), whole[part])
    m = x[: x.size // 2 * 2].reshape(2, -1)
    assert same(f(m), whole[: m.size].reshape(2, -1))
    assert np.shape(f(np.float64(1.5))) == () and np.shape(f(np.zeros((0, 3)))) == (0, 3)


@pytest.mark.parametrize("name", list(FORMS))
def test_x_sigmoid_forms_take_their_limits_beyond_saturation(name):
    """Beyond |x| = 1e3 the value is x (right) or -0 (left), the first derivative 1 or -0, the second -0."""
    f, order = FORMS[name]
    left = np.array([-np.inf, -1e300, -1e3 * (1 + 2**-52)])
    right = np.array([np.inf, 1e300, 1e3 * (1 + 2**-52)])
    assert same(f(left), np.full(3, -0.0))
    assert same(f(right), [right, np.ones(3), np.full(3, -0.0)][order])
    assert np.all(np.isfinite(f(np.linspace(-1e3, 1e3, 10001))))


def test_the_docstring_table_names_every_row():
    doc = nm.__doc__
    rows = [r for _, rows in TABLES.values() for r in rows] + list(nm._x_sigmoid_rows(None, None, None, 0))
    missing = {r.where for r in rows if r.where not in doc}
    assert not missing, missing


def test_returns_a_new_array():
    x = np.array([2e3, 3e3])
    y = nm.gelu_tanh(x)
    y[0] = 0.0
    assert x[0] == 2e3
