/*
 * test_variadic.c — variadic signatures (dc_signature_create_variadic): calls
 * of the C library's snprintf, open and fcntl and of variadic functions of
 * our own, compared with direct calls; default promotions (refused types,
 * promoted values); fixed counts, interning and canonical encodings; and
 * closures of variadic signatures (libffi's cls_double_va, cls_uint_va,
 * cls_ulong_va, cls_struct_va1), which take their one call shape.
 */
#include "test_support.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static dc_signature *variadic_signature(const char *encoding, size_t fixed_count) {
    dc_signature *signature = NULL;
    assert_ok(dc_signature_create_variadic(encoding, fixed_count, &signature));
    return signature;
}

/* int snprintf(char *, size_t, const char *, ...) with `rest` after its fixed
 * parameters; size_t's code depends on the ABI. */
static dc_signature *snprintf_signature(const char *rest) {
    char encoding[64];
    snprintf(encoding, sizeof encoding, "i*%s*%s", unsigned_integer_code(sizeof(size_t)), rest);
    return variadic_signature(encoding, 3);
}

/* ---- snprintf ------------------------------------------------------------------------ */

static void snprintf_formats_ints_longs_doubles_strings_and_pointers_as_a_direct_call_does(void **state) {
    (void)state;
    static const char format[] = "%d|%lld|%ld|%.3f|%s|%p|%g %g %g %g %g %g %g %g|%u";
    int marker = 0;
    char expected[256];
    int expected_length = snprintf(expected, sizeof expected, format, -42, -1234567890123LL, 77L, 3.14159,
                                   "text", (void *)&marker, 1.0, 2.5, -3.0, 4.25, 5e10, 6.0, 7.5, 8e-3, 4000000000u);

    /* int snprintf(char *, size_t, const char *, ...): nine doubles, more
     * than the eight vector registers. */
    char rest[32];
    snprintf(rest, sizeof rest, "iq%sd*^vddddddddI", integer_code(sizeof(long)));
    dc_signature *signature = snprintf_signature(rest);
    char buffer[256];
    memset(buffer, 'x', sizeof buffer);
    const dc_value arguments[] = {
        dc_string(buffer),     dc_uint64(sizeof buffer), dc_string((char *)format),
        dc_int32(-42),         dc_int64(-1234567890123LL), dc_int64(77),
        dc_double(3.14159),    dc_string("text"),         dc_pointer(&marker),
        dc_double(1.0),        dc_double(2.5),            dc_double(-3.0),
        dc_double(4.25),       dc_double(5e10),           dc_double(6.0),
        dc_double(7.5),        dc_double(8e-3),           dc_uint32(4000000000u),
    };
    assert_int_equal(ARRAY_COUNT(arguments), dc_signature_parameter_count(signature));
    dc_value result;
    assert_ok(dc_call(signature, library_function("snprintf"), arguments, ARRAY_COUNT(arguments), &result));
    assert_value_equal(dc_int32(expected_length), result, "snprintf's length");
    assert_string_equal(buffer, expected);

    /* The same through an invocation, invoked twice with other numbers. */
    dc_invocation *invocation = NULL;
    assert_ok(dc_invocation_create(signature, library_function("snprintf"), &invocation));
    for (size_t i = 0; i < ARRAY_COUNT(arguments); i++)
        assert_ok(dc_invocation_set_argument(invocation, i, &arguments[i]));
    memset(buffer, 'x', sizeof buffer);
    assert_ok(dc_invocation_invoke(invocation));
    assert_string_equal(buffer, expected);
    assert_ok(dc_invocation_set_argument(invocation, 3, VALUE(dc_int32(7))));
    assert_ok(dc_invocation_set_argument(invocation, 6, VALUE(dc_double(-0.5))));
    assert_ok(dc_invocation_invoke(invocation));
    expected_length = snprintf(expected, sizeof expected, format, 7, -1234567890123LL, 77L, -0.5, "text",
                               (void *)&marker, 1.0, 2.5, -3.0, 4.25, 5e10, 6.0, 7.5, 8e-3, 4000000000u);
    assert_ok(dc_invocation_get_return_value(invocation, &result));
    assert_value_equal(dc_int32(expected_length), result, "snprintf's length after new arguments");
    assert_string_equal(buffer, expected);
    dc_invocation_destroy(invocation);
    dc_signature_release(signature);
}

