"""The native float32 kernel (src/gelu_lab/native.c) as an optional C extension.

Everything else is in pyproject.toml. The extension is built with OpenMP
(-fopenmp: its threads share libgomp with torch's) and, where that fails (no
libgomp), again without it (one thread a call; gelu_lab.kernels splits arrays
over Python threads then). Without a working C compiler the build skips the
extension (optional=True) and gelu_lab runs its numba kernels.
No -ffast-math and no contraction of a*b+c: every fused multiply-add in the
kernel is written as one, so the error bounds it was checked with hold.
"""

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

OPENMP = ["-fopenmp"]


class BuildExt(build_ext):
    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as e:  # CompileError, LinkError: no OpenMP here
            if OPENMP[0] not in ext.extra_compile_args:
                raise
            print(f"gelu_lab._native: building with OpenMP failed ({e}); building it without")
            ext.extra_compile_args = [a for a in ext.extra_compile_args if a not in OPENMP]
            ext.extra_link_args = [a for a in ext.extra_link_args if a not in OPENMP]
            super().build_extension(ext)


setup(
    cmdclass={"build_ext": BuildExt},
    ext_modules=[
        Extension(
            "gelu_lab._native",
            sources=["src/gelu_lab/native.c"],
            depends=["src/gelu_lab/native_tables.h"],
            extra_compile_args=["-O2", "-fno-fast-math", "-ffp-contract=off", "-fno-strict-aliasing", *OPENMP],
            extra_link_args=[*OPENMP],
            libraries=["m"],
            optional=True,
        )
    ],
)
