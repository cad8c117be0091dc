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
from libc.string cimport memcmp, memcpy, strcmp, strlen, strncasecmp

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


cdef inline bint _named(xmlNode* n, const char* name) noexcept nogil:
    """An element called `name` in no namespace."""
    return n.type == tree.XML_ELEMENT_NODE and n.ns == NULL and strcmp(
        <const char*>n.name, name) == 0


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
        if a.ns == NULL and strcmp(<const char*>a.name, _ID_NAME) == 0:
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


cdef class NodeIndex:
    """backend_node_id -> element of one parsed page (first occurrence in document order
    wins, empty ids are no ids: as `cleaned.index_ids`). A read-only mapping; the compiled
    functions read its nodes directly. It keeps the page alive and assumes the tree is not
    modified afterwards. Each distinct id has a slot number; elements without an id share
    the slot `len(index)`."""

    cdef readonly object root
    cdef cetree._Document _doc
    cdef Slot* _slots
    cdef Py_ssize_t _n
    cdef Py_ssize_t* _table
    cdef Py_ssize_t _mask
    # Values that are not one text node, as UTF-8 bytes the slots point into.
    cdef list _owned
    # Per slot, the meta words of the element the slot indexes.
    cdef list _meta

    def __cinit__(self, root):
        if not isinstance(root, cetree._Element):
            raise TypeError("NodeIndex needs an lxml element")
        cdef xmlNode* top = cetree.rootNodeOrRaise(root)._c_node
        cdef xmlNode* c = top
        cdef Py_ssize_t cap = 0, size, i
        cdef Slot* grown
        cdef xmlAttr* a
        cdef const char* key
        self.root = root
        self._doc = (<cetree._Element>root)._doc
        self._owned = []
        self._n = 0
        while c != NULL:
            a = _id_attr(c)
            if a != NULL:
                if _simple_value(a):
                    key = <const char*>a.children.content
                    size = <Py_ssize_t>strlen(key)
                else:
                    raw = _attr_value(a).encode("utf-8")
                    self._owned.append(raw)
                    key = <const char*>raw
                    size = len(raw)
                if size:
                    if self._n == cap:
                        cap = cap * 2 + 256
                        grown = <Slot*>realloc(self._slots, cap * sizeof(Slot))
                        if grown == NULL:
                            raise MemoryError()
                        self._slots = grown
                    self._slots[self._n].key = key
                    self._slots[self._n].size = size
                    self._slots[self._n].node = c
                    self._n += 1
            c = _next_in_subtree(c, top)
        self._build_table()
        self._meta = [None] * (self._n + 1)

    cdef void _build_table(self) except *:
        """Open addressing; duplicates keep their first slot, later ones are dropped."""
        cdef Py_ssize_t size = 16, i, j, k = 0
        cdef Slot s
        while size < 2 * self._n:
            size *= 2
        self._table = <Py_ssize_t*>malloc(size * sizeof(Py_ssize_t))
        if self._table == NULL:
            raise MemoryError()
        for i in range(size):
            self._table[i] = -1
        self._mask = size - 1
        for i in range(self._n):
            s = self._slots[i]
            if self._find(s.key, s.size) >= 0:
                continue
            self._slots[k] = s
            j = <Py_ssize_t>(_hash(s.key, s.size) & <uint64_t>self._mask)
            while self._table[j] >= 0:
                j = (j + 1) & self._mask
            self._table[j] = k
            k += 1
        self._n = k

    def __dealloc__(self):
        free(self._slots)
        free(self._table)

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

    cdef Py_ssize_t slot_of_node(self, xmlNode* n) except -2:
        """The slot of an element's id; `self._n` when it has none."""
        cdef xmlAttr* a = _id_attr(n)
        cdef const char* s
        cdef Py_ssize_t k
        if a == NULL:
            return self._n
        if _simple_value(a):
            s = <const char*>a.children.content
            k = self._find(s, <Py_ssize_t>strlen(s))
        else:
            k = self.slot_of_key(_attr_value(a))
        return self._n if k < 0 else k

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

    cdef str meta(self, xmlNode* n, Py_ssize_t k):
        """Meta words of an element, kept per slot for the element the slot indexes."""
        if k < self._n and self._slots[k].node == n:
            m = self._meta[k]
            if m is None:
                m = _meta_words(n)
                self._meta[k] = m
            return <str>m
        return _meta_words(n)


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
        if strcmp(_SALIENT_C[i], name) == 0:
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


cdef inline bint _pathless(xmlNode* n, int attr_words) noexcept nogil:
    """html, body and bare div/span wrappers add nothing to a path."""
    if n.ns != NULL:
        return False
    if strcmp(<const char*>n.name, b"html") == 0 or strcmp(<const char*>n.name, b"body") == 0:
        return True
    return attr_words == 0 and (strcmp(<const char*>n.name, b"div") == 0
                                or strcmp(<const char*>n.name, b"span") == 0)