static void a_variadic_call_with_only_its_fixed_arguments_works(void **state) {
    (void)state;
    dc_signature *signature = snprintf_signature("");
    assert_int_equal(dc_signature_parameter_count(signature), 3);
    char canonical[16];
    snprintf(canonical, sizeof canonical, "i*%s*...", unsigned_integer_code(sizeof(size_t)));
    assert_string_equal(dc_signature_encoding(signature), canonical);
    char buffer[32];
    dc_value result;
    assert_ok(dc_call(signature, library_function("snprintf"),
                      (dc_value[]){dc_string(buffer), dc_uint64(sizeof buffer), dc_string("100%% plain")}, 3, &result));
    assert_value_equal(dc_int32(10), result, "length of \"100% plain\"");
    assert_string_equal(buffer, "100% plain");
    dc_signature_release(signature);
}

static void a_float_or_a_narrow_integer_given_for_a_promoted_parameter_is_promoted(void **state) {
    (void)state;
    dc_signature *signature = snprintf_signature("dii");
    char buffer[64];
    dc_value result;
    const dc_value arguments[] = {dc_string(buffer), dc_uint64(sizeof buffer), dc_string("%.3f %d %d"),
                                  dc_float(1.25f),   dc_int16(-300),          dc_uint8(200)};
    assert_ok(dc_call(signature, library_function("snprintf"), arguments, ARRAY_COUNT(arguments), &result));
    assert_string_equal(buffer, "1.250 -300 200");

    dc_invocation *invocation = NULL;
    assert_ok(dc_invocation_create(signature, library_function("snprintf"), &invocation));
    assert_ok(dc_invocation_set_argument(invocation, 3, VALUE(dc_float(-0.5f))));
    dc_value stored;
    assert_ok(dc_invocation_get_argument(invocation, 3, &stored));
    assert_value_equal(dc_double(-0.5), stored, "a float stored for a double parameter");
    assert_ok(dc_invocation_set_argument(invocation, 4, VALUE(dc_int8(-7))));
    assert_ok(dc_invocation_get_argument(invocation, 4, &stored));
    assert_value_equal(dc_int32(-7), stored, "an int8 stored for an int parameter");
    dc_invocation_destroy(invocation);
    dc_signature_release(signature);
}

/* ---- open and fcntl --------------------------------------------------------------------- */

typedef struct temporary_directory {
    char path[64];
} temporary_directory;

static temporary_directory make_temporary_directory(void) {
    temporary_directory directory;
    snprintf(directory.path, sizeof directory.path, "/tmp/dc_variadic_XXXXXX");
    assert_non_null(mkdtemp(directory.path));
    return directory;
}

static void file_in(const temporary_directory *directory, const char *name, char *path, size_t size) {
    snprintf(path, size, "%s/%s", directory->path, name);
}

static mode_t permissions_of(const char *path) {
    struct stat status;
    assert_int_equal(stat(path, &status), 0);
    return status.st_mode & 07777;
}

