/* A cursor's subtree as nested tuples, built in one call: the lowering's traversal without a Python
 * callback and two ctypes calls per node. The optional compiled twin of `clang_api._subtree_python`,
 * which defines the result and must give the same (tests/test_subtree.py compares them).
 *
 * libclang's functions come as addresses from the library cindex loaded (`configure`), so this
 * module links against nothing and needs no clang headers: the few types below are libclang's stable
 * C ABI (clang-c/Index.h). */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ABI_VERSION 3
/* Deeper nodes keep no children: bounds the memory a pathological input takes. The lowering stops
 * descending at a far smaller depth, and clang's bracket limit (256) bounds the chains of parentheses
 * it steps through. */
#define MAX_DEPTH 1024

typedef struct { int kind; int xdata; const void *data[3]; } CXCursor;
typedef struct { const void *ptr_data[2]; unsigned int_data; } CXSourceLocation;
typedef struct { const void *ptr_data[2]; unsigned begin_int_data; unsigned end_int_data; } CXSourceRange;
typedef struct { int kind; void *data[2]; } CXType;
typedef struct { const void *data; unsigned private_flags; } CXString;
typedef int (*CXCursorVisitor)(CXCursor, CXCursor, void *);

enum { VISIT_BREAK = 0, VISIT_CONTINUE = 1 };

static struct {
    unsigned (*visitChildren)(CXCursor, CXCursorVisitor, void *);
    CXSourceRange (*getCursorExtent)(CXCursor);
    CXSourceLocation (*getRangeStart)(CXSourceRange);
    CXSourceLocation (*getRangeEnd)(CXSourceRange);
    void (*getExpansionLocation)(CXSourceLocation, void **, unsigned *, unsigned *, unsigned *);
    unsigned (*isExpression)(int);
    CXType (*getCursorType)(CXCursor);
    CXString (*getTypeSpelling)(CXType);
    CXString (*getCursorSpelling)(CXCursor);
    const char *(*getCString)(CXString);
    void (*disposeString)(CXString);
    CXCursor (*getCursorReferenced)(CXCursor);
    unsigned (*Cursor_isNull)(CXCursor);
    int (*getCursorBinaryOperatorKind)(CXCursor);
    int (*getCursorUnaryOperatorKind)(CXCursor);
} api;
#define API_FUNCTIONS 15

/* cursor kinds whose spelling and referenced declaration, or whose operator, the result carries */
#define MAX_KINDS 16
typedef struct { int kinds[MAX_KINDS]; int count; } KindSet;
static KindSet referencing, binary, unary;
static PyTypeObject *span_type;  /* cudalint.model.ir.Span: a tuple subclass of four ints */
static int configured = 0;

static int in_set(const KindSet *set, int kind) {
    for (int i = 0; i < set->count; i++)
        if (set->kinds[i] == kind) return 1;
    return 0;
}

/* ------------------------------------------------------------------------------ the walk's state */

typedef struct { int kind; const void *a; const void *b; Py_ssize_t index; } TypeSlot;

typedef struct {
    CXCursor *cursors;  /* every visited cursor, then every referenced declaration: the `cursors` bytes */
    Py_ssize_t count, capacity;
    TypeSlot *types;    /* open addressing on (kind, data[0], data[1]); index into `spellings` */
    Py_ssize_t type_capacity;
    PyObject *spellings;
    long long base, limit;
    const unsigned *line_starts;  /* byte offset of each line of the unit, ascending, the first 0 */
    Py_ssize_t lines;
} Walk;

static Py_ssize_t keep_cursor(Walk *walk, CXCursor cursor) {
    if (walk->count == walk->capacity) {
        Py_ssize_t capacity = walk->capacity ? walk->capacity * 2 : 256;
        CXCursor *grown = PyMem_Realloc(walk->cursors, capacity * sizeof(CXCursor));
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        walk->cursors = grown;
        walk->capacity = capacity;
    }
    walk->cursors[walk->count] = cursor;
    return walk->count++;
}

static PyObject *take_string(CXString string) {
    const char *text = api.getCString(string);
    PyObject *result = PyUnicode_DecodeUTF8(text ? text : "", text ? (Py_ssize_t)strlen(text) : 0, "replace");
    api.disposeString(string);
    return result;
}

static size_t type_hash(int kind, const void *a, const void *b) {
    size_t h = (size_t)kind * 0x9E3779B97F4A7C15ull;
    h ^= (size_t)(uintptr_t)a + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h ^= (size_t)(uintptr_t)b + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h;
}

