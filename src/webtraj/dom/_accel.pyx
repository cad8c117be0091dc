# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""Compiled fast path of the dom layer, on lxml's public C API.

A Mind2Web page has ~1,100 elements and ~700 candidates; touching each one through lxml's
Python proxies costs about as much as parsing the page, so the id index, candidate texts,
pruning and the bracketed tree are computed here over libxml2's nodes. Ids are looked up in
a C hash table over the attribute bytes, and pruning marks kept ids in a bitmap, so no Python
string is made for an element unless it reaches the output.

Every function returns exactly what its pure-Python reference returns (`cleaned.index_ids`,
`candidate_text.candidate_texts`, `prune.prune_tree` + `tree_repr.tree_repr`); the tests
compare the two on generated and real pages."""

from cpython.unicode cimport PyUnicode_AsUTF8AndSize
from libc.stdint cimport uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.stdio cimport snprintf
from libc.string cimport memcmp, memcpy, memmove, strcmp, strlen, strncasecmp

cimport lxml.includes.etreepublic as cetree
from lxml.includes cimport tree
from lxml.includes.tree cimport const_xmlChar, xmlAttr, xmlNode

cetree.import_lxml__etree()

cdef const char* _ID_NAME = b"backend_node_id"
cdef const char* _TEXT_NAME = b"text"

# Mirrors of the reference's constants (candidate_text.py, meta.py).
cdef tuple _SALIENT = ("alt", "aria_description", "aria_label", "aria_role", "input_checked",
                       "input_value", "label", "name", "option_selected", "placeholder", "role",
                       "text_value", "title", "type", "value")
cdef tuple _REPR_ATTRIBUTES = ("role", "aria_role", "type", "alt", "aria_description",
                               "aria_label", "label", "title", "name", "text_value", "value",
                               "placeholder", "input_checked", "input_value", "option_selected",
                               "class")
cdef frozenset _REPR_SET = frozenset(_REPR_ATTRIBUTES)
cdef frozenset _DULL = frozenset({"hidden", "none", "presentation", "null", "undefined"})


# ---------------------------------------------------------------- libxml2 node helpers

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


cdef str _tag(xmlNode* n):
    if n.ns == NULL:
        return _str(n.name)
    return cetree.namespacedName(n)


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


cdef inline object _text_of(xmlNode* n):
    """`el.text`, or None."""
    cdef xmlNode* c = n.children
    if c != NULL and c.type == tree.XML_TEXT_NODE and c.content != NULL and (
            c.next == NULL or c.next.type == tree.XML_ELEMENT_NODE):
        return _str(c.content)
    return cetree.textOf(n)


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


# ---------------------------------------------------------------- id index

cdef struct Slot:
    const char* key
    Py_ssize_t size
    xmlNode* node


cdef struct Placed:
    # An element and its slot, in the node table.
    xmlNode* node
    Py_ssize_t slot


cdef inline Py_ssize_t _ptr_hash(xmlNode* n, Py_ssize_t mask) noexcept nogil:
    return <Py_ssize_t>(((<uint64_t><size_t>n >> 4) * 11400714819323198485ULL) >> 24) & mask


cdef class NodeIndex:
    """backend_node_id -> element of one parsed page (first occurrence in document order
    wins, empty ids are no ids: as `cleaned.index_ids`). A read-only mapping; the compiled
    functions read its nodes directly. It keeps the page alive and assumes the tree is not
    modified afterwards. Each distinct id has a slot number; elements without an id share
    the slot `len(index)`. Two C hash tables: id bytes -> slot, element -> slot."""

    cdef readonly object root
    cdef cetree._Document _doc
    cdef Slot* _slots
    cdef Py_ssize_t _n
    cdef Py_ssize_t* _table
    cdef Py_ssize_t _mask
    cdef Placed* _placed
    cdef Py_ssize_t _placed_mask
    # Values that are not one text node, as UTF-8 bytes the slots point into.
    cdef list _owned

    def __cinit__(self, root):
        if not isinstance(root, cetree._Element):
            raise TypeError("NodeIndex needs an lxml element")
        cdef xmlNode* top = cetree.rootNodeOrRaise(root)._c_node
        cdef xmlNode* c = top
        cdef Py_ssize_t cap = 0, count = 0, size, i, k
        cdef Slot* all_ = NULL
        cdef Slot* grown
        cdef xmlAttr* a
        cdef const char* key
        self.root = root
        self._doc = (<cetree._Element>root)._doc
        self._owned = []
        try:
            # Every element with its id bytes (size 0: no id), in document order.
            while c != NULL:
                if count == cap:
                    cap = cap * 2 + 1024
                    grown = <Slot*>realloc(all_, cap * sizeof(Slot))
                    if grown == NULL:
                        raise MemoryError()
                    all_ = grown
                key = NULL
                size = 0
                a = _id_attr(c)
                if a != NULL:
                    if _simple_value(a):
                        key = <const char*>a.children.content
                        size = <Py_ssize_t>strlen(key)
                    elif a.children != NULL:
                        raw = _attr_value(a).encode("utf-8")
                        self._owned.append(raw)
                        key = <const char*>raw
                        size = len(raw)
                all_[count].key = key
                all_[count].size = size
                all_[count].node = c
                count += 1
                c = _next_in_subtree(c, top)
            self._build_tables(all_, count)
        finally:
            free(all_)

    cdef void _build_tables(self, Slot* all_, Py_ssize_t count) except *:
        cdef Py_ssize_t size = 16, i, j, k
        cdef Py_ssize_t* slot_of = <Py_ssize_t*>malloc((count + 1) * sizeof(Py_ssize_t))
        if slot_of == NULL:
            raise MemoryError()
        try:
            while size < 2 * count:
                size *= 2
            self._slots = <Slot*>malloc((count + 1) * sizeof(Slot))
            self._table = <Py_ssize_t*>malloc(size * sizeof(Py_ssize_t))
            self._placed = <Placed*>calloc(size, sizeof(Placed))
            if self._slots == NULL or self._table == NULL or self._placed == NULL:
                raise MemoryError()
            self._mask = self._placed_mask = size - 1
            for i in range(size):
                self._table[i] = -1
            # Ids: a slot per distinct id, first occurrence first.
            self._n = 0
            for i in range(count):
                if all_[i].size == 0:
                    slot_of[i] = -1
                    continue
                k = self._find(all_[i].key, all_[i].size)
                if k < 0:
                    k = self._n
                    self._slots[k] = all_[i]
                    j = <Py_ssize_t>(_hash(all_[i].key, all_[i].size) & <uint64_t>self._mask)
                    while self._table[j] >= 0:
                        j = (j + 1) & self._mask
                    self._table[j] = k
                    self._n += 1
                slot_of[i] = k
            # Elements: each one's slot, `self._n` for elements without an id.
            for i in range(count):
                j = _ptr_hash(all_[i].node, self._placed_mask)
                while self._placed[j].node != NULL:
                    j = (j + 1) & self._placed_mask
                self._placed[j].node = all_[i].node
                self._placed[j].slot = self._n if slot_of[i] < 0 else slot_of[i]
        finally:
            free(slot_of)

    def __dealloc__(self):
        free(self._slots)
        free(self._table)
        free(self._placed)

    cdef inline Py_ssize_t _find(self, const char* key, Py_ssize_t size) noexcept:
        cdef Py_ssize_t j = <Py_ssize_t>(_hash(key, size) & <uint64_t>self._mask)
        cdef Py_ssize_t k
        while True:
            k = self._table[j]
            if k < 0:
                return -1
            if self._slots[k].size == size and memcmp(self._slots[k].key, key, size) == 0:
                return k
            j = (j + 1) & self._mask

    cdef Py_ssize_t slot_of_key(self, key) except -2:
        """The slot of an id given as a str; -1 when the page has no such id."""
        cdef Py_ssize_t size
        cdef const char* s
        if not isinstance(key, str):
            return -1
        s = PyUnicode_AsUTF8AndSize(key, &size)
        if size == 0:
            return -1
        return self._find(s, size)

    cdef Py_ssize_t slot_of_node(self, xmlNode* n) noexcept:
        """The slot of an element's id; `self._n` when it has none (or is not in the page)."""
        cdef Py_ssize_t j = _ptr_hash(n, self._placed_mask)
        while self._placed[j].node != NULL:
            if self._placed[j].node == n:
                return self._placed[j].slot
            j = (j + 1) & self._placed_mask
        return self._n

    cdef inline str key_of(self, Py_ssize_t k):
        return self._slots[k].key[:self._slots[k].size].decode("utf-8")

    cdef xmlNode* node(self, key) except? NULL:
        cdef Py_ssize_t k = self.slot_of_key(key)
        return NULL if k < 0 else self._slots[k].node

    def __getitem__(self, key):
        cdef xmlNode* n = self.node(key)
        if n == NULL:
            raise KeyError(key)
        return cetree.elementFactory(self._doc, n)

    def get(self, key, default=None):
        cdef xmlNode* n = self.node(key)
        return default if n == NULL else cetree.elementFactory(self._doc, n)

    def __contains__(self, key):
        return self.slot_of_key(key) >= 0

    def __len__(self):
        return self._n

    def __iter__(self):
        return iter(self.keys())

    def keys(self):
        return [self.key_of(k) for k in range(self._n)]

    def items(self):
        return [(self.key_of(k), cetree.elementFactory(self._doc, self._slots[k].node))
                for k in range(self._n)]

    def values(self):
        return [cetree.elementFactory(self._doc, self._slots[k].node) for k in range(self._n)]