cdef int _put_path(Buf* b, xmlNode* n, int depth) except -1:
    """` | label > label ...` of `n` and its ancestors, nearest first (candidate_text._Paths):
    a label is the tag and its attribute words."""
    cdef int count = 0
    cdef Py_ssize_t mark
    while n != NULL and count < depth:
        mark = b.size
        _put_str(b, " | " if count == 0 else " > ")
        _put_tag(b, n)
        if _pathless(n, _put_attr_words(b, n, True)):
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

cdef str _meta_words(xmlNode* n, int max_value_words=5, int max_words=20):
    """meta.meta_words over the element's attributes."""
    cdef xmlAttr* a = n.properties
    cdef dict attrs = None
    cdef set seen
    cdef list parts
    while a != NULL:
        if a.ns == NULL and strcmp(<const char*>a.name, _ID_NAME) != 0:
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


cdef class _Pruner:
    """prune.keep_set + prune._build for one set of candidates; kept and candidate ids are
    bitmaps over the index's slots."""

    cdef NodeIndex index
    cdef unsigned char* keep
    cdef unsigned char* cand

    def __cinit__(self, NodeIndex index):
        self.index = index
        self.keep = <unsigned char*>calloc(index._n + 1, 1)
        self.cand = <unsigned char*>calloc(index._n + 1, 1)
        if self.keep == NULL or self.cand == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.keep)
        free(self.cand)

    cdef void mark(self, xmlNode* n) except *:
        self.keep[self.index.slot_of_node(n)] = 1

    cdef void mark_descendants(self, xmlNode* n, int depth, int max_depth, int* left) except *:
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
        cdef xmlNode* n
        cdef xmlNode* p
        cdef xmlNode* s
        cdef Py_ssize_t k, i, before, after
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
            # Up to max_sibling non-text siblings on each side.
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
            self.mark(n)

    cdef list build(self, xmlNode* n, bint is_root):
        cdef list children = []
        cdef bint has_text = False
        cdef bint has_attrs
        cdef xmlNode* c
        cdef Py_ssize_t k = self.index.slot_of_node(n)
        cdef Py_ssize_t none = self.index._n
        if not is_root and not self.keep[k]:
            return []
        c = _first_element(n.children)
        while c != NULL:
            if _is_text_el(c):
                text = _text_of(c)
                children.append(text if text is not None else "")
                has_text = True
            elif self.keep[self.index.slot_of_node(c)]:
                children.extend(self.build(c, False))
            c = _first_element(c.next)
        has_attrs = _attr_count(n) > (0 if k == none else 1)
        cand = self.index.key_of(k) if k != none and self.cand[k] else None
        if not is_root and cand is None and not has_attrs and not has_text and len(children) <= 1:
            return children
        return [(_tag(n), cand, self.index.meta(n, k), children)]


# ---------------------------------------------------------------- bracketed tree

cdef void _write(tuple node, list out, dict ids, dict spans, bint brackets,
                 int text_words) except *:
    """tree_repr._Writer.node; pieces hold no runs of whitespace, so the final text is a
    plain join of the non-empty pieces."""
    cdef Py_ssize_t start = len(out)
    cdef str piece
    tag, cand, meta, children = node
    head = tag
    if cand is not None:
        num = ids.setdefault(cand, len(ids))
        head += f" id={num}"
    if meta:
        head += " " + meta
    if not children:
        out.append(f"<{head} />" if brackets else f"({head} )")
    else:
        out.append(f"<{head}>" if brackets else f"({head}")
        for c in <list>children:
            if isinstance(c, str):
                piece = " ".join((<str>c).split()[:text_words])
                if '"' in piece:
                    piece = " ".join(piece.replace('"', " ").split())
                if piece:
                    out.append(piece)
            else:
                _write(<tuple>c, out, ids, spans, brackets, text_words)
        out.append(f"</{tag}>" if brackets else ")")
    if cand is not None:
        spans[cand] = (start, len(out))


def pruned_tree_repr(cetree._Element root, NodeIndex index, candidates, int max_depth,
                     int max_children, int max_sibling, bint brackets, int text_words,
                     id_mapping, int choice_tokens):
    """tree_repr(prune_tree(...)) as (text, id_mapping, choices)."""
    cdef _Pruner pruner = _Pruner(index)
    cdef list out = []
    cdef dict spans = {}
    cdef dict ids = id_mapping if id_mapping is not None else {}
    pruner.mark_all([str(c) for c in candidates], max_depth, max_children, max_sibling)
    tops = pruner.build(root._c_node, True)
    _write(<tuple>tops[0], out, ids, spans, brackets, text_words)
    choices = {cid: " ".join(" ".join(out[a:b]).split()[:choice_tokens])
               for cid, (a, b) in spans.items()}
    return " ".join(out), ids, choices
