# Part of webtraj.dom._accel (included by _accel.pyx).
# Pruning (prune.keep_set, prune._build) and the bracketed tree (tree_repr.tree_repr) in one
# pass that writes straight into a UTF-8 buffer.

from webtraj.dom.meta import DULL_VALUES, REPR_ATTRIBUTES, meta_words

cdef WordList _REPR = _word_list(REPR_ATTRIBUTES)
cdef WordList _DULL = _word_list(sorted(DULL_VALUES))


cdef int _put_meta(Buf* b, xmlNode* n) except -1:
    """` ` + meta.meta_words(attributes), or nothing when empty. ASCII values are handled
    here (lower-casing and word lengths are bytewise); other text goes through
    `meta.meta_words`, which lower-cases and counts characters as Python does."""
    cdef xmlAttr* found[32]
    cdef xmlAttr* a = n.properties
    cdef Py_ssize_t seen_at[32]
    cdef Py_ssize_t seen_len[32]
    cdef const unsigned char* v
    cdef const unsigned char* end
    cdef const unsigned char* w
    cdef Py_ssize_t mark, start, size
    cdef int i, j, seen = 0, words = 0, value_words
    cdef bint any_ = False, dup
    for i in range(_REPR.n):
        found[i] = NULL
    while a != NULL:
        i = -1 if a.ns != NULL else _find_word(&_REPR, <const char*>a.name,
                                                <Py_ssize_t>strlen(<const char*>a.name), False)
        if i >= 0:
            if not _simple_value(a):
                return _put_meta_str(b, n)
            v = <const unsigned char*>a.children.content
            while v[0] != 0:
                if v[0] >= 0x80:
                    return _put_meta_str(b, n)
                v += 1
            found[i] = a
            any_ = True
        a = a.next
    if not any_:
        return 0
    for i in range(_REPR.n):
        if found[i] == NULL or words >= 20:
            continue
        v = <const unsigned char*>found[i].children.content
        end = v + strlen(<const char*>v)
        # The whole lower-cased value is a dull word, or a URL.
        if end - v >= 4 and strncasecmp(<const char*>v, b"http", 4) == 0:
            continue
        if _find_word(&_DULL, <const char*>v, end - v, True) >= 0:
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


cdef int _put_meta_str(Buf* b, xmlNode* n) except -1:
    meta = meta_words(dict(cetree.collectAttributes(n, 3)))
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
        choices[index.key_of(sp.slot)] = t.b.data[sp.start:sp.start + size].decode("utf-8")
    return text, t.ids, choices
