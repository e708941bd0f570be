# cython: language_level=3
"""The value network's forward pass in C (see _net.pyx): the C interface the
searchers (bots._searchtree) call at a leaf, without the GIL."""

from solver._core cimport Config, Rng, State

cdef enum:
    NET_MAX_LAYERS = 16        # weight matrices at most (bots.valuenet.MAX_LAYERS)

ctypedef struct Net:
    int layers                 # weight matrices (hidden layers + 1)
    int sizes[NET_MAX_LAYERS + 1]  # the layers' widths, inputs (N_FEATURES) first, 1 last
    const float* w[NET_MAX_LAYERS]  # layer i's weights, row-major (sizes[i], sizes[i+1]):
                               # row j is what input j adds to every output
    const float* b[NET_MAX_LAYERS]  # layer i's biases (sizes[i+1])
    int width                  # the widest hidden layer (the scratch it needs)
    bint sigmoid               # 1: a sigmoid output; 0: the identity clipped to [0, 1]

# Floats of scratch a forward pass from a position needs (features and two
# hidden layers): a searcher allocates it once per tree (not shared between threads).
cdef int net_work_floats(const Net* net) noexcept nogil
# The network's output (P(the Polish side wins)) for the feature vector x
# (N_FEATURES floats); the first layer reads only x's non-zero entries.
cdef float net_forward(const Net* net, const float* x, float* work) noexcept nogil
# The network's value of the decision or terminal position s: features, then
# forward (a terminal position's value is its result).
cdef float net_position(const Net* net, const Config* c, const State* s,
                        float* work) noexcept nogil
# The value of any position s (not changed): chance events first, a die
# rolled at s as the expectation over its faces (``dice_expectation``; else
# sampled), any other chance event sampled with r, until a decision or the end.
cdef double net_value(const Net* net, const Config* c, const State* s, float* work,
                      Rng* r, bint dice_expectation) noexcept nogil


cdef class NetC:
    """A loaded network in C, shared by every searcher of the process that
    uses the same file (bots._net.load_net caches by digest)."""
    cdef Net net               # the C view of the arrays below
    cdef readonly object source     # the bots.valuenet.ValueNet held (its arrays own the floats)
    cdef readonly str sha256   # the file's digest (the cache key)
