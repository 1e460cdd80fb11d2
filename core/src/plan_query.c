/* Space-time queries over a plan's worlds (tp/query.h, docs/cli.md "tplan worlds"):
 * the parser (words, boxes [x0,x1]x[y0,y1]x[z0,z1], time windows) and the evaluation on the
 * recorded trajectories. "touches" is geometric: each body is a sphere, an oriented box (boxes;
 * cylinders, capsules, meshes and compounds by their recorded box) or a half-space (planes), and
 * two of them touch when no separating axis parts them by more than TP_QUERY_TOUCH_GAP. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tp/base.h"
#include "tp/mathx.h"
#include "tp/query.h"

/* ---- lexer ---------------------------------------------------------------------------------- */

#define MAX_TOKENS 512

typedef struct {
    char text[128]; /* a word ("ball", "2.5", "x"), or one of "[", "]", "," */
    bool punct;
} Token;

typedef struct {
    const tpPlanRecord *rec;
    Token tok[MAX_TOKENS];
    int ntok, at;
    int clause;       /* 1-based, for messages */
    const char *what; /* the clause's kind word, for messages */
    char *err;
    size_t errlen;
} Parser;

static bool fail(Parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(Parser *p, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (p->clause > 0) {
        tpErrorf(p->err, p->errlen, "query: clause %d (%s): %s", p->clause, p->what ? p->what : "?", msg);
    } else {
        tpErrorf(p->err, p->errlen, "query: %s", msg);
    }
    return false;
}

static bool lex(Parser *p, const char *s)
{
    while (*s) {
        if (isspace((unsigned char)*s)) {
            s++;
            continue;
        }
        if (p->ntok >= MAX_TOKENS) {
            return fail(p, "more than %d words", MAX_TOKENS);
        }
        Token *t = &p->tok[p->ntok++];
        t->punct = false;
        size_t n = 0;
        if (*s == '[' || *s == ']' || *s == ',') {
            t->text[n++] = *s++;
            t->punct = true;
        } else if (*s == '\'' || *s == '"') { /* a quoted name: 'red ball' */
            char q = *s++;
            while (*s && *s != q) {
                if (n + 1 >= sizeof t->text) {
                    return fail(p, "a name longer than %zu bytes", sizeof t->text - 1);
                }
                t->text[n++] = *s++;
            }
            if (*s != q) {
                return fail(p, "a quote (%c) is not closed", q);
            }
            s++;
        } else {
            while (*s && !isspace((unsigned char)*s) && *s != '[' && *s != ']' && *s != ',' && *s != '\'' &&
                   *s != '"') {
                if (n + 1 >= sizeof t->text) {
                    return fail(p, "a word longer than %zu bytes", sizeof t->text - 1);
                }
                t->text[n++] = *s++;
            }
        }
        t->text[n] = '\0';
    }
    return true;
}

static const char *peek(const Parser *p, int ahead)
{
    return p->at + ahead < p->ntok ? p->tok[p->at + ahead].text : NULL;
}

static bool is(const Parser *p, int ahead, const char *word)
{
    const char *w = peek(p, ahead);
    return w && strcmp(w, word) == 0;
}

static bool accept(Parser *p, const char *word)
{
    if (is(p, 0, word)) {
        p->at++;
        return true;
    }
    return false;
}

static bool expect(Parser *p, const char *word, const char *field)
{
    if (accept(p, word)) {
        return true;
    }
    const char *w = peek(p, 0);
    return fail(p, "%s: expected '%s', got %s%s%s", field, word, w ? "'" : "the end", w ? w : "", w ? "'" : "");
}

static bool number_text(const char *w, double *out)
{
    if (!w || !*w) {
        return false;
    }
    char *end;
    double v = strtod(w, &end);
    if (*end != '\0' || isnan(v)) {
        return false;
    }
    *out = v;
    return true;
}

static bool number(Parser *p, const char *field, double *out, bool finite)
{
    const char *w = peek(p, 0);
    if (!number_text(w, out) || (finite && !isfinite(*out))) {
        return fail(p, "%s: expected a %snumber, got %s%s%s", field, finite ? "finite " : "", w ? "'" : "the end",
                    w ? w : "", w ? "'" : "");
    }
    p->at++;
    return true;
}

static bool body(Parser *p, const char *field, int *out)
{
    const char *w = peek(p, 0);
    if (!w || p->tok[p->at].punct) {
        return fail(p, "%s: expected a body name, got %s%s%s", field, w ? "'" : "the end", w ? w : "", w ? "'" : "");
    }
    for (int i = 0; i < p->rec->nbodies; i++) {
        if (strcmp(p->rec->bodies[i].name, w) == 0) {
            *out = i;
            p->at++;
            return true;
        }
    }
    char list[256] = "";
    size_t n = 0;
    for (int i = 0; i < p->rec->nbodies && n < sizeof list - 8; i++) {
        int k = snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", p->rec->bodies[i].name);
        n = k > 0 ? n + (size_t)k : n;
    }
    if (n >= sizeof list - 8) {
        snprintf(list + sizeof list - 8, 8, ", ...");
    }
    if (p->what && strcmp(p->what, field) == 0) {
        return fail(p, "no body named '%s' (bodies: %s)", w, list);
    }
    return fail(p, "%s: no body named '%s' (bodies: %s)", field, w, list);
}

/* [x0,x1]x[y0,y1]x[z0,z1]: every axis lo < hi ("inf" and "-inf" leave a side open). */
static bool box(Parser *p, double lo[3], double hi[3])
{
    static const char axis[3] = {'x', 'y', 'z'};
    for (int k = 0; k < 3; k++) {
        char field[32];
        snprintf(field, sizeof field, "region %c", axis[k]);
        if (k > 0 && !accept(p, "x") && !accept(p, "\xc3\x97") && !accept(p, "*")) {
            return expect(p, "x", "region");
        }
        if (!expect(p, "[", field) || !number(p, field, &lo[k], false) || !expect(p, ",", field) ||
            !number(p, field, &hi[k], false) || !expect(p, "]", field)) {
            return false;
        }
        if (!(lo[k] < hi[k])) {
            return fail(p, "empty region: %c from %g to %g (the lower bound must be below the upper)", axis[k], lo[k],
                        hi[k]);
        }
    }
    return true;
}

/* Optional window: "between T0 [and] T1", "after T", "before T", "at T" (the state nearest T). */
static bool window(Parser *p, tpQueryClause *c)
{
    c->t0 = -INFINITY, c->t1 = INFINITY;
    if (accept(p, "between")) {
        if (!number(p, "between", &c->t0, true)) {
            return false;
        }
        double v;
        if (is(p, 0, "and") && number_text(peek(p, 1), &v)) {
            p->at++;
        }
        if (!number(p, "between", &c->t1, true)) {
            return false;
        }
        if (c->t0 > c->t1) {
            return fail(p, "between: empty window: %g s is after %g s", c->t0, c->t1);
        }
    } else if (accept(p, "after")) {
        return number(p, "after", &c->t0, true);
    } else if (accept(p, "before")) {
        return number(p, "before", &c->t1, true);
    } else if (is(p, 0, "at") && number_text(peek(p, 1), &c->t0)) {
        p->at += 2;
        if (!isfinite(c->t0)) {
            return fail(p, "at: expected a finite time");
        }
        c->t1 = c->t0 + 0.5 * p->rec->dt;
        c->t0 -= 0.5 * p->rec->dt;
    }
    return true;
}

static const char *const figure_names[TP_QUERY_FIGURE_COUNT] = {"duration", "cost",         "steps",    "impulse",
                                                                "work",     "control_time", "end_speed"};

static int figure_of(const char *w)
{
    for (int f = 0; w && f < TP_QUERY_FIGURE_COUNT; f++) {
        if (strcmp(w, figure_names[f]) == 0) {
            return f;
        }
    }
    return -1;
}

static int comparator(const char *w)
{
    static const char *const ops[] = {"<", ">", "<=", ">=", "=", "=="};
    static const int codes[] = {'<', '>', 'l', 'g', '=', '='};
    for (int k = 0; w && k < 6; k++) {
        if (strcmp(w, ops[k]) == 0) {
            return codes[k];
        }
    }
    return 0;
}

static bool clause(Parser *p, tpQueryClause *c)
{
    memset(c, 0, sizeof *c);
    c->body = c->other = -1;
    c->t0 = -INFINITY, c->t1 = INFINITY;
    p->what = "body";
    while (is(p, 0, "not") || is(p, 0, "never")) {
        p->at++;
        c->negate = !c->negate;
    }
    if (figure_of(peek(p, 0)) >= 0 && comparator(peek(p, 1))) { /* duration < 3 */
        c->kind = TP_QUERY_NUMBER;
        c->figure = (tpQueryFigure)figure_of(peek(p, 0));
        p->what = figure_names[c->figure];
        c->cmp = comparator(peek(p, 1));
        p->at += 2;
        return number(p, "value", &c->value, false);
    }
    if (is(p, 0, "ends") || (is(p, 0, "at") && is(p, 1, "rest"))) { /* every moving body */
        p->what = "rest";
        accept(p, "ends");
        c->kind = TP_QUERY_REST;
        return expect(p, "at", "rest") && expect(p, "rest", "rest");
    }
    if (!body(p, "body", &c->body)) {
        return false;
    }
    if (accept(p, "never")) {
        c->negate = !c->negate;
    }
    if (accept(p, "ends")) {
        if (accept(p, "inside")) {
            p->what = "ends inside";
            c->kind = TP_QUERY_ENDS;
            return box(p, c->lo, c->hi);
        }
        p->what = "rest";
        c->kind = TP_QUERY_REST;
        return expect(p, "at", "rest") && expect(p, "rest", "rest");
    }
    if (is(p, 0, "at") && is(p, 1, "rest")) {
        p->at += 2;
        p->what = "rest";
        c->kind = TP_QUERY_REST;
        return true;
    }
    if (accept(p, "always") || accept(p, "stays")) {
        p->what = "always inside";
        c->kind = TP_QUERY_STAYS;
        return expect(p, "inside", "always") && box(p, c->lo, c->hi) && window(p, c);
    }
    if (accept(p, "inside")) {
        p->what = "inside";
        c->kind = TP_QUERY_INSIDE;
        return box(p, c->lo, c->hi) && window(p, c);
    }
    if (accept(p, "touches")) {
        p->what = "touches";
        c->kind = TP_QUERY_TOUCHES;
        if (!body(p, "other body", &c->other) || !window(p, c)) {
            return false;
        }
        return c->other != c->body || fail(p, "other body: '%s' cannot touch itself", p->rec->bodies[c->body].name);
    }
    const char *w = peek(p, 0);
    p->what = "body";
    return fail(p, "after '%s': expected inside, always inside, ends inside, ends at rest or touches, got %s%s%s",
                p->rec->bodies[c->body].name, w ? "'" : "the end", w ? w : "", w ? "'" : "");
}

bool tpQuery_Parse(tpQuery *q, const tpPlanRecord *rec, const char *text, char *err, size_t errlen)
{
    TP_ASSERT(q && rec && text);
    memset(q, 0, sizeof *q);
    if (strlen(text) > TP_QUERY_MAX_TEXT) {
        return tpErrorf(err, errlen, "query: longer than %d bytes", TP_QUERY_MAX_TEXT), false;
    }
    Parser *p = calloc(1, sizeof *p);
    if (!p) {
        return tpErrorf(err, errlen, "query: out of memory"), false;
    }
    p->rec = rec, p->err = err, p->errlen = errlen;
    bool ok = lex(p, text);
    while (ok && p->at < p->ntok) {
        if (q->nclauses == TP_QUERY_MAX_CLAUSES) {
            ok = fail(p, "more than %d clauses", TP_QUERY_MAX_CLAUSES);
            break;
        }
        p->clause = q->nclauses + 1;
        ok = clause(p, &q->clauses[q->nclauses++]);
        if (ok && p->at < p->ntok && !accept(p, "and")) {
            ok = fail(p, "expected 'and' or the end, got '%s'", peek(p, 0));
        } else if (ok && p->at == p->ntok && p->ntok > 0 && strcmp(p->tok[p->ntok - 1].text, "and") == 0 &&
                   !p->tok[p->ntok - 1].punct) {
            p->clause = 0;
            ok = fail(p, "ends with 'and'");
        }
    }
    free(p);
    return ok;
}

/* ---- evaluation ----------------------------------------------------------------------------- */

static double start_time(const tpPlanRecord *rec)
{
    return rec->has_start ? rec->start_time : 0.0;
}

/* Body b's state at state i of world w: its trajectory row, or its fixed pose. */
static const double *state_of(const tpPlanRecord *rec, const tpPlanWorld *w, int b, int i)
{
    const tpPlanBody *pb = &rec->bodies[b];
    if (pb->moving && w->traj && w->traj[b]) {
        return w->traj[b] + (size_t)i * TP_STATE_DOUBLES;
    }
    return pb->pose;
}

static bool in_box(const double *x, const double lo[3], const double hi[3])
{
    return x[0] >= lo[0] && x[0] <= hi[0] && x[1] >= lo[1] && x[1] <= hi[1] && x[2] >= lo[2] && x[2] <= hi[2];
}

typedef struct {
    int kind;    /* 0 sphere, 1 oriented box, 2 half-space (n . p <= d) */
    double c[3]; /* centre (sphere, box) or normal (plane, unit) */
    double r[9]; /* box: rotation (columns are its axes) */
    double h[3]; /* box: half extents; sphere: h[0] radius */
    double d;    /* plane offset */
} Shape;

static void shape_of(const tpPlanBody *b, const double *x, Shape *s)
{
    const double *z = b->size;
    if (strcmp(b->shape, "plane") == 0) {
        double n = sqrt(z[0] * z[0] + z[1] * z[1] + z[2] * z[2]);
        s->kind = 2;
        for (int k = 0; k < 3; k++) {
            s->c[k] = n > 0 ? z[k] / n : (k == 2);
        }
        s->d = n > 0 ? z[3] / n : 0;
        return;
    }
    memcpy(s->c, x, 3 * sizeof *x);
    if (strcmp(b->shape, "sphere") == 0) {
        s->kind = 0;
        s->h[0] = z[0];
        return;
    }
    s->kind = 1;
    tpQuat_ToMatrix(x + 3, s->r);
    if (strcmp(b->shape, "capsule") == 0) {
        s->h[0] = s->h[1] = z[0], s->h[2] = z[0] + 0.5 * z[1];
    } else if (strcmp(b->shape, "cylinder") == 0) {
        s->h[0] = s->h[1] = z[0], s->h[2] = 0.5 * z[1];
    } else { /* box, mesh, compound: the recorded box about the origin */
        s->h[0] = 0.5 * z[0], s->h[1] = 0.5 * z[1], s->h[2] = 0.5 * z[2];
    }
}

/* How far shape s reaches along unit axis a from its centre. */
static double reach(const Shape *s, const double a[3])
{
    if (s->kind == 0) {
        return s->h[0];
    }
    double e = 0;
    for (int j = 0; j < 3; j++) {
        e += fabs(a[0] * s->r[j] + a[1] * s->r[3 + j] + a[2] * s->r[6 + j]) * s->h[j];
    }
    return e;
}

static double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static bool touching(const Shape *a, const Shape *b, double gap)
{
    if (a->kind == 2 && b->kind == 2) {
        return false;
    }
    if (b->kind == 2) {
        const Shape *t = a;
        a = b, b = t;
    }
    if (a->kind == 2) { /* the lowest point of b along the plane's normal */
        return dot3(a->c, b->c) - reach(b, a->c) - a->d <= gap;
    }
    double t[3] = {b->c[0] - a->c[0], b->c[1] - a->c[1], b->c[2] - a->c[2]};
    if (a->kind == 0 && b->kind == 0) {
        return sqrt(dot3(t, t)) - a->h[0] - b->h[0] <= gap;
    }
    if (a->kind == 0 || b->kind == 0) { /* sphere and box: the box's closest point to the centre */
        const Shape *s = a->kind == 0 ? a : b, *o = a->kind == 0 ? b : a;
        double d2 = 0;
        for (int j = 0; j < 3; j++) {
            double ax[3] = {o->r[j], o->r[3 + j], o->r[6 + j]};
            double u = (s->c[0] - o->c[0]) * ax[0] + (s->c[1] - o->c[1]) * ax[1] + (s->c[2] - o->c[2]) * ax[2];
            double e = fabs(u) - o->h[j];
            d2 += e > 0 ? e * e : 0;
        }
        return sqrt(d2) - s->h[0] <= gap;
    }
    /* two boxes: the 15 axes of the separating axis test */
    double axes[15][3];
    int n = 0;
    for (int j = 0; j < 3; j++) {
        for (int k = 0; k < 3; k++) {
            axes[n][k] = a->r[3 * k + j], axes[n + 3][k] = b->r[3 * k + j];
        }
        n++;
    }
    n = 6;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            const double u[3] = {axes[i][0], axes[i][1], axes[i][2]},
                         v[3] = {axes[3 + j][0], axes[3 + j][1], axes[3 + j][2]};
            double c[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
            double l = sqrt(dot3(c, c));
            if (l > 1e-9) {
                axes[n][0] = c[0] / l, axes[n][1] = c[1] / l, axes[n][2] = c[2] / l;
                n++;
            }
        }
    }
    for (int k = 0; k < n; k++) {
        if (fabs(dot3(t, axes[k])) - reach(a, axes[k]) - reach(b, axes[k]) > gap) {
            return false;
        }
    }
    return true;
}

