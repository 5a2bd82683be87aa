/*
 * Structs by value for the Swift tests of StructValue and Signature.Layout,
 * declared in C so that Swift sees them laid out as C lays them out. Each
 * comment gives the encoding that describes the struct.
 */
#ifndef STRUCT_SUPPORT_H
#define STRUCT_SUPPORT_H

#include <stdint.h>

/* {test_padded=cd}: a char, then a double at offset 8; 16 bytes. */
typedef struct test_padded {
    char tag;
    double value;
} test_padded;

/* {test_inner=sd}: a short, then a double at offset 8; 16 bytes. */
typedef struct test_inner {
    int16_t small;
    double value;
} test_inner;

/* {test_outer=c{test_inner=sd}[3i]}: a nested struct and an array; 40 bytes,
 * returned in memory on x86-64 and AArch64. */
typedef struct test_outer {
    char tag;
    test_inner nested;
    int32_t counts[3];
} test_outer;

/* {test_floats=ff}: two floats; 8 bytes, passed in one vector register on
 * x86-64. */
typedef struct test_floats {
    float first;
    float second;
} test_floats;

/* {test_big=[40q]}: 320 bytes, more than a table execute keeps of a
 * struct a handler returns. */
typedef struct test_big {
    int64_t values[40];
} test_big;

#endif