# ---------------------------------------------------------------- candidate texts
# Written as UTF-8 into one buffer per call and decoded once per candidate. Word splitting
# follows `str.split()`: the whitespace set is Python's (`str.isspace`), read from UTF-8.

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


cdef const char* _SALIENT_C[15]
for _i, _name in enumerate(_SALIENT):
    _SALIENT_C[_i] = PyUnicode_AsUTF8AndSize(_name, NULL)

cdef inline bint _salient_name(const char* name) noexcept nogil:
    cdef int i
    for i in range(15):
        if _eq(<const_xmlChar*>name, _SALIENT_C[i]):
            return True
    return False


cdef bint _dull_value(const char* v, Py_ssize_t n) noexcept nogil:
    """`v.lower()` is one of the values candidate texts leave out, or a URL."""
    cdef const char* words[7]
    cdef int i
    if n == 0 or (n >= 4 and memcmp(v, b"http", 4) == 0):
        return True
    words[0] = b"true"; words[1] = b"false"; words[2] = b"none"; words[3] = b"null"
    words[4] = b"undefined"; words[5] = b"hidden"; words[6] = NULL
    for i in range(6):
        if <Py_ssize_t>strlen(words[i]) == n and strncasecmp(v, words[i], n) == 0:
            return True
    return False


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


