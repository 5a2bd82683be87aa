/*
 * invocation.c — NSInvocation: argument storage, the two call paths, and the
 * one-shot dc_call(); and the invocation a closure lends its handler for one
 * call, over the arguments where libffi handed them (read on first use), whose
 * results are written where the closure's caller reads them.
 *
 * Arguments are kept twice, in the shape each call path wants, so that invoke
 * does nothing but the call: typed values whose addresses libffi reads, and the
 * widened register images a typed stub passes.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- lent invocations (a closure's call) ---------------------------------------------- */

void dc__invocation_read_arguments(dc_invocation *invocation) {
    const dc_signature *signature = invocation->signature;
    dc_value *arguments = dc__invocation_arguments(invocation);
    void **ffi_arguments = dc__invocation_ffi_arguments(invocation);
    for (size_t i = 0; i < signature->parameter_count; i++) {
        dc__load_parameter(signature, i, invocation->unread[i], &arguments[i]);
        ffi_arguments[i] = dc__ffi_argument(&arguments[i]);
    }
    if (signature->return_layout == NULL) invocation->rvalue = &invocation->result;
    invocation->return_class = signature->return_class;
    invocation->call_path = signature->call_path;
    invocation->unread = NULL;
}

void dc__invocation_return_to_caller(const dc_invocation *call, const dc_value *value) {
    dc__store_closure_return(call->signature, value, dc__lent_of(call)->return_address);
}

/* ---- arguments ------------------------------------------------------------------------- */

/* Converts argument `index` to its parameter type; on failure the message says
 * which call, which argument, which signature and both types. */
__attribute__((noinline)) static dc_status convert_argument_slowly(const dc_signature *signature, size_t index,
                                                                  const dc_value *value, dc_value *out,
                                                                  const char *function) {
    dc_status status = dc_value_convert(value, signature->parameters[index].type, out);
    if (status == DC_OK) {
        const dc__layout_node *layout = signature->parameter_layouts[index];
        if (layout == NULL || dc__struct_fits(out, layout)) return DC_OK;
        char given[128];
        return dc__fail(DC_ERR_TYPE, "%s: argument %zu of signature \"%s\": %s for %s, of %zu bytes", function, index,
                        signature->encoding, dc__struct_describe(out, given, sizeof given), layout->encoding,
                        layout->size);
    }
    if (status == DC_ERR_NULL_ARGUMENT)
        return dc__fail(status, "%s: argument %zu of signature \"%s\": a %s value whose pointer is NULL", function,
                        index, signature->encoding, dc_type_name(signature->parameters[index].type));
    char reason[256];
    snprintf(reason, sizeof reason, "%s", dc_last_error_message());
    return dc__fail(DC_ERR_TYPE, "%s: argument %zu of signature \"%s\": %s", function, index, signature->encoding,
                    reason);
}

/* The same, at once for a value of exactly the parameter's type (a value
 * by address has more to check). */
static inline dc_status convert_argument(const dc_signature *signature, size_t index, const dc_value *value,
                                         dc_value *out, const char *function) {
    dc_type type = signature->parameters[index].type;
    if (DC__LIKELY(value->type == type && !dc__by_address(type))) {
        *out = dc__same_type_value(*value);
        return DC_OK;
    }
    return convert_argument_slowly(signature, index, value, out, function);
}

/* ---- return values ------------------------------------------------------------------ */

dc_value dc__return_value(const dc_signature *signature, const dc_raw_return *raw) {
    /* Narrow results come back in a wider register (or libffi's ffi_arg) whose
     * upper bits are undefined: keep only the bits of the declared type. */
    uint64_t bits = raw->integer;
    switch (signature->return_type) {
    case DC_TYPE_VOID: return dc_void();
    case DC_TYPE_BOOL: return dc_bool((uint8_t)bits != 0);
    case DC_TYPE_INT8: return dc_int8((int8_t)(uint8_t)bits);
    case DC_TYPE_UINT8: return dc_uint8((uint8_t)bits);
    case DC_TYPE_INT16: return dc_int16((int16_t)(uint16_t)bits);
    case DC_TYPE_UINT16: return dc_uint16((uint16_t)bits);
    case DC_TYPE_INT32: return dc_int32((int32_t)(uint32_t)bits);
    case DC_TYPE_UINT32: return dc_uint32((uint32_t)bits);
    case DC_TYPE_INT64: return dc_int64((int64_t)bits);
    case DC_TYPE_UINT64: return dc_uint64(bits);
    case DC_TYPE_FLOAT: return dc_float(raw->f);
    case DC_TYPE_DOUBLE: return dc_double(raw->d);
    case DC_TYPE_OBJECT: return dc_object(raw->pointer);
    case DC_TYPE_POINTER: return dc_pointer(raw->pointer);
    case DC_TYPE_STRING: return dc_string((char *)raw->pointer);
    default: return dc_void();
    }
}

