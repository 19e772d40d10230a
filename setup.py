"""The native float32 kernel (src/gelu_lab/native.c) as an optional C extension.

Everything else is in pyproject.toml. Without a working C compiler the build
skips the extension (optional=True) and gelu_lab runs its numba kernels.
No -ffast-math and no contraction of a*b+c: every fused multiply-add in the
kernel is written as one, so the error bounds it was checked with hold.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "gelu_lab._native",
            sources=["src/gelu_lab/native.c"],
            depends=["src/gelu_lab/native_tables.h"],
            extra_compile_args=["-O2", "-fno-fast-math", "-ffp-contract=off", "-fno-strict-aliasing"],
            libraries=["m"],
            optional=True,
        )
    ]
)