# ---------------------------------------------------------------- pruning

cdef const char* _REPR_C[16]
for _i, _name in enumerate(_REPR_ATTRIBUTES):
    _REPR_C[_i] = PyUnicode_AsUTF8AndSize(_name, NULL)

cdef const char* _DULL_C[6]
_DULL_C[0] = b"hidden"; _DULL_C[1] = b"none"; _DULL_C[2] = b"presentation"
_DULL_C[3] = b"null"; _DULL_C[4] = b"undefined"; _DULL_C[5] = NULL


cdef str _meta_words(xmlNode* n, int max_value_words=5, int max_words=20):
    """meta.meta_words over the element's attributes (any text; see `_put_meta`)."""
    cdef xmlAttr* a = n.properties
    cdef dict attrs = None
    cdef set seen
    cdef list parts
    while a != NULL:
        if a.ns == NULL and not _eq(a.name, _ID_NAME):
            name = _str(a.name)
            if name in _REPR_SET:
                if attrs is None:
                    attrs = {}
                attrs[name] = _attr_value(a)
        a = a.next
    if attrs is None:
        return ""
    seen = set()
    parts = []
    for name in _REPR_ATTRIBUTES:
        raw = attrs.get(name)
        if raw is None:
            continue
        v = (<str>raw).lower()
        if v in _DULL or v.startswith("http"):
            continue
        v = " ".join([w for w in v.split() if len(w) < 15][:max_value_words])
        if v and v not in seen:
            seen.add(v)
            parts.append(v)
    return " ".join(" ".join(parts).split()[:max_words])


