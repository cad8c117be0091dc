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

# The parts, by concept.
include "_accel_nodes.pxi"
include "_accel_index.pxi"
include "_accel_texts.pxi"
include "_accel_tree.pxi"