dc_raw_return dc__raw_return(const dc_value *value) {
    dc_raw_return raw;
    raw.integer = 0;
    switch (value->type) {
    case DC_TYPE_VOID: break;
    case DC_TYPE_FLOAT: raw.f = value->f; break;
    case DC_TYPE_DOUBLE: raw.d = value->d; break;
    default: raw.integer = dc__integer_image(value); break;
    }
    return raw;
}

/* ---- invocations ---------------------------------------------------------------------- */

DC_API dc_status dc_invocation_create(dc_signature *signature, dc_function function, dc_invocation **out) {
    if (signature == NULL || function == NULL || out == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_invocation_create: %s must not be NULL",
                        signature == NULL ? "the signature" : function == NULL ? "the function" : "out");
    size_t count = signature->parameter_count;
    size_t values_end = sizeof(dc_invocation) + DC__INVOCATION_STORAGE(count);
    size_t extra = signature->struct_storage > 0 ? signature->struct_storage + DC__STRUCT_ALIGNMENT - 1 : 0;
    dc_invocation *invocation = calloc(1, values_end + extra);
    if (invocation == NULL)
        return dc__fail(DC_ERR_NO_MEMORY, "no memory for an invocation of \"%s\"", signature->encoding);
    /* Struct bytes, each at a multiple of DC__STRUCT_ALIGNMENT, after the values. */
    uintptr_t structs = ((uintptr_t)invocation + values_end + DC__STRUCT_ALIGNMENT - 1) /
                        DC__STRUCT_ALIGNMENT * DC__STRUCT_ALIGNMENT;

    invocation->signature = dc_signature_retain(signature);
    invocation->function = function;
    invocation->state.has_function = true;
    invocation->call_path = signature->call_path;
    invocation->stub = signature->stub;
    invocation->return_class = signature->return_class;
    dc_value *arguments = dc__invocation_arguments(invocation);
    void **ffi_arguments = dc__invocation_ffi_arguments(invocation);
    for (size_t i = 0; i < count; i++) {
        arguments[i].type = signature->parameters[i].type;
        arguments[i].struct_id = 0;
        arguments[i].u64 = 0;
        if (signature->parameter_layouts[i] != NULL) {
            arguments[i] = dc__struct_value((void *)structs, signature->parameter_layouts[i]);
            structs += dc__struct_storage_size(signature->parameter_layouts[i]->size);
        }
        ffi_arguments[i] = dc__ffi_argument(&arguments[i]);
    }
    invocation->rvalue = signature->return_layout != NULL ? (void *)structs : (void *)&invocation->result;
    *out = invocation;
    return DC_OK;
}

DC_API void dc_invocation_destroy(dc_invocation *invocation) {
    if (invocation == NULL || invocation->state.lent) return;
    dc_signature_release(invocation->signature);
    free(invocation);
}

DC_API dc_signature *dc_invocation_signature(const dc_invocation *invocation) {
    return invocation != NULL ? invocation->signature : NULL;
}

static dc_status check_index(const dc_invocation *invocation, size_t index, const char *function) {
    if (index >= invocation->signature->parameter_count)
        return dc__fail(DC_ERR_INDEX, "%s: argument index %zu is out of range for signature \"%s\" with %zu parameters",
                        function, index, invocation->signature->encoding, invocation->signature->parameter_count);
    return DC_OK;
}