static bool at_rest(const double *x)
{
    return sqrt(dot3(x + 7, x + 7)) <= TP_QUERY_REST_SPEED && sqrt(dot3(x + 10, x + 10)) <= TP_QUERY_REST_ANGULAR;
}

double tpQuery_Figure(const tpPlanRecord *rec, int wi, tpQueryFigure f)
{
    TP_ASSERT(rec && wi >= 0 && wi < rec->nworlds);
    const tpPlanWorld *w = &rec->worlds[wi];
    if (f == TP_QUERY_DURATION || f == TP_QUERY_STEPS || f == TP_QUERY_COST) {
        return f == TP_QUERY_DURATION ? w->nsteps * rec->dt : f == TP_QUERY_STEPS ? w->nsteps : w->cost;
    }
    if (f == TP_QUERY_END_SPEED) {
        double v = 0;
        for (int b = 0; b < rec->nbodies; b++) {
            if (rec->bodies[b].moving) {
                const double *x = state_of(rec, w, b, w->nsteps);
                v = fmax(v, sqrt(dot3(x + 7, x + 7)));
            }
        }
        return v;
    }
    tpPlanControl total;
    tpPlanWorld_Control(rec, w, NULL, &total);
    return f == TP_QUERY_IMPULSE ? total.impulse : f == TP_QUERY_WORK ? total.work : total.time;
}

