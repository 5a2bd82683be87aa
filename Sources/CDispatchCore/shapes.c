/*
 * shapes.c — the shape sets executes check arguments against: the distinct
 * ways an event's handlers take their arguments (signature, bound target,
 * strictness, marshal), counted as handlers come and go, with the summary
 * that lets the common execute be checked without visiting each shape; and
 * an execute's one validation against them: before any handler runs, the
 * arguments are checked against every shape the snapshot holds (arity when
 * strict, each argument's type, a struct's pointer, size and layout), and
 * the first misfit is reported naming the event, a handler of that shape,
 * the argument and both types (dc__check_each_shape(), which execute.c
 * calls when the summary cannot answer for every shape). The sets are
 * written under the table's lock; executes read published sets (table.h).
 */
#include "table.h"

#include <stdio.h>

static void free_shape_set(void *object, void *context) {
    (void)context;
    free(object);
}

dc__shape_set *dc__shapes_copy(const dc__shape_set *old, uint32_t extra) {
    uint32_t count = old != NULL ? old->count : 0;
    dc__shape_set *set = malloc(sizeof *set + (count + extra) * sizeof set->shapes[0]);
    if (set == NULL) return NULL;
    set->count = count;
    if (count > 0) memcpy(set->shapes, old->shapes, count * sizeof set->shapes[0]);
    return set;
}

/* Fills in the summary of a set about to be published; `lean`: the
 * summary alone may check an execute of the event (dc__lean_allowed()). */
static void summarize_shapes(dc__shape_set *set, bool lean) {
    uint64_t counts = ~(uint64_t)0, strict_counts = ~(uint64_t)0;
    set->most_takes = 0;
    set->checks_objects = false;
    for (uint32_t s = 0; s < set->count; s++) {
        const dc__handler_shape *shape = &set->shapes[s];
        if (shape->state_flags & DC__STATE_CHECK_OBJECTS) set->checks_objects = true;
        if (shape->state_flags & DC__STATE_VARIADIC) continue; /* takes the arguments as given: constrains nothing */
        uint32_t takes = shape->takes;
        if (takes > DC__SUMMARIZED_TAKES) {
            counts = strict_counts = 0; /* beyond the counts' bits: each shape is checked */
            continue;
        }
        /* A strict shape fits only its own count; an execute's strict flag
         * makes every shape here strict. */
        if (shape->state_flags & DC__STATE_STRICT) counts &= (uint64_t)1 << takes;
        strict_counts &= (uint64_t)1 << takes;
        const dc__parameter *parameters = shape->signature->parameters + first_argument_parameter(shape->state_flags);
        for (uint32_t i = 0; i < takes; i++) {
            if (i >= set->most_takes)
                set->types[i] = (uint8_t)parameters[i].type;
            else if (set->types[i] != parameters[i].type)
                counts = strict_counts = 0; /* no argument type fits both exactly */
            /* A struct argument's pointer, size and layout are each shape's to
             * check, as is the pointer of any value by address. */
            if (dc__by_address(parameters[i].type)) counts = strict_counts = 0;
        }
        if (takes > set->most_takes) set->most_takes = takes;
    }
    set->counts = counts;
    set->strict_counts = strict_counts;
    /* Images are for plain handlers: a marshal takes the arguments as values. */
    bool sole = set->count == 1 && !(set->shapes[0].state_flags & (DC__STATE_VARIADIC | DC__STATE_MARSHAL)) &&
                set->shapes[0].signature->word_images;
    set->sole_signature = sole ? set->shapes[0].signature : NULL;
    set->sole_flags = sole ? set->shapes[0].state_flags : 0;
    set->sole_first = (uint32_t)first_argument_parameter(set->sole_flags);
    uint64_t enough = set->most_takes < 64 ? ~(uint64_t)0 << set->most_takes : 0;
    set->bound_lean_counts = lean ? counts & enough : 0;
    set->bound_lean_strict_counts = lean ? strict_counts & enough : 0;
    /* A public execute asks the object check first: the general way. */
    set->lean_counts = set->checks_objects ? 0 : set->bound_lean_counts;
    set->lean_strict_counts = set->checks_objects ? 0 : set->bound_lean_strict_counts;
}

/* Whether an execute of `record`'s event may be checked with the summary
 * alone and run by walking its `handlers` array only: no after-handlers, no
 * hook, not a detailed key. Caller holds the lock. */
bool dc__lean_allowed(const dc_table *table, const dc__event_record *record) {
    return record->base == NULL && record->after_live == 0 && !dc__hooks_watch(table, record);
}

/* Publishes `copy`, a copy of `record`'s shape set (dc__shapes_copy()), summarized
 * anew: after dc__lean_allowed() changed. Caller holds the lock. */
void dc__resummarize_shapes(dc_table *table, dc__event_record *record, dc__shape_set *copy) {
    dc__shape_set *old = atomic_load_explicit(&record->shapes, memory_order_relaxed);
    summarize_shapes(copy, dc__lean_allowed(table, record));
    atomic_store_explicit(&record->shapes, copy, memory_order_release);
    if (old != NULL) dc__table_retire(table, old, free_shape_set);
}

dc__shape_set *dc__copy_shapes(const dc__event_record *record) {
    return dc__shapes_copy(atomic_load_explicit(&record->shapes, memory_order_relaxed), 0);
}

