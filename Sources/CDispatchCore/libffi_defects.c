/*
 * libffi_defects.c — libffi releases that pass some structs by value
 * wrongly, and the signatures whose calls they would get wrong, which are
 * refused when their signature is made.
 *
 * Whether the running libffi has a defect is found by a probe: at the first
 * signature of an affected shape, one ffi_call of a small function of that
 * shape, whose answer says whether its arguments arrived. A libffi that
 * passes the probe is trusted with every signature; one that fails it never
 * makes a call the defect touches. Which signatures a defect touches is a
 * predicate over the prepared cif, written from the ABI and from what the
 * defective ffi_call does, never narrower than the defect:
 *
 *   x86-64 System V, libffi before 3.4.7: ffi_call copies a struct's first
 *   eightbyte, when it is of the integer class, with the size of the whole
 *   struct, so its second eightbyte lands in the register slot after the
 *   integer one. For a struct of an integer then a floating-point eightbyte
 *   given the sixth (last) integer register, that slot is the first
 *   floating-point register's, and whatever argument was there is lost.
 *
 *   AArch64, libffi before 3.7.1: a struct of more than 16 bytes that is not
 *   of one floating-point type passes by reference to a copy ffi_call makes
 *   at the top of the argument area; once the eight integer registers are
 *   taken, those pointers go on the stack at the bottom of the same area,
 *   which libffi sized for the copies and the arguments but not for the
 *   pointers. When the two meet, a copy and a pointer overwrite each other:
 *   nine 32-byte structs arrive wrong, sixteen crash.
 *
 * The probes and predicates exist where the defect can; elsewhere nothing is
 * refused.
 */
#include "internal.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__) && !defined(_WIN32)
#define KNOWS_X86_64_DEFECT 1
#endif
#if defined(__aarch64__) && !defined(_WIN32)
#define KNOWS_AARCH64_DEFECT 1
#endif

#if defined(KNOWS_X86_64_DEFECT) || defined(KNOWS_AARCH64_DEFECT)

/* libffi names its version from 3.5.0 on; an older one answers nothing. */
#ifndef FFI_VERSION_STRING
const char *ffi_get_version(void);
#endif
#pragma weak ffi_get_version

static const char *libffi_version(void) {
    const char *version = ffi_get_version != NULL ? ffi_get_version() : NULL;
    return version != NULL ? version : "which does not name its version";
}

static size_t align_up(size_t offset, size_t alignment) {
    return alignment > 1 ? (offset + alignment - 1) / alignment * alignment : offset;
}

#endif

#ifdef KNOWS_X86_64_DEFECT

/* ---- x86-64: a struct of an integer and a floating-point eightbyte --------- */

enum { MAX_GPR = 6, MAX_SSE = 8 };

/* An eightbyte's class, merged from the fields in it: the larger wins. */
typedef enum { CLASS_NONE, CLASS_SSE, CLASS_INTEGER, CLASS_MEMORY } eightbyte_class;

static void merge(eightbyte_class *into, eightbyte_class class) {
    if (class > *into) *into = class;
}

/* Classifies the fields of `type` at `offset` into `classes` (two eightbytes). */
static void classify(const ffi_type *type, size_t offset, eightbyte_class classes[2]) {
    size_t first = offset / 8, last = (offset + (type->size > 0 ? type->size - 1 : 0)) / 8;
    if (last > 1) {
        merge(&classes[0], CLASS_MEMORY);
        return;
    }
    switch (type->type) {
    case FFI_TYPE_STRUCT: {
        size_t at = 0;
        for (ffi_type **element = type->elements; element != NULL && *element != NULL; element++) {
            at = align_up(at, (*element)->alignment);
            classify(*element, offset + at, classes);
            at += (*element)->size;
        }
        return;
    }
    case FFI_TYPE_FLOAT:
    case FFI_TYPE_DOUBLE:
        for (size_t i = first; i <= last; i++) merge(&classes[i], CLASS_SSE);
        return;
#ifdef FFI_TARGET_HAS_COMPLEX_TYPE
    case FFI_TYPE_COMPLEX:
        if (type->elements != NULL && type->elements[0] != NULL && type->elements[0]->type != FFI_TYPE_LONGDOUBLE) {
            for (size_t i = first; i <= last; i++) merge(&classes[i], CLASS_SSE);
            return;
        }
        merge(&classes[0], CLASS_MEMORY);
        return;
#endif
#if FFI_TYPE_LONGDOUBLE != FFI_TYPE_DOUBLE
    case FFI_TYPE_LONGDOUBLE:
        merge(&classes[0], CLASS_MEMORY);
        return;
#endif
    default:
        for (size_t i = first; i <= last; i++) merge(&classes[i], CLASS_INTEGER);
        return;
    }
}

/* The eightbytes of an argument of `type`; false when it goes in memory. */
static bool eightbytes(const ffi_type *type, eightbyte_class classes[2]) {
    classes[0] = classes[1] = CLASS_NONE;
    if (type->size > 16) return false;
    classify(type, 0, classes);
    return classes[0] != CLASS_MEMORY && classes[1] != CLASS_MEMORY;
}

