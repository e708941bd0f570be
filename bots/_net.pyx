# cython: language_level=3
"""The value network's forward pass in C (layout and interface in _net.pxd).

A multilayer perceptron, float32, ReLU hidden layers and a sigmoid or
clipped output, over the value features of solver._features.  The first
layer reads only the non-zero features (about 106 of 734 in a game's
positions): each adds its row of W0 to the first hidden layer; the hidden
layers skip the units ReLU zeroed the same way.  The loops are plain C that
the compiler vectorises, built twice: for the baseline instruction set and,
on x86 with GCC or Clang, for AVX2, chosen at import by what the processor
supports.  Both sum each output's terms in the same order (the vectors run
across the outputs) and neither may fuse a multiply and an add (AVX2 without
FMA), so they agree bit for bit (tests/test_valuenet.py checks it).  The weights are the arrays of a
bots.valuenet.ValueNet (read once per file and process: ``load_net``
caches by digest, so every searcher of a process shares one copy).

``NetC.evaluate_features`` and ``evaluate_core`` serve the tests (the same
output as ``ValueNet.evaluate`` to about 1e-6), ``time_positions`` the
benchmark (benchmarks/net_speed.py).
"""

from time import perf_counter as clock

import numpy as np

from libc.math cimport expf
from libc.string cimport memcpy

from bots import valuenet
from solver._core cimport (
    NUM_ACTIONS, PH_ROLL, Config, Core, Rng, State, apply_action, chance_outcomes, is_chance,
    is_terminal, rng_seed, sample_chance,
)
from solver._features cimport N_FEATURES, fill_features
from solver.errors import ParameterError

_CACHE = {}    # sha256 -> NetC: one copy of each network per process


cdef extern from *:
    """
    /* out[k] += in[j] * w[j * n_out + k] for the inputs j with in[j] != 0
       (positive_only: in[j] > 0, skipping ReLU's zeros), j ascending: each
       output sums its terms in the same order in both builds below. */
    #define WH_ACCUMULATE_BODY                                              \
        for (int j = 0; j < n_in; j++) {                                    \
            float v = in[j];                                                \
            if (positive_only ? v > 0.0f : v != 0.0f) {                     \
                const float* row = w + (size_t)j * (size_t)n_out;           \
                for (int k = 0; k < n_out; k++) out[k] += v * row[k];       \
            }                                                               \
        }
    static void wh_accumulate_plain(float* __restrict out, const float* __restrict w,
                                    const float* __restrict in, int n_in, int n_out,
                                    int positive_only) { WH_ACCUMULATE_BODY }
    #if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
    __attribute__((target("avx2")))
    static void wh_accumulate_avx2(float* __restrict out, const float* __restrict w,
                                   const float* __restrict in, int n_in, int n_out,
                                   int positive_only) { WH_ACCUMULATE_BODY }
    static int wh_has_avx2(void) { __builtin_cpu_init(); return __builtin_cpu_supports("avx2"); }
    #else
    #define wh_accumulate_avx2 wh_accumulate_plain
    static int wh_has_avx2(void) { return 0; }
    #endif
    """
    void wh_accumulate_plain(float* out, const float* w, const float* inp, int n_in, int n_out,
                             int positive_only) noexcept nogil
    void wh_accumulate_avx2(float* out, const float* w, const float* inp, int n_in, int n_out,
                            int positive_only) noexcept nogil
    int wh_has_avx2() noexcept nogil


cdef bint _simd = wh_has_avx2()   # 1: the AVX2 build of the loops (set once, at import)


cdef inline void _accumulate(float* out, const float* w, const float* inp, int n_in, int n_out,
                             int positive_only) noexcept nogil:
    if _simd:
        wh_accumulate_avx2(out, w, inp, n_in, n_out, positive_only)
    else:
        wh_accumulate_plain(out, w, inp, n_in, n_out, positive_only)


def simd(on=None):
    """Whether the forward pass runs its AVX2 build; ``simd(False)`` /
    ``simd(True)`` switch to the baseline build and back (True only where
    the processor has AVX2), for the test that they agree; returns the
    setting before."""
    global _simd
    before = bool(_simd)
    if on is not None:
        _simd = bool(on) and wh_has_avx2()
    return before


cdef int net_work_floats(const Net* net) noexcept nogil:
    return N_FEATURES + 2 * net.width


cdef float net_forward(const Net* net, const float* x, float* work) noexcept nogil:
    cdef float* h = work
    cdef float* g = work + net.width
    cdef float* swap
    cdef float v
    cdef int i, n_in, n_out = net.sizes[1]
    memcpy(h, net.b[0], n_out * sizeof(float))
    _accumulate(h, net.w[0], x, N_FEATURES, n_out, 0)     # the sparse first layer
    for i in range(1, net.layers):
        n_in = n_out
        n_out = net.sizes[i + 1]
        memcpy(g, net.b[i], n_out * sizeof(float))
        _accumulate(g, net.w[i], h, n_in, n_out, 1)       # ReLU: units <= 0 add nothing
        swap = h
        h = g
        g = swap
    v = h[0]
    if net.sigmoid:
        return 1.0 / (1.0 + expf(-v))
    return 0.0 if v < 0.0 else (1.0 if v > 1.0 else v)