cdef int _put_meta(Buf* b, xmlNode* n) except -1:
    """` ` + meta.meta_words(attributes), or nothing when empty. ASCII values are handled
    here (lower-casing and word lengths are bytewise); other text goes through
    `_meta_words`, which lower-cases and counts characters as Python does."""
    cdef xmlAttr* found[16]
    cdef xmlAttr* a = n.properties
    cdef Py_ssize_t seen_at[16]
    cdef Py_ssize_t seen_len[16]
    cdef const unsigned char* v
    cdef const unsigned char* end
    cdef const unsigned char* w
    cdef Py_ssize_t mark, start, size
    cdef int i, j, seen = 0, words = 0, value_words
    cdef bint any_ = False, dup
    for i in range(16):
        found[i] = NULL
    while a != NULL:
        if a.ns == NULL:
            for i in range(16):
                if _eq(a.name, _REPR_C[i]):
                    if not _simple_value(a):
                        return _put_meta_str(b, n)
                    v = <const unsigned char*>a.children.content
                    while v[0] != 0:
                        if v[0] >= 0x80:
                            return _put_meta_str(b, n)
                        v += 1
                    found[i] = a
                    any_ = True
                    break
        a = a.next
    if not any_:
        return 0
    for i in range(16):
        if found[i] == NULL or words >= 20:
            continue
        v = <const unsigned char*>found[i].children.content
        end = v + strlen(<const char*>v)
        # The whole lower-cased value is a dull word, or a URL.
        if end - v >= 4 and strncasecmp(<const char*>v, b"http", 4) == 0:
            continue
        j = 0
        while _DULL_C[j] != NULL and not (
                <Py_ssize_t>strlen(_DULL_C[j]) == end - v
                and strncasecmp(<const char*>v, _DULL_C[j], end - v) == 0):
            j += 1
        if _DULL_C[j] != NULL:
            continue
        # Its first 5 words shorter than 15 characters, lower-cased.
        mark = b.size
        _put(b, " ", 1)
        start = b.size
        value_words = 0
        while v < end and value_words < 5:
            if _space_len(v, end):
                v += 1
                continue
            w = v
            while v < end and not _space_len(v, end):
                v += 1
            if v - w < 15:
                if value_words:
                    _put(b, " ", 1)
                for j in range(v - w):
                    _put_char(b, <char>(w[j] + 32 if 65 <= w[j] <= 90 else w[j]))
                value_words += 1
        size = b.size - start
        dup = size == 0
        j = 0
        while not dup and j < seen:
            dup = seen_len[j] == size and memcmp(b.data + seen_at[j], b.data + start, size) == 0
            j += 1
        if dup:
            b.size = mark
            continue
        # At most 20 words in all.
        if words + value_words > 20:
            b.size = start + _prefix_words(b.data + start, size, 20 - words)
            value_words = 20 - words
        seen_at[seen] = start
        seen_len[seen] = size
        seen += 1
        words += value_words
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
    for i in range(n):
        if s[i] == 32:
            k -= 1
            if k == 0:
                return i
    return n


cdef int _put_meta_str(Buf* b, xmlNode* n) except -1:
    meta = _meta_words(n)
    if meta:
        raw = (" " + meta).encode("utf-8")
        _put(b, raw, len(raw))
    return 0


cdef int _put_text_piece(Buf* b, xmlNode* text_el, int max_words) except -1:
    """The first `max_words` words of a `<text>` element's text, `"` read as a space (as
    tree_repr writes it), each token after a space."""
    cdef xmlNode* t = text_el.children
    cdef const unsigned char* p
    cdef const unsigned char* end
    cdef int count = 0, k
    cdef bint in_word = False, pending = False
    while t != NULL:
        if t.type == tree.XML_TEXT_NODE or t.type == tree.XML_CDATA_SECTION_NODE:
            if t.content == NULL:
                t = t.next
                continue
            p = <const unsigned char*>t.content
            end = p + strlen(<const char*>p)
            while p < end:
                k = _space_len(p, end)
                if k:
                    in_word = False
                    p += k
                    continue
                if not in_word:
                    if count >= max_words:
                        return 0
                    count += 1
                    in_word = True
                    pending = True
                if p[0] == 34:  # "
                    pending = True
                else:
                    if pending:
                        _put(b, " ", 1)
                        pending = False
                    _put_char(b, <char>p[0])
                p += 1
        elif t.type != tree.XML_XINCLUDE_START and t.type != tree.XML_XINCLUDE_END:
            break
        t = t.next
    return 0