static void open_creates_a_file_with_the_mode_passed_variadically(void **state) {
    (void)state;
    temporary_directory directory = make_temporary_directory();
    mode_t saved_umask = umask(0);
    char direct[128], as_int[128], as_unsigned[128];
    file_in(&directory, "direct", direct, sizeof direct);
    file_in(&directory, "as_int", as_int, sizeof as_int);
    file_in(&directory, "as_unsigned", as_unsigned, sizeof as_unsigned);

    int direct_fd = open(direct, O_CREAT | O_EXCL | O_WRONLY, 0640);
    assert_true(direct_fd >= 0);
    close(direct_fd);

    /* int open(const char *, int, ...): the mode, a mode_t, is passed as an
     * unsigned int after promotion; int passes it the same way. */
    const char *const encodings[] = {"i*ii", "i*iI"};
    const char *const paths[] = {as_int, as_unsigned};
    const dc_value modes[] = {dc_int32(0640), dc_uint32(0640)};
    for (size_t i = 0; i < 2; i++) {
        dc_signature *signature = variadic_signature(encodings[i], 2);
        dc_value result;
        assert_ok(dc_call(signature, library_function("open"),
                          (dc_value[]){dc_string((char *)paths[i]), dc_int32(O_CREAT | O_EXCL | O_WRONLY), modes[i]}, 3,
                          &result));
        assert_int_equal(result.type, DC_TYPE_INT32);
        assert_true(result.i32 >= 0);
        assert_int_equal(write(result.i32, "abc", 3), 3);
        close(result.i32);
        assert_int_equal(permissions_of(paths[i]), permissions_of(direct));
        assert_int_equal(permissions_of(paths[i]), 0640);
        dc_signature_release(signature);
    }
    umask(saved_umask);
    unlink(direct);
    unlink(as_int);
    unlink(as_unsigned);
    rmdir(directory.path);
}

static void fcntl_sets_and_gets_descriptor_flags_variadically(void **state) {
    (void)state;
    temporary_directory directory = make_temporary_directory();
    char path[128];
    file_in(&directory, "flags", path, sizeof path);
    int fd = open(path, O_CREAT | O_WRONLY | O_APPEND, 0600);
    assert_true(fd >= 0);

    /* int fcntl(int, int, ...): F_GETFL and F_GETFD take no third argument,
     * F_SETFD an int. */
    dc_signature *getting = variadic_signature("iii", 2);
    dc_signature *setting = variadic_signature("iiii", 2);
    dc_function fcntl_function = library_function("fcntl");
    dc_value result;
    assert_ok(dc_call(getting, fcntl_function, (dc_value[]){dc_int32(fd), dc_int32(F_GETFL)}, 2, &result));
    assert_value_equal(dc_int32(fcntl(fd, F_GETFL)), result, "F_GETFL");
    assert_int_equal(result.i32 & O_ACCMODE, O_WRONLY);
    assert_true(result.i32 & O_APPEND);

    assert_ok(dc_call(getting, fcntl_function, (dc_value[]){dc_int32(fd), dc_int32(F_GETFD)}, 2, &result));
    assert_value_equal(dc_int32(0), result, "F_GETFD before");
    assert_ok(dc_call(setting, fcntl_function, (dc_value[]){dc_int32(fd), dc_int32(F_SETFD), dc_int32(FD_CLOEXEC)}, 3,
                      &result));
    assert_value_equal(dc_int32(0), result, "F_SETFD");
    assert_int_equal(fcntl(fd, F_GETFD), FD_CLOEXEC);
    assert_ok(dc_call(getting, fcntl_function, (dc_value[]){dc_int32(fd), dc_int32(F_GETFD)}, 2, &result));
    assert_value_equal(dc_int32(FD_CLOEXEC), result, "F_GETFD after");

    dc_signature_release(getting);
    dc_signature_release(setting);
    close(fd);
    unlink(path);
    rmdir(directory.path);
}

/* ---- variadic functions of our own ----------------------------------------------------- */

CALLEE static double sum_doubles(int count, ...) {
    va_list list;
    va_start(list, count);
    double sum = 0;
    for (int i = 0; i < count; i++) sum += va_arg(list, double) * (i + 1);
    va_end(list);
    return sum;
}

CALLEE static int64_t sum_integers(int count, ...) {
    va_list list;
    va_start(list, count);
    int64_t sum = 0;
    for (int i = 0; i < count; i++) sum += va_arg(list, int64_t) * (i + 1);
    va_end(list);
    return sum;
}

/* Fixed parameters of types the variadic part may not name. */
CALLEE static double weigh(float scale, int16_t bias, char tag, bool flag, int count, ...) {
    va_list list;
    va_start(list, count);
    double sum = bias + tag + (flag ? 1000 : 0);
    for (int i = 0; i < count; i++) sum += scale * va_arg(list, int);
    va_end(list);
    return sum;
}

typedef struct point {
    double x, y;
} point;
typedef struct label {
    char tag;
    double value;
    char end;
} label;