static int grow_types(Walk *walk) {
    Py_ssize_t capacity = walk->type_capacity ? walk->type_capacity * 2 : 64;
    TypeSlot *slots = PyMem_Calloc(capacity, sizeof(TypeSlot));
    if (slots == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < walk->type_capacity; i++) {
        TypeSlot slot = walk->types[i];
        if (slot.index == 0) continue;  /* empty (stored indices are 1-based) */
        size_t at = type_hash(slot.kind, slot.a, slot.b) & (size_t)(capacity - 1);
        while (slots[at].index != 0) at = (at + 1) & (size_t)(capacity - 1);
        slots[at] = slot;
    }
    PyMem_Free(walk->types);
    walk->types = slots;
    walk->type_capacity = capacity;
    return 0;
}

/* index of the expression's type in `spellings`, spelling each distinct type once; -1 on error */
static Py_ssize_t type_index(Walk *walk, CXCursor cursor) {
    CXType type = api.getCursorType(cursor);
    if (2 * (PyList_GET_SIZE(walk->spellings) + 1) > walk->type_capacity && grow_types(walk) < 0) return -1;
    size_t mask = (size_t)(walk->type_capacity - 1);
    size_t at = type_hash(type.kind, type.data[0], type.data[1]) & mask;
    while (walk->types[at].index != 0) {
        TypeSlot *slot = &walk->types[at];
        if (slot->kind == type.kind && slot->a == type.data[0] && slot->b == type.data[1]) return slot->index - 1;
        at = (at + 1) & mask;
    }
    PyObject *spelling = take_string(api.getTypeSpelling(type));
    if (spelling == NULL) return -1;
    int failed = PyList_Append(walk->spellings, spelling);
    Py_DECREF(spelling);
    if (failed) return -1;
    Py_ssize_t index = PyList_GET_SIZE(walk->spellings) - 1;
    walk->types[at] = (TypeSlot){type.kind, type.data[0], type.data[1], index + 1};
    return index;
}

/* ---------------------------------------------------------------------------------------- nodes */

typedef struct { CXCursor *items; Py_ssize_t count, capacity; int failed; } Children;

static int collect_child(CXCursor child, CXCursor parent, void *data) {
    (void)parent;
    Children *children = data;
    if (children->count == children->capacity) {
        Py_ssize_t capacity = children->capacity ? children->capacity * 2 : 8;
        CXCursor *grown = PyMem_Realloc(children->items, capacity * sizeof(CXCursor));
        if (grown == NULL) {
            children->failed = 1;
            return VISIT_BREAK;
        }
        children->items = grown;
        children->capacity = capacity;
    }
    children->items[children->count++] = child;
    return VISIT_CONTINUE;
}

static void offsets(Walk *walk, CXCursor cursor, long long *start, long long *end) {
    CXSourceRange extent = api.getCursorExtent(cursor);
    long long begin = extent.begin_int_data, finish = extent.end_int_data;
    if (walk->base >= 0 && walk->base <= begin && begin <= walk->limit && walk->base <= finish &&
        finish <= walk->limit) {
        *start = begin - walk->base;
        *end = finish - walk->base;
        return;
    }
    unsigned offset = 0;
    api.getExpansionLocation(api.getRangeStart(extent), NULL, NULL, NULL, &offset);
    *start = offset;
    offset = 0;
    api.getExpansionLocation(api.getRangeEnd(extent), NULL, NULL, NULL, &offset);
    *end = offset;
}

/* 1-based line and byte column of an offset, as `bisect_right` over the line starts gives them */
static void line_column(const Walk *walk, long long offset, long long *line, long long *column) {
    Py_ssize_t low = 0, high = walk->lines;
    while (low < high) {
        Py_ssize_t middle = low + (high - low) / 2;
        if (offset < (long long)walk->line_starts[middle]) high = middle;
        else low = middle + 1;
    }
    *line = low;
    *column = offset - (low > 0 ? (long long)walk->line_starts[low - 1] : 0) + 1;
}

/* Span(line, column, end_line, end_column), built as tuple.__new__ builds a tuple subclass */
static PyObject *make_span(const Walk *walk, long long start, long long end) {
    long long values[4];
    line_column(walk, start, &values[0], &values[1]);
    line_column(walk, end, &values[2], &values[3]);
    PyObject *span = span_type->tp_alloc(span_type, 4);
    if (span == NULL) return NULL;
    for (Py_ssize_t i = 0; i < 4; i++) {
        PyObject *value = PyLong_FromLongLong(values[i]);
        if (value == NULL) {
            Py_DECREF(span);
            return NULL;
        }
        PyTuple_SET_ITEM(span, i, value);
    }
    return span;
}