cdef struct Span:
    Py_ssize_t slot
    Py_ssize_t start
    Py_ssize_t end


cdef class _PrunedTree:
    """prune.keep_set, prune._build and tree_repr for one set of candidates, written
    straight into a UTF-8 buffer. Kept and candidate ids are bitmaps over the index's slots.

    A node that may be hoisted (no id shown, no attributes, no text) writes its children
    first; its tags are added around them only when it turns out to have two or more."""

    cdef NodeIndex index
    cdef unsigned char* keep
    cdef unsigned char* cand
    cdef Buf b
    cdef Span* spans
    cdef Py_ssize_t n_spans
    cdef Py_ssize_t cap_spans
    cdef bint brackets
    cdef int text_words
    cdef dict ids

    def __cinit__(self, NodeIndex index):
        self.index = index
        self.keep = <unsigned char*>calloc(index._n + 1, 1)
        self.cand = <unsigned char*>calloc(index._n + 1, 1)
        if self.keep == NULL or self.cand == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.keep)
        free(self.cand)
        free(self.b.data)
        free(self.spans)

    cdef void mark(self, xmlNode* n) noexcept:
        self.keep[self.index.slot_of_node(n)] = 1

    cdef void mark_descendants(self, xmlNode* n, int depth, int max_depth,
                               int* left) noexcept:
        cdef xmlNode* c
        if depth > max_depth:
            return
        c = _first_element(n.children)
        while c != NULL and left[0] > 0:
            self.mark(c)
            left[0] -= 1
            self.mark_descendants(c, depth + 1, max_depth, left)
            c = _first_element(c.next)

    cdef void mark_all(self, list cands, int max_depth, int max_children,
                       int max_sibling) except *:
        """prune.keep_set."""
        cdef xmlNode* n
        cdef xmlNode* p
        cdef xmlNode* s
        cdef Py_ssize_t k, before, after
        cdef int left
        for cid in cands:
            k = self.index.slot_of_key(cid)
            if k < 0:
                continue
            n = self.index._slots[k].node
            self.keep[k] = 1
            self.cand[k] = 1
            p = _parent_element(n)
            while p != NULL:
                self.mark(p)
                p = _parent_element(p)
            left = max_children
            self.mark_descendants(n, 0, max_depth, &left)
            p = _parent_element(n)
            if p == NULL or _is_text_el(n):
                continue
            # Up to max_sibling non-text sibling elements on each side.
            s = n.prev
            before = 0
            while s != NULL and before < max_sibling:
                if s.type == tree.XML_ELEMENT_NODE and not _is_text_el(s):
                    self.mark(s)
                    before += 1
                s = s.prev
            s = n.next
            after = 0
            while s != NULL and after < max_sibling:
                if s.type == tree.XML_ELEMENT_NODE and not _is_text_el(s):
                    self.mark(s)
                    after += 1
                s = s.next

    cdef int open_tag(self, xmlNode* n, Py_ssize_t k, bint is_cand) except -1:
        """` <tag id=N meta>` (or ` (tag ...`): the head tree_repr writes."""
        cdef char num[32]
        _put(&self.b, " <" if self.brackets else " (", 2)
        _put_tag(&self.b, n)
        if is_cand:
            number = self.ids.setdefault(self.index.key_of(k), len(self.ids))
            _put(&self.b, num, snprintf(num, 32, " id=%zd", <Py_ssize_t>number))
        _put_meta(&self.b, n)
        if self.brackets:
            _put(&self.b, ">", 1)
        return 0

    cdef int close_tag(self, xmlNode* n) except -1:
        if self.brackets:
            _put(&self.b, " </", 3)
            _put_tag(&self.b, n)
            _put(&self.b, ">", 1)
        else:
            _put(&self.b, " )", 2)
        return 0

    cdef Py_ssize_t emit(self, xmlNode* n, bint is_root) except -1:
        """Writes the pruned form of `n`; returns how many items it stands for in its
        parent (0: dropped, 1: itself or one hoisted child, more: hoisted children)."""
        cdef Py_ssize_t k = self.index.slot_of_node(n)
        cdef Py_ssize_t none = self.index._n
        cdef Py_ssize_t at = self.b.size, count = 0, i, moved
        cdef bint is_cand, has_text = False, has_attrs
        cdef xmlNode* c
        cdef char* head
        if not is_root and not self.keep[k]:
            return 0
        c = _first_element(n.children)
        while c != NULL and not has_text:
            has_text = _is_text_el(c)
            c = _first_element(c.next)
        has_attrs = _attr_count(n) > (0 if k == none else 1)
        is_cand = k != none and self.cand[k]
        hoistable = not is_root and not is_cand and not has_attrs and not has_text
        if not hoistable:
            self.open_tag(n, k, is_cand)
        c = _first_element(n.children)
        while c != NULL:
            if _is_text_el(c):
                _put_text_piece(&self.b, c, self.text_words)
                count += 1
            elif self.keep[self.index.slot_of_node(c)]:
                count += self.emit(c, False)
            c = _first_element(c.next)
        if hoistable:
            if count <= 1:
                return count
            # Insert the head before the children already written; spans inside move.
            moved = self.b.size - at
            self.open_tag(n, k, False)
            head = <char*>malloc(self.b.size - at - moved)
            if head == NULL:
                raise MemoryError()
            memcpy(head, self.b.data + at + moved, self.b.size - at - moved)
            memmove(self.b.data + self.b.size - moved, self.b.data + at, moved)
            memcpy(self.b.data + at, head, self.b.size - at - moved)
            for i in range(self.n_spans):
                if self.spans[i].start >= at:
                    self.spans[i].start += self.b.size - at - moved
                    self.spans[i].end += self.b.size - at - moved
            free(head)
        elif count == 0:
            if self.brackets:
                self.b.size -= 1
                _put(&self.b, " />", 3)
            else:
                _put(&self.b, " )", 2)
            if is_cand:
                self.add_span(k, at)
            return 1
        self.close_tag(n)
        if is_cand:
            self.add_span(k, at)
        return 1

    cdef int add_span(self, Py_ssize_t k, Py_ssize_t at) except -1:
        cdef Span* grown
        if self.n_spans == self.cap_spans:
            self.cap_spans = self.cap_spans * 2 + 8
            grown = <Span*>realloc(self.spans, self.cap_spans * sizeof(Span))
            if grown == NULL:
                raise MemoryError()
            self.spans = grown
        self.spans[self.n_spans].slot = k
        self.spans[self.n_spans].start = at + 1  # after the separating space
        self.spans[self.n_spans].end = self.b.size
        self.n_spans += 1
        return 0


def pruned_tree_repr(cetree._Element root, NodeIndex index, candidates, int max_depth,
                     int max_children, int max_sibling, bint brackets, int text_words,
                     id_mapping, int choice_tokens):
    """tree_repr(prune_tree(...)) as (text, id_mapping, choices)."""
    cdef _PrunedTree t = _PrunedTree(index)
    cdef Span sp
    cdef Py_ssize_t i, size
    t.brackets = brackets
    t.text_words = text_words
    t.ids = id_mapping if id_mapping is not None else {}
    t.mark_all([str(c) for c in candidates], max_depth, max_children, max_sibling)
    t.emit(root._c_node, True)
    # The text starts after the first separating space.
    text = t.b.data[1:t.b.size].decode("utf-8")
    choices = {}
    for i in range(t.n_spans):
        sp = t.spans[i]
        size = _prefix_words(t.b.data + sp.start, sp.end - sp.start, choice_tokens)
        choices[index.key_of(sp.slot)] = (
            t.b.data[sp.start:sp.start + size].decode("utf-8") if choice_tokens > 0 else "")
    return text, t.ids, choices