static bool clause_holds(const tpQueryClause *c, const tpPlanRecord *rec, int wi)
{
    const tpPlanWorld *w = &rec->worlds[wi];
    const double t0 = start_time(rec);
    /* the states of the window: t0 + i dt within [c->t0, c->t1] */
    int first = 0, last = w->nsteps;
    if (isfinite(c->t0)) {
        first = (int)fmax(0.0, fmin((double)w->nsteps + 1, ceil((c->t0 - t0) / rec->dt - 1e-9)));
    }
    if (isfinite(c->t1)) {
        last = (int)fmin((double)w->nsteps, fmax(-1.0, floor((c->t1 - t0) / rec->dt + 1e-9)));
    }
    switch (c->kind) {
    case TP_QUERY_INSIDE:
        for (int i = first; i <= last; i++) {
            if (in_box(state_of(rec, w, c->body, i), c->lo, c->hi)) {
                return true;
            }
        }
        return false;
    case TP_QUERY_STAYS:
        for (int i = first; i <= last; i++) {
            if (!in_box(state_of(rec, w, c->body, i), c->lo, c->hi)) {
                return false;
            }
        }
        return first <= last;
    case TP_QUERY_ENDS:
        return in_box(state_of(rec, w, c->body, w->nsteps), c->lo, c->hi);
    case TP_QUERY_TOUCHES:
        for (int i = first; i <= last; i++) {
            Shape a, b;
            shape_of(&rec->bodies[c->body], state_of(rec, w, c->body, i), &a);
            shape_of(&rec->bodies[c->other], state_of(rec, w, c->other, i), &b);
            if (touching(&a, &b, TP_QUERY_TOUCH_GAP)) {
                return true;
            }
        }
        return false;
    case TP_QUERY_REST:
        for (int b = 0; b < rec->nbodies; b++) {
            if ((c->body < 0 || b == c->body) && rec->bodies[b].moving && !at_rest(state_of(rec, w, b, w->nsteps))) {
                return false;
            }
        }
        return true;
    case TP_QUERY_NUMBER: {
        double v = tpQuery_Figure(rec, wi, c->figure);
        switch (c->cmp) {
        case '<':
            return v < c->value;
        case '>':
            return v > c->value;
        case 'l':
            return v <= c->value;
        case 'g':
            return v >= c->value;
        default:
            return v == c->value;
        }
    }
    default:
        TP_ASSERT(!"unknown query clause");
        return false;
    }
}