static PyObject *referenced_declaration(Walk *walk, CXCursor cursor) {
    CXCursor found = api.getCursorReferenced(cursor);
    if (api.Cursor_isNull(found)) Py_RETURN_NONE;
    Py_ssize_t index = keep_cursor(walk, found);
    if (index < 0) return NULL;
    return Py_BuildValue("(iKn)", found.kind, (unsigned long long)(uintptr_t)found.data[0], index);
}

/* A node being built: its fields, its children's cursors and the tuple their nodes go into. */
typedef struct {
    PyObject *fields;  /* (kind, start, end, type, None, index, spelling, referenced, operator, span) */
    Children children;
    PyObject *kids;
    Py_ssize_t next;   /* the next child to build */
} Frame;

static void drop_frame(Frame *frame) {
    Py_XDECREF(frame->fields);
    Py_XDECREF(frame->kids);  /* a tuple still being filled holds NULLs, which its deallocation skips */
    PyMem_Free(frame->children.items);
}

static int open_frame(Walk *walk, CXCursor cursor, int depth, Frame *frame) {
    memset(frame, 0, sizeof(*frame));
    Py_ssize_t index = keep_cursor(walk, cursor);
    if (index < 0) return -1;
    int kind = cursor.kind;
    long long start, end;
    offsets(walk, cursor, &start, &end);
    Py_ssize_t type = -1;
    if (api.isExpression(kind) && (type = type_index(walk, cursor)) < 0) return -1;

    PyObject *spelling = NULL, *reference = NULL, *operator = NULL, *span = NULL;
    int failed = -1;
    if ((span = make_span(walk, start, end)) == NULL) goto done;
    if (in_set(&referencing, kind)) {
        if ((spelling = take_string(api.getCursorSpelling(cursor))) == NULL) goto done;
        if ((reference = referenced_declaration(walk, cursor)) == NULL) goto done;
    } else {
        spelling = Py_NewRef(Py_None);
        reference = Py_NewRef(Py_None);
    }
    if (in_set(&binary, kind)) {
        operator = PyLong_FromLong(api.getCursorBinaryOperatorKind(cursor));
    } else if (in_set(&unary, kind)) {
        operator = PyLong_FromLong(api.getCursorUnaryOperatorKind(cursor));
    } else {
        operator = Py_NewRef(Py_None);
    }
    if (operator == NULL) goto done;
    frame->fields = Py_BuildValue("(iLLnOnOOOO)", kind, start, end, type, Py_None, index, spelling, reference,
                                  operator, span);
    if (frame->fields == NULL) goto done;
    if (depth < MAX_DEPTH) {
        api.visitChildren(cursor, collect_child, &frame->children);
        if (frame->children.failed) {
            PyErr_NoMemory();
            goto done;
        }
    }
    if ((frame->kids = PyTuple_New(frame->children.count)) == NULL) goto done;
    failed = 0;
done:
    Py_XDECREF(spelling);
    Py_XDECREF(reference);
    Py_XDECREF(operator);
    Py_XDECREF(span);
    return failed;
}

/* the finished node of a frame whose children are all built; the frame's references are taken over */
static PyObject *close_frame(Frame *frame) {
    PyObject *fields = frame->fields;
    frame->fields = NULL;
    PyObject *kids = frame->kids;  /* replaces the None placed at CHILDREN */
    frame->kids = NULL;
    PyObject *none = PyTuple_GET_ITEM(fields, 4);
    PyTuple_SET_ITEM(fields, 4, kids);
    Py_DECREF(none);
    PyMem_Free(frame->children.items);
    frame->children.items = NULL;
    return fields;
}

/* The subtree of `root`, depth first with a stack on the heap (generated code nests deeply). */
static PyObject *walk_tree(Walk *walk, CXCursor root) {
    Py_ssize_t capacity = 64, depth = 0;
    Frame *stack = PyMem_Malloc(capacity * sizeof(Frame));
    if (stack == NULL) return PyErr_NoMemory();
    PyObject *result = NULL;
    if (open_frame(walk, root, 0, &stack[0]) < 0) {
        drop_frame(&stack[0]);
        goto done;
    }
    for (;;) {
        Frame *top = &stack[depth];
        if (top->next < top->children.count) {
            CXCursor child = top->children.items[top->next];
            if (depth + 1 == capacity) {
                Frame *grown = PyMem_Realloc(stack, 2 * capacity * sizeof(Frame));
                if (grown == NULL) {
                    PyErr_NoMemory();
                    goto fail;
                }
                stack = grown;
                capacity *= 2;
            }
            depth++;
            if (open_frame(walk, child, (int)depth, &stack[depth]) < 0) goto fail;
            continue;
        }
        PyObject *finished = close_frame(top);
        if (depth == 0) {
            result = finished;
            goto done;
        }
        depth--;
        Frame *parent = &stack[depth];
        PyTuple_SET_ITEM(parent->kids, parent->next, finished);
        parent->next++;
    }
fail:
    for (Py_ssize_t i = 0; i <= depth; i++) drop_frame(&stack[i]);
done:
    PyMem_Free(stack);
    return result;
}

