/* The shared helpers of tp/util.h (growable array, (key, id) min-heap) and tp/mathx.h (angle wraps,
 * quaternions, clamp), the bucket queue, and tpPages_Alloc's large buffers. Every input is fixed or drawn from a seeded
 * stream: deterministic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tp/mathx.h"
#include "tp/rng.h"
#include "nav_open.h" /* core/src: the grid search's open list */
#include "tp/util.h"

static void test_array_grows_by_doubling(void **state)
{
    (void)state;
    int *v = NULL;
    size_t n = 0, cap = 0, caps_seen = 0, last_cap = 0;
    for (int i = 0; i < 1000; ++i) {
        int *p = tpArray_Grow(v, &cap, n + 1, sizeof *p);
        assert_non_null(p);
        v = p;
        v[n++] = i;
        assert_true(cap >= n);
        if (cap != last_cap) {
            assert_true(last_cap == 0 ? cap == 16 : cap == 2 * last_cap); /* 16, 32, 64, ... */
            last_cap = cap;
            ++caps_seen;
        }
    }
    assert_int_equal(caps_seen, 7); /* 16 .. 1024 */
    for (int i = 0; i < 1000; ++i) {
        assert_int_equal(v[i], i); /* the contents survive every move */
    }
    /* room enough already: the same array back, capacity untouched */
    assert_ptr_equal(tpArray_Grow(v, &cap, 10, sizeof *v), v);
    assert_int_equal(cap, 1024);
    /* a jump past the doubled capacity doubles until it fits */
    int *p = tpArray_Grow(v, &cap, 5000, sizeof *p);
    assert_non_null(p);
    v = p;
    assert_int_equal(cap, 8192);
    free(v);
    /* need 0 on an empty array still gives an array */
    size_t c0 = 0;
    void *q = tpArray_Grow(NULL, &c0, 0, 8);
    assert_non_null(q);
    assert_int_equal(c0, 16);
    free(q);
}

static void test_array_refuses_overflow(void **state)
{
    (void)state;
    assert_int_equal(tpArray_NextCap(0, SIZE_MAX / 8 + 1, 8), 0);
    assert_int_equal(tpArray_NextCap(0, 1, 0), 0);
    assert_int_equal(tpArray_NextCap(100, 50, 8), 100);
    /* doubling stops at the largest count a byte size can describe */
    assert_int_equal(tpArray_NextCap(SIZE_MAX / 16 - 1, SIZE_MAX / 16, 16), SIZE_MAX / 16);
    assert_null(tpArray_Resize(NULL, SIZE_MAX / 4, 8));
    assert_null(tpArray_Resize(NULL, 0, 8));
    double *v = NULL;
    size_t cap = 0;
    double *p = tpArray_Grow(v, &cap, 4, sizeof *p);
    assert_non_null(p);
    v = p;
    v[0] = 1.5;
    size_t before = cap;
    assert_null(tpArray_Grow(v, &cap, SIZE_MAX / 2, sizeof *v)); /* too large: refused ... */
    assert_int_equal(cap, before);                               /* ... and nothing changed */
    assert_true(v[0] == 1.5);
    free(v);
}

static int cmp_item(const void *a, const void *b)
{
    const tpHeapItem *x = a, *y = b;
    if (x->key != y->key) {
        return x->key < y->key ? -1 : 1;
    }
    return (x->id > y->id) - (x->id < y->id);
}

/* tpNames_FindDuplicate: none, the pair whose second member comes first, n < 2. */
static void test_names_find_duplicate(void **state)
{
    (void)state;
    const char *none[] = {"b", "a", "c", "ab", ""};
    int a = -1, b = -1;
    assert_int_equal(tpNames_FindDuplicate(none, 5, &a, &b), 0);
    assert_int_equal(a, -1);
    const char *dups[] = {"x", "y", "z", "y", "x", "y"};
    assert_int_equal(tpNames_FindDuplicate(dups, 6, &a, &b), 1);
    assert_int_equal(a, 1); /* "y" at 1 and 3: the earliest second member */
    assert_int_equal(b, 3);
    assert_int_equal(tpNames_FindDuplicate(dups, 1, &a, &b), 0);
    assert_int_equal(tpNames_FindDuplicate(dups, 0, &a, &b), 0);
}

