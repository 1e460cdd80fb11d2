/* tplan service: the checks every request body and every JSON answer pass beyond "parses as JSON"
 * (reqcheck.c): for the service (service_internal.h includes this) and for its unit test
 * (tests/service/test_reqcheck.c includes only this header of the service's). */
#ifndef TP_SERVICE_REQCHECK_TESTING_H
#define TP_SERVICE_REQCHECK_TESTING_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

/// Offset of the first byte of s[0..n) that starts no valid UTF-8 character; (size_t)-1 if none.
size_t svcUtf8Invalid(const char *s, size_t n);
/// Replaces, in place, every byte of s (NUL-terminated) that is not part of valid UTF-8 by '?'.
void svcUtf8Repair(char *s);
/// A request body (len bytes) and its parse: false with a message (and the member at fault in
/// field, "" if none) when it is not UTF-8, holds a \u0000 in a string or gives a member twice.
bool svcBodyCheck(const char *body, size_t len, const cJSON *req, char *msg, size_t msgcap, char *field,
                  size_t fieldcap);

#endif
