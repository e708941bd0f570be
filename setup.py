"""Builds the Cython extensions (metadata lives in pyproject.toml).

Compiler directives are set once, here.  ``WILDHORN_DEBUG=1`` turns bounds
checks, wraparound, initialization checks and ``assert`` back on, for a
debug build of the test suite (CI runs the suite on both builds).
``WILDHORN_SANITIZE=1`` is that debug build compiled and linked with
AddressSanitizer and UndefinedBehaviorSanitizer; run Python on it with
``LD_PRELOAD=$(gcc -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0
PYTHONMALLOC=malloc`` (see .ci/run, which runs the bounds and fuzz tests so).
"""
import os

from Cython.Build import cythonize
from setuptools import Extension, setup

SANITIZE = os.environ.get("WILDHORN_SANITIZE", "") not in ("", "0")
DEBUG = SANITIZE or os.environ.get("WILDHORN_DEBUG", "") not in ("", "0")

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
# The debug build keeps every check (bounds, wraparound, asserts) but is
# compiled -O1, not -O0: the whole suite runs on it in CI, and -O1 keeps the
# search-heavy tests nearer release speed without checking anything less.
cflags = ["-O1", "-g"] if DEBUG else ["-O3"]
ldflags = []
if SANITIZE:
    sanitizers = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer",
                  "-fno-sanitize-recover=undefined"]
    cflags = ["-O1", "-g"] + sanitizers
    ldflags = sanitizers
    macros.append(("WILDHORN_SANITIZE", "1"))

extensions = [
    Extension("solver._core", ["solver/_core.pyx"], define_macros=macros,
              extra_compile_args=cflags, extra_link_args=ldflags),
    Extension("solver._features", ["solver/_features.pyx"], define_macros=macros,
              extra_compile_args=cflags, extra_link_args=ldflags),
    Extension("solver._tree", ["solver/_tree.pyx"], define_macros=macros,
              extra_compile_args=cflags, extra_link_args=ldflags),
    Extension("bots._policy", ["bots/_policy.pyx"], define_macros=macros,
              extra_compile_args=cflags, extra_link_args=ldflags),
    Extension("bots._net", ["bots/_net.pyx"], define_macros=macros,
              extra_compile_args=cflags, extra_link_args=ldflags),
    Extension("bots._searchtree", ["bots/_searchtree.pyx"], define_macros=macros,
              extra_compile_args=cflags, extra_link_args=ldflags),
    Extension("bots._inference", ["bots/_inference.pyx"], define_macros=macros,
              extra_compile_args=cflags, extra_link_args=ldflags),
    Extension("bots._ismcts", ["bots/_ismcts.pyx"], define_macros=macros,
              extra_compile_args=cflags, extra_link_args=ldflags),
    Extension("bots._oos", ["bots/_oos.pyx"], define_macros=macros,
              extra_compile_args=cflags, extra_link_args=ldflags),
    Extension("bots._labels", ["bots/_labels.pyx"], define_macros=macros,
              extra_compile_args=cflags, extra_link_args=ldflags),
    Extension("exact._cfr", ["exact/_cfr.pyx"], define_macros=macros,
              extra_compile_args=cflags, extra_link_args=ldflags),
    Extension("exact._endgame", ["exact/_endgame.pyx"], define_macros=macros,
              extra_compile_args=cflags, extra_link_args=ldflags),
]

setup(
    ext_modules=cythonize(extensions, compiler_directives=directives,
                          include_path=["."], build_dir="build/cython",
                          force=True),
)