CALLEE static double sum_structs(int count, ...) {
    va_list list;
    va_start(list, count);
    double sum = 0;
    for (int i = 0; i < count; i++) {
        point p = va_arg(list, point);
        label l = va_arg(list, label);
        sum += p.x + 2 * p.y + 3 * l.tag + 5 * l.value + 7 * l.end;
    }
    va_end(list);
    return sum;
}

static void a_variadic_function_reads_each_argument_past_the_registers(void **state) {
    (void)state;
    dc_signature *doubles = variadic_signature("didddddddddd", 1);
    dc_value arguments[11] = {dc_int32(10)};
    for (int i = 1; i <= 10; i++) arguments[i] = dc_double(i * 0.5 - 2);
    dc_value result;
    assert_ok(dc_call(doubles, DC_FUNCTION(sum_doubles), arguments, 11, &result));
    assert_value_equal(dc_double(sum_doubles(10, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0)), result,
                       "ten doubles");

    dc_signature *integers = variadic_signature("qiqqqqqqqq", 1);
    dc_value numbers[9] = {dc_int32(8)};
    for (int i = 1; i <= 8; i++) numbers[i] = dc_int64((int64_t)i * 1000000007LL * (i % 2 ? -1 : 1));
    dc_invocation *invocation = NULL;
    assert_ok(dc_invocation_create(integers, DC_FUNCTION(sum_integers), &invocation));
    for (size_t i = 0; i < 9; i++) assert_ok(dc_invocation_set_argument(invocation, i, &numbers[i]));
    assert_ok(dc_invocation_invoke(invocation));
    assert_ok(dc_invocation_get_return_value(invocation, &result));
    assert_value_equal(dc_int64(sum_integers(8, -1000000007LL, 2000000014LL, -3000000021LL, 4000000028LL,
                                             -5000000035LL, 6000000042LL, -7000000049LL, 8000000056LL)),
                       result, "eight integers");
    /* Fewer of them: the count says how many the callee reads. */
    assert_ok(dc_invocation_set_argument(invocation, 0, VALUE(dc_int32(2))));
    assert_ok(dc_invocation_invoke(invocation));
    assert_ok(dc_invocation_get_return_value(invocation, &result));
    assert_value_equal(dc_int64(-1000000007LL + 2 * 2000000014LL), result, "the first two integers");
    dc_invocation_destroy(invocation);
    dc_signature_release(doubles);
    dc_signature_release(integers);
}

static void unpromoted_types_are_allowed_among_the_fixed_parameters(void **state) {
    (void)state;
    dc_signature *signature = variadic_signature("dfscBiiii", 5);
    assert_int_equal(dc_signature_fixed_count(signature), 5);
    dc_value result;
    const dc_value arguments[] = {dc_float(0.5f), dc_int16(-20), dc_int8('A'), dc_bool(true),
                                  dc_int32(3),    dc_int32(10),  dc_int32(-4), dc_int32(7)};
    assert_ok(dc_call(signature, DC_FUNCTION(weigh), arguments, ARRAY_COUNT(arguments), &result));
    assert_value_equal(dc_double(weigh(0.5f, -20, 'A', true, 3, 10, -4, 7)), result, "weigh");
    dc_signature_release(signature);
}

static void structs_pass_through_the_variadic_part(void **state) {
    (void)state;
    const point p = {1.5, -2}, q = {0.25, 8};
    const label l = {3, 0.5, -1}, m = {-9, 2.75, 4};
    dc_signature *signature = variadic_signature("di{point=dd}{label=cdc}{point=dd}{label=cdc}", 1);
    dc_value result;
    const dc_value arguments[] = {dc_int32(2), dc_struct((void *)&p), dc_struct((void *)&l), dc_struct((void *)&q),
                                  dc_struct((void *)&m)};
    assert_ok(dc_call(signature, DC_FUNCTION(sum_structs), arguments, ARRAY_COUNT(arguments), &result));
    assert_value_equal(dc_double(sum_structs(2, p, l, q, m)), result, "two points and two labels");
    dc_signature_release(signature);
}

/* ---- encodings, promotions and interning ------------------------------------------------ */

