/*
 * value_equality.h — when two dc_values are the same, for the C tests and the
 * fuzz targets alike (it needs neither cmocka nor libFuzzer).
 */
#ifndef DC_TEST_VALUE_EQUALITY_H
#define DC_TEST_VALUE_EQUALITY_H

#include <stdbool.h>
#include <string.h>

#include "dispatch_core.h"

/* Same type and the same bits in the member that type names: NaNs compare by
 * their bits, and 0.0 differs from -0.0. A tag outside dc_type (a fuzz input
 * can make one) compares by the whole payload. */
static inline bool dc_test_values_equal(dc_value a, dc_value b) {
    if (a.type != b.type) {
        return false;
    }
    switch (a.type) {
    case DC_TYPE_VOID: return true;
    case DC_TYPE_BOOL: return a.b == b.b;
    case DC_TYPE_INT8: return a.i8 == b.i8;
    case DC_TYPE_UINT8: return a.u8 == b.u8;
    case DC_TYPE_INT16: return a.i16 == b.i16;
    case DC_TYPE_UINT16: return a.u16 == b.u16;
    case DC_TYPE_INT32: return a.i32 == b.i32;
    case DC_TYPE_UINT32: return a.u32 == b.u32;
    case DC_TYPE_INT64: return a.i64 == b.i64;
    case DC_TYPE_UINT64: return a.u64 == b.u64;
    case DC_TYPE_FLOAT: return memcmp(&a.f, &b.f, sizeof a.f) == 0;
    case DC_TYPE_DOUBLE: return memcmp(&a.d, &b.d, sizeof a.d) == 0;
    case DC_TYPE_OBJECT:
    case DC_TYPE_POINTER:
    case DC_TYPE_STRING: return a.pointer == b.pointer;
    default: return a.u64 == b.u64;
    }
}

#endif /* DC_TEST_VALUE_EQUALITY_H */
