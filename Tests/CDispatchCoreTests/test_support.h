/*
 * test_support.h — what the C tests share: cmocka, status and error-message
 * assertions, and value comparison that names what differed.
 *
 * The tests see the library as a client does: dispatch_core.h only.
 */
#ifndef DC_TEST_SUPPORT_H
#define DC_TEST_SUPPORT_H

#include <dlfcn.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "dispatch_core.h"
#include "value_equality.h"

/* Callees are only ever called through pointers by the library; keeping them out
 * of line makes the direct calls that compute expected values real calls too. */
#define CALLEE __attribute__((noinline))

/* The stub path exists on the ABIs the stubs cover; everywhere else every call
 * takes libffi, and tests that expect the stub path expect libffi instead. */
#if defined(__x86_64__) || defined(__aarch64__)
#define DC_TEST_STUB_PATH DC_CALL_PATH_STUB
#else
#define DC_TEST_STUB_PATH DC_CALL_PATH_FFI
#endif

#define ARRAY_COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* ---- statuses ------------------------------------------------------------- */

static inline void dc_test_assert_status(dc_status actual, dc_status expected,
                                         const char *expression, const char *file,
                                         int line) {
    if (actual != expected) {
        print_error("%s gave %s, expected %s (last error message: \"%s\")\n", expression,
                    dc_status_name(actual), dc_status_name(expected),
                    dc_last_error_message());
        _fail(file, line);
    }
}