cdef float net_position(const Net* net, const Config* c, const State* s,
                        float* work) noexcept nogil:
    cdef float* x = work + 2 * net.width
    if is_terminal(s):
        return 1.0 if s.winner == 0 else 0.0
    fill_features(c, s, x)
    return net_forward(net, x, work)


cdef inline void _settle(const Config* c, State* s, Rng* r) noexcept nogil:
    """Samples chance events at ``s`` up to a decision or the end."""
    while is_chance(s) and not is_terminal(s):
        apply_action(c, s, sample_chance(c, s, r))


cdef double net_value(const Net* net, const Config* c, const State* s, float* work,
                      Rng* r, bint dice_expectation) noexcept nogil:
    cdef State t
    cdef int acts[NUM_ACTIONS]
    cdef double probs[NUM_ACTIONS]
    cdef double total = 0.0
    cdef int k, n
    if not is_chance(s) or is_terminal(s):
        return net_position(net, c, s, work)
    if s.phase == PH_ROLL and dice_expectation:
        n = chance_outcomes(c, s, acts, probs)
        for k in range(n):
            t = s[0]
            apply_action(c, &t, acts[k])
            _settle(c, &t, r)
            total += probs[k] * net_position(net, c, &t, work)
        return total
    t = s[0]
    _settle(c, &t, r)
    return net_position(net, c, &t, work)


cdef class NetC:
    """See _net.pxd.  Built by ``load_net``."""

    def __init__(self, source):
        cdef int i
        cdef const float[:, ::1] w
        cdef const float[::1] b
        if not isinstance(source, valuenet.ValueNet):
            raise ParameterError("NetC: expected a bots.valuenet.ValueNet")
        sizes = source.sizes
        if len(sizes) - 1 > NET_MAX_LAYERS or sizes[0] != N_FEATURES or sizes[len(sizes) - 1] != 1:
            raise ParameterError(f"value network {source.path}: layers {sizes} do not fit")
        self.source = source
        self.sha256 = source.sha256
        self.net.layers = len(sizes) - 1
        self.net.width = max(sizes[1:])
        self.net.sigmoid = source.output == "sigmoid"
        for i in range(len(sizes)):
            self.net.sizes[i] = sizes[i]
        for i in range(self.net.layers):
            w = source.weights[i]
            b = source.biases[i]
            self.net.w[i] = &w[0, 0]
            self.net.b[i] = &b[0]

    @property
    def sizes(self):
        return self.source.sizes

    def evaluate_features(self, x):
        """The output for each row of ``x`` (n, N_FEATURES), through the C
        forward pass (float32)."""
        cdef const float[:, ::1] rows = np.ascontiguousarray(np.atleast_2d(x), dtype=np.float32)
        cdef float[::1] work = np.zeros(net_work_floats(&self.net), dtype=np.float32)
        cdef float[::1] out
        cdef Py_ssize_t i
        if rows.shape[1] != N_FEATURES:
            raise ParameterError(f"evaluate_features: rows of {N_FEATURES} features expected, "
                                 f"got {rows.shape[1]}")
        result = np.empty(rows.shape[0], dtype=np.float32)
        out = result
        for i in range(rows.shape[0]):
            out[i] = net_forward(&self.net, &rows[i, 0], &work[0])
        return result

    def evaluate_core(self, Core core):
        """The network's output at ``core``'s position (features in C, then the
        forward pass; a terminal position: its result)."""
        cdef float[::1] work = np.zeros(net_work_floats(&self.net), dtype=np.float32)
        return float(net_position(&self.net, &core.config.c, &core.s, &work[0]))

    def value(self, Core core, seed=0, bint dice_expectation=True):
        """``net_value`` at ``core``: a die about to be rolled averaged over
        its faces (or sampled), other chance events sampled from ``seed``."""
        cdef float[::1] work = np.zeros(net_work_floats(&self.net), dtype=np.float32)
        cdef Rng r
        rng_seed(&r, <unsigned long long>(int(seed) & 0xFFFFFFFFFFFFFFFF))
        return float(net_value(&self.net, &core.config.c, &core.s, &work[0], &r,
                               dice_expectation))

    def time_positions(self, list cores, int repeats):
        """Seconds to evaluate every position of ``cores`` ``repeats`` times in
        C (features and forward pass), and the sum of the values (so nothing is
        optimised away)."""
        cdef float[::1] work = np.zeros(net_work_floats(&self.net), dtype=np.float32)
        cdef Core core
        cdef int k
        cdef double total = 0.0
        start = clock()
        for core in cores:
            with nogil:
                for k in range(repeats):
                    total += net_position(&self.net, &core.config.c, &core.s, &work[0])
        return clock() - start, total


def load_net(net=None):
    """The network in C for ``net``: a bots.valuenet.ValueNet, a file's path,
    or None (the packaged network); one copy per file digest and process."""
    if net is None:
        net = valuenet.default()
    elif not isinstance(net, valuenet.ValueNet):
        net = valuenet.load(net)
    found = _CACHE.get(net.sha256)
    if found is None:
        found = _CACHE[net.sha256] = NetC(net)
    return found
