# cython: language_level=3
"""The storage shared by the tree searches (``bots._ismcts``, ``bots._oos``):
an open-addressing hash table from 64-bit information-state keys to node
indices, and growth of a C array by doubling.  Inline C, no Python objects."""

from libc.stdint cimport int32_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memset


ctypedef struct KeyTable:
    uint64_t* keys             # the key in each slot
    int32_t* index             # the node index in each slot, -1 if empty
    size_t cap                 # slots, a power of two
    size_t size                # keys stored (at most cap / 2)


cdef inline int table_init(KeyTable* t, size_t cap) noexcept nogil:
    """An empty table of ``cap`` slots (a power of two); -1 if memory fails."""
    t.keys = <uint64_t*>malloc(cap * sizeof(uint64_t))
    t.index = <int32_t*>malloc(cap * sizeof(int32_t))
    t.cap = cap
    if t.keys == NULL or t.index == NULL:
        return -1
    table_clear(t)
    return 0


cdef inline void table_clear(KeyTable* t) noexcept nogil:
    memset(t.index, 0xFF, t.cap * sizeof(int32_t))
    t.size = 0


cdef inline void table_free(KeyTable* t) noexcept nogil:
    free(t.keys)
    free(t.index)
    t.keys = NULL
    t.index = NULL


cdef inline size_t table_bytes(const KeyTable* t) noexcept nogil:
    return t.cap * (sizeof(uint64_t) + sizeof(int32_t))


cdef inline int32_t table_find(const KeyTable* t, uint64_t key) noexcept nogil:
    """The node index stored for ``key``, or -1."""
    cdef size_t j = key & (t.cap - 1)
    while t.index[j] >= 0:
        if t.keys[j] == key:
            return t.index[j]
        j = (j + 1) & (t.cap - 1)
    return -1


cdef inline void _table_put(uint64_t* keys, int32_t* index, size_t cap, uint64_t key,
                            int32_t i) noexcept nogil:
    cdef size_t j = key & (cap - 1)
    while index[j] >= 0:
        j = (j + 1) & (cap - 1)
    keys[j] = key
    index[j] = i


cdef inline int table_insert(KeyTable* t, uint64_t key, int32_t i) noexcept nogil:
    """Stores a new ``key`` -> ``i``, doubling the table past half full; -1
    if memory fails."""
    cdef size_t cap = t.cap * 2, j
    cdef uint64_t* nk
    cdef int32_t* ni
    if (t.size + 1) * 2 > t.cap:
        nk = <uint64_t*>malloc(cap * sizeof(uint64_t))
        ni = <int32_t*>malloc(cap * sizeof(int32_t))
        if nk == NULL or ni == NULL:
            free(nk)
            free(ni)
            return -1
        memset(ni, 0xFF, cap * sizeof(int32_t))
        for j in range(t.cap):
            if t.index[j] >= 0:
                _table_put(nk, ni, cap, t.keys[j], t.index[j])
        table_free(t)
        t.keys = nk
        t.index = ni
        t.cap = cap
    _table_put(t.keys, t.index, t.cap, key, i)
    t.size += 1
    return 0


cdef inline int grow_array(void** p, int32_t* cap, size_t need, size_t elem) noexcept nogil:
    """Doubles the array ``*p`` of ``*cap`` elements of ``elem`` bytes until
    it holds ``need``; -1 if memory fails (``*p`` is then unchanged)."""
    cdef size_t n = <size_t>cap[0]
    cdef void* q
    if need <= n:
        return 0
    while n < need:
        n *= 2
    q = realloc(p[0], n * elem)
    if q == NULL:
        return -1
    p[0] = q
    cap[0] = <int32_t>n
    return 0