/* The parameter the defect touches (a struct of an integer then a
 * floating-point eightbyte given the last integer register), or -1. Whether
 * an earlier argument is in the floating-point register it overwrites is
 * not asked: such a call is refused either way. */
static long x86_64_touched_parameter(const ffi_cif *cif) {
    unsigned gpr = 0, sse = 0;
    eightbyte_class classes[2];
    if (cif->rtype->type == FFI_TYPE_STRUCT && !eightbytes(cif->rtype, classes)) gpr++; /* the hidden pointer */
    for (unsigned i = 0; i < cif->nargs; i++) {
        const ffi_type *type = cif->arg_types[i];
        if (!eightbytes(type, classes)) continue;
        unsigned integers = 0, floats = 0;
        for (int k = 0; k < 2; k++) {
            integers += classes[k] == CLASS_INTEGER;
            floats += classes[k] == CLASS_SSE;
        }
        if (gpr + integers > MAX_GPR || sse + floats > MAX_SSE) continue; /* on the stack, whole */
        if (type->type == FFI_TYPE_STRUCT && type->size > 8 && classes[0] == CLASS_INTEGER &&
            classes[1] == CLASS_SSE && gpr == MAX_GPR - 1)
            return (long)i;
        gpr += integers;
        sse += floats;
    }
    return -1;
}

/* The probe: six structs of an integer and a float; the defect gives the
 * first struct the sixth one's float. */
typedef struct probe_pair {
    uint64_t integer;
    float number;
} probe_pair;

static float first_number(probe_pair a, probe_pair b, probe_pair c, probe_pair d, probe_pair e, probe_pair f) {
    (void)b, (void)c, (void)d, (void)e, (void)f;
    return a.number;
}

static bool x86_64_defective;
static pthread_once_t x86_64_probed = PTHREAD_ONCE_INIT;

static void x86_64_probe(void) {
    ffi_type *fields[] = {&ffi_type_uint64, &ffi_type_float, NULL};
    ffi_type pair = {.size = 0, .alignment = 0, .type = FFI_TYPE_STRUCT, .elements = fields};
    ffi_type *types[6];
    probe_pair pairs[6];
    void *values[6];
    for (int k = 0; k < 6; k++) {
        types[k] = &pair;
        pairs[k] = (probe_pair){(uint64_t)k + 1, (float)(k + 1)};
        values[k] = &pairs[k];
    }
    ffi_cif cif;
    float answer = 0;
    if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, 6, &ffi_type_float, types) != FFI_OK) {
        x86_64_defective = true; /* a libffi that cannot prepare this is trusted with none of it */
        return;
    }
    ffi_call(&cif, FFI_FN(first_number), &answer, values);
    x86_64_defective = answer != pairs[0].number;
}

static dc_status x86_64_refuse(const ffi_cif *cif, const char *encoding) {
    long parameter = x86_64_touched_parameter(cif);
    if (parameter < 0) return DC_OK;
    pthread_once(&x86_64_probed, x86_64_probe);
    if (!x86_64_defective) return DC_OK;
    return dc__fail(DC_ERR_UNSUPPORTED,
                    "signature \"%s\" is refused: parameter %ld, a struct of an integer then a floating-point "
                    "eightbyte in the last integer register, meets the x86-64 defect of libffi before 3.4.7, whose "
                    "ffi_call then overwrites the first floating-point argument register (the libffi here, %s, "
                    "fails a probe of it)",
                    encoding, parameter, libffi_version());
}

#endif /* x86-64 */

#ifdef KNOWS_AARCH64_DEFECT

/* ---- AArch64: structs of more than 16 bytes by reference -------------------- */

enum { ARGUMENT_REGISTERS = 8 };

/* The floating-point type every scalar in `type` has (FFI_TYPE_VOID for
 * none yet), or -1 when they differ or one is not floating-point. */
static int uniform_floating(const ffi_type *type, int found) {
    if (type->type == FFI_TYPE_STRUCT || type->type == FFI_TYPE_COMPLEX) {
        for (ffi_type **element = type->elements; element != NULL && *element != NULL && found >= 0; element++)
            found = uniform_floating(*element, found);
        return found;
    }
    if (type->type != FFI_TYPE_FLOAT && type->type != FFI_TYPE_DOUBLE && type->type != FFI_TYPE_LONGDOUBLE)
        return -1;
    return found == FFI_TYPE_VOID || found == type->type ? type->type : -1;
}

/* The vector registers `type` takes as a floating-point scalar or a
 * homogeneous floating-point aggregate (1 to 4 of one type); 0 otherwise. */
static size_t vector_registers(const ffi_type *type) {
    int floating = uniform_floating(type, FFI_TYPE_VOID);
    if (floating <= FFI_TYPE_VOID) return 0;
    size_t each = floating == FFI_TYPE_FLOAT ? sizeof(float)
                  : floating == FFI_TYPE_DOUBLE ? sizeof(double)
                                                : sizeof(long double);
    if (type->size == 0 || type->size % each != 0 || type->size / each > 4) return 0;
    return type->size / each;
}