static void test_heap_pops_in_key_then_id_order(void **state)
{
    (void)state;
    tpRng rng;
    tpRng_Seed(&rng, 16);
    enum { N = 2000 };
    tpHeapItem *ref = malloc(N * sizeof *ref);
    assert_non_null(ref);
    tpHeap h = {0};
    int n = 0;
    for (int round = 0; round < 2; ++round) { /* a second round reuses the cleared heap */
        n = 0;
        for (int i = 0; i < N; ++i) {
            /* few distinct keys, so that many ties are broken by the id */
            double key = (double)(tpRng_U32(&rng) % 50) * 0.5;
            int32_t id = (int32_t)(tpRng_U32(&rng) % 100000);
            assert_true(tpHeap_Push(&h, key, id));
            ref[n++] = (tpHeapItem){key, id};
        }
        assert_int_equal(h.len, N);
        qsort(ref, (size_t)n, sizeof *ref, cmp_item);
        for (int i = 0; i < n; ++i) {
            tpHeapItem it = tpHeap_Pop(&h);
            assert_true(it.key == ref[i].key);
            assert_int_equal(it.id, ref[i].id);
        }
        assert_int_equal(h.len, 0);
        assert_true(tpHeap_Push(&h, 1.0, 7));
        tpHeap_Clear(&h);
        assert_int_equal(h.len, 0);
    }
    /* random interleaved pushes and pops against the plain definition: a pop returns the
       smallest (key, id) held, found by a linear scan of the entries kept aside */
    for (int trial = 0; trial < 20; ++trial) {
        tpHeap_Clear(&h);
        n = 0;
        for (int step = 0; step < 3000; ++step) {
            if (n > 0 && tpRng_U32(&rng) % 3 == 0) {
                int best = 0;
                for (int i = 1; i < n; ++i) {
                    if (cmp_item(&ref[i], &ref[best]) < 0) {
                        best = i;
                    }
                }
                tpHeapItem it = tpHeap_Pop(&h);
                assert_true(it.key == ref[best].key);
                assert_int_equal(it.id, ref[best].id);
                ref[best] = ref[--n];
            } else if (n < N) {
                /* negative keys too, and -0 (equal to +0: the id decides) */
                double key = ((double)(tpRng_U32(&rng) % (2 * trial + 3)) - (double)(trial + 1)) * 0.25;
                key = key == 0.0 && tpRng_U32(&rng) % 2 ? -0.0 : key;
                int32_t id = (int32_t)(tpRng_U32(&rng) % 64);
                assert_true(tpHeap_Push(&h, key, id));
                ref[n++] = (tpHeapItem){key, id};
            }
            assert_int_equal(h.len, (size_t)n);
        }
    }
    tpHeap_Clear(&h);
    /* interleaved pushes and pops: always the smallest entry held */
    assert_true(tpHeap_Push(&h, 3.0, 1));
    assert_true(tpHeap_Push(&h, 1.0, 9));
    assert_true(tpHeap_Push(&h, 1.0, 2));
    assert_int_equal(tpHeap_Pop(&h).id, 2);
    assert_true(tpHeap_Push(&h, 0.5, 4));
    assert_int_equal(tpHeap_Pop(&h).id, 4);
    assert_int_equal(tpHeap_Pop(&h).id, 9);
    assert_int_equal(tpHeap_Pop(&h).id, 1);
    tpHeap_Free(&h);
    assert_null(h.items);
    assert_int_equal(h.cap, 0);
    tpHeap_Free(NULL);
    free(ref);
}

/* tpBucketQueue pops in tpHeap's (key, id) order when ids are pushed in increasing order: random
 * interleavings of pushes and pops, keys mostly at or above the last popped (an A* with a
 * consistent heuristic) and sometimes below it, clears in between, and pushes that must refuse. */
static void test_bucket_queue_matches_heap(void **state)
{
    (void)state;
    tpRng rng;
    tpRng_Seed(&rng, 77);
    tpBucketQueue q = {0};
    tpHeap h = {0};
    for (int round = 0; round < 200; ++round) {
        int32_t next_id = 0, last = 0;
        const int ops = 1 + (int)(tpRng_Res53(&rng) * 3000);
        for (int op = 0; op < ops; ++op) {
            if (h.len > 0 && tpRng_Res53(&rng) < 0.45) {
                tpHeapItem want = tpHeap_Pop(&h);
                int32_t got = tpBucketQueue_Pop(&q);
                assert_int_equal(got, want.id);
                last = (int32_t)want.key;
            } else {
                double u = tpRng_Res53(&rng);
                int32_t key = u < 0.05 ? (int32_t)(tpRng_Res53(&rng) * (last + 1)) : last + (int32_t)(u * 40);
                assert_true(tpBucketQueue_Push(&q, key, next_id));
                assert_true(tpHeap_Push(&h, (double)key, next_id));
                ++next_id;
            }
            assert_int_equal(q.len, h.len);
        }
        if (round % 2) { /* drain */
            while (h.len > 0) {
                assert_int_equal(tpBucketQueue_Pop(&q), tpHeap_Pop(&h).id);
            }
        }
        tpBucketQueue_Clear(&q);
        tpHeap_Clear(&h);
        assert_int_equal(q.len, 0);
    }
    assert_false(tpBucketQueue_Push(&q, -1, 0));
    assert_false(tpBucketQueue_Push(&q, 0, -1));
    assert_false(tpBucketQueue_Push(&q, (int32_t)1 << 30, 0));
    assert_int_equal(q.len, 0);
    tpBucketQueue_Free(&q);
    tpHeap_Free(&h);
}