#define assert_status(expression, expected)                                              \
    dc_test_assert_status((expression), (expected), #expression, __FILE__, __LINE__)

#define assert_ok(expression) assert_status(expression, DC_OK)

/* ---- failures and their messages ------------------------------------------ */

/*
 * Leaves a known message behind, so that a failure checked afterwards is seen to
 * have written a message of its own rather than left an older one in place.
 */
static inline const char *dc_test_prime_error_message(void) {
    static _Thread_local char primed[512];
    dc_value huge = dc_int64(-987654321);
    dc_value narrowed;
    dc_value_convert(&huge, DC_TYPE_UINT8, &narrowed);
    snprintf(primed, sizeof primed, "%s", dc_last_error_message());
    return primed;
}

/* True when `message` contains `needle`, ignoring case; a needle "a|b" is found
 * when either alternative is (0-based or 1-based positions, say). */
static inline bool dc_test_message_mentions(const char *message, const char *needle) {
    char alternatives[256];
    snprintf(alternatives, sizeof alternatives, "%s", needle);
    char *saved = NULL;
    for (char *alternative = strtok_r(alternatives, "|", &saved); alternative != NULL;
         alternative = strtok_r(NULL, "|", &saved)) {
        if (strcasestr(message, alternative) != NULL) {
            return true;
        }
    }
    return false;
}

static inline void dc_test_assert_failure(const char *primed, dc_status actual,
                                          dc_status expected, const char *const *needles,
                                          const char *expression, const char *file,
                                          int line) {
    dc_test_assert_status(actual, expected, expression, file, line);
    const char *message = dc_last_error_message();
    if (message == NULL || message[0] == '\0') {
        print_error("%s failed with %s but left no error message\n", expression,
                    dc_status_name(actual));
        _fail(file, line);
    }
    if (strcmp(message, primed) == 0) {
        print_error("%s failed with %s but did not set its own error message "
                    "(still \"%s\")\n",
                    expression, dc_status_name(actual), message);
        _fail(file, line);
    }
    for (const char *const *needle = needles; *needle != NULL; needle++) {
        if (!dc_test_message_mentions(message, *needle)) {
            print_error("%s: error message \"%s\" does not mention \"%s\"\n", expression,
                        message, *needle);
            _fail(file, line);
        }
    }
}

/*
 * assert_failure(call, DC_ERR_TYPE, "2", "int64") checks the status, that the
 * call set a non-empty message of its own, and that the message mentions every
 * needle (case-insensitive; "a|b" accepts either).
 */
#define assert_failure(expression, expected, ...)                                        \
    do {                                                                                 \
        const char *dc_test_primed = dc_test_prime_error_message();                      \
        dc_status dc_test_actual = (expression);                                         \
        dc_test_assert_failure(dc_test_primed, dc_test_actual, (expected),               \
                               (const char *const[]){__VA_ARGS__, NULL}, #expression,    \
                               __FILE__, __LINE__);                                      \
    } while (0)

/* ---- values ---------------------------------------------------------------- */

/* Formats a value as "int8 -128", "double 0x3fd5555555555555 (0.333333)", ... */
static inline const char *dc_test_describe(dc_value value, char *buffer, size_t size) {
    const char *name = dc_type_name(value.type);
    switch (value.type) {
    case DC_TYPE_VOID: snprintf(buffer, size, "%s", name); break;
    case DC_TYPE_BOOL: snprintf(buffer, size, "%s %s", name, value.b ? "true" : "false"); break;
    case DC_TYPE_INT8: snprintf(buffer, size, "%s %d", name, value.i8); break;
    case DC_TYPE_UINT8: snprintf(buffer, size, "%s %u", name, value.u8); break;
    case DC_TYPE_INT16: snprintf(buffer, size, "%s %d", name, value.i16); break;
    case DC_TYPE_UINT16: snprintf(buffer, size, "%s %u", name, value.u16); break;
    case DC_TYPE_INT32: snprintf(buffer, size, "%s %d", name, value.i32); break;
    case DC_TYPE_UINT32: snprintf(buffer, size, "%s %u", name, value.u32); break;
    case DC_TYPE_INT64: snprintf(buffer, size, "%s %lld", name, (long long)value.i64); break;
    case DC_TYPE_UINT64:
        snprintf(buffer, size, "%s %llu", name, (unsigned long long)value.u64);
        break;
    case DC_TYPE_FLOAT: {
        uint32_t bits;
        memcpy(&bits, &value.f, sizeof bits);
        snprintf(buffer, size, "%s 0x%08x (%g)", name, bits, (double)value.f);
        break;
    }
    case DC_TYPE_DOUBLE: {
        uint64_t bits;
        memcpy(&bits, &value.d, sizeof bits);
        snprintf(buffer, size, "%s 0x%016llx (%g)", name, (unsigned long long)bits, value.d);
        break;
    }
    case DC_TYPE_OBJECT:
    case DC_TYPE_POINTER:
    case DC_TYPE_STRING: snprintf(buffer, size, "%s %p", name, value.pointer); break;
    default: snprintf(buffer, size, "type %d", (int)value.type); break;
    }
    return buffer;
}

static inline void dc_test_assert_values_equal(dc_value expected, dc_value actual,
                                               const char *context, const char *file,
                                               int line) {
    if (!dc_test_values_equal(expected, actual)) {
        char expected_text[96], actual_text[96];
        print_error("%s: expected %s, got %s\n", context,
                    dc_test_describe(expected, expected_text, sizeof expected_text),
                    dc_test_describe(actual, actual_text, sizeof actual_text));
        _fail(file, line);
    }
}

#define assert_value_equal(expected, actual, context)                                    \
    dc_test_assert_values_equal((expected), (actual), (context), __FILE__, __LINE__)

/* The address of a temporary dc_value: set_argument(inv, 0, VALUE(dc_int64(2))). */
#define VALUE(expression) (&(dc_value[1]){expression}[0])

/* The number of values in a dc_value initializer list. */
#define DC_TEST_COUNT_VALUES(...) (sizeof((dc_value[]){__VA_ARGS__}) / sizeof(dc_value))

/* A signature the test owns (released with dc_signature_release), asserting
 * that it was made. */
static inline dc_signature *create_signature(const char *encoding) {
    dc_signature *signature = NULL;
    assert_ok(dc_signature_create(encoding, &signature));
    return signature;
}

/* ---- one call on both paths ------------------------------------------------- */

/* Two invocations of one signature and function: one on the signature's own
 * path (a typed stub where one covers it), one forced onto libffi. */
typedef struct two_paths {
    dc_invocation *own;
    dc_invocation *libffi;
} two_paths;

static inline two_paths two_paths_of(dc_signature *signature, dc_function function) {
    two_paths paths;
    assert_ok(dc_invocation_create(signature, function, &paths.own));
    assert_ok(dc_invocation_create(signature, function, &paths.libffi));
    assert_ok(dc_invocation_set_call_path(paths.libffi, DC_CALL_PATH_FFI));
    return paths;
}

/* The signature of `encoding` (a variadic one with `fixed_count` fixed
 * parameters when fixed_count >= 0), asserting that it was made. */
static inline dc_signature *create_signature_variadic_or_not(const char *encoding, int fixed_count) {
    dc_signature *signature = NULL;
    if (fixed_count >= 0) {
        assert_ok(dc_signature_create_variadic(encoding, (size_t)fixed_count, &signature));
    } else {
        assert_ok(dc_signature_create(encoding, &signature));
    }
    return signature;
}

static inline two_paths two_paths_create(const char *encoding, int fixed_count, dc_function function) {
    dc_signature *signature = create_signature_variadic_or_not(encoding, fixed_count);
    two_paths paths = two_paths_of(signature, function);
    dc_signature_release(signature);
    return paths;
}

static inline void two_paths_destroy(two_paths *paths) {
    dc_invocation_destroy(paths->own);
    dc_invocation_destroy(paths->libffi);
}

/* Asserts that two returns are the same: a struct's bytes, a long double's or
 * a complex value's value, any other value's bits. */
static inline void assert_same_return(dc_value expected, dc_value actual, const char *context) {
    if (expected.type != actual.type) {
        assert_value_equal(expected, actual, context);
    } else if (expected.type == DC_TYPE_STRUCT) {
        assert_int_equal(dc_struct_size(&expected), dc_struct_size(&actual));
        assert_memory_equal(expected.pointer, actual.pointer, dc_struct_size(&expected));
    } else if (expected.type == DC_TYPE_LONG_DOUBLE) {
        assert_true(*(const long double *)expected.pointer == *(const long double *)actual.pointer);
    } else if (expected.type == DC_TYPE_COMPLEX_FLOAT) {
        assert_true(*(const float _Complex *)expected.pointer == *(const float _Complex *)actual.pointer);
    } else if (expected.type == DC_TYPE_COMPLEX_DOUBLE) {
        assert_true(*(const double _Complex *)expected.pointer == *(const double _Complex *)actual.pointer);
    } else if (expected.type == DC_TYPE_COMPLEX_LONG_DOUBLE) {
        assert_true(*(const long double _Complex *)expected.pointer ==
                    *(const long double _Complex *)actual.pointer);
    } else {
        assert_value_equal(expected, actual, context);
    }
}

/* Invokes both with `arguments`; their returns must be the same. Returns the
 * own path's, which for a value by address points into that invocation until
 * its next invoke. */
static inline dc_value two_paths_invoke(two_paths *paths, const dc_value *arguments, size_t count) {
    dc_invocation *both[] = {paths->own, paths->libffi};
    dc_value results[2];
    for (size_t k = 0; k < 2; k++) {
        for (size_t i = 0; i < count; i++) assert_ok(dc_invocation_set_argument(both[k], i, &arguments[i]));
        assert_ok(dc_invocation_invoke(both[k]));
        assert_ok(dc_invocation_get_return_value(both[k], &results[k]));
    }
    assert_same_return(results[0], results[1], "the libffi path against the signature's own path");
    return results[0];
}

/* invoke_both(&paths, dc_int32(1), dc_float(2)): two_paths_invoke with the
 * arguments listed. */
#define invoke_both(paths, ...)                                                                                  \
    two_paths_invoke((paths), (dc_value[]){__VA_ARGS__}, DC_TEST_COUNT_VALUES(__VA_ARGS__))

/* ---- calls from an encoding ---------------------------------------------------- */

/* Calls `function` with dc_call() through the signature of `encoding` (a
 * variadic one with `fixed_count` fixed parameters when fixed_count >= 0),
 * asserting that the signature is made and the call succeeds; *result as
 * dc_call() takes it (its pointer set for a struct or by-address return, or
 * NULL to ignore a scalar one). Where a typed stub made the call, the same
 * call is made again on both paths, and each must return what dc_call did:
 * every case reaches libffi on every ABI. */
static inline void call_encoded(const char *encoding, int fixed_count, dc_function function,
                                const dc_value *arguments, size_t count, dc_value *result) {
    dc_signature *signature = create_signature_variadic_or_not(encoding, fixed_count);
    assert_ok(dc_call(signature, function, arguments, count, result));
    if (dc_signature_call_path(signature) == DC_CALL_PATH_STUB) {
        two_paths paths = two_paths_of(signature, function);
        dc_value again = two_paths_invoke(&paths, arguments, count);
        if (result != NULL) assert_same_return(*result, again, encoding);
        two_paths_destroy(&paths);
    }
    dc_signature_release(signature);
}

/* call_with("iif", function, &result, dc_int32(1), dc_float(2)): call_encoded
 * of a plain signature with the arguments listed. */
#define call_with(encoding, function, result, ...)                                       \
    call_encoded((encoding), -1, DC_FUNCTION(function), (dc_value[]){__VA_ARGS__},      \
                 DC_TEST_COUNT_VALUES(__VA_ARGS__), (result))

/* ---- right or refused: libffi's known defects (README, "Platforms") ------- */

/* The words a refusal's message names for each defect. */
#define X86_64_DEFECT "libffi", "x86-64", "defect", "3.4.7", "refused"
#define AARCH64_DEFECT "libffi", "AArch64", "defect", "3.7.1", "refused"

/* Calls `function` with `encoding` (variadic when fixed_count >= 0), or
 * checks that the signature is refused with DC_ERR_UNSUPPORTED and a message
 * naming the defect (the needles after `result`). Returns whether the call
 * was made. */
#define call_or_refused(encoding, fixed_count, function, arguments, result, ...)                              \
    call_or_refused_at(__FILE__, __LINE__, (encoding), (fixed_count), DC_FUNCTION(function), (arguments),      \
                       ARRAY_COUNT(arguments), (result), (const char *const[]){__VA_ARGS__, NULL})

static inline bool call_or_refused_at(const char *file, int line, const char *encoding, int fixed_count,
                                      dc_function function, const dc_value *arguments, size_t count,
                                      dc_value *result, const char *const *defect) {
    const char *primed = dc_test_prime_error_message();
    dc_signature *signature = NULL;
    dc_status status = fixed_count >= 0
                           ? dc_signature_create_variadic(encoding, (size_t)fixed_count, &signature)
                           : dc_signature_create(encoding, &signature);
    if (status == DC_ERR_UNSUPPORTED) {
        dc_test_assert_failure(primed, status, DC_ERR_UNSUPPORTED, defect, encoding, file, line);
        if (signature != NULL) fail_msg("%s: refused, yet a signature was handed out", encoding);
        return false;
    }
    dc_test_assert_status(status, DC_OK, encoding, file, line);
    dc_test_assert_status(dc_call(signature, function, arguments, count, result), DC_OK, encoding, file, line);
    dc_signature_release(signature);
    return true;
}

/* A table without object callbacks, asserting that it was made. */
static inline dc_table *create_table(const char *name) {
    dc_table *table = NULL;
    assert_ok(dc_table_create(name, NULL, &table));
    return table;
}

/* A closure of `encoding` whose calls go to `handler`, asserting that it was
 * made; the closure keeps its own reference to the signature. */
static inline dc_closure *create_closure(const char *encoding, dc_forward_handler handler, void *user_data) {
    dc_signature *signature = create_signature(encoding);
    dc_closure *closure = NULL;
    assert_ok(dc_closure_create(signature, handler, user_data, NULL, &closure));
    dc_signature_release(signature);
    return closure;
}

/* A forward handler that re-sends each call to the function user_data
 * holds (a dc_function stored in a void *), as -invokeWithTarget: does. */
static inline void resend_to_function(dc_invocation *call, void *user_data) {
    dc_function function;
    memcpy(&function, &user_data, sizeof function);
    assert_ok(dc_invocation_set_function(call, function));
    assert_ok(dc_invocation_invoke(call));
}

/* ---- real functions ---------------------------------------------------------- */

/* A function of the C library found by name, as a plugin host finds one;
 * failing the test when there is none. (RTLD_DEFAULT needs _GNU_SOURCE,
 * which the tests are built with.) */
static inline dc_function library_function(const char *name) {
    void *address = dlsym(RTLD_DEFAULT, name);
    if (address == NULL) {
        const char *why = dlerror();
        fail_msg("dlsym found no %s: %s", name, why != NULL ? why : "no such symbol");
    }
    dc_function function;
    memcpy(&function, &address, sizeof function);
    return function;
}

/* C's long and unsigned long as codes to paste into an encoding: q and Q
 * where long is 64-bit, i and I where it is 32-bit. */
#if LONG_MAX > 0x7fffffffL
#define LONG_CODE "q"
#define ULONG_CODE "Q"
#else
#define LONG_CODE "i"
#define ULONG_CODE "I"
#endif

/* The encoding of a C integer type of `size` bytes ("l" is 32-bit, as in
 * Objective-C, so long is q on LP64). */
static inline const char *integer_code(size_t size) { return size == 8 ? "q" : "i"; }
/* The same, unsigned: size_t's is Q on a 64-bit ABI and I on a 32-bit one. */
static inline const char *unsigned_integer_code(size_t size) { return size == 8 ? "Q" : "I"; }

#endif /* DC_TEST_SUPPORT_H */
