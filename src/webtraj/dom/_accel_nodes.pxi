# Part of webtraj.dom._accel (included by _accel.pyx).
# libxml2 node helpers and a UTF-8 buffer that writes words as `str.split()` reads them
# (the whitespace set is Python's `str.isspace`, decoded from UTF-8).

cdef inline str _str(const_xmlChar* s):
    return (<const char*>s).decode("utf-8")


cdef inline bint _eq(const_xmlChar* a, const char* b) noexcept nogil:
    return a[0] == b[0] and strcmp(<const char*>a, b) == 0


cdef inline bint _named(xmlNode* n, const char* name) noexcept nogil:
    """An element called `name` in no namespace."""
    return n.type == tree.XML_ELEMENT_NODE and n.ns == NULL and _eq(n.name, name)


cdef inline bint _is_text_el(xmlNode* n) noexcept nogil:
    return _named(n, _TEXT_NAME)


cdef inline xmlNode* _first_element(xmlNode* n) noexcept nogil:
    while n != NULL and n.type != tree.XML_ELEMENT_NODE:
        n = n.next
    return n


cdef inline xmlNode* _parent_element(xmlNode* n) noexcept nogil:
    """`getparent()`: NULL above the root element."""
    cdef xmlNode* p = n.parent
    if p == NULL or p.type != tree.XML_ELEMENT_NODE:
        return NULL
    return p


cdef inline xmlNode* _next_in_subtree(xmlNode* c, xmlNode* top) noexcept nogil:
    """The element after `c` in document order, staying inside `top`'s subtree."""
    cdef xmlNode* n = _first_element(c.children)
    if n != NULL:
        return n
    while c != top and c != NULL:
        n = _first_element(c.next)
        if n != NULL:
            return n
        c = c.parent
    return NULL


cdef inline bint _simple_value(xmlAttr* a) noexcept nogil:
    """The value is one text node (no entity references): readable in place."""
    cdef xmlNode* c = a.children
    return c != NULL and c.next == NULL and c.type == tree.XML_TEXT_NODE and c.content != NULL


cdef str _attr_value(xmlAttr* a):
    if _simple_value(a):
        return _str(a.children.content)
    if a.children == NULL:
        return ""
    return cetree.attributeValue(a.parent, a)


cdef inline xmlAttr* _id_attr(xmlNode* n) noexcept nogil:
    cdef xmlAttr* a = n.properties
    while a != NULL:
        if a.ns == NULL and _eq(a.name, _ID_NAME):
            return a
        a = a.next
    return NULL


cdef inline int _attr_count(xmlNode* n) noexcept nogil:
    cdef int k = 0
    cdef xmlAttr* a = n.properties
    while a != NULL:
        k += 1
        a = a.next
    return k


cdef inline uint64_t _hash(const char* s, Py_ssize_t n) noexcept nogil:
    """FNV-1a."""
    cdef uint64_t h = 14695981039346656037ULL
    cdef Py_ssize_t i
    for i in range(n):
        h = (h ^ <unsigned char>s[i]) * 1099511628211ULL
    return h


cdef struct WordList:
    # A fixed list of names or values from the pure-Python module, as C strings.
    const char* words[32]
    int n


cdef list _WORD_BYTES = []  # what WordLists point into


cdef WordList _word_list(words) except *:
    """In the given order (attribute lists are ordered)."""
    cdef WordList out
    out.n = 0
    for word in words:
        if out.n == 32:
            raise ValueError("word list too long")
        raw = word.encode("utf-8")
        _WORD_BYTES.append(raw)
        out.words[out.n] = raw
        out.n += 1
    return out


cdef inline int _find_word(const WordList* wl, const char* s, Py_ssize_t n,
                           bint nocase) noexcept nogil:
    """Position of `s[:n]` in the list (ASCII case ignored when `nocase`), or -1."""
    cdef int i
    for i in range(wl.n):
        if <Py_ssize_t>strlen(wl.words[i]) == n and (
                strncasecmp(s, wl.words[i], n) == 0 if nocase
                else memcmp(s, wl.words[i], n) == 0):
            return i
    return -1


cdef struct Buf:
    char* data
    Py_ssize_t size
    Py_ssize_t cap


cdef int _put(Buf* b, const char* s, Py_ssize_t n) except -1:
    cdef Py_ssize_t cap
    cdef char* grown
    if b.size + n > b.cap:
        cap = max(2 * b.cap, b.size + n + 256)
        grown = <char*>realloc(b.data, cap)
        if grown == NULL:
            raise MemoryError()
        b.data = grown
        b.cap = cap
    memcpy(b.data + b.size, s, n)
    b.size += n
    return 0


cdef inline int _put_str(Buf* b, const char* s) except -1:
    return _put(b, s, <Py_ssize_t>strlen(s))


cdef inline int _space_len(const unsigned char* p, const unsigned char* end) noexcept nogil:
    """Byte length of the whitespace character at `p`, or 0."""
    cdef unsigned char c = p[0]
    if c < 0x80:
        return 1 if c == 32 or 9 <= c <= 13 or 28 <= c <= 31 else 0
    if c == 0xC2:
        return 2 if end - p >= 2 and (p[1] == 0x85 or p[1] == 0xA0) else 0
    if end - p < 3:
        return 0
    if c == 0xE1:
        return 3 if p[1] == 0x9A and p[2] == 0x80 else 0
    if c == 0xE2:
        if p[1] == 0x80 and (p[2] <= 0x8A or p[2] == 0xA8 or p[2] == 0xA9 or p[2] == 0xAF):
            return 3
        return 3 if p[1] == 0x81 and p[2] == 0x9F else 0
    if c == 0xE3:
        return 3 if p[1] == 0x80 and p[2] == 0x80 else 0
    return 0


cdef struct Words:
    # Words written so far, and whether the last byte written is inside a word.
    int count
    int limit
    bint in_word
    bint started


cdef int _put_words(Buf* b, Words* w, const char* s, Py_ssize_t n) except -1:
    """Append the words of `s` (single-space separated, continuing a word across calls while
    `w.in_word`) until `w.limit` words are written. Returns 1 when the limit is reached."""
    cdef const unsigned char* p = <const unsigned char*>s
    cdef const unsigned char* end = p + n
    cdef const unsigned char* word
    cdef int k
    while p < end:
        k = _space_len(p, end)
        if k:
            w.in_word = False
            p += k
            continue
        word = p
        while p < end and _space_len(p, end) == 0:
            p += 1
        if not w.in_word:
            if w.count >= w.limit:
                return 1
            if w.started:
                _put(b, " ", 1)
            w.started = True
            w.count += 1
        _put(b, <const char*>word, p - word)
        w.in_word = p == end
    return 0


cdef inline int _put_char(Buf* b, char c) except -1:
    if b.size == b.cap:
        _put(b, &c, 1)
    else:
        b.data[b.size] = c
        b.size += 1
    return 0


cdef Py_ssize_t _prefix_words(const char* s, Py_ssize_t n, int k) noexcept:
    """Length of the first `k` words of single-space separated `s`."""
    cdef Py_ssize_t i
    if k <= 0:
        return 0
    for i in range(n):
        if s[i] == 32:
            k -= 1
            if k == 0:
                return i
    return n