bool tpQuery_Holds(const tpQuery *q, const tpPlanRecord *rec, int w)
{
    TP_ASSERT(q && rec && w >= 0 && w < rec->nworlds);
    for (int k = 0; k < q->nclauses; k++) {
        if (clause_holds(&q->clauses[k], rec, w) == q->clauses[k].negate) {
            return false;
        }
    }
    return true;
}

int tpQuery_ParseRank(const char *text, tpQueryFigure *figs, bool *desc, char *err, size_t errlen)
{
    int n = 0;
    const char *s = text;
    while (s && *s) {
        const char *e = strchr(s, ',');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        bool d = len > 0 && *s == '-';
        char word[64];
        snprintf(word, sizeof word, "%.*s", (int)(len - d < 63 ? len - d : 63), s + d);
        int f = figure_of(word);
        if (f < 0) {
            tpErrorf(err, errlen,
                     "rank: unknown key '%s' (expected duration, cost, steps, impulse, work, control_time or "
                     "end_speed, '-' first for largest first)",
                     word);
            return -1;
        }
        if (n == TP_QUERY_MAX_RANK) {
            tpErrorf(err, errlen, "rank: more than %d keys", TP_QUERY_MAX_RANK);
            return -1;
        }
        figs[n] = (tpQueryFigure)f, desc[n] = d;
        n++;
        s = e ? e + 1 : NULL;
    }
    return n;
}

void tpQuery_FileOrder(const tpPlanRecord *rec, int *order)
{
    int n = 0;
    order[n++] = rec->selected;
    for (int w = 0; w < rec->nworlds; w++) {
        if (w != rec->selected) {
            order[n++] = w;
        }
    }
}

void tpQuery_Select(tpPlanRecord *rec, int w)
{
    TP_ASSERT(rec && w >= 0 && w < rec->nworlds);
    if (w == rec->selected) {
        return;
    }
    for (int i = 0; i < rec->noverlays; i++) {
        tpPlanOverlay_Free(&rec->overlays[i]);
    }
    free(rec->overlays);
    rec->overlays = NULL, rec->noverlays = 0;
    free(rec->goal_unmet);
    rec->goal_unmet = NULL;
    rec->nreports = 0;
    rec->selected = w;
}