static void unpromoted_variadic_types_are_refused_naming_the_position_and_the_promoted_type(void **state) {
    (void)state;
    const struct {
        const char *encoding;
        size_t fixed_count;
        const char *position, *promoted;
    } cases[] = {
        {"i*Q*f", 3, "position 4", "double"}, {"i*Q*B", 3, "position 4", "int"},
        {"i*Q*c", 3, "position 4", "int"},    {"i*Q*C", 3, "position 4", "int"},
        {"i*Q*s", 3, "position 4", "int"},    {"i*Q*S", 3, "position 4", "int"},
        {"i*Q*if", 3, "position 5", "double"}, {"vi@s", 1, "position 3", "int"},
        {"vi8f12", 1, "position 3", "double"},
    };
    for (size_t i = 0; i < ARRAY_COUNT(cases); i++) {
        dc_signature *signature = (dc_signature *)&signature;
        const char *primed = dc_test_prime_error_message();
        dc_status status = dc_signature_create_variadic(cases[i].encoding, cases[i].fixed_count, &signature);
        const char *message = dc_last_error_message();
        if (status != DC_ERR_BAD_SIGNATURE)
            fail_msg("\"%s\" with %zu fixed gave %s (\"%s\")", cases[i].encoding, cases[i].fixed_count,
                     dc_status_name(status), message);
        if (strcmp(message, primed) == 0 || !dc_test_message_mentions(message, cases[i].position) ||
            !dc_test_message_mentions(message, cases[i].promoted))
            fail_msg("\"%s\": the message \"%s\" does not name %s and %s", cases[i].encoding, message,
                     cases[i].position, cases[i].promoted);
        assert_ptr_equal(signature, (dc_signature *)&signature);
    }
    /* The promoted types themselves, and the same types as fixed parameters. */
    const char *const accepted[] = {"i*Q*d", "i*Q*i", "i*Q*I", "i*Q*q", "i*Q*@", "i*Q*^s"};
    for (size_t i = 0; i < ARRAY_COUNT(accepted); i++) dc_signature_release(variadic_signature(accepted[i], 3));
    dc_signature_release(variadic_signature("vfBcCsSi", 6));
}

static void fixed_count_above_the_parameter_count_is_a_bad_signature(void **state) {
    (void)state;
    dc_signature *signature = (dc_signature *)&signature;
    assert_failure(dc_signature_create_variadic("i*Q*", 4, &signature), DC_ERR_BAD_SIGNATURE, "4", "3");
    assert_failure(dc_signature_create_variadic("v", 1, &signature), DC_ERR_BAD_SIGNATURE, "1", "0");
    assert_failure(dc_signature_create_variadic("i*Q*", SIZE_MAX, &signature), DC_ERR_BAD_SIGNATURE, "fixed");
    assert_ptr_equal(signature, (dc_signature *)&signature);
    /* Every parameter fixed is a variadic call with no variadic argument. */
    signature = variadic_signature("i*Q*", 3);
    assert_true(dc_signature_is_variadic(signature));
    dc_signature_release(signature);
}

static void equal_encodings_and_fixed_counts_share_one_signature(void **state) {
    (void)state;
    dc_signature *first = variadic_signature("i*Q*id", 3);
    dc_signature *again = variadic_signature("i*Q*id", 3);
    dc_signature *spelled_otherwise = variadic_signature("i32r*0Q8r*16i24d28", 3);
    dc_signature *other_count = variadic_signature("i*Q*id", 4);
    dc_signature *all_fixed = variadic_signature("i*Q*id", 5);
    dc_signature *plain = create_signature("i*Q*id");
    assert_ptr_equal(first, again);
    assert_ptr_equal(first, spelled_otherwise);
    assert_ptr_not_equal(first, other_count);
    assert_ptr_not_equal(first, all_fixed);
    assert_ptr_not_equal(first, plain);
    assert_ptr_not_equal(all_fixed, plain);
    assert_string_equal(dc_signature_encoding(first), "i*Q*...id");
    assert_string_equal(dc_signature_encoding(other_count), "i*Q*i...d");
    assert_string_equal(dc_signature_encoding(all_fixed), "i*Q*id...");
    assert_string_equal(dc_signature_encoding(plain), "i*Q*id");
    dc_signature_release(first);
    dc_signature_release(again);
    dc_signature_release(spelled_otherwise);
    dc_signature_release(other_count);
    dc_signature_release(all_fixed);
    dc_signature_release(plain);
}

