# Part of webtraj.dom._accel (included by _accel.pyx).
# Candidate texts (candidate_text.candidate_texts), written as UTF-8 into one buffer per
# call and decoded once per candidate.

from webtraj.dom.candidate_text import SKIP_VALUES
from webtraj.dom.cleaned import SALIENT_ATTRIBUTES

cdef WordList _SALIENT = _word_list(SALIENT_ATTRIBUTES)
cdef WordList _SKIP = _word_list(sorted(SKIP_VALUES - {""}))


cdef inline bint _salient_name(const char* name) noexcept nogil:
    return _find_word(&_SALIENT, name, <Py_ssize_t>strlen(name), False) >= 0


cdef bint _dull_value(const char* v, Py_ssize_t n) noexcept nogil:
    """`v.lower()` is one of the values candidate texts leave out, or a URL."""
    if n == 0 or (n >= 4 and memcmp(v, b"http", 4) == 0):
        return True
    return _find_word(&_SKIP, v, n, True) >= 0


cdef int _put_value(Buf* b, xmlAttr* a) except -1:
    """The attribute's value with its whitespace runs made single spaces."""
    cdef Words w
    w.count = 0
    w.limit = 1 << 30
    w.in_word = False
    w.started = False
    if _simple_value(a):
        _put_words(b, &w, <const char*>a.children.content,
                   <Py_ssize_t>strlen(<const char*>a.children.content))
    elif a.children != NULL:
        raw = _attr_value(a).encode("utf-8")
        _put_words(b, &w, <const char*>raw, len(raw))
    return 0


cdef int _put_attr_words(Buf* b, xmlNode* n, bint lead) except -1:
    """candidate_text._el_attr_words (only when there is more than the id), each value
    preceded by a space when `lead`, else between values. Returns the number written."""
    cdef xmlAttr* a = n.properties
    cdef Py_ssize_t seen_at[16]
    cdef Py_ssize_t seen_len[16]
    cdef int seen = 0, i
    cdef Py_ssize_t mark, start, size
    cdef bint dup
    if a == NULL or a.next == NULL:
        return 0
    while a != NULL and seen < 16:
        if a.ns == NULL and _salient_name(<const char*>a.name):
            mark = b.size
            if lead or seen:
                _put(b, " ", 1)
            start = b.size
            _put_value(b, a)
            size = b.size - start
            dup = _dull_value(b.data + start, size)
            i = 0
            while not dup and i < seen:
                dup = seen_len[i] == size and memcmp(b.data + seen_at[i], b.data + start,
                                                     size) == 0
                i += 1
            if dup:
                b.size = mark
            else:
                seen_at[seen] = start
                seen_len[seen] = size
                seen += 1
        a = a.next
    return seen


cdef int _put_tag(Buf* b, xmlNode* n) except -1:
    if n.ns != NULL and n.ns.href != NULL:
        _put(b, "{", 1)
        _put_str(b, <const char*>n.ns.href)
        _put(b, "}", 1)
    return _put_str(b, <const char*>n.name)


cdef int _put_text_words(Buf* b, xmlNode* top, int max_words) except -1:
    """` ` and the first `max_words` words of the `<text>` elements in `top` (itself
    included), or nothing when there are none."""
    cdef Words w
    cdef xmlNode* c = top
    cdef xmlNode* t
    cdef bint full = False
    w.count = 0
    w.limit = max_words
    w.started = False
    _put(b, " ", 1)
    while c != NULL and not full:
        if _is_text_el(c):
            # `el.text`: the leading run of text and CDATA nodes, XInclude markers skipped.
            w.in_word = False
            t = c.children
            while t != NULL and not full:
                if t.type == tree.XML_TEXT_NODE or t.type == tree.XML_CDATA_SECTION_NODE:
                    if t.content != NULL:
                        full = _put_words(b, &w, <const char*>t.content,
                                          <Py_ssize_t>strlen(<const char*>t.content)) == 1
                elif t.type != tree.XML_XINCLUDE_START and t.type != tree.XML_XINCLUDE_END:
                    break
                t = t.next
        c = _next_in_subtree(c, top)
    if not w.started:
        b.size -= 1
    return 0


cdef inline bint _wrapper(xmlNode* n) noexcept nogil:
    return n.ns == NULL and (_eq(n.name, b"div") or _eq(n.name, b"span"))


cdef int _put_path(Buf* b, xmlNode* n, int depth) except -1:
    """` | label > label ...` of `n` and its ancestors, nearest first (candidate_text._Paths):
    a label is the tag and its attribute words; html, body and bare div/span wrappers add
    nothing."""
    cdef int count = 0
    cdef Py_ssize_t mark
    while n != NULL and count < depth:
        if n.ns == NULL and (_eq(n.name, b"html") or _eq(n.name, b"body") or (
                (n.properties == NULL or n.properties.next == NULL) and _wrapper(n))):
            n = _parent_element(n)
            continue
        mark = b.size
        _put_str(b, " | " if count == 0 else " > ")
        _put_tag(b, n)
        if _put_attr_words(b, n, True) == 0 and _wrapper(n):
            b.size = mark
        else:
            count += 1
        n = _parent_element(n)
    return 0


cdef str _element_text(Buf* b, xmlNode* n, int max_words, int depth):
    b.size = 0
    _put_tag(b, n)
    _put_attr_words(b, n, True)
    _put_text_words(b, n, max_words)
    _put_path(b, _parent_element(n), depth)
    return b.data[:b.size].decode("utf-8")


def candidate_texts(NodeIndex index, ids, fallback, int max_words, int path_depth):
    cdef dict out = {}
    cdef xmlNode* n
    cdef Buf b
    b.data = NULL
    b.size = 0
    b.cap = 0
    fb = fallback or {}
    try:
        for bid in ids:
            n = index.node(bid)
            if n == NULL:
                out[bid] = fb.get(bid, "")
            else:
                out[bid] = _element_text(&b, n, max_words, path_depth)
    finally:
        free(b.data)
    return out
