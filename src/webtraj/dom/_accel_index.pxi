# Part of webtraj.dom._accel (included by _accel.pyx).
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
