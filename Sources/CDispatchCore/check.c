/*
 * check.c — an execute's one validation, shape by shape: before any handler
 * runs, the arguments are checked against every handler shape the snapshot
 * holds (arity when strict, each argument's type, and a struct's pointer,
 * size and layout), and the first misfit is reported naming the event, a
 * handler of that shape, the argument and both types. execute.c calls it
 * when its summary of the shapes cannot answer for them all.
 */
#include "table.h"

#include <stdio.h>

/* The id of a live handler of `shape` in the snapshot, for messages only.
 * Inside the read-side section, like everything it reads. */
static dc_handler_id example_in(const handler_array *array, uint32_t count, const handler_shape *shape) {
    for (uint32_t i = 0; i < count; i++) {
        dc_handler *handler = atomic_load_explicit(&array->items[i], memory_order_relaxed);
        uint32_t state = atomic_load_explicit(&handler->state, memory_order_relaxed);
        if (!(state & DC__STATE_REMOVED) && handler->signature == shape->signature &&
            shape_flags(state) == shape->state_flags)
            return id_of(handler);
    }
    return 0;
}

/* In the snapshot's array, or its after array. */
static dc_handler_id example_handler(const execution *run, const handler_array *array, uint32_t count,
                                     const handler_shape *shape) {
    dc_handler_id id = array != NULL ? example_in(array, count, shape) : 0;
    return id != 0 || run->after == NULL ? id : example_in(run->after, run->after_count, shape);
}

/* Whether struct argument `i` has the layout of the parameter it fills in
 * `signature` (whose first `first` parameters take no argument), as far as
 * the execute knows its layout. */
static bool struct_fits(const execution *run, const dc_signature *signature, size_t first, size_t i) {
    if (run->arguments[i].pointer == NULL) return false;
    if (!dc__struct_fits(&run->arguments[i], signature->parameter_layouts[first + i])) return false;
    if (run->source == NULL) return true;
    return dc__layouts_equal(run->source->parameter_layouts[run->source->parameter_count - run->count + i],
                             signature->parameter_layouts[first + i]);
}

/* Whether a handler of `signature` returns what the execute's source
 * returns, as far as structs go: a struct of the same layout when either
 * returns one (a void source takes anything, a void handler gives nothing). */
static bool struct_return_fits(const execution *run, const dc_signature *signature) {
    if (run->source == NULL || run->source->return_type == DC_TYPE_VOID || signature->return_type == DC_TYPE_VOID)
        return true;
    if (run->source->return_layout == NULL && signature->return_layout == NULL) return true;
    return dc__layouts_equal(run->source->return_layout, signature->return_layout);
}

static bool is_strict(const execution *run, const handler_shape *shape) {
    if (shape->state_flags & DC__STATE_VARIADIC) return false;
    return (shape->state_flags & DC__STATE_STRICT) || (run->options->flags & DC_EXECUTE_STRICT);
}

/* Checks the arguments against one handler shape, with messages: arity when
 * strict, and that every argument the shape takes fits its parameter. */
COLD static dc_status check_shape(const execution *run, const handler_shape *shape, const handler_array *array,
                             uint32_t count) {
    const dc_signature *signature = shape->signature;
    size_t first = first_argument_parameter(shape->state_flags);
    if (is_strict(run, shape) && shape->takes != run->count)
        return dc__fail(DC_ERR_ARITY,
                        "table %s, event \"%s\", handler %llu: takes %u arguments (signature \"%s\"%s), %zu given",
                        display_name(run->table), run->record->name,
                        (unsigned long long)example_handler(run, array, count, shape), shape->takes,
                        signature->encoding, first ? " after its target" : "", run->count);
    if (!struct_return_fits(run, signature))
        return dc__fail(DC_ERR_TYPE, "table %s, event \"%s\", handler %llu: returns %s (signature \"%s\"), the caller %s",
                        display_name(run->table), run->record->name,
                        (unsigned long long)example_handler(run, array, count, shape),
                        signature->return_layout != NULL ? signature->return_layout->encoding
                                                         : dc_type_name(signature->return_type),
                        signature->encoding,
                        run->source->return_layout != NULL ? run->source->return_layout->encoding
                                                           : dc_type_name(run->source->return_type));
    size_t used = shape->takes < run->count ? shape->takes : run->count;
    for (size_t i = 0; i < used; i++) {
        dc_type type = signature->parameters[first + i].type;
        dc_value converted;
        if (type == DC_TYPE_STRUCT && run->arguments[i].type == type && run->arguments[i].pointer == NULL)
            return dc__fail(DC_ERR_NULL_ARGUMENT,
                            "table %s, event \"%s\", handler %llu, argument %zu: a struct value whose pointer is NULL",
                            display_name(run->table), run->record->name,
                            (unsigned long long)example_handler(run, array, count, shape), i);
        if (type == DC_TYPE_STRUCT && run->arguments[i].type == type && !struct_fits(run, signature, first, i)) {
            const dc__layout_node *parameter = signature->parameter_layouts[first + i];
            char given[160];
            if (run->source != NULL)
                snprintf(given, sizeof given, "the struct %s",
                         run->source->parameter_layouts[run->source->parameter_count - run->count + i]->encoding);
            return dc__fail(DC_ERR_TYPE,
                            "table %s, event \"%s\", handler %llu, argument %zu: %s does not have the layout of the "
                            "parameter's %s, of %zu bytes",
                            display_name(run->table), run->record->name,
                            (unsigned long long)example_handler(run, array, count, shape), i,
                            run->source != NULL ? given : dc__struct_describe(&run->arguments[i], given, sizeof given),
                            parameter->encoding, parameter->size);
        }
        if (run->arguments[i].type == type) continue;
        if (dc_value_convert(&run->arguments[i], type, &converted) != DC_OK) {
            char reason[256];
            snprintf(reason, sizeof reason, "%s", dc_last_error_message());
            return dc__fail(DC_ERR_TYPE, "table %s, event \"%s\", handler %llu, argument %zu: %s",
                            display_name(run->table), run->record->name,
                            (unsigned long long)example_handler(run, array, count, shape), i, reason);
        }
    }
    return DC_OK;
}

/* The common case, without conversions or messages: the arguments a shape
 * takes have exactly its parameter types (and, when strict, there are exactly
 * that many). */
static bool shape_matches_exactly(const execution *run, const handler_shape *shape) {
    if (is_strict(run, shape) && shape->takes != run->count) return false;
    size_t used = shape->takes < run->count ? shape->takes : run->count;
    size_t first = first_argument_parameter(shape->state_flags);
    const dc__parameter *parameters = shape->signature->parameters + first;
    if (!struct_return_fits(run, shape->signature)) return false;
    for (size_t i = 0; i < used; i++) {
        if (run->arguments[i].type != parameters[i].type) return false;
        if (parameters[i].type == DC_TYPE_STRUCT && !struct_fits(run, shape->signature, first, i)) return false;
    }
    return true;
}

/* Every shape fits, or the error of the first that does not. */
dc_status dc__check_each_shape(const execution *run, const shape_set *shapes, const handler_array *array,
                               uint32_t count) {
    for (uint32_t i = 0; i < shapes->count; i++) {
        if (LIKELY(shape_matches_exactly(run, &shapes->shapes[i]))) continue;
        dc_status status = check_shape(run, &shapes->shapes[i], array, count);
        if (status != DC_OK) return status;
    }
    return DC_OK;
}