/* Counts one more handler of the given shape. With `spare`, a copy of the
 * current set with room for one more made by the caller (the shape is new,
 * or the set must be summarized anew), publishes that copy; without, counts
 * it in the current set, which has the shape. Publish before the handler
 * itself, so a reader that sees the handler sees its shape. */
void dc__add_shape(dc_table *table, dc__event_record *record, dc_signature *signature, uint32_t flags, dc__shape_set *spare) {
    if (spare == NULL) {
        dc__find_shape(atomic_load_explicit(&record->shapes, memory_order_relaxed), signature, flags)->handlers++;
        return;
    }
    dc__handler_shape *copied = dc__find_shape(spare, signature, flags);
    if (copied != NULL) {
        copied->handlers++;
    } else {
        size_t first = (flags & DC__STATE_TARGET) ? 1 : 0;
        size_t takes = signature->parameter_count - first;
        spare->shapes[spare->count++] = (dc__handler_shape){signature, flags, 1, (uint32_t)takes};
    }
    dc__resummarize_shapes(table, record, spare);
}

void dc__drop_unused_shapes(dc_table *table, dc__event_record *record) {
    dc__shape_set *set = atomic_load_explicit(&record->shapes, memory_order_relaxed);
    dc__shape_set *smaller = dc__shapes_copy(NULL, set->count);
    if (smaller == NULL) return; /* keeps checking a shape with no handler: stricter, never unsafe */
    for (uint32_t i = 0; i < set->count; i++)
        if (set->shapes[i].handlers > 0) smaller->shapes[smaller->count++] = set->shapes[i];
    dc__resummarize_shapes(table, record, smaller);
}

/* ---- checking an execute's arguments against the shapes ------------------------------------ */

/* The id of a live handler of `shape` in the snapshot, for messages only.
 * Inside the read-side section, like everything it reads. */
static dc_handler_id example_in(const dc__handler_array *array, uint32_t count, const dc__handler_shape *shape) {
    for (uint32_t i = 0; i < count; i++) {
        dc__handler *handler = atomic_load_explicit(&array->items[i], memory_order_relaxed);
        uint32_t state = atomic_load_explicit(&handler->state, memory_order_relaxed);
        if (!(state & DC__STATE_REMOVED) && handler->signature == shape->signature &&
            shape_flags(state) == shape->state_flags)
            return id_of(handler);
    }
    return 0;
}

/* In the snapshot's array, or its after array. */
static dc_handler_id example_handler(const execution *run, const dc__handler_array *array, uint32_t count,
                                     const dc__handler_shape *shape) {
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

static bool is_strict(const execution *run, const dc__handler_shape *shape) {
    if (shape->state_flags & DC__STATE_VARIADIC) return false;
    return (shape->state_flags & DC__STATE_STRICT) || (run->options->flags & DC_EXECUTE_STRICT);
}

/* Checks the arguments against one handler shape, with messages: arity when
 * strict, and that every argument the shape takes fits its parameter. */
COLD static dc_status check_shape(const execution *run, const dc__handler_shape *shape, const dc__handler_array *array,
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
        if (dc__by_address(type) && run->arguments[i].type == type && run->arguments[i].pointer == NULL)
            return dc__fail(DC_ERR_NULL_ARGUMENT,
                            "table %s, event \"%s\", handler %llu, argument %zu: a %s value whose pointer is NULL",
                            display_name(run->table), run->record->name,
                            (unsigned long long)example_handler(run, array, count, shape), i, dc_type_name(type));
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
static bool shape_matches_exactly(const execution *run, const dc__handler_shape *shape) {
    if (is_strict(run, shape) && shape->takes != run->count) return false;
    size_t used = shape->takes < run->count ? shape->takes : run->count;
    size_t first = first_argument_parameter(shape->state_flags);
    const dc__parameter *parameters = shape->signature->parameters + first;
    if (!struct_return_fits(run, shape->signature)) return false;
    for (size_t i = 0; i < used; i++) {
        if (run->arguments[i].type != parameters[i].type) return false;
        if (dc__by_address(parameters[i].type) && run->arguments[i].pointer == NULL) return false;
        if (parameters[i].type == DC_TYPE_STRUCT && !struct_fits(run, shape->signature, first, i)) return false;
    }
    return true;
}

/* Every shape fits, or the error of the first that does not. */
/* The object check's answer for each object argument of a public execute
 * whose event has a shape that asks it (DC__STATE_CHECK_OBJECTS). */
static dc_status check_objects(const execution *run) {
    const dc_table *table = run->table;
    for (size_t i = 0; i < run->count; i++) {
        const dc_value *argument = &run->arguments[i];
        if (argument->type != DC_TYPE_OBJECT || argument->object == NULL) continue;
        char message[256];
        message[0] = '\0';
        if (!table->object_check(table->object_check_context, run->record->name, i, argument->object, message,
                                 sizeof message))
            return dc__fail(DC_ERR_TYPE, "table %s: %s", display_name(table),
                            message[0] != '\0' ? message : "an object of a type its handlers do not take");
    }
    return DC_OK;
}

dc_status dc__check_each_shape(const execution *run, const dc__shape_set *shapes, const dc__handler_array *array,
                               uint32_t count) {
    for (uint32_t i = 0; i < shapes->count; i++) {
        if (LIKELY(shape_matches_exactly(run, &shapes->shapes[i]))) continue;
        dc_status status = check_shape(run, &shapes->shapes[i], array, count);
        if (status != DC_OK) return status;
    }
    return dc__asks_object_check(run, shapes) ? check_objects(run) : DC_OK;
}
