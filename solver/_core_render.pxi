# A picture of the position for people (``describe``, the game's ``__str__``),
# built in C (included by _core.pyx).

cdef int _app(char* buf, int n, int cap, const char* text) noexcept nogil:
    while text[0] != 0 and n < cap - 1:
        buf[n] = text[0]
        n += 1
        text += 1
    return n


cdef int _appi(char* buf, int n, int cap, int v) noexcept nogil:
    if n < cap - 12:
        n = _put_int(buf, n, v)
    return n


cdef const char* _SIDE_NAMES[NSIDES]
_SIDE_NAMES[0] = b"Polish"
_SIDE_NAMES[1] = b"German"
cdef const char* _ZONE_TITLES[NZONES]
_ZONE_TITLES[0] = b"Forest"
_ZONE_TITLES[1] = b"Periphery"
_ZONE_TITLES[2] = b"Rocket Base"
cdef const char* _FRAG_TITLES[FR_COUNT]
_FRAG_TITLES[0] = b"pool "
_FRAG_TITLES[1] = b"periphery "
_FRAG_TITLES[2] = b"hidden "
_FRAG_TITLES[3] = b"forest "
_FRAG_TITLES[4] = b"wildhorn "
_FRAG_TITLES[5] = b"base "
cdef const char* _PHASE_TITLES[PH_COUNT]
_PHASE_TITLES[0] = b"draw"
_PHASE_TITLES[1] = b"redraw decision"
_PHASE_TITLES[2] = b"V-2 fired"
_PHASE_TITLES[3] = b"actions"
_PHASE_TITLES[4] = b"movement destination"
_PHASE_TITLES[5] = b"motorcycle window"
_PHASE_TITLES[6] = b"attack target"
_PHASE_TITLES[7] = b"escort window"
_PHASE_TITLES[8] = b"ambush window"
_PHASE_TITLES[9] = b"die roll"
_PHASE_TITLES[10] = b"modifier window"
_PHASE_TITLES[11] = b"nurses window"
_PHASE_TITLES[12] = b"witnesses window"
_PHASE_TITLES[13] = b"refresh choice"
_PHASE_TITLES[14] = b"hidden fragments count"
_PHASE_TITLES[15] = b"game over"
cdef const char* _PEND_TITLES[PK_COUNT]
_PEND_TITLES[0] = b""
_PEND_TITLES[1] = b"movement"
_PEND_TITLES[2] = b"attack"
_PEND_TITLES[3] = b"search"
_PEND_TITLES[4] = b"steal"
_PEND_TITLES[5] = b"command"
_PEND_TITLES[6] = b"high morale"
_PEND_TITLES[7] = b"motorized column refresh"
_PEND_TITLES[8] = b"hidden fragments"


cdef int _list_cards(const char (*names)[NAME_CAP], const State* s, int loc, int side,
                     char* buf, int n, int cap) noexcept nogil:
    cdef int g, first = 1
    for g in range(NCARDS):
        if s.loc[g] != loc or (side >= 0 and _side_of(g) != side):
            continue
        if not first:
            n = _app(buf, n, cap, b", ")
        first = 0
        n = _app(buf, n, cap, names[g])
        if _on_table(loc) and s.exhausted[g]:
            n = _app(buf, n, cap, b" (exhausted)")
    if first:
        n = _app(buf, n, cap, b"-")
    return n


