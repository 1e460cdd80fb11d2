/* Search-tree files: a compact little-endian binary dump of the tree for the viewer
 * (format in docs/tree-format.md). Trees have millions of nodes, hence binary rather than
 * JSON. Values are encoded byte by byte so the file is the same on any host. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan_internal.h"
#include "tp/base.h"
#include "tp/plan.h"

enum {
    TP_TREE_MAGIC_LEN = 8,
    TP_TREE_HEADER_LEN = 24, /* magic, version, nbodies, nnodes */
    TP_TREE_SUM_LEN = 8,
    TP_TREE_MAX_NAME = 65535,
    TP_TREE_MAX_BODIES = 1 << 20, /* moving bodies per node (a world has far fewer) */
};

/* FNV-1a-64 fed in pieces; equals tpHash_Fnv1a64 over the concatenation. */
#define TP_FNV_BASIS 14695981039346656037ull
#define TP_FNV_PRIME 1099511628211ull

static uint64_t fnv_update(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; ++i) {
        h ^= p[i];
        h *= TP_FNV_PRIME;
    }
    return h;
}

static void put_le(unsigned char *out, uint64_t v, int n)
{
    for (int i = 0; i < n; ++i) {
        out[i] = (unsigned char)(v >> (8 * i));
    }
}

static uint64_t get_le(const unsigned char *in, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) {
        v |= (uint64_t)in[i] << (8 * i);
    }
    return v;
}

