/* The tests of the validate functions (the house audit's invariants): a validate function has the
 * shape `bool valid(const T *obj, char *why, size_t cap)` (false with the first broken rule in
 * why); each of its rules is broken once on purpose on a valid object, the rule's message is
 * expected, and the object is put back and must be valid again -- so a rule that can never fail
 * shows here. Include after <cmocka.h> and <string.h>. */
#ifndef TP_TESTS_BREAK_RULE_H
#define TP_TESTS_BREAK_RULE_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/// Fails the test unless valid(obj) holds ("a ... as built: <the rule>").
#define EXPECT_VALID(valid, obj)                                                                                       \
    do {                                                                                                               \
        char whyv_[320] = "";                                                                                          \
        if (!valid((obj), whyv_, sizeof whyv_)) {                                                                      \
            fail_msg("expected valid, broken: %s", whyv_);                                                             \
        }                                                                                                              \
    } while (0)

/// Fails the test unless valid(obj) is false with a message containing want.
#define EXPECT_BROKEN(valid, obj, want)                                                                                \
    do {                                                                                                               \
        char whyb_[320] = "";                                                                                          \
        const bool okb_ = valid((obj), whyb_, sizeof whyb_);                                                           \
        if (okb_ || !strstr(whyb_, (want))) {                                                                          \
            fail_msg("expected a broken rule with '%s', got %s: '%s'", (want), okb_ ? "valid" : "broken", whyb_);      \
        }                                                                                                              \
    } while (0)

/// Sets `field` (an lvalue inside obj) to `bad`, expects the rule's message, puts the field back and
/// expects obj valid again.
#define BREAK_RULE(valid, obj, field, bad, want)                                                                       \
    do {                                                                                                               \
        __typeof__(field) keepb_ = (field);                                                                            \
        (field) = (bad);                                                                                               \
        EXPECT_BROKEN(valid, obj, want);                                                                               \
        (field) = keepb_;                                                                                              \
        EXPECT_VALID(valid, obj);                                                                                      \
    } while (0)

/// Fills the char array `arr` (inside obj) without a NUL, expects the rule's message, puts it back.
#define BREAK_TERMINATION(valid, obj, arr, want)                                                                       \
    do {                                                                                                               \
        char keept_[sizeof(arr)];                                                                                      \
        memcpy(keept_, (arr), sizeof keept_);                                                                          \
        memset((arr), 'x', sizeof keept_);                                                                             \
        EXPECT_BROKEN(valid, obj, want);                                                                               \
        memcpy((arr), keept_, sizeof keept_);                                                                          \
        EXPECT_VALID(valid, obj);                                                                                      \
    } while (0)

#endif