cdef int _describe(const Config* c, const char (*names)[NAME_CAP], const State* s,
                   char* buf, int cap) noexcept nogil:
    cdef int n = 0, k, side, p
    n = _app(buf, n, cap, b"Turn ")
    n = _appi(buf, n, cap, s.turn)
    n = _app(buf, n, cap, b"/")
    n = _appi(buf, n, cap, c.turns)
    n = _app(buf, n, cap, b", ")
    n = _app(buf, n, cap, _PHASE_TITLES[s.phase])
    p = current_player(s)
    if p >= 0:
        n = _app(buf, n, cap, b", ")
        n = _app(buf, n, cap, _SIDE_NAMES[p])
        n = _app(buf, n, cap, b" to decide")
    elif p == -1:
        n = _app(buf, n, cap, b", chance")
    if s.phase >= PH_MAIN and s.phase != PH_TERMINAL:
        n = _app(buf, n, cap, b"\nActing: ")
        n = _app(buf, n, cap, _SIDE_NAMES[s.actor])
        n = _app(buf, n, cap, b", actions left ")
        n = _appi(buf, n, cap, s.actions_left)
        n = _app(buf, n, cap, b", passes in a row ")
        n = _appi(buf, n, cap, s.passes)
        if s.mc[1] + s.mc[2] + s.mc[3] + s.refresh_due:
            n = _app(buf, n, cap, b", motorized column refresh pending")
    n = _app(buf, n, cap, b"\nRockets revealed:")
    for k in range(s.n_revealed):
        n = _app(buf, n, cap, b" ")
        n = _appi(buf, n, cap, c.rockets[s.order[k]])
    if s.n_revealed == 0:
        n = _app(buf, n, cap, b" none")
    n = _app(buf, n, cap, b"\nFragments: ")
    for k in range(6):
        if k:
            n = _app(buf, n, cap, b", ")
        n = _app(buf, n, cap, _FRAG_TITLES[k])
        n = _appi(buf, n, cap, s.frag[k])
    for k in range(3):
        n = _app(buf, n, cap, b"\n")
        n = _app(buf, n, cap, _ZONE_TITLES[2 - k])
        n = _app(buf, n, cap, b": ")
        n = _list_cards(names, s, LOC_BASE - k, -1, buf, n, cap)
    for side in range(2):
        n = _app(buf, n, cap, b"\n")
        n = _app(buf, n, cap, _SIDE_NAMES[side])
        n = _app(buf, n, cap, b" hand (")
        n = _appi(buf, n, cap, hand_size(c, s, side))
        n = _app(buf, n, cap, b"): ")
        n = _list_cards(names, s, LOC_HAND, side, buf, n, cap)
        n = _app(buf, n, cap, b"; deck ")
        n = _appi(buf, n, cap, deck_size(c, s, side))
        if s.redraw_used[side]:
            n = _app(buf, n, cap, b"; redraw used")
    n = _app(buf, n, cap, b"\nIn play: ")
    n = _list_cards(names, s, LOC_EVENT, -1, buf, n, cap)
    n = _app(buf, n, cap, b"\nGone: ")
    n = _list_cards(names, s, LOC_GONE, -1, buf, n, cap)
    if s.pend.kind != PK_NONE:
        n = _app(buf, n, cap, b"\nResolving: ")
        n = _app(buf, n, cap, _PEND_TITLES[s.pend.kind])
        n = _app(buf, n, cap, b" by ")
        n = _app(buf, n, cap, _SIDE_NAMES[s.pend.actor])
        if s.pend.card >= 0:
            n = _app(buf, n, cap, b", card ")
            n = _app(buf, n, cap, names[s.pend.card])
        if s.pend.target >= 0:
            n = _app(buf, n, cap, b", target ")
            n = _app(buf, n, cap, names[s.pend.target])
        if s.pend.defender >= 0 and s.pend.defender != s.pend.target:
            n = _app(buf, n, cap, b", escorted by ")
            n = _app(buf, n, cap, names[s.pend.defender])
        for k in range(s.pend.roll):
            n = _app(buf, n, cap, b", die " if k == 0 else b" and ")
            n = _appi(buf, n, cap, s.pend.dice[k])
            if s.pend.mods[k]:
                n = _app(buf, n, cap, b"+" if s.pend.mods[k] > 0 else b"")
                n = _appi(buf, n, cap, s.pend.mods[k])
    if s.phase == PH_TERMINAL:
        n = _app(buf, n, cap, b"\nWinner: ")
        n = _app(buf, n, cap, _SIDE_NAMES[s.winner])
        n = _app(buf, n, cap, b" (Polish ")
        n = _appi(buf, n, cap, polish_score(s))
        n = _app(buf, n, cap, b", German ")
        n = _appi(buf, n, cap, german_score(s))
        n = _app(buf, n, cap, b")")
    buf[n] = 0
    return n


def describe(core):
    """A multi-line picture of the whole position, for people."""
    cdef char buf[4096]
    cdef Core c
    if not isinstance(core, Core):
        raise ParameterError(f"describe(core): expected a Core, got {describe_value(core)}")
    c = <Core>core
    cdef int n = _describe(&c.config.c, c.config.cnames, &c.s, buf, 4096)
    return buf[:n].decode("utf-8", "replace")