static void variadic_signatures_report_their_fixed_count_and_take_the_libffi_path(void **state) {
    (void)state;
    dc_signature *variadic = variadic_signature("i*Q*iq", 3);
    assert_true(dc_signature_is_variadic(variadic));
    assert_int_equal(dc_signature_fixed_count(variadic), 3);
    assert_int_equal(dc_signature_parameter_count(variadic), 5);
    dc_type type;
    assert_ok(dc_signature_parameter_type(variadic, 4, &type));
    assert_int_equal(type, DC_TYPE_INT64);
    assert_int_equal(dc_signature_call_path(variadic), DC_CALL_PATH_FFI);
    dc_invocation *invocation = NULL;
    assert_ok(dc_invocation_create(variadic, library_function("snprintf"), &invocation));
    assert_int_equal(dc_invocation_call_path(invocation), DC_CALL_PATH_FFI);
    assert_status(dc_invocation_set_call_path(invocation, DC_CALL_PATH_STUB), DC_ERR_UNSUPPORTED);
    dc_invocation_destroy(invocation);

    dc_signature *plain = create_signature("i*Q*iq");
    assert_false(dc_signature_is_variadic(plain));
    assert_int_equal(dc_signature_fixed_count(plain), 5);
    assert_false(dc_signature_is_variadic(NULL));
    assert_int_equal(dc_signature_fixed_count(NULL), 0);
    dc_signature_release(variadic);
    dc_signature_release(plain);
}

static void variadic_signatures_refuse_what_plain_ones_refuse(void **state) {
    (void)state;
    dc_signature *signature = (dc_signature *)&signature;
    assert_failure(dc_signature_create_variadic(NULL, 0, &signature), DC_ERR_NULL_ARGUMENT, "NULL");
    assert_failure(dc_signature_create_variadic("v", 0, NULL), DC_ERR_NULL_ARGUMENT, "NULL");
    assert_failure(dc_signature_create_variadic("", 0, &signature), DC_ERR_BAD_SIGNATURE, "empty");
    assert_failure(dc_signature_create_variadic("i*Q*x", 3, &signature), DC_ERR_BAD_SIGNATURE, "position 4");
    assert_failure(dc_signature_create_variadic("i*Q*v", 3, &signature), DC_ERR_BAD_SIGNATURE, "void");
    assert_failure(dc_signature_create_variadic("i*Q*(U=ic)", 3, &signature), DC_ERR_UNSUPPORTED, "union");
    assert_failure(dc_signature_create_variadic("i*Q*{S=ii", 3, &signature), DC_ERR_BAD_SIGNATURE, "unterminated");
    assert_ptr_equal(signature, (dc_signature *)&signature);
}

/* ---- closures ---------------------------------------------------------------------------- */

/* libffi's cls_double_va: int (char *format, ...) called with a double;
 * the handler formats it as printf would and returns the length. */
static void format_double(dc_invocation *call, void *user_data) {
    char *buffer = user_data;
    dc_value format, number;
    assert_ok(dc_invocation_get_argument(call, 0, &format));
    assert_ok(dc_invocation_get_argument(call, 1, &number));
    assert_int_equal(number.type, DC_TYPE_DOUBLE);
    int length = snprintf(buffer, 32, format.string, number.d);
    assert_ok(dc_invocation_set_return_value(call, VALUE(dc_int32(length))));
}

/* libffi's cls_uint_va and cls_ulong_va: T (T, ...) with one more T. */
static void add_two(dc_invocation *call, void *user_data) {
    (void)user_data;
    dc_value a, b, sum;
    assert_ok(dc_invocation_get_argument(call, 0, &a));
    assert_ok(dc_invocation_get_argument(call, 1, &b));
    sum = a;
    if (a.type == DC_TYPE_UINT32)
        sum.u32 = a.u32 + b.u32;
    else
        sum.u64 = a.u64 + b.u64;
    assert_ok(dc_invocation_set_return_value(call, &sum));
}