static bool tree_fail(const char *path, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static bool tree_fail(const char *path, char *err, size_t errlen, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tpErrorf(err, errlen, "%s: %s", path, msg);
    return false;
}

/* Tree shape rule enforced by both writer and reader; *bad is the first offending node. */
static bool tree_check_parents(const int32_t *parent, int64_t nnodes, int64_t *bad)
{
    for (int64_t i = 0; i < nnodes; ++i) {
        /* Node 0 is the only root; every other node hangs below an earlier one, which is how
         * the planner grows the tree and what lets a viewer draw it in one pass. */
        bool ok = i == 0 ? parent[i] == -1 : (parent[i] >= 0 && parent[i] < i);
        if (!ok) {
            *bad = i;
            return false;
        }
    }
    return true;
}

static bool tree_check_names(char *const *names, int n, const char *path, char *err, size_t errlen)
{
    for (int i = 0; i < n; ++i) {
        size_t len = names[i] ? strlen(names[i]) : 0;
        if (len == 0 || len > TP_TREE_MAX_NAME) {
            return tree_fail(path, err, errlen, "body %d: name must have 1 to %d bytes", i, TP_TREE_MAX_NAME);
        }
    }
    int a, b;
    if (tpPlan_FindDuplicate((const char *const *)names, n, &a, &b)) {
        return tree_fail(path, err, errlen, "body %d: name \"%s\" is also the name of body %d", b, names[b], a);
    }
    return true;
}

/* What the writer checks before it writes and the reader after it read (then suffix is ""): the
   body names, every node's parent earlier than it, every position finite. */
static bool tree_check_nodes(const tpTreeRecord *rec, const char *path, const char *suffix, char *err, size_t errlen)
{
    if (!tree_check_names(rec->body_names, rec->nbodies, path, err, errlen)) {
        return false;
    }
    int64_t bad;
    if (!tree_check_parents(rec->parent, rec->nnodes, &bad)) {
        return tree_fail(path, err, errlen, "node %" PRId64 ": parent %" PRId32 " is not an earlier node%s", bad,
                         rec->parent[bad], bad == 0 ? " (node 0 must be the root, parent -1)" : "");
    }
    const size_t nbodies = (size_t)rec->nbodies, npos = (size_t)rec->nnodes * nbodies * 3;
    for (size_t i = 0; i < npos; ++i) {
        if (!isfinite(rec->pos[i])) {
            return tree_fail(path, err, errlen, "node %zu, body %zu: position is not finite%s", i / 3 / nbodies,
                             i / 3 % nbodies, suffix);
        }
    }
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Writer                                                                                     */

typedef struct tpTreeOut {
    FILE *f;
    uint64_t hash;
    size_t len;
    unsigned char buf[1 << 16];
} tpTreeOut;

static void out_flush(tpTreeOut *o)
{
    if (o->len) {
        fwrite(o->buf, 1, o->len, o->f);
        o->len = 0;
    }
}

static void put_bytes(tpTreeOut *o, const void *data, size_t len)
{
    o->hash = fnv_update(o->hash, data, len);
    const unsigned char *p = data;
    while (len) {
        if (o->len == sizeof o->buf) {
            out_flush(o);
        }
        size_t n = sizeof o->buf - o->len < len ? sizeof o->buf - o->len : len;
        memcpy(o->buf + o->len, p, n);
        o->len += n;
        p += n;
        len -= n;
    }
}

static void out_le(tpTreeOut *o, uint64_t v, int n)
{
    unsigned char b[8];
    put_le(b, v, n);
    put_bytes(o, b, (size_t)n);
}

bool tpTreeRecord_Write(const tpTreeRecord *rec, const char *path, char *err, size_t errlen)
{
    if (rec->nbodies < 0 || (rec->nbodies > 0 && !rec->body_names)) {
        return tree_fail(path, err, errlen, "invalid body count %d", rec->nbodies);
    }
    if (rec->nnodes < 0 || rec->nnodes > INT32_MAX ||
        (rec->nnodes > 0 && (!rec->parent || !rec->flags || (rec->nbodies > 0 && !rec->pos)))) {
        return tree_fail(path, err, errlen, "invalid node count %" PRId64 " or missing arrays", rec->nnodes);
    }
    if (!tree_check_nodes(rec, path, "; refusing to write", err, errlen)) {
        return false;
    }
    const size_t npos = (size_t)rec->nnodes * (size_t)rec->nbodies * 3;
    tpTreeOut *o = malloc(sizeof *o);
    if (!o) {
        return tree_fail(path, err, errlen, "out of memory");
    }
    /* Written to a temporary file renamed into place: a failed write leaves no partial tree. */
    tpFileOut out;
    char ferr[256];
    o->f = tpFile_OpenOut(&out, path, "wb", ferr, sizeof ferr);
    if (!o->f) {
        free(o);
        return tree_fail(path, err, errlen, "%s", ferr);
    }
    o->hash = TP_FNV_BASIS;
    o->len = 0;
    put_bytes(o, TP_TREE_MAGIC, TP_TREE_MAGIC_LEN);
    out_le(o, TP_TREE_VERSION, 4);
    out_le(o, (uint32_t)rec->nbodies, 4);
    out_le(o, (uint64_t)rec->nnodes, 8);
    for (int i = 0; i < rec->nbodies; ++i) {
        size_t len = strlen(rec->body_names[i]);
        out_le(o, len, 2);
        put_bytes(o, rec->body_names[i], len);
    }
    for (int64_t i = 0; i < rec->nnodes; ++i) {
        out_le(o, (uint32_t)rec->parent[i], 4);
    }
    put_bytes(o, rec->flags, (size_t)rec->nnodes);
    for (size_t i = 0; i < npos; ++i) {
        uint32_t bits;
        memcpy(&bits, &rec->pos[i], sizeof bits);
        out_le(o, bits, 4);
    }
    uint64_t sum = o->hash;
    out_le(o, sum, 8);
    out_flush(o);
    free(o);
    return tpFile_CommitOut(&out, ferr, sizeof ferr) ? true : tree_fail(path, err, errlen, "%s", ferr);
}

/* ------------------------------------------------------------------------------------------ */
/* Reader                                                                                     */

typedef struct tpTreeIn {
    FILE *f;
    uint64_t hash;
    uint64_t left; /* bytes not yet read, checksum included */
} tpTreeIn;

/* Reads exactly len bytes (the caller has checked they exist) and feeds the checksum. */
static bool get_bytes(tpTreeIn *in, void *out, size_t len)
{
    if (fread(out, 1, len, in->f) != len) {
        return false;
    }
    in->hash = fnv_update(in->hash, out, len);
    in->left -= len;
    return true;
}

static bool tree_read(tpTreeRecord *rec, tpTreeIn *in, const char *path, char *err, size_t errlen)
{
    unsigned char h[TP_TREE_HEADER_LEN];
    if (in->left < TP_TREE_MAGIC_LEN || !get_bytes(in, h, TP_TREE_MAGIC_LEN)) {
        return tree_fail(path, err, errlen, "not a tplan tree file (too short for the magic number)");
    }
    if (memcmp(h, TP_TREE_MAGIC, TP_TREE_MAGIC_LEN) != 0) {
        return tree_fail(path, err, errlen, "not a tplan tree file (bad magic number)");
    }
    if (in->left < TP_TREE_HEADER_LEN - TP_TREE_MAGIC_LEN + TP_TREE_SUM_LEN ||
        !get_bytes(in, h + TP_TREE_MAGIC_LEN, TP_TREE_HEADER_LEN - TP_TREE_MAGIC_LEN)) {
        return tree_fail(path, err, errlen, "truncated file (header incomplete)");
    }
    uint32_t version = (uint32_t)get_le(h + 8, 4);
    if (version != TP_TREE_VERSION) {
        return tree_fail(path, err, errlen, "unsupported tree version %" PRIu32 " (this tplan reads version %d)",
                         version, TP_TREE_VERSION);
    }
    uint32_t nbodies = (uint32_t)get_le(h + 12, 4);
    int64_t nnodes = (int64_t)get_le(h + 16, 8);
    uint64_t payload = in->left - TP_TREE_SUM_LEN;
    /* Each name takes at least 2 bytes: bound the count by the file before allocating. */
    if (nbodies > TP_TREE_MAX_BODIES || nbodies > payload / 2) {
        return tree_fail(path, err, errlen, "absurd body count %" PRIu32 " for a file of this size (truncated?)",
                         nbodies);
    }
    if (nnodes < 0 || nnodes > INT32_MAX) {
        return tree_fail(path, err, errlen, "absurd node count %" PRId64, nnodes);
    }
    rec->body_names = calloc((size_t)nbodies + 1, sizeof *rec->body_names);
    if (!rec->body_names) {
        return tree_fail(path, err, errlen, "out of memory");
    }
    rec->nbodies = (int)nbodies;
    for (uint32_t i = 0; i < nbodies; ++i) {
        unsigned char lb[2];
        if (in->left < 2 + TP_TREE_SUM_LEN || !get_bytes(in, lb, 2)) {
            return tree_fail(path, err, errlen, "truncated file (in the name of body %" PRIu32 ")", i);
        }
        size_t len = (size_t)get_le(lb, 2);
        if (in->left < len + TP_TREE_SUM_LEN) {
            return tree_fail(path, err, errlen, "truncated file (in the name of body %" PRIu32 ")", i);
        }
        rec->body_names[i] = malloc(len + 1);
        if (!rec->body_names[i] || !get_bytes(in, rec->body_names[i], len)) {
            return tree_fail(path, err, errlen, "cannot read the name of body %" PRIu32, i);
        }
        rec->body_names[i][len] = '\0';
        if (len == 0 || memchr(rec->body_names[i], '\0', len)) {
            return tree_fail(path, err, errlen, "body %" PRIu32 ": empty name or NUL byte in name", i);
        }
    }
    /* Sizes are checked against what is left of the file, so a corrupt count cannot make us
     * allocate more than the file could hold. */
    uint64_t per_node = 4 + 1 + 12 * (uint64_t)nbodies;
    uint64_t data = in->left - TP_TREE_SUM_LEN;
    if ((uint64_t)nnodes > data / per_node) {
        return tree_fail(path, err, errlen,
                         "truncated file (%" PRId64 " nodes need %" PRIu64 " bytes of node data, %" PRIu64 " left)",
                         nnodes, (uint64_t)nnodes * per_node, data);
    }
    if ((uint64_t)nnodes * per_node != data) {
        return tree_fail(path, err, errlen, "%" PRIu64 " unexpected bytes after the node data",
                         data - (uint64_t)nnodes * per_node);
    }
    size_t nn = (size_t)nnodes, npos = nn * nbodies * 3;
    rec->parent = malloc((nn + 1) * sizeof *rec->parent);
    rec->flags = malloc(nn + 1);
    rec->pos = malloc((npos + 1) * sizeof *rec->pos);
    if (!rec->parent || !rec->flags || !rec->pos) {
        return tree_fail(path, err, errlen, "out of memory for %" PRId64 " nodes", nnodes);
    }
    rec->nnodes = nnodes;
    /* Read the raw little-endian bytes into the arrays, then decode in place (element i is
     * read before it is overwritten). */
    if (!get_bytes(in, rec->parent, nn * 4) || !get_bytes(in, rec->flags, nn) || !get_bytes(in, rec->pos, npos * 4)) {
        return tree_fail(path, err, errlen, "read error in the node data");
    }
    for (size_t i = 0; i < nn; ++i) {
        rec->parent[i] = (int32_t)(uint32_t)get_le((const unsigned char *)&rec->parent[i], 4);
    }
    for (size_t i = 0; i < npos; ++i) {
        uint32_t bits = (uint32_t)get_le((const unsigned char *)&rec->pos[i], 4);
        memcpy(&rec->pos[i], &bits, sizeof bits);
    }
    uint64_t expect = in->hash;
    unsigned char sb[TP_TREE_SUM_LEN];
    if (fread(sb, 1, sizeof sb, in->f) != sizeof sb) {
        return tree_fail(path, err, errlen, "read error in the checksum");
    }
    if (get_le(sb, 8) != expect) {
        return tree_fail(path, err, errlen, "checksum mismatch (file is corrupt)");
    }
    return tree_check_nodes(rec, path, "", err, errlen);
}

bool tpTreeRecord_Read(tpTreeRecord *rec, const char *path, char *err, size_t errlen)
{
    memset(rec, 0, sizeof *rec);
    /* O_NONBLOCK: opening a FIFO with no writer must not hang before fstat can refuse it. The
     * reader streams (trees reach gigabytes), so it has no size cap: every allocation is bounded
     * by the file's size instead (see tree_read). */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        return tree_fail(path, err, errlen, "cannot open: %s", strerror(errno));
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return tree_fail(path, err, errlen, "not a regular file");
    }
    tpTreeIn in = {fdopen(fd, "rb"), TP_FNV_BASIS, 0};
    if (!in.f) {
        int saved = errno;
        close(fd);
        return tree_fail(path, err, errlen, "cannot open: %s", strerror(saved));
    }
    in.left = (uint64_t)sb.st_size;
    bool ok = tree_read(rec, &in, path, err, errlen);
    fclose(in.f);
    if (!ok) {
        tpTreeRecord_Free(rec);
    }
    return ok;
}

void tpTreeRecord_Free(tpTreeRecord *rec)
{
    if (!rec) {
        return;
    }
    if (rec->body_names) {
        for (int i = 0; i < rec->nbodies; ++i) {
            free(rec->body_names[i]);
        }
    }
    free(rec->body_names);
    free(rec->parent);
    free(rec->flags);
    free(rec->pos);
    memset(rec, 0, sizeof *rec);
}