/* tpPages_Alloc: small and large buffers hold every byte written; a large one starts on a huge-page
 * boundary (except under the sanitizers, where every buffer comes from malloc). */
static void test_pages_alloc(void **state)
{
    (void)state;
    const size_t sizes[] = {0, 1, 4096, TP_PAGES_MIN_BYTES - 1, TP_PAGES_MIN_BYTES, TP_PAGES_HUGE_BYTES + 12345};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
        const size_t n = sizes[k];
        unsigned char *p = tpPages_Alloc(n);
        assert_non_null(p);
        for (size_t i = 0; i < n; ++i) {
            p[i] = (unsigned char)(i * 7 + k);
        }
        for (size_t i = 0; i < n; ++i) {
            assert_int_equal(p[i], (unsigned char)(i * 7 + k));
        }
#if !defined(__SANITIZE_ADDRESS__)
        if (n >= TP_PAGES_MIN_BYTES) {
            assert_int_equal((uintptr_t)p % TP_PAGES_HUGE_BYTES, 0);
        }
#endif
        tpPages_Free(p, n);
    }
    tpPages_Free(NULL, TP_PAGES_MIN_BYTES); /* allowed, like free(NULL) */
}

/* A freed large mapping is handed out again to the next request of the same length (a process that
 * plans again and again reuses its pages); a different length gets another one. Not under the
 * sanitizers (malloc there). */
static void test_pages_reuse(void **state)
{
    (void)state;
#if !defined(__SANITIZE_ADDRESS__)
    const size_t n = TP_PAGES_HUGE_BYTES + 1; /* two huge pages */
    unsigned char *a = tpPages_Alloc(n);
    assert_non_null(a);
    a[0] = 42;
    a[n - 1] = 43;
    tpPages_Free(a, n);
    unsigned char *b = tpPages_Alloc(TP_PAGES_MIN_BYTES); /* one huge page: not the freed two */
    assert_non_null(b);
    assert_ptr_not_equal(b, a);
    unsigned char *c = tpPages_Alloc(n);
    assert_ptr_equal(c, a);
    assert_int_equal(c[0], 42); /* contents unspecified: here, the old ones */
    assert_int_equal(c[n - 1], 43);
    tpPages_Free(b, TP_PAGES_MIN_BYTES);
    tpPages_Free(c, n);
#endif
}

static void test_angle_wraps(void **state)
{
    (void)state;
    const double a[] = {0, 1, -1, TP_PI, -TP_PI, 3 * TP_PI, -3 * TP_PI, 7.5, -7.5, 100.25, -1e-12, 1e-12};
    for (size_t i = 0; i < sizeof a / sizeof a[0]; ++i) {
        double w = tpAngle_Wrap(a[i]), p = tpAngle_WrapPrecise(a[i]);
        assert_true(w > -TP_PI && w <= TP_PI);
        assert_true(p > -TP_PI && p <= TP_PI);
        /* both are a minus a whole number of turns */
        assert_true(fabs(remainder(a[i] - w, 2 * TP_PI)) < 1e-12);
        assert_true(fabs(remainder(a[i] - p, 2 * TP_PI)) < 1e-12);
    }
    assert_true(tpAngle_Wrap(-TP_PI) == TP_PI);
    assert_true(tpAngle_WrapPrecise(-TP_PI) == TP_PI);
    /* the precise wrap keeps a small angle's bits; the other rounds it through a + pi */
    assert_true(tpAngle_WrapPrecise(1e-12) == 1e-12);
    assert_true(tpAngle_Wrap(1e-12) != 1e-12);
}