/* libffi's cls_struct_va1: void (int, ...) with structs by value among the
 * variadic arguments. */
typedef struct small_tag {
    unsigned char a, b;
} small_tag;
typedef struct large_tag {
    unsigned a, b, c, d, e;
} large_tag;

static unsigned struct_va_sum;

static void add_struct_fields(dc_invocation *call, void *user_data) {
    (void)user_data;
    dc_value n, small1, large, small2;
    assert_ok(dc_invocation_get_argument(call, 0, &n));
    assert_ok(dc_invocation_get_argument(call, 1, &small1));
    assert_ok(dc_invocation_get_argument(call, 2, &large));
    assert_ok(dc_invocation_get_argument(call, 3, &small2));
    const small_tag *s1 = small1.pointer, *s2 = small2.pointer;
    const large_tag *l = large.pointer;
    struct_va_sum = (unsigned)n.i32 + s1->a + s1->b + l->a + l->b + l->c + l->d + l->e + s2->a + s2->b;
}

static void closures_of_variadic_signatures_take_their_one_call_shape(void **state) {
    (void)state;
    char formatted[32] = "";
    dc_signature *signature = variadic_signature("i*d", 1);
    dc_closure *closure = NULL;
    assert_ok(dc_closure_create(signature, format_double, formatted, NULL, &closure));
    int (*print_double)(const char *, ...) = (int (*)(const char *, ...))dc_closure_function(closure);
    assert_int_equal(print_double("%.1f", 7.0), 3);
    assert_string_equal(formatted, "7.0");
    dc_closure_destroy(closure);
    dc_signature_release(signature);

    signature = variadic_signature("III", 1);
    assert_ok(dc_closure_create(signature, add_two, NULL, NULL, &closure));
    unsigned (*add_uint)(unsigned, ...) = (unsigned (*)(unsigned, ...))dc_closure_function(closure);
    assert_int_equal(add_uint(67u, 4000000000u), 67u + 4000000000u);
    dc_closure_destroy(closure);
    dc_signature_release(signature);

    signature = variadic_signature("QQQ", 1);
    assert_ok(dc_closure_create(signature, add_two, NULL, NULL, &closure));
    uint64_t (*add_ulong)(uint64_t, ...) = (uint64_t (*)(uint64_t, ...))dc_closure_function(closure);
    assert_true(add_ulong((uint64_t)1 << 40, (uint64_t)5) == ((uint64_t)1 << 40) + 5);
    dc_closure_destroy(closure);
    dc_signature_release(signature);

    signature = variadic_signature("vi{small_tag=CC}{large_tag=IIIII}{small_tag=CC}", 1);
    assert_ok(dc_closure_create(signature, add_struct_fields, NULL, NULL, &closure));
    void (*sum)(int, ...) = (void (*)(int, ...))dc_closure_function(closure);
    small_tag s1 = {5, 6}, s2 = {7, 8};
    large_tag l = {10, 20, 30, 40, 50};
    struct_va_sum = 0;
    sum(4, s1, l, s2);
    assert_int_equal(struct_va_sum, 4 + 5 + 6 + 10 + 20 + 30 + 40 + 50 + 7 + 8);
    dc_closure_destroy(closure);
    dc_signature_release(signature);

    /* Re-sent to a real variadic function: snprintf(buffer, size, format, double). */
    char encoding[16];
    snprintf(encoding, sizeof encoding, "i*%s*d", unsigned_integer_code(sizeof(size_t)));
    signature = variadic_signature(encoding, 3);
    dc_function real_snprintf = library_function("snprintf");
    void *target;
    memcpy(&target, &real_snprintf, sizeof target);
    assert_ok(dc_closure_create(signature, resend_to_function, target, NULL, &closure));
    int (*print)(char *, size_t, const char *, ...) =
        (int (*)(char *, size_t, const char *, ...))dc_closure_function(closure);
    char buffer[16];
    assert_int_equal(print(buffer, sizeof buffer, "%.2f", 2.5), 4);
    assert_string_equal(buffer, "2.50");
    dc_closure_destroy(closure);
    dc_signature_release(signature);
}