/* ------------------------------------------------------------------------------------- the module */

static int read_kinds(PyObject *sequence, KindSet *set) {
    PyObject *fast = PySequence_Fast(sequence, "cursor kinds must be a sequence");
    if (fast == NULL) return -1;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(fast);
    if (count > MAX_KINDS) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "too many cursor kinds");
        return -1;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        set->kinds[i] = (int)PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
    }
    set->count = (int)count;
    Py_DECREF(fast);
    return 0;
}

static PyObject *configure(PyObject *module, PyObject *args) {
    PyObject *addresses, *referencing_kinds, *binary_kinds, *unary_kinds, *span;
    (void)module;
    if (!PyArg_ParseTuple(args, "O!OOOO!", &PyTuple_Type, &addresses, &referencing_kinds, &binary_kinds,
                          &unary_kinds, &PyType_Type, &span))
        return NULL;
    if (!PyType_IsSubtype((PyTypeObject *)span, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "the span type must be a tuple subclass");
        return NULL;
    }
    if (PyTuple_GET_SIZE(addresses) != API_FUNCTIONS) {
        PyErr_Format(PyExc_ValueError, "expected %d function addresses", API_FUNCTIONS);
        return NULL;
    }
    void *pointers[API_FUNCTIONS];
    for (Py_ssize_t i = 0; i < API_FUNCTIONS; i++) {
        pointers[i] = PyLong_AsVoidPtr(PyTuple_GET_ITEM(addresses, i));
        if (pointers[i] == NULL) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a null function address");
            return NULL;
        }
    }
    if (read_kinds(referencing_kinds, &referencing) || read_kinds(binary_kinds, &binary) ||
        read_kinds(unary_kinds, &unary))
        return NULL;
    memcpy(&api, pointers, sizeof(api));
    Py_XSETREF(span_type, (PyTypeObject *)Py_NewRef(span));
    configured = 1;
    Py_RETURN_NONE;
}

static PyObject *subtree(PyObject *module, PyObject *args) {
    Py_buffer buffer, lines;
    long long base, limit;
    (void)module;
    if (!configured) {
        PyErr_SetString(PyExc_RuntimeError, "configure() first");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "y*LLy*", &buffer, &base, &limit, &lines)) return NULL;
    if (buffer.len != (Py_ssize_t)sizeof(CXCursor) || lines.len == 0 || lines.len % sizeof(unsigned)) {
        PyBuffer_Release(&buffer);
        PyBuffer_Release(&lines);
        PyErr_SetString(PyExc_ValueError, "not a CXCursor and line starts");
        return NULL;
    }
    CXCursor root;
    memcpy(&root, buffer.buf, sizeof(CXCursor));
    PyBuffer_Release(&buffer);

    Walk walk = {NULL, 0, 0, NULL, 0, NULL, base, limit, lines.buf, lines.len / (Py_ssize_t)sizeof(unsigned)};
    PyObject *result = NULL, *tree = NULL, *cursors = NULL;
    if ((walk.spellings = PyList_New(0)) == NULL) goto done;
    if ((tree = walk_tree(&walk, root)) == NULL) goto done;
    if ((cursors = PyBytes_FromStringAndSize((const char *)walk.cursors, walk.count * sizeof(CXCursor))) == NULL)
        goto done;
    result = PyTuple_Pack(3, tree, walk.spellings, cursors);
done:
    Py_XDECREF(tree);
    Py_XDECREF(cursors);
    Py_XDECREF(walk.spellings);
    PyMem_Free(walk.cursors);
    PyMem_Free(walk.types);
    PyBuffer_Release(&lines);
    return result;
}

static PyMethodDef methods[] = {
    {"configure", configure, METH_VARARGS,
     "configure(addresses, referencing_kinds, binary_kinds, unary_kinds, span_type): libclang's functions, the "
     "kinds whose spelling and referenced declaration, or operator, a node carries, and the type of its span"},
    {"subtree", subtree, METH_VARARGS,
     "subtree(cursor_bytes, base, limit, line_starts) -> (root, type_spellings, cursor_bytes); line_starts: "
     "the unit's line offsets as native unsigned ints"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef definition = {
    PyModuleDef_HEAD_INIT, "_subtree", "A cursor's subtree as nested tuples, built in C.", -1, methods,
};

PyMODINIT_FUNC PyInit__subtree(void) {
    PyObject *module = PyModule_Create(&definition);
    if (module != NULL && PyModule_AddIntConstant(module, "ABI_VERSION", ABI_VERSION) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
