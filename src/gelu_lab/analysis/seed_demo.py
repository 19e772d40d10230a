import math


def gelu(x):
    return 0.5 * x * (1 + math.erf(x / math.sqrt(2)))  # (1)


def gelu_tanh(x):
    inner = math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)
    return 0.5 * x * (1 + math.tanh(inner))  # (2)


def relu(x):
    return max(0.0, x)  # (3)


if __name__ == "__main__":
    print(f"{'x':>5}  {'x·Φ(x)':<24}{'tanh ≈':<24}{'|Δ|':<24}max(0, x)")
    for x in [-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0]:  # (4)
        g, t = gelu(x), gelu_tanh(x)
        print(f"{x:>5}  {g:<24}{t:<24}{abs(g - t):<24}{relu(x)}")  # (5)