static int table_formatted;

static int record_format(const char *format, double number) {
    char buffer[32];
    table_formatted = snprintf(buffer, sizeof buffer, format, number);
    return table_formatted * 10;
}

static void a_table_closure_of_a_variadic_signature_executes_with_its_arguments(void **state) {
    (void)state;
    dc_table *table = create_table("variadic");
    dc_signature *plain = create_signature("i*d");
    assert_ok(dc_table_add(table, "formatted", plain, DC_FUNCTION(record_format), NULL, NULL, NULL));
    dc_signature *signature = variadic_signature("i*d", 1);
    dc_closure *closure = NULL;
    assert_ok(dc_table_closure_create(table, "formatted", signature, &closure));
    int (*print_double)(const char *, ...) = (int (*)(const char *, ...))dc_closure_function(closure);
    assert_int_equal(print_double("%.3f", 1.5), 50);
    assert_int_equal(table_formatted, 5);
    dc_closure_destroy(closure);
    dc_signature_release(signature);
    dc_signature_release(plain);
    dc_table_destroy(table);
}

/* ---- a variadic C function as a table handler ------------------------------------------------ */

static double handled_sum;
CALLEE static void record_sum(int count, ...) {
    va_list list;
    va_start(list, count);
    handled_sum = 0;
    for (int i = 0; i < count; i++) handled_sum += va_arg(list, double) * (i + 1);
    va_end(list);
}

static void a_variadic_c_function_is_called_by_an_execute_with_its_signature(void **state) {
    (void)state;
    dc_table *table = create_table("variadic handler");
    dc_signature *signature = variadic_signature("vidddddddddd", 1);
    assert_ok(dc_table_add(table, "sum", signature, DC_FUNCTION(record_sum), NULL, NULL, NULL));
    dc_value arguments[11] = {dc_int32(10)};
    for (int i = 1; i <= 10; i++) arguments[i] = dc_float((float)i * 0.25f); /* floats promoted to double */
    handled_sum = -1;
    dc_result result;
    assert_ok(dc_table_execute(table, "sum", arguments, 11, &result));
    assert_int_equal(result.handled, 1);
    double expected = 0;
    for (int i = 1; i <= 10; i++) expected += i * 0.25 * i;
    assert_true(handled_sum == expected);
    dc_table_destroy(table);
    dc_signature_release(signature);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(snprintf_formats_ints_longs_doubles_strings_and_pointers_as_a_direct_call_does),
        cmocka_unit_test(a_variadic_call_with_only_its_fixed_arguments_works),
        cmocka_unit_test(a_float_or_a_narrow_integer_given_for_a_promoted_parameter_is_promoted),
        cmocka_unit_test(open_creates_a_file_with_the_mode_passed_variadically),
        cmocka_unit_test(fcntl_sets_and_gets_descriptor_flags_variadically),
        cmocka_unit_test(a_variadic_function_reads_each_argument_past_the_registers),
        cmocka_unit_test(unpromoted_types_are_allowed_among_the_fixed_parameters),
        cmocka_unit_test(structs_pass_through_the_variadic_part),
        cmocka_unit_test(unpromoted_variadic_types_are_refused_naming_the_position_and_the_promoted_type),
        cmocka_unit_test(fixed_count_above_the_parameter_count_is_a_bad_signature),
        cmocka_unit_test(equal_encodings_and_fixed_counts_share_one_signature),
        cmocka_unit_test(variadic_signatures_report_their_fixed_count_and_take_the_libffi_path),
        cmocka_unit_test(variadic_signatures_refuse_what_plain_ones_refuse),
        cmocka_unit_test(closures_of_variadic_signatures_take_their_one_call_shape),
        cmocka_unit_test(a_table_closure_of_a_variadic_signature_executes_with_its_arguments),
        cmocka_unit_test(a_variadic_c_function_is_called_by_an_execute_with_its_signature),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