/* Whether ffi_call's struct copies (from the top of cif->bytes down) and its
 * stack arguments (from the bottom up) would meet; `by_reference` counts the
 * structs passed by reference. */
static bool aarch64_areas_meet(const ffi_cif *cif, size_t *by_reference) {
    size_t integers = 0, vectors = 0, stack = 0, copies = cif->bytes;
    *by_reference = 0;
    for (unsigned i = 0; i < cif->nargs; i++) {
        const ffi_type *type = cif->arg_types[i];
        size_t size = type->size, alignment = type->alignment < 8 ? 8 : type->alignment;
        size_t vector_count = vector_registers(type);
        if (vector_count > 0) {
            if (vectors + vector_count <= ARGUMENT_REGISTERS) {
                vectors += vector_count;
                continue;
            }
            vectors = ARGUMENT_REGISTERS;
        } else {
            size_t register_count = (size + 7) / 8;
            if ((type->type == FFI_TYPE_STRUCT || type->type == FFI_TYPE_COMPLEX) && size > 16) {
                size_t top = copies >= size ? copies - size : 0;
                copies = top - top % (type->alignment > 0 ? type->alignment : 1);
                (*by_reference)++;
                size = sizeof(void *);
                alignment = 8;
                register_count = 1;
            }
            if (integers + register_count <= ARGUMENT_REGISTERS) {
                integers += register_count;
                continue;
            }
            integers = ARGUMENT_REGISTERS;
        }
        /* On the stack; a scalar is written as a whole 8-byte slot. */
        stack = align_up(stack, alignment) + (size < 8 ? 8 : size);
    }
    return *by_reference > 0 && stack > copies;
}

/* The probe: nine 32-byte structs of bytes, each byte checked; the defect
 * writes the ninth struct's pointer over its own copy's first bytes. */
typedef struct probe_block {
    unsigned char bytes[32];
} probe_block;

static unsigned char probe_byte(int block, int index) { return (unsigned char)(0x80 | (block * 7 + index) % 0x7f); }

static int block_arrived(const probe_block *block, int number) {
    for (int i = 0; i < 32; i++)
        if (block->bytes[i] != probe_byte(number, i)) return 0;
    return 1;
}

static int arrived(probe_block a, probe_block b, probe_block c, probe_block d, probe_block e, probe_block f,
                   probe_block g, probe_block h, probe_block i) {
    const probe_block *all[] = {&a, &b, &c, &d, &e, &f, &g, &h, &i};
    int count = 0;
    for (int k = 0; k < 9; k++) count += block_arrived(all[k], k);
    return count;
}

static bool aarch64_defective;
static pthread_once_t aarch64_probed = PTHREAD_ONCE_INIT;

static void aarch64_probe(void) {
    ffi_type *fields[33];
    for (int i = 0; i < 32; i++) fields[i] = &ffi_type_uint8;
    fields[32] = NULL;
    ffi_type block = {.size = 0, .alignment = 0, .type = FFI_TYPE_STRUCT, .elements = fields};
    ffi_type *types[9];
    probe_block blocks[9];
    void *values[9];
    for (int k = 0; k < 9; k++) {
        types[k] = &block;
        for (int i = 0; i < 32; i++) blocks[k].bytes[i] = probe_byte(k, i);
        values[k] = &blocks[k];
    }
    ffi_cif cif;
    ffi_arg answer = 0;
    if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, 9, &ffi_type_sint, types) != FFI_OK) {
        aarch64_defective = true; /* a libffi that cannot prepare this is trusted with none of it */
        return;
    }
    ffi_call(&cif, FFI_FN(arrived), &answer, values);
    aarch64_defective = (int)answer != 9;
}

static dc_status aarch64_refuse(const ffi_cif *cif, const char *encoding) {
    size_t by_reference;
    if (!aarch64_areas_meet(cif, &by_reference)) return DC_OK;
    pthread_once(&aarch64_probed, aarch64_probe);
    if (!aarch64_defective) return DC_OK;
    return dc__fail(DC_ERR_UNSUPPORTED,
                    "signature \"%s\" is refused: its %zu structs of more than 16 bytes, passed by reference with "
                    "pointers past the integer registers, meet the AArch64 defect of libffi before 3.7.1, whose "
                    "ffi_call then lets the structs' copies and those pointers overwrite each other (the libffi "
                    "here, %s, fails a probe of it)",
                    encoding, by_reference, libffi_version());
}

#endif /* AArch64 */

dc_status dc__refuse_libffi_defects(const ffi_cif *cif, const char *encoding) {
    dc_status status = DC_OK;
#ifdef KNOWS_X86_64_DEFECT
    status = x86_64_refuse(cif, encoding);
#endif
#ifdef KNOWS_AARCH64_DEFECT
    status = aarch64_refuse(cif, encoding);
#endif
    (void)cif, (void)encoding;
    return status;
}
