"""Builds the Cython extensions (metadata lives in pyproject.toml).

Compiler directives are set once, here.  ``WILDHORN_DEBUG=1`` turns bounds
checks, wraparound, initialization checks and ``assert`` back on, for a
debug build of the test suite (CI runs the suite on both builds).
"""
import os

from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("WILDHORN_DEBUG", "") not in ("", "0")

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": not DEBUG,
    "embedsignature": True,
}
macros = [("WILDHORN_DEBUG", "1" if DEBUG else "0")]
if not DEBUG:
    macros.append(("CYTHON_WITHOUT_ASSERTIONS", None))
cflags = ["-O0", "-g"] if DEBUG else ["-O3"]

extensions = [
    Extension("solver._core", ["solver/_core.pyx"], define_macros=macros,
              extra_compile_args=cflags),
    Extension("solver._tree", ["solver/_tree.pyx"], define_macros=macros,
              extra_compile_args=cflags),
    Extension("bots._policy", ["bots/_policy.pyx"], define_macros=macros,
              extra_compile_args=cflags),
    Extension("bots._searchtree", ["bots/_searchtree.pyx"], define_macros=macros,
              extra_compile_args=cflags),
    Extension("bots._ismcts", ["bots/_ismcts.pyx"], define_macros=macros,
              extra_compile_args=cflags),
    Extension("bots._oos", ["bots/_oos.pyx"], define_macros=macros,
              extra_compile_args=cflags),
    Extension("exact._cfr", ["exact/_cfr.pyx"], define_macros=macros,
              extra_compile_args=cflags),
]

setup(
    ext_modules=cythonize(extensions, compiler_directives=directives,
                          include_path=["."], build_dir="build/cython",
                          force=True),
)