static void test_quaternions(void **state)
{
    (void)state;
    /* 90 degrees about z: x -> y */
    double h = sqrt(0.5), qz[4] = {h, 0, 0, h}, r[9];
    tpQuat_ToMatrix(qz, r);
    const double want[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1};
    for (int k = 0; k < 9; ++k) {
        assert_true(fabs(r[k] - want[k]) < 1e-15);
    }
    assert_true(fabs(tpQuat_Yaw(qz) - 0.5 * TP_PI) < 1e-15);
    /* a yaw of -2 rad round trips, and the matrix of any unit quaternion is orthonormal */
    double qy[4] = {cos(-1.0), 0, 0, sin(-1.0)};
    assert_true(fabs(tpQuat_Yaw(qy) + 2.0) < 1e-14);
    double q[4] = {0.3, -0.4, 1.2, 0.7};
    tpQuat_Normalize(q);
    assert_true(fabs(tpQuat_Norm(q) - 1.0) < 1e-15);
    tpQuat_ToMatrix(q, r);
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            double d = r[3 * i] * r[3 * j] + r[3 * i + 1] * r[3 * j + 1] + r[3 * i + 2] * r[3 * j + 2];
            assert_true(fabs(d - (i == j ? 1.0 : 0.0)) < 1e-14);
        }
    }
    double zero[4] = {0, 0, 0, 0};
    tpQuat_Normalize(zero); /* left as it is, no NaN */
    assert_true(zero[0] == 0 && zero[1] == 0 && zero[2] == 0 && zero[3] == 0);
}

static void test_clamp(void **state)
{
    (void)state;
    assert_true(tpClamp(-2, -1, 1) == -1);
    assert_true(tpClamp(2, -1, 1) == 1);
    assert_true(tpClamp(0.25, -1, 1) == 0.25);
    assert_true(isnan(tpClamp(NAN, -1, 1)));
}

/* The grid search's open list (decrease-key heap) against the plain definition: random pushes of
 * ids not held, decreases of held ids and pops; a pop returns the smallest (key, id) held (linear
 * scan), and pos[] always points at each held id's entry. */
static void test_nav_open_matches_definition(void **state)
{
    (void)state;
    tpRng rng;
    tpRng_Seed(&rng, 17);
    enum { IDS = 300 };
    double key[IDS];
    bool held[IDS];
    int32_t pos[IDS];
    tpNavOpen o = {0};
    for (int trial = 0; trial < 20; ++trial) {
        o.len = 0;
        memset(held, 0, sizeof held);
        int nheld = 0;
        for (int step = 0; step < 4000; ++step) {
            const uint32_t op = tpRng_U32(&rng) % 3;
            const int32_t id = (int32_t)(tpRng_U32(&rng) % IDS);
            /* few distinct keys: many ties broken by the id */
            const double k = (double)(tpRng_U32(&rng) % (unsigned)(trial + 3)) * 0.5;
            if (op == 0 && !held[id]) {
                assert_true(tpNavOpen_Push(&o, pos, k, id));
                held[id] = true;
                key[id] = k;
                ++nheld;
            } else if (op == 1 && held[id] && k <= key[id]) {
                tpNavOpen_Decrease(&o, pos, k, id);
                key[id] = k;
            } else if (op == 2 && nheld > 0) {
                int32_t best = -1;
                for (int32_t q = 0; q < IDS; ++q) {
                    if (held[q] && (best < 0 || key[q] < key[best] || (key[q] == key[best] && q < best))) {
                        best = q;
                    }
                }
                assert_int_equal(tpNavOpen_Pop(&o, pos), best);
                held[best] = false;
                --nheld;
            }
            assert_int_equal(o.len, (size_t)nheld);
            for (int32_t q = 0; q < IDS; ++q) {
                if (held[q]) {
                    assert_int_equal(o.e[pos[q]].id, q);
                    assert_true(o.e[pos[q]].key == tpHeap_KeyBits(key[q]));
                }
            }
        }
    }
    free(o.e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_array_grows_by_doubling),
        cmocka_unit_test(test_array_refuses_overflow),
        cmocka_unit_test(test_heap_pops_in_key_then_id_order),
        cmocka_unit_test(test_names_find_duplicate),
        cmocka_unit_test(test_nav_open_matches_definition),
        cmocka_unit_test(test_bucket_queue_matches_heap),
        cmocka_unit_test(test_pages_alloc),
        cmocka_unit_test(test_pages_reuse),
        cmocka_unit_test(test_angle_wraps),
        cmocka_unit_test(test_quaternions),
        cmocka_unit_test(test_clamp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