DC_API dc_status dc_invocation_set_argument(dc_invocation *invocation, size_t index, const dc_value *value) {
    if (invocation == NULL || value == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_invocation_set_argument: invocation and value must not be NULL");
    dc_status status = check_index(invocation, index, "dc_invocation_set_argument");
    if (status != DC_OK) return status;

    dc_value converted;
    status = convert_argument(invocation->signature, index, value, &converted, "dc_invocation_set_argument");
    if (status != DC_OK) return status;
    dc__invocation_ready(invocation);
    dc_value *argument = &dc__invocation_arguments(invocation)[index];
    if (dc__by_address(converted.type)) {
        /* The bytes are copied in; the argument keeps pointing at its own. */
        memmove(argument->pointer, converted.pointer, invocation->signature->parameter_layouts[index]->size);
        return DC_OK; /* the argument keeps its pointer and size */
    }
    *argument = converted;
    if (invocation->signature->stub != NULL && !invocation->state.images_stale)
        dc__store_register_image(invocation->signature, invocation->integers, invocation->floats, index, &converted);
    return DC_OK;
}

DC_API dc_status dc_invocation_get_argument(const dc_invocation *invocation, size_t index, dc_value *out) {
    if (DC__LIKELY(invocation != NULL && out != NULL && index < invocation->signature->parameter_count)) {
        const dc_signature *signature = invocation->signature;
        if (invocation->unread == NULL)
            *out = dc__invocation_arguments(invocation)[index];
        else
            dc__load_parameter(signature, index, invocation->unread[index], out);
        return DC_OK;
    }
    if (invocation == NULL || out == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_invocation_get_argument: invocation and out must not be NULL");
    return check_index(invocation, index, "dc_invocation_get_argument");
}

DC_API dc_status dc_invocation_set_call_path(dc_invocation *invocation, dc_call_path path) {
    if (invocation == NULL) return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_invocation_set_call_path: invocation is NULL");
    if (path != DC_CALL_PATH_STUB && path != DC_CALL_PATH_FFI)
        return dc__fail(DC_ERR_INVALID_ARGUMENT, "dc_invocation_set_call_path: %d is not a dc_call_path", (int)path);
    if (path == DC_CALL_PATH_STUB && invocation->signature->stub == NULL)
        return dc__fail(DC_ERR_UNSUPPORTED, "signature \"%s\" has no typed stub on this platform; it takes libffi",
                        invocation->signature->encoding);
    dc__invocation_ready(invocation);
    invocation->call_path = path;
    bool callable = invocation->state.has_function && !invocation->state.images_stale && !invocation->state.lent;
    invocation->stub = path == DC_CALL_PATH_STUB && callable ? invocation->signature->stub : NULL;
    return DC_OK;
}

DC_API dc_call_path dc_invocation_call_path(const dc_invocation *invocation) {
    if (invocation == NULL) return DC_CALL_PATH_FFI;
    return invocation->unread != NULL ? invocation->signature->call_path : invocation->call_path;
}

DC_API dc_status dc_invocation_set_function(dc_invocation *invocation, dc_function function) {
    if (invocation == NULL || function == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_invocation_set_function: invocation and function must not be NULL");
    invocation->function = function;
    invocation->state.has_function = true;
    return DC_OK;
}

/* ffi_call of a signature with struct parameters. libffi may point the
 * argument pointers it is given elsewhere (at its own copies of a struct
 * passed in memory, on x86-64), so each call points a struct's back at the
 * invocation's bytes first. */
static inline void call_with_structs(dc_invocation *invocation) {
    const dc_signature *signature = invocation->signature;
    const dc_value *arguments = dc__invocation_arguments(invocation);
    void **pointers = dc__invocation_ffi_arguments(invocation);
    for (size_t k = 0; k < signature->struct_parameter_count; k++) {
        size_t i = signature->struct_parameters[k];
        pointers[i] = arguments[i].pointer;
    }
    ffi_call(&invocation->signature->cif, invocation->function, invocation->rvalue, pointers);
}

/* The call itself, with the arguments as they are: through `stub` when it
 * is not NULL, else through libffi. */
DC__ALWAYS_INLINE void call(dc_invocation *invocation, dc_stub stub) {
    if (stub != NULL)
        dc__stub_call(invocation->return_class, stub, invocation->function, invocation->integers, invocation->floats,
                      &invocation->result);
    else if (invocation->signature->struct_parameter_count == 0)
        ffi_call(&invocation->signature->cif, invocation->function, invocation->rvalue,
                 dc__invocation_ffi_arguments(invocation));
    else
        call_with_structs(invocation);
    invocation->state.has_returned = true;
}

/* dc_invocation_invoke() of NULL or of a lent invocation: it may have no
 * function yet, its arguments unread and its register images not written,
 * and its result goes to the closure's caller as well. */
__attribute__((noinline)) static dc_status invoke_lent(dc_invocation *invocation) {
    if (invocation == NULL) return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_invocation_invoke: invocation is NULL");
    if (!invocation->state.has_function)
        return dc__fail(DC_ERR_STATE,
                        "dc_invocation_invoke: the forwarded call of \"%s\" has no function to invoke yet; "
                        "set one with dc_invocation_set_function()",
                        invocation->signature->encoding);
    dc__invocation_ready(invocation);
    dc_stub stub = NULL;
    if (invocation->call_path == DC_CALL_PATH_STUB) {
        if (invocation->state.images_stale) {
            for (size_t i = 0; i < invocation->signature->parameter_count; i++)
                dc__store_register_image(invocation->signature, invocation->integers, invocation->floats, i,
                                         &dc__invocation_arguments(invocation)[i]);
            invocation->state.images_stale = false;
        }
        stub = invocation->signature->stub;
    }
    call(invocation, stub);
    if (invocation->signature->return_kind == DC_RETURNS_SCALAR) {
        dc_value returned = dc__return_value(invocation->signature, &invocation->result);
        dc__invocation_return_to_caller(invocation, &returned);
    }
    return DC_OK;
}

DC_API dc_status dc_invocation_invoke(dc_invocation *invocation) {
    if (!DC__LIKELY(invocation != NULL && (invocation->stub != NULL || !invocation->state.lent)))
        return invoke_lent(invocation);
    call(invocation, invocation->stub);
    return DC_OK;
}

DC_API dc_status dc_invocation_set_return_value(dc_invocation *invocation, const dc_value *value) {
    if (invocation == NULL || value == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_invocation_set_return_value: invocation and value must not be NULL");
    const dc_signature *signature = invocation->signature;
    dc_value converted;
    dc_status status = dc_value_convert(value, signature->return_type, &converted);
    if (status != DC_OK) {
        char reason[256];
        snprintf(reason, sizeof reason, "%s", dc_last_error_message());
        return dc__fail(status == DC_ERR_NULL_ARGUMENT ? status : DC_ERR_TYPE,
                        "dc_invocation_set_return_value: the return value of signature \"%s\": %s",
                        signature->encoding, reason);
    }
    if (converted.type == DC_TYPE_STRUCT && !dc__struct_fits(&converted, signature->return_layout)) {
        char given[128];
        return dc__fail(DC_ERR_TYPE,
                        "dc_invocation_set_return_value: %s for the return value %s of signature \"%s\", of %zu bytes",
                        dc__struct_describe(&converted, given, sizeof given), signature->return_layout->encoding,
                        signature->encoding, signature->return_layout->size);
    }
    if (dc__by_address(converted.type))
        memmove(invocation->rvalue, converted.pointer, signature->return_layout->size);
    else
        invocation->result = dc__raw_return(&converted);
    invocation->state.has_returned = true;
    if (invocation->state.lent && signature->return_kind == DC_RETURNS_SCALAR)
        dc__invocation_return_to_caller(invocation, &converted);
    return DC_OK;
}

DC_API dc_status dc_invocation_get_return_value(const dc_invocation *invocation, dc_value *out) {
    if (invocation == NULL || out == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_invocation_get_return_value: invocation and out must not be NULL");
    if (!invocation->state.has_returned)
        return dc__fail(DC_ERR_NOT_INVOKED, "the invocation of \"%s\" has no return value before it is invoked",
                        invocation->signature->encoding);
    *out = invocation->signature->return_layout != NULL ? dc__struct_value(invocation->rvalue, invocation->signature->return_layout)
                                                        : dc__return_value(invocation->signature, &invocation->result);
    return DC_OK;
}

/* ---- one-shot calls ---------------------------------------------------------------------- */

/* Whether `value` is exactly of `parameter`'s type and, for a struct, knows
 * no other layout: its head is that of a value of its type knowing nothing
 * (every value but a struct's that knows its size or layout), or is the
 * parameter's. */
static inline bool fits_as_it_is(const dc_value *value, const dc__parameter *parameter) {
    dc__parameter knowing_nothing = {parameter->type, 0};
    uint64_t head, plain;
    memcpy(&head, value, sizeof head);
    memcpy(&plain, &knowing_nothing, sizeof plain);
    return head == plain || (value->type == parameter->type && value->struct_id == parameter->struct_id);
}

/* Where ffi_call can read dc_call()'s argument `index` as the caller has it:
 * a value that fits as it is (a bool of 0 or 1; a value by address with
 * bytes to point at), read in place, a scalar at its member and any other
 * at its bytes. NULL when the value needs converting, or refusing. */
static inline void *argument_in_place(const dc_signature *signature, size_t index, const dc_value *value) {
    if (!fits_as_it_is(value, &signature->parameters[index])) return NULL;
    if (dc__by_address(value->type)) return value->pointer;
    if (value->type == DC_TYPE_BOOL && value->u8 > 1) return NULL;
    return (void *)&value->u64;
}

/* The libffi call of dc_call() once its arguments are converted, their
 * addresses in `pointers`; a return by address is made at
 * return_value->pointer, any other narrowed by dc__return_value(). */
DC__ALWAYS_INLINE dc_status call_at(const dc_signature *signature, dc_function function, void **pointers,
                                    dc_value *return_value) {
    ffi_cif *cif = (ffi_cif *)&signature->cif;
    if (signature->return_layout != NULL) {
        ffi_call(cif, function, return_value->pointer, pointers);
        memcpy(return_value, &signature->returned, sizeof signature->returned); /* its type and layout */
        return DC_OK;
    }
    dc_raw_return result;
    result.integer = 0;
    ffi_call(cif, function, &result, pointers);
    if (return_value != NULL) *return_value = dc__return_value(signature, &result);
    return DC_OK;
}

/* dc_call() on the libffi path: each argument read in place where it can
 * be, else converted into `converted` and read there; nothing is called
 * unless every one fits. */
DC__ALWAYS_INLINE dc_status convert_and_call(const dc_signature *signature, dc_function function,
                                             const dc_value *arguments, void **pointers, dc_value *converted,
                                             dc_value *return_value) {
    for (size_t i = 0; i < signature->parameter_count; i++) {
        void *address = argument_in_place(signature, i, &arguments[i]);
        if (address == NULL) {
            dc_status status = convert_argument_slowly(signature, i, &arguments[i], &converted[i], "dc_call");
            if (status != DC_OK) return status;
            address = dc__ffi_argument(&converted[i]);
        }
        pointers[i] = address;
    }
    return call_at(signature, function, pointers, return_value);
}

/* dc_call() of more than DC__FEW_PARAMETERS parameters, with room for them
 * all: its own frame, so that the common calls' stays small. */
static __attribute__((noinline)) dc_status call_many(const dc_signature *signature, dc_function function,
                                                     const dc_value *arguments, dc_value *return_value) {
    void *pointers[DC_MAX_PARAMETERS];
    dc_value converted[DC_MAX_PARAMETERS];
    return convert_and_call(signature, function, arguments, pointers, converted, return_value);
}

/* dc_call() on the libffi path when its arguments cannot all be read as
 * they are: out of line, so that the calls whose arguments can keep a
 * small frame. */
static __attribute__((noinline)) dc_status call_converting(const dc_signature *signature, dc_function function,
                                                           const dc_value *arguments, dc_value *return_value) {
    if (!DC__LIKELY(signature->parameter_count <= DC__FEW_PARAMETERS))
        return call_many(signature, function, arguments, return_value);
    void *pointers[DC__FEW_PARAMETERS];
    dc_value converted[DC__FEW_PARAMETERS];
    return convert_and_call(signature, function, arguments, pointers, converted, return_value);
}

/* dc_call() through the signature's typed stub: the arguments converted,
 * then written as the register images the stub passes. */
static __attribute__((noinline)) dc_status call_stub(const dc_signature *signature, dc_function function,
                                                     const dc_value *arguments, size_t count,
                                                     dc_value *return_value) {
    dc_value converted[DC_STUB_MAX_INTEGERS + DC_STUB_MAX_FLOATS];
    for (size_t i = 0; i < count; i++) {
        dc_status status = convert_argument(signature, i, &arguments[i], &converted[i], "dc_call");
        if (status != DC_OK) return status;
    }
    uint64_t integers[DC_STUB_MAX_INTEGERS] = {0};
    double floats[DC_STUB_MAX_FLOATS] = {0};
    for (size_t i = 0; i < count; i++) dc__store_register_image(signature, integers, floats, i, &converted[i]);
    dc_raw_return result;
    result.integer = 0;
    dc__stub_call(signature->return_class, signature->stub, function, integers, floats, &result);
    if (return_value != NULL) *return_value = dc__return_value(signature, &result);
    return DC_OK;
}

/* Why dc_call() refuses its arguments as a whole. */
static __attribute__((noinline, cold)) dc_status refuse_call(const dc_signature *signature, dc_function function,
                                                            const dc_value *arguments, size_t count) {
    if (signature == NULL || function == NULL || (arguments == NULL && count > 0))
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_call: %s must not be NULL",
                        signature == NULL ? "the signature" : function == NULL ? "the function" : "arguments");
    if (count != signature->parameter_count)
        return dc__fail(DC_ERR_ARITY, "dc_call: signature \"%s\" takes %zu arguments, %zu given", signature->encoding,
                        signature->parameter_count, count);
    return dc__fail(DC_ERR_NULL_ARGUMENT,
                    "dc_call: signature \"%s\" returns a struct of %zu bytes: return_value->pointer must point to a "
                    "buffer for it",
                    signature->encoding, signature->return_layout->size);
}

/* dc_call() on the libffi path of a signature whose arguments may be read
 * in place (in_place_of(), signature.c), once its checks passed: ffi_call
 * reads each where the caller has it, when every value fits as it is;
 * else the call starts again converting (call_converting()). */
static __attribute__((noinline)) dc_status call_in_place(const dc_signature *signature, dc_function function,
                                                         const dc_value *arguments, size_t count,
                                                         dc_value *return_value) {
    void *pointers[DC__FEW_PARAMETERS];
    const dc__parameter *parameters = signature->parameters;
    const dc_value *value = arguments;
    size_t i = 0; /* count is at least 1 where arguments are read in place (in_place_of()) */
    if (signature->in_place == DC__IN_PLACE_BY_ADDRESS) {
        do {
            if (!fits_as_it_is(value, &parameters[i]) || value->pointer == NULL) goto convert;
            pointers[i] = value->pointer;
            value++;
        } while (++i < count);
    } else {
        do {
            if (!fits_as_it_is(value, &parameters[i])) goto convert;
            pointers[i] = (void *)&value->u64;
            value++;
        } while (++i < count);
    }

    /* Nothing can fail now: *return_value is made before the call, which
     * writes its bytes in place, so that nothing is left to do after it. */
    dc_raw_return ignored;
    void *returned;
    if (signature->return_layout != NULL) {
        returned = return_value->pointer;
        memcpy(return_value, &signature->returned, sizeof signature->returned);
    } else if (DC__LIKELY(return_value != NULL)) {
        memcpy(return_value, &signature->returned, sizeof signature->returned);
        return_value->u64 = 0;
        returned = &return_value->u64;
    } else {
        returned = &ignored;
    }
    ffi_call((ffi_cif *)&signature->cif, function, returned, pointers);
    return DC_OK;
convert:
    return call_converting(signature, function, value - i /* the first argument */, return_value);
}

DC_API dc_status dc_call(dc_signature *signature, dc_function function, const dc_value *arguments, size_t count,
                         dc_value *return_value) {
    if (signature == NULL || function == NULL || count != signature->parameter_count ||
        (arguments == NULL && count > 0))
        return refuse_call(signature, function, arguments, count);
    if (signature->in_place == DC__IN_PLACE_NONE && signature->stub != NULL)
        return call_stub(signature, function, arguments, count, return_value);
    if (signature->return_layout != NULL && (return_value == NULL || return_value->pointer == NULL))
        return refuse_call(signature, function, arguments, count);
    if (signature->in_place == DC__IN_PLACE_NONE) return call_converting(signature, function, arguments, return_value);
    return call_in_place(signature, function, arguments, count, return_value);
}

/* dc__ffi_call_values() of more than DC__FEW_PARAMETERS parameters, in a
 * frame of its own. */
void dc__ffi_call_many(const dc_signature *signature, dc_function function, dc_value *values, void *ret) {
    void *pointers[DC_MAX_PARAMETERS];
    for (size_t p = 0; p < signature->parameter_count; p++) pointers[p] = dc__ffi_argument(&values[p]);
    ffi_call((ffi_cif *)&signature->cif, function, ret, pointers);
}
