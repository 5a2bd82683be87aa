/*
 * execute.c — running an event's handlers: GSignal's emission for C.
 *
 * One execute, top to bottom:
 *   key -> event record (lock-free name index) -> handler array snapshot
 *   -> validate the arguments once per distinct handler shape (shapes.c, when
 *      the shapes' summary cannot answer for them all)
 *   -> run_handlers(), the one loop: for each handler, announce the call,
 *      re-check its state, call it the way its registration decided
 *      (directly with the arguments' words, a Swift closure, or the general
 *      way: a marshal, a stub, libffi, its queue), accumulate its result.
 * Every entry point reaches run_handlers() through one of two doors:
 * execute() (the lean execute: no options but strictness, arguments the
 * shapes' summary answers for, nothing but the `handlers` array to run),
 * or execute_generally() (everything else: options, hooks, after-handlers,
 * detailed keys, conversions, errors). The Swift layer's inline shortcut
 * (dc__execute_record_inline()) runs one Swift closure itself and hands
 * everything else to execute() or, entered, to run_and_leave().
 *
 * Executes take no lock and write no shared memory: they read, inside a
 * read-side section, what writers publish (table.h, reclaim.c).
 */
#include "table.h"

#include <stdio.h>

/* ---- executing ------------------------------------------------------------------------------------------ */

/* The register images of one handler shape's call, computed once per execute
 * and shared by every handler of that shape (the target is patched in). */
typedef struct call_images {
    const dc_signature *signature; /* NULL: none computed yet */
    uint32_t flags;
    uint64_t integers[DC_STUB_MAX_INTEGERS];
    double floats[DC_STUB_MAX_FLOATS];
} call_images;

/* What shape_matches_exactly() says of every shape at once, from the set's
 * summary: the counts strictness demands, and each argument's type. False
 * leaves the answer to the check of each shape. */
ALWAYS_INLINE static inline bool arguments_fit_summary(const execution *run, const dc__shape_set *shapes, bool strict,
                                                      call_images *images) {
    size_t count = run->count;
    uint64_t counts = strict ? shapes->strict_counts : shapes->counts;
    if (!LIKELY(count < 64 && ((counts >> count) & 1))) return false;
    size_t used = count < shapes->most_takes ? count : shapes->most_takes;
    const dc_value *arguments = run->arguments;
    if (shapes->sole_signature != NULL) {
        /* The images of the sole shape, as fill_images would compute them. */
        uint64_t *integers = images->integers + shapes->sole_first;
        for (size_t i = 0; i < used; i++) {
            if (arguments[i].type != (dc_type)shapes->types[i]) return false;
            integers[i] = arguments[i].u64;
        }
        for (size_t i = used; i < shapes->most_takes; i++) integers[i] = 0; /* missing trailing arguments */
        images->signature = shapes->sole_signature;
        images->flags = shapes->sole_flags;
        return true;
    }
    for (size_t i = 0; i < used; i++)
        if (arguments[i].type != (dc_type)shapes->types[i]) return false;
    return true;
}

/* dc__check_each_shape() (shapes.c) of `shapes`, after the summary's quick
 * answer for the common case, which it records in run->exact. */
ALWAYS_INLINE static inline dc_status check_arguments(execution *run, const dc__shape_set *shapes,
                                                      const dc__handler_array *array, uint32_t count, bool strict,
                                                      call_images *images) {
    run->exact = arguments_fit_summary(run, shapes, strict, images);
    /* Layouts are the shapes' to check, objects the object check's. */
    if (LIKELY(run->exact && run->source == NULL && !dc__asks_object_check(run, shapes))) return DC_OK;
    return dc__check_each_shape(run, shapes, array, count);
}

/* The check of a detailed key's own shapes (its handlers are in its event's
 * arrays, already checked against the event's): run->exact holds for both.
 * Its handlers run the general way, without images. */
COLD static dc_status check_detail(execution *run, const dc__shape_set *shapes, const dc__handler_array *array,
                                   uint32_t count, bool strict) {
    call_images ignored;
    bool exact_before = run->exact;
    dc_status status = check_arguments(run, shapes, array, count, strict, &ignored);
    run->exact = run->exact && exact_before;
    return status;
}

/* One parameter's value from the arguments: converted (checked already, so it
 * succeeds) or zero when the event carries too few. */
static dc_value parameter_value(const dc_value *arguments, size_t count, size_t argument, dc_type type) {
    dc_value value;
    if (argument < count && arguments[argument].type == type && type != DC_TYPE_BOOL) return arguments[argument];
    value.u64 = 0;
    value.type = type;
    if (argument < count) dc_value_convert(&arguments[argument], type, &value);
    return value;
}

/* All parameter values of one handler's call, the bound target first. */
static void handler_arguments(const dc__handler *handler, uint32_t state, const dc_value *arguments, size_t count,
                              dc_value *out) {
    const dc_signature *signature = handler->signature;
    size_t first = first_argument_parameter(state);
    if (first) {
        /* check_target made sure parameter 0 is pointer-like. */
        out[0].u64 = 0;
        out[0].type = signature->parameters[0].type;
        if (out[0].type == DC_TYPE_STRING)
            out[0].string = handler->target;
        else
            out[0].pointer = handler->target;
    }
    for (size_t p = first; p < signature->parameter_count; p++) {
        out[p] = parameter_value(arguments, count, p - first, signature->parameters[p].type);
        /* A missing struct (or value by address) is zero bytes (a given one is never NULL). */
        if (dc__by_address(out[p].type) && out[p].pointer == NULL)
            out[p] = dc__struct_value((void *)signature->zero_struct, signature->parameter_layouts[p]);
    }
}

/* Calls a marshal handler with `count` values; returns what it returned
 * (dc_void() for void). Only a variadic marshal chooses its result's type.
 * A struct return is written at `struct_return`. */
static dc_value call_marshal(const dc__handler *handler, uint32_t state, const dc_value *values, size_t count,
                             void *struct_return) {
#if SWIFT_CALLS
    if (state & DC__STATE_SWIFT) { /* its signature returns void */
        dc__call_swift(handler, values, handler->signature->parameter_count > 0);
        return dc_void();
    }
#endif
    dc_value result;
    result.u64 = 0;
    result.type = handler->signature->return_type;
    if (dc__by_address(result.type)) result = dc__struct_value(struct_return, handler->signature->return_layout); /* zeroed by the caller */
    ((dc_marshal)handler->function)(handler->target, values, count, &result);
    /* A marshal may say it returned nothing (DC_TYPE_VOID); otherwise only a
     * variadic one chooses the type, and not a struct, whose size nothing
     * says. */
    if (result.type == DC_TYPE_VOID) return result;
    if (!(state & DC__STATE_VARIADIC)) {
        result.type = handler->signature->return_type;
        if (dc__by_address(result.type)) result = dc__struct_value(struct_return, handler->signature->return_layout);
    } else if ((unsigned)result.type >= DC_TYPE_COUNT || dc__by_address(result.type)) {
        result.type = DC_TYPE_VOID;
    }
    return result;
}

/* Calls `handler` with its parameter values; returns its return value (a
 * struct return is written at `struct_return`). */
static dc_value call_with_values(const dc__handler *handler, uint32_t state, dc_value *values, size_t count,
                                 void *struct_return) {
    if (state & DC__STATE_MARSHAL) return call_marshal(handler, state, values, count, struct_return);
    const dc_signature *signature = handler->signature;
    dc_raw_return raw_result, *raw = &raw_result;
    raw->integer = 0;
    if (signature->stub != NULL) {
        uint64_t integers[DC_STUB_MAX_INTEGERS];
        double floats[DC_STUB_MAX_FLOATS];
        for (size_t p = 0; p < signature->parameter_count; p++)
            dc__store_register_image(signature, integers, floats, p, &values[p]);
        dc__stub_call(signature->return_class, signature->stub, handler->function, integers, floats, raw);
    } else {
        if (signature->return_layout != NULL) {
            dc__ffi_call_values(signature, handler->function, values, struct_return);
            return dc__struct_value(struct_return, signature->return_layout);
        }
        dc__ffi_call_values(signature, handler->function, values, raw);
    }
    return dc__return_value(signature, raw);
}

COLD static void accumulate(execution *run, dc_value value, bool *stop) {
    dc_result *result = &run->result;
    switch (run->options->accumulator) {
    case DC_ACCUMULATE_FIRST:
        if (!result->has_return_value) result->return_value = value, result->has_return_value = true;
        break;
    case DC_ACCUMULATE_ALL:
        if (result->return_count < run->options->results_capacity)
            run->options->results[result->return_count] = value;
        if (!result->has_return_value) result->return_value = value, result->has_return_value = true;
        break;
    case DC_ACCUMULATE_TRUE_HANDLED:
        result->return_value = value, result->has_return_value = true;
        if (value.type == DC_TYPE_BOOL && value.u8 != 0) *stop = true;
        break;
    default: /* DC_ACCUMULATE_LAST */
        result->return_value = value, result->has_return_value = true;
        break;
    }
    result->return_count++;
}

/* call_marshal_converting() of more than DC__FEW_PARAMETERS parameters, in
 * a frame of its own. */
COLD NOINLINE static dc_value call_marshal_converting_many(const execution *run, const dc__handler *handler,
                                                         uint32_t state) {
    dc_value converted[DC_MAX_PARAMETERS];
    handler_arguments(handler, state, run->arguments, run->count, converted);
    return call_marshal(handler, state, converted, handler->signature->parameter_count, NULL);
}

/* Calls a marshal with the arguments converted to its parameter types. */
COLD static dc_value call_marshal_converting(const execution *run, const dc__handler *handler, uint32_t state) {
    if (!LIKELY(handler->signature->parameter_count <= DC__FEW_PARAMETERS))
        return call_marshal_converting_many(run, handler, state);
    dc_value converted[DC__FEW_PARAMETERS];
    handler_arguments(handler, state, run->arguments, run->count, converted);
    return call_marshal(handler, state, converted, handler->signature->parameter_count, NULL);
}

/* Where the struct a handler returns goes when the accumulator keeps it:
 * the execute's return storage, at the slot its accumulator gives this
 * value; NULL when it is not kept there. */
static void *struct_return_slot(const execution *run, const dc__layout_node *layout) {
    const dc_execute_options *options = run->options;
    size_t index = 0;
    if (options->accumulator == DC_ACCUMULATE_FIRST && run->result.has_return_value) return NULL;
    if (options->accumulator == DC_ACCUMULATE_ALL) {
        index = run->result.return_count;
        if (index > 0 && index >= options->results_capacity) return NULL;
    }
    if (options->return_storage == NULL || options->return_storage_size / layout->size <= index) return NULL;
    return (char *)options->return_storage + index * layout->size;
}

/* accumulate() of a struct value: kept (it is in the return storage) or
 * only counted. Counted only when the execute keeps structs at all. */
COLD static void accumulate_struct(execution *run, dc_value value, bool kept, const dc__layout_node *layout) {
    const dc_execute_options *options = run->options;
    dc_result *result = &run->result;
    if (options->return_storage == NULL || options->return_storage_size < layout->size) return;
    if (kept) {
        if (options->accumulator == DC_ACCUMULATE_ALL) {
            if (result->return_count < options->results_capacity) options->results[result->return_count] = value;
            if (!result->has_return_value) result->return_value = value;
        } else {
            result->return_value = value;
        }
        result->has_return_value = true;
    }
    result->return_count++;
}

/* Runs a handler that returns a struct (a call of run_handler_slowly's);
 * returns false when there was no memory for it. */
COLD static bool call_returning_struct(execution *run, dc_thread_record *reader, const dc__handler *handler,
                                       uint32_t state, dc_value *values, size_t count) {
    const dc__layout_node *layout = handler->signature->return_layout;
    void *slot = struct_return_slot(run, layout);
    /* A slot that holds a kept value (the last's, or the true-handled's) is
     * written only once this handler has returned one: a marshal may decline.
     * DC_ACCUMULATE_ALL's slot is always a fresh one. */
    bool in_place =
        slot != NULL && (!run->result.has_return_value || run->options->accumulator == DC_ACCUMULATE_ALL);
    _Alignas(DC__STRUCT_ALIGNMENT) unsigned char scratch[256];
    void *allocated = NULL;
    void *bytes = in_place ? slot : layout->size <= sizeof scratch ? (void *)scratch : (allocated = malloc(layout->size));
    if (bytes == NULL) return false;
    memset(bytes, 0, layout->size);
    dc_value returned = call_with_values(handler, state, values, count, bytes);
    dc__read_called(reader);
    run->result.handled++;
    if (dc__by_address(returned.type)) {
        if (slot != NULL && !in_place) {
            memcpy(slot, bytes, layout->size);
            returned.pointer = slot;
        }
        accumulate_struct(run, returned, slot != NULL, layout);
    }
    free(allocated);
    return true;
}

/* True when the event's arguments can be handed to a marshal as they are:
 * at least as many as its parameters, each of exactly the parameter's type. */
static bool arguments_are_parameters(const execution *run, const dc_signature *signature) {
    if (run->count < signature->parameter_count) return false;
    for (size_t i = 0; i < signature->parameter_count; i++)
        if (run->arguments[i].type != signature->parameters[i].type) return false;
    return true;
}

/* Fills parameters `from` on, any way their arguments come: missing ones
 * are zero, others converted (check_arguments made sure they convert). */
NOINLINE static void fill_images_from(call_images *images, const dc_signature *signature, size_t first, size_t from,
                                      const dc_value *arguments, size_t count) {
    for (size_t p = from; p < signature->parameter_count; p++) {
        size_t argument = p - first;
        if (LIKELY(argument < count && arguments[argument].type == signature->parameters[p].type)) {
            dc__store_register_image(signature, images->integers, images->floats, p, &arguments[argument]);
        } else {
            dc_value value = parameter_value(arguments, count, argument, signature->parameters[p].type);
            dc__store_register_image(signature, images->integers, images->floats, p, &value);
        }
    }
}

/* Computes the images of a shape. `exact` says the arguments the shape takes
 * have exactly its parameter types (arguments_fit_summary); then a signature
 * of word images with all its arguments there, the common case, is a plain
 * copy. */
ALWAYS_INLINE static inline void fill_images(call_images *images, const dc_signature *signature, uint32_t flags,
                                             const dc_value *arguments, size_t count, bool exact) {
    images->signature = signature;
    images->flags = flags;
    size_t first = first_argument_parameter(flags);
    if (LIKELY(exact && signature->word_images && signature->parameter_count <= count + first)) {
        for (size_t p = first; p < signature->parameter_count; p++) images->integers[p] = arguments[p - first].u64;
        return;
    }
    fill_images_from(images, signature, first, first, arguments, count);
}

/* The call of a handler that run_handler_slowly() found due to run, its
 * arguments converted into `converted` (room for its parameters). */
ALWAYS_INLINE static inline void run_handler_converting(execution *run, dc_thread_record *reader,
                                                        dc__handler *handler, uint32_t state, bool *stop,
                                                        dc_value *converted) {
    dc_value *values = converted;
    size_t count = handler->signature->parameter_count;
    if (state & DC__STATE_VARIADIC) {
        values = (dc_value *)run->arguments;
        count = run->count;
    } else {
        handler_arguments(handler, state, run->arguments, run->count, converted);
    }

    dc_queue *queue = (state & DC__STATE_QUEUED) ? extras_of(run->table, handler)->queue : NULL;
    if (queue != NULL && !dc_queue_is_owner(queue)) {
        dc_status posted = dc__queue_post(queue, run->table, handler, values, count,
                                          first_argument_parameter(state),
                                          (state & DC__STATE_VARIADIC) ? NULL : handler->signature,
                                          &run->table->callbacks);
        if (posted == DC_OK) {
            run->result.queued++;
        } else {
            run->result.dropped++;
            if (state & DC__STATE_ONCE) {
                dc__read_called(reader);
                dc__table_remove_handler(run->table, handler);
            }
        }
        return;
    }

    if (state & DC__STATE_STRUCT_RETURN) {
        if (!call_returning_struct(run, reader, handler, state, values, count)) {
            run->result.dropped++; /* no memory for its return value: not called */
            dc__read_called(reader);
        }
    } else {
        dc_value returned = call_with_values(handler, state, values, count, NULL);
        dc__read_called(reader);
        run->result.handled++;
        if (returned.type != DC_TYPE_VOID) accumulate(run, returned, stop);
    }
    if (state & DC__STATE_ONCE) dc__table_remove_handler(run->table, handler);
}

/* run_handler_converting() of more than DC__FEW_PARAMETERS parameters, in a
 * frame of its own. */
COLD NOINLINE static void run_handler_with_many(execution *run, dc_thread_record *reader, dc__handler *handler,
                                                uint32_t state, bool *stop) {
    dc_value converted[DC_MAX_PARAMETERS];
    run_handler_converting(run, reader, handler, state, stop, converted);
}

/* Runs one handler the general way: once-handlers, queued ones, libffi.
 * Called between dc__read_calling and dc__read_called. */
COLD static void run_handler_slowly(execution *run, dc_thread_record *reader, dc__handler *handler, uint32_t state,
                                    bool *stop) {
    if (state & (DC__STATE_REMOVED | DC__STATE_BLOCK_MASK)) return;
    /* One added with a detail runs only in executes of its key. */
    if ((state & DC__STATE_DETAILED) && handler->event != run->key) return;
    if (state & DC__STATE_ONCE) {
        uint32_t before = atomic_fetch_or_explicit(&handler->state, DC__STATE_FIRED, memory_order_acq_rel);
        if (before & (DC__STATE_FIRED | DC__STATE_REMOVED)) return;
    }
    if (!LIKELY(handler->signature->parameter_count <= DC__FEW_PARAMETERS)) {
        run_handler_with_many(run, reader, handler, state, stop);
        return;
    }
    dc_value converted[DC__FEW_PARAMETERS];
    run_handler_converting(run, reader, handler, state, stop, converted);
}

/* Runs one handler that is more than a void stub call: a marshal, one that
 * returns a value, one on libffi, or one whose state needs care. Kept out of
 * run_handlers so its loop stays small. Returns true when the handler's
 * result stops the emission. */
NOINLINE static bool run_handler_generally(execution *run, dc_thread_record *reader, dc__handler *handler,
                                           uint32_t state, call_images *images) {
    bool stop = false;
    const dc_signature *signature = handler->signature;
    if ((state & DC__STATE_SLOW) || (!(state & DC__STATE_MARSHAL) && signature->stub == NULL)) {
        run_handler_slowly(run, reader, handler, state, &stop);
        return stop;
    }
    dc_value returned;
    if (state & DC__STATE_MARSHAL) {
        /* The arguments go as they are when they are exactly the parameters. */
        if (state & DC__STATE_VARIADIC)
            returned = call_marshal(handler, state, run->arguments, run->count, NULL);
        else if (LIKELY(arguments_are_parameters(run, signature)))
            returned = call_marshal(handler, state, run->arguments, signature->parameter_count, NULL);
        else
            returned = call_marshal_converting(run, handler, state);
    } else {
        if (signature != images->signature || shape_flags(state) != images->flags)
            fill_images(images, signature, shape_flags(state), run->arguments, run->count, run->exact);
        if (state & DC__STATE_TARGET) images->integers[0] = (uint64_t)(uintptr_t)handler->target;
        dc_raw_return raw;
        dc__stub_call(signature->return_class, signature->stub, handler->function, images->integers,
                      images->floats, &raw);
        returned = signature->return_type != DC_TYPE_VOID ? dc__return_value(signature, &raw) : dc_void();
    }
    run->result.handled++;
    if (returned.type != DC_TYPE_VOID) accumulate(run, returned, &stop);
    return stop;
}

static const dc_execute_options default_options = {DC_ACCUMULATE_FIRST, 0, NULL, 0, NULL, 0};

/* What execute() leaves unset until a handler first needs the general way:
 * the record itself (the loop reads what the direct ways need from locals,
 * the table from the frame), its result, the images. */
COLD NOINLINE static void begin_general_calls(execution *run, call_images *images, dc_table *table,
                                              const dc_value *arguments, size_t count,
                                              const dc_execute_options *options) {
    memset(run, 0, sizeof *run);
    run->table = table;
    run->record = NULL; /* read for messages the lean execute never gives */
    run->arguments = arguments;
    run->count = count;
    run->options = options != NULL ? options : &default_options;
    run->exact = true;
    images->signature = NULL;
    images->flags = 0;
}

/* The whole state of a Swift closure taking nothing added without options. */
#define DC__SWIFT_CLOSURE_STATE (DC__STATE_MARSHAL | DC__STATE_SWIFT | DC__STATE_INDIRECT)

/* What the loop says of its walk. */
enum { LOOP_STOPPED = 1, LOOP_GENERAL = 2 };

/* run_handlers()'s call of the handler it announced in `frame` the general
 * way, out of the loop so that the loop keeps nothing of it across its
 * calls: sets *run up first if *outcome says it is not (LOOP_GENERAL), and
 * leaves the call. True when the emission stops. */
NOINLINE static bool call_generally(execution *run, unsigned *outcome, const dc_value *arguments, size_t count,
                                    const dc_execute_options *options, dc_execute_frame *frame,
                                    call_images *images) {
    dc__handler *handler = (dc__handler *)atomic_load_explicit(&frame->calling, memory_order_relaxed);
    /* Read again, which the loop's tests need not keep: a state read after
     * the announcement, as the first was. */
    uint32_t state = atomic_load_explicit(&handler->state, memory_order_acquire);
    if (!(*outcome & LOOP_GENERAL)) {
        begin_general_calls(run, images, frame->table, arguments, count, options);
        *outcome |= LOOP_GENERAL;
    }
    bool stop = run_handler_generally(run, dc__current_record, handler, state, images);
    atomic_store_explicit(&frame->calling, NULL, memory_order_release);
    if (frame->interrupted) run->result.handled -= dc__take_declined(frame);
    return stop || frame->interrupted;
}

/*
 * The one function that runs an event's handlers: calls the snapshot's
 * handlers from `item` to `end` (at least one) in order until one stops the
 * emission. The arguments were checked against every shape before (an
 * execute runs whole or fails). For each handler: announce the call, re-read
 * its state (a handler removed or blocked before is not called), call it the
 * way its registration decided (DC__STATE_INDIRECT, DC__STATE_WIDE), read
 * what the call set in the frame. Handlers called directly with the
 * arguments' words (`word0` to `word2`, when `direct`), and Swift closures,
 * are called here; every other one (once, queued, a marshal, a stub call
 * through images, libffi, a value returned, or arguments to convert) by
 * call_generally(), which counts and accumulates what it calls in *run.
 * `built` says *run is set up; if not, the first handler called the general
 * way sets it up from the frame's table, `arguments`, `count` and `options`.
 * Adds the handlers called the direct ways to *handled; returns LOOP_STOPPED
 * when one stopped the emission, LOOP_GENERAL when *run is set up. Its
 * callers: execute_generally() and run_and_leave() (every other execute).
 */
DC__NO_SANITIZE_FUNCTION ALWAYS_INLINE static inline unsigned run_handlers(
    execution *run, bool built, const dc_value *arguments, size_t count, const dc_execute_options *options, dc_execute_frame *frame, const dc__handler_slot *item,
    const dc__handler_slot *end, call_images *images, bool direct, uint64_t word0, uint64_t word1, uint64_t word2,
    size_t *handled, bool asymmetric_fences) {
    /* A state bit that fails every test of the direct ways when the
     * arguments are not the handlers' own words (FIRED is set only on
     * once-handlers, which the tests send the general way anyway). */
    uint32_t unfit = LIKELY(direct) ? 0 : DC__STATE_FIRED;
    const uint32_t tested = DC__STATE_SLOW | DC__STATE_FIRED | DC__STATE_INDIRECT | DC__STATE_TARGET |
                            DC__STATE_SWIFT | DC__STATE_WIDE;
    _Static_assert(DC__DIRECT_MAX_PARAMETERS == 3, "the direct call passes three words");
    /* Moves one slot ahead for each handler passed that the direct ways did
     * not count (the general way counts in run->result; declined calls): the
     * direct ways counted item - counted_from. */
    const dc__handler_slot *counted_from = item;
    unsigned outcome = built ? LOOP_GENERAL : 0;
    do {
        /* Redefined on every handler, so clang keeps the frame in a
         * callee-saved register rather than moving it in and out of a
         * caller-saved one around each call; gcc keeps it there anyway. */
#if defined(__clang__)
        KEEP_IN_REGISTER(frame);
        KEEP_IN_REGISTER(end);
#endif
        dc__handler *handler = atomic_load_explicit(item, memory_order_acquire);
        uint32_t seen = dc__announce_call(frame, handler, asymmetric_fences) | unfit;
        uint32_t how = seen & tested;
#if SWIFT_CALLS
        /* Where Swift closures exist they are the commonest handlers: one
         * taking nothing, added without options, is known by its whole
         * state, before the mask; with options (a default handler, strict)
         * by the masked test. */
        if (LIKELY(seen == DC__SWIFT_CLOSURE_STATE) || how == (DC__STATE_INDIRECT | DC__STATE_SWIFT)) {
            ((dc__swift_function_0)handler->function)(handler->target);
        } else
#endif
        if (LIKELY(how == 0)) {
            ((void (*)(uint64_t))handler->function)(word0);
#if SWIFT_CALLS
        } else if (how == (DC__STATE_INDIRECT | DC__STATE_SWIFT | DC__STATE_WIDE)) {
            ((dc__swift_function_1)handler->function)(arguments, handler->target);
#endif
        } else if (how == DC__STATE_TARGET) {
            ((void (*)(void *))handler->function)(handler->target);
        } else if (how == DC__STATE_WIDE) {
            ((dc__direct_function)handler->function)(word0, word1, word2);
        } else if (how == (DC__STATE_WIDE | DC__STATE_TARGET)) {
            ((dc__direct_function)handler->function)((uint64_t)(uintptr_t)handler->target, word0, word1);
        } else {
            counted_from++;
            if (call_generally(run, &outcome, arguments, count, options, frame, images)) {
                outcome |= LOOP_STOPPED;
                item++;
                break;
            }
            continue;
        }
        if (frame->interrupted) {
            counted_from += dc__take_declined(frame);
            if (frame->interrupted) {
                outcome |= LOOP_STOPPED;
                item++;
                break;
            }
        }
    } while (++item != end);
    *handled += (size_t)(item - counted_from);
    return outcome;
}

static dc_status check_execute_options(const dc_execute_options *options) {
    const uint32_t known = DC_EXECUTE_REQUIRE_HANDLER | DC_EXECUTE_STRICT;
    if (options->flags & ~known)
        return dc__fail(DC_ERR_INVALID_ARGUMENT, "dc_table_execute: unknown execute flags 0x%x", options->flags & ~known);
    if ((unsigned)options->accumulator > DC_ACCUMULATE_TRUE_HANDLED)
        return dc__fail(DC_ERR_INVALID_ARGUMENT, "dc_table_execute: %d is not a dc_accumulator",
                        (int)options->accumulator);
    if (options->accumulator == DC_ACCUMULATE_ALL && options->results == NULL && options->results_capacity > 0)
        return dc__fail(DC_ERR_INVALID_ARGUMENT, "dc_table_execute: DC_ACCUMULATE_ALL needs results for its capacity");
    if (options->return_storage == NULL && options->return_storage_size > 0)
        return dc__fail(DC_ERR_INVALID_ARGUMENT, "dc_table_execute: return_storage is NULL but its size is %zu",
                        options->return_storage_size);
    return DC_OK;
}

COLD static dc_status fail_lookup(const dc_table *table, dc_event_id event_id, const char *event_name,
                             const dc__event_record *record) {
    if (record == NULL && event_id != 0)
        return dc__fail(DC_ERR_NOT_FOUND, "table %s has no event with id %u", display_name(table), event_id);
    return dc__fail(DC_ERR_DEPTH, "table %s, event \"%s\": executes nested more than %d deep on this thread",
                    display_name(table), record != NULL ? record->name : event_name, DC_MAX_EXECUTE_DEPTH);
}

/* For an execute by a name that was never interned: a malformed key is an
 * error; a detailed key runs the handlers of its event without a detail,
 * when the event is known (*owner; NULL otherwise). */
COLD static dc_status resolve_unknown_key(const dc_table *table, const char *name, const dc__event_record **owner) {
    dc__event_record *event;
    if (!event_of_unknown_key(table, name, strlen(name), &event)) return dc__fail_key(table, name);
    *owner = event;
    return DC_OK;
}

/* The emission hooks, before any handler; what they set in the frame but a
 * stop is not theirs to set. */
COLD static void run_hooks(execution *run, const hook_list *hooks, const dc__event_record *key, const dc__event_record *owner,
                           const char *name, dc_thread_record *reader, dc_execute_frame *frame) {
    dc__run_hooks(run->table, hooks, key, owner, name, run->arguments, run->count, reader);
    frame->interrupted &= DC__FRAME_STOPPED;
}

/* Leaves an execute begun by execute_generally() or execute(): closes
 * the frame and the read-side section (which runs work the thread owes, such
 * as a destroy called from a handler), then hands out the result. */
ALWAYS_INLINE static inline dc_status leave_execute(execution *run, dc_thread_record *reader, unsigned depth,
                                                    dc_execute_frame *frame, const char *event_name,
                                                    dc_status status, dc_result *result) {
    run->result.handled += run->handled;
    run->result.stopped = (frame->interrupted & DC__FRAME_STOPPED) != 0;
    frame->table = NULL;
    /* The message names the table and the event: made inside the section,
     * as the table may be gone once it is left. */
    if (status == DC_OK && (run->options->flags & DC_EXECUTE_REQUIRE_HANDLER) && run->result.handled == 0 &&
        run->result.queued == 0)
        status = dc__fail(DC_ERR_NO_HANDLER, "table %s, event \"%s\": no handler ran", display_name(run->table),
                          run->record != NULL ? run->record->name : event_name);
    dc__read_end_keeping(reader, depth);
    if (status == DC_OK && result != NULL) {
        if (!run->result.has_return_value) run->result.return_value = dc_void();
        *result = run->result;
    }
    return status;
}

/* Every execute the lean one (execute()) leaves alone: options asking for
 * more than strictness, errors, hooks, after-handlers, detailed keys,
 * arguments the summary does not answer for. It runs the same loop. */
NOINLINE static dc_status execute_generally(dc_table *table, dc_event_id event_id, const char *event_name,
                                            const dc_value *arguments, size_t count,
                                            const dc_execute_options *options, void *context,
                                            const dc_signature *source, bool bound, dc_result *result) {
    if (event_id == 0 && event_name == NULL)
        return dc__fail(DC_ERR_NOT_FOUND, "table %s has no event with id 0", display_name(table));
    if (options == NULL) {
        options = &default_options;
    } else {
        dc_status status = check_execute_options(options);
        if (status != DC_OK) return status;
    }
    if (arguments == NULL && count > 0)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_execute: arguments must not be NULL when count is %zu", count);

    unsigned depth;
    dc_thread_record *reader = dc__read_begin_keeping(&depth);
    if (reader == NULL) return dc__fail(DC_ERR_NO_MEMORY, "dc_table_execute: no memory for this thread's record");
    const dc__event_record *record = lookup_event(table, event_id, event_name);
    /* The event whose arrays hold the handlers: a detailed key's event, or
     * for a key never interned, its event if known. */
    const dc__event_record *owner = record;
    if (record != NULL && record->base != NULL) {
        owner = record->base;
    } else if (record == NULL && event_name != NULL) {
        dc_status status = resolve_unknown_key(table, event_name, &owner);
        if (status != DC_OK) {
            dc__read_end_keeping(reader, depth);
            return status;
        }
    }
    if ((record == NULL && event_id != 0) || depth > DC_MAX_EXECUTE_DEPTH) {
        dc_status status = fail_lookup(table, event_id, event_name, record);
        dc__read_end_keeping(reader, depth);
        return status;
    }

    execution run = {.table = table,
                     .record = record != NULL ? record : owner,
                     .arguments = arguments,
                     .count = count,
                     .options = options,
                     .source = source,
                     .bound = bound,
                     .key = record != NULL && record->base != NULL ? record->id : 0};
    dc_execute_frame *frame = &reader->frames[depth - 1];
    frame->table = table;
    frame->context = context;
    frame->interrupted = 0;

    /* The snapshot: handlers added from here on wait for the next execute. */
    dc__handler_array *array = owner != NULL ? atomic_load_explicit(&owner->handlers, memory_order_acquire) : NULL;
    uint32_t handler_count = array != NULL ? atomic_load_explicit(&array->count, memory_order_acquire) : 0;
    dc__handler_array *after = owner != NULL ? atomic_load_explicit(&owner->after, memory_order_acquire) : NULL;
    uint32_t after_count = after != NULL ? atomic_load_explicit(&after->count, memory_order_acquire) : 0;
    run.after = after;
    run.after_count = after_count;

    /* Check every shape before anything runs: the execute runs whole or fails.
     * The shape sets are loaded after the snapshot, so they cover every handler in it. */
    call_images images;
    images.signature = NULL;
    images.flags = 0;
    dc_status status = DC_OK;
    bool direct = false;
    bool strict = options->flags & DC_EXECUTE_STRICT;
    if (handler_count > 0 || after_count > 0) {
        const dc__shape_set *shapes = atomic_load_explicit(&owner->shapes, memory_order_acquire);
        status = check_arguments(&run, shapes, array, handler_count, strict, &images);
        const dc__shape_set *detail_shapes =
            run.key != 0 ? atomic_load_explicit(&record->shapes, memory_order_acquire) : NULL;
        if (detail_shapes != NULL && status == DC_OK)
            status = check_detail(&run, detail_shapes, array, handler_count, strict);
        /* A detailed key's shapes are some of its event's: most_takes covers them. */
        direct = run.exact && count >= shapes->most_takes;
    }
    uint64_t word0 = count > 0 ? arguments[0].u64 : 0;
    uint64_t word1 = count > 1 ? arguments[1].u64 : 0;
    uint64_t word2 = count > 2 ? arguments[2].u64 : 0;
    /* Loaded after the shape sets: a set that says no lean execute for the
     * hooks' sake was published after the hooks. */
    const hook_list *hooks = atomic_load_explicit(&table->hooks, memory_order_acquire);
    if (hooks != NULL && status == DC_OK) run_hooks(&run, hooks, record, owner, event_name, reader, frame);
    if (LIKELY(status == DC_OK) && !(frame->interrupted & DC__FRAME_STOPPED)) {
        bool asymmetric_fences = dc__asymmetric_fences;
        bool stopped = handler_count > 0 &&
                       (run_handlers(&run, true, arguments, count, options, frame, array->items,
                                     array->items + handler_count, &images, direct, word0, word1, word2,
                                     &run.handled, asymmetric_fences) &
                        LOOP_STOPPED);
        if (after_count > 0 && !stopped)
            run_handlers(&run, true, arguments, count, options, frame, after->items,
                         after->items + after_count, &images, direct, word0, word1, word2, &run.handled,
                         asymmetric_fences);
    }
    return leave_execute(&run, reader, depth, frame, event_name, status, result);
}

/* ---- the entries' execute -------------------------------------------------------------------------------- */

/*
 * The execute every entry point inlines (the lean execute), so each gets the
 * copy its constant arguments (no options, id or name, brief or not) make
 * smallest: the commonest execute in full with few instructions, everything
 * else handed to execute_generally() before anything ran. It takes an event
 * that needs nothing but its `handlers` array run in order
 * (dc__lean_allowed(): no hook, no after-handler, not a detailed key),
 * options that ask for nothing but strictness, and arguments the shapes'
 * summary answers for: at least as many as every shape takes (lean_counts),
 * each of exactly the type every shape gives it. Then run_and_leave() calls
 * run_handlers(), the one loop, which calls what needs more than a direct
 * call (once, queued, a value returned) the general way as any execute's
 * loop does. A brief execute reports in the outcome on DC_OK, and writes
 * *result only when the report is detailed (the general way writes it
 * whenever it is not NULL).
 */

/* The outcome of an execute the general way, which wrote `full`: the report
 * says more than the count when anything but handlers returning nothing
 * happened. An execute gives its entry point such a dc__brief_result
 * (a plain execute ignores the report and writes *result) by value, so that
 * it stays in registers: in memory, its return would load the status and
 * `detailed` together across two stores, a store-forwarding stall. */
static dc__brief_result reported(dc_status status, const dc_result *full) {
    bool detailed = full->queued != 0 || full->dropped != 0 || full->return_count != 0 || full->has_return_value ||
                    full->stopped;
    return (dc__brief_result){status, detailed, full->handled};
}

/* Options execute() takes: valid ones asking for nothing it does not do.
 * Accumulators are run_handler_generally()'s, whatever the way in. */
static inline bool lean_options(const dc_execute_options *options) {
    return options == NULL ||
           ((options->flags & ~(uint32_t)DC_EXECUTE_STRICT) == 0 &&
            (unsigned)options->accumulator <= DC_ACCUMULATE_TRUE_HANDLED &&
            !(options->accumulator == DC_ACCUMULATE_ALL && options->results == NULL && options->results_capacity > 0) &&
            !(options->return_storage == NULL && options->return_storage_size > 0));
}

/* execute_generally() for execute(): for a brief execute, the report of
 * what it wrote, to the caller's result or one of its own. */
NOINLINE static dc__brief_result execute_lean_generally(dc_table *table, dc_event_id event_id, const char *event_name,
                                                        const dc_value *arguments, size_t count,
                                                        const dc_execute_options *options, void *context,
                                                        dc_result *result, bool brief, bool bound) {
    dc_result own;
    dc_result *full = result != NULL || !brief ? result : &own;
    dc_status status =
        execute_generally(table, event_id, event_name, arguments, count, options, context, NULL, bound, full);
    if (status != DC_OK || !brief) return (dc__brief_result){status, false, 0};
    return reported(status, full);
}

/* The end of an execute() that called a handler the general way. */
NOINLINE static dc__brief_result leave_generally(execution *run, dc_thread_record *reader, dc_execute_frame *frame,
                                                 dc_result *result, bool brief) {
    dc_result full;
    dc_status status = leave_execute(run, reader, reader->depth, frame, NULL, DC_OK, &full);
    dc__brief_result outcome = reported(status, &full);
    if (result != NULL && (!brief || outcome.detailed)) *result = full;
    return outcome;
}

/* The rest of execute() once `frame` is set up for the snapshot `array`
 * of `handler_count` handlers, whose shapes take the arguments as they are:
 * the loop, and the execute's end. */
DC__NO_SANITIZE_FUNCTION ALWAYS_INLINE static inline dc__brief_result run_and_leave(
    dc_execute_frame *frame, const dc__handler_array *array, uint32_t handler_count, const dc_value *arguments,
    size_t count, const dc_execute_options *options, uint64_t word0, uint64_t word1, uint64_t word2,
    dc_result *result, bool brief, bool asymmetric_fences) {
    KEEP_IN_REGISTER(frame);
    /* begin_general_calls() sets these up when a handler needs the general way. */
    execution run;
    call_images images;
    size_t handled = 0;
    unsigned outcome = run_handlers(&run, false, arguments, count, options, frame, array->items,
                                    array->items + handler_count, &images, true, word0, word1, word2, &handled,
                                    asymmetric_fences);
    if (!LIKELY(!(outcome & LOOP_GENERAL))) {
        run.handled = handled;
        return leave_generally(&run, dc__current_record, frame, result, brief);
    }
    return dc__leave_lean(frame, handled, outcome & LOOP_STOPPED, result, brief, asymmetric_fences);
}

/* execute() inside its section, with the kind of fence fixed. */
DC__NO_SANITIZE_FUNCTION ALWAYS_INLINE static inline dc__brief_result execute_fencing(
    dc_table *table, dc_event_id event_id, const char *event_name, const dc__event_record *known,
    const dc_value *arguments, size_t count, const dc_execute_options *options, void *context, dc_result *result,
    bool brief, bool bound, dc_thread_record *reader, unsigned depth, bool asymmetric_fences) {
    /* dc__read_enter(), the fence known. */
    if (reader->depth = depth, depth == 1) {
        atomic_store_explicit(&reader->epoch, atomic_load_explicit(&dc__global_epoch, memory_order_acquire),
                              memory_order_relaxed);
        dc__light_fence_of(asymmetric_fences);
    }

    const dc__event_record *record = known != NULL ? known : lookup_event(table, event_id, event_name);
    dc__handler_array *array = record != NULL ? atomic_load_explicit(&record->handlers, memory_order_acquire) : NULL;
    uint32_t handler_count = array != NULL ? atomic_load_explicit(&array->count, memory_order_acquire) : 0;
    if (LIKELY(handler_count > 0)) {
        /* Loaded after the snapshot, so it covers every handler in it. */
        const dc__shape_set *shapes = atomic_load_explicit(&record->shapes, memory_order_acquire);
        /* A binding's execute has checked its objects itself. */
        bool strict = options != NULL && (options->flags & DC_EXECUTE_STRICT);
        uint64_t counts = bound ? (strict ? shapes->bound_lean_strict_counts : shapes->bound_lean_counts)
                                : (strict ? shapes->lean_strict_counts : shapes->lean_counts);
        /* NULL arguments with a count are the general execute's error to
         * report; the counts leave none short of what a shape takes. */
        if (LIKELY(count < 64 && ((counts >> count) & 1)) && (arguments != NULL || count == 0)) {
            /* Each argument a shape takes has the type every shape gives it.
             * The direct ways read the words of those arguments only. */
            size_t takes = shapes->most_takes;
            uint64_t word0 = 0, word1 = 0, word2 = 0;
            if (takes > 0) {
                if (!LIKELY(arguments[0].type == (dc_type)shapes->types[0])) goto general;
                word0 = arguments[0].u64;
                if (!LIKELY(takes == 1)) {
                    for (size_t i = 1; i < takes; i++)
                        if (arguments[i].type != (dc_type)shapes->types[i]) goto general;
                    word1 = arguments[1].u64;
                    if (takes > 2) word2 = arguments[2].u64;
                }
            }
            dc_execute_frame *frame = &reader->frames[depth - 1];
            frame->table = table;
            frame->context = context;
            frame->interrupted = 0;
            return run_and_leave(frame, array, handler_count, arguments, count, options, word0, word1, word2,
                                 result, brief, asymmetric_fences);
        }
    }
general:
    dc__read_end_keeping(reader, depth);
    return execute_lean_generally(table, event_id, event_name, arguments, count, options, context, result, brief,
                                  bound);
}

ALWAYS_INLINE static inline dc__brief_result execute(dc_table *table, dc_event_id event_id, const char *event_name,
                                                    const dc__event_record *known, const dc_value *arguments,
                                                    size_t count, const dc_execute_options *options, void *context,
                                                    dc_result *result, bool brief, bool bound) {
    dc_thread_record *reader = dc__current_record;
    if (!LIKELY(reader != NULL && lean_options(options)))
        return execute_lean_generally(table, event_id, event_name, arguments, count, options, context, result,
                                      brief, bound);
    /* dc__read_begin_keeping(), the record known. */
    unsigned depth = reader->depth + 1;
    if (!LIKELY(depth <= DC_MAX_EXECUTE_DEPTH))
        return execute_lean_generally(table, event_id, event_name, arguments, count, options, context, result,
                                      brief, bound);
    /* A copy for each kind of fence, which is fixed before any table exists. */
    if (LIKELY(dc__asymmetric_fences))
        return execute_fencing(table, event_id, event_name, known, arguments, count, options, context, result, brief,
                               bound, reader, depth, true);
    return execute_fencing(table, event_id, event_name, known, arguments, count, options, context, result, brief,
                           bound, reader, depth, false);
}

dc_status dc__table_execute_from(dc_table *table, dc_event_id event, const dc_value *arguments, size_t count,
                                  const dc_signature *source, const dc_execute_options *options, dc_result *result) {
    return execute_generally(table, event, NULL, arguments, count, options, NULL, source, false, result);
}

DC_API dc_status dc_table_execute_with(dc_table *table, const char *event, const dc_value *arguments, size_t count,
                                       const dc_execute_options *options, dc_result *result) {
    if (table == NULL || event == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_execute: table and event must not be NULL");
    return execute(table, 0, event, NULL, arguments, count, options, NULL, result, false, false).status;
}

DC_API dc_status dc_table_execute_id_with(dc_table *table, dc_event_id event, const dc_value *arguments, size_t count,
                                          const dc_execute_options *options, dc_result *result) {
    if (table == NULL) return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_execute_id: the table must not be NULL");
    return execute(table, event, NULL, NULL, arguments, count, options, NULL, result, false, false).status;
}

DC_API dc_status dc_table_execute(dc_table *table, const char *event, const dc_value *arguments, size_t count,
                                  dc_result *result) {
    if (table == NULL || event == NULL)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_execute: table and event must not be NULL");
    return execute(table, 0, event, NULL, arguments, count, NULL, NULL, result, false, false).status;
}

DC_API dc_status dc_table_execute_id(dc_table *table, dc_event_id event, const dc_value *arguments, size_t count,
                                     dc_result *result) {
    if (table == NULL) return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_table_execute_id: the table must not be NULL");
    return execute(table, event, NULL, NULL, arguments, count, NULL, NULL, result, false, false).status;
}

DC__BINDING_API dc_status dc__table_execute(dc_table *table, const char *event, dc_event_id event_id,
                                            const dc_value *arguments, size_t count,
                                            const dc_execute_options *options, void *context, dc_result *result) {
    if (table == NULL) return dc__fail(DC_ERR_NULL_ARGUMENT, "dc__table_execute: the table must not be NULL");
    if (event == NULL && event_id == 0)
        return dc__fail(DC_ERR_NULL_ARGUMENT, "dc__table_execute: the event must not be NULL when its id is 0");
    return execute(table, event != NULL ? 0 : event_id, event, NULL, arguments, count, options, context, result,
                   false, true)
        .status;
}

/* A brief execute. One with no arguments (the Swift layer's `() -> Void`
 * events) is compiled apart, knowing that no argument is read: no NULL test,
 * no argument count to look up (RESULTS.md has its share of a Swift execute
 * by name). Only where
 * Swift calls exist (clang); gcc warns that it cannot prove the NULL unread. */
ALWAYS_INLINE static inline dc__brief_result execute_briefly(dc_table *table, dc_event_id event_id,
                                                             const char *event_name, const dc__event_record *known,
                                                             const dc_value *arguments, size_t count, void *context,
                                                             dc_result *result) {
#if SWIFT_CALLS
    if (count == 0) return execute(table, event_id, event_name, known, NULL, 0, NULL, context, result, true, true);
#endif
    return execute(table, event_id, event_name, known, arguments, count, NULL, context, result, true, true);
}

DC__BINDING_API dc__brief_result dc__table_execute_brief(dc_table *table, const char *event, dc_event_id event_id,
                                                         const dc_value *arguments, size_t count, void *context,
                                                         dc_result *result) {
    if (table == NULL)
        return (dc__brief_result){
            dc__fail(DC_ERR_NULL_ARGUMENT, "dc__table_execute_brief: the table must not be NULL"), false, 0};
    if (event == NULL && event_id == 0)
        return (dc__brief_result){
            dc__fail(DC_ERR_NULL_ARGUMENT, "dc__table_execute_brief: the event must not be NULL when its id is 0"),
            false, 0};
    /* Each way compiled apart, as the public executes by name and by id are. */
    if (event != NULL) return execute_briefly(table, 0, event, NULL, arguments, count, context, result);
    return execute_briefly(table, event_id, NULL, NULL, arguments, count, context, result);
}

DC__BINDING_API dc__brief_result dc__execute_record(dc_table *table, const dc__event_record *record,
                                                    const dc_value *arguments, size_t count, void *context,
                                                    dc_result *result) {
    return execute_briefly(table, record->id, NULL, record, arguments, count, context, result);
}

DC__BINDING_API dc__brief_result dc__execute_record_entered(dc_execute_frame *frame, const dc__handler_array *array,
                                                            uint32_t handler_count, dc_result *result) {
#if SWIFT_CALLS
    return run_and_leave(frame, array, handler_count, NULL, 0, NULL, 0, 0, 0, result, true, true);
#else
    return run_and_leave(frame, array, handler_count, NULL, 0, NULL, 0, 0, 0, result, true, dc__asymmetric_fences);
#endif
}

/* ---- queued deliveries (called by queue.c) ---------------------------------------------------------- */

bool dc__handler_deliverable(const dc__handler *handler) {
    return !(atomic_load_explicit(&handler->state, memory_order_acquire) & (DC__STATE_REMOVED | DC__STATE_BLOCK_MASK));
}

bool dc__handler_deliver(dc_thread_record *reader, dc_table *table, dc__handler *handler, dc_value *values,
                         size_t count) {
    dc_execute_frame *frame = &reader->frames[reader->depth - 1];
    frame->table = table; /* a delivered handler may stop, remove or destroy as in an execute */
    frame->context = NULL;
    frame->interrupted = 0;
    dc__read_calling(reader, handler);
    uint32_t state = atomic_load_explicit(&handler->state, memory_order_acquire);
    bool deliverable = !(state & (DC__STATE_REMOVED | DC__STATE_BLOCK_MASK));
    /* A delivery's return value goes nowhere; a struct still needs room. */
    const dc__layout_node *returned = (state & DC__STATE_STRUCT_RETURN) ? handler->signature->return_layout : NULL;
    _Alignas(DC__STRUCT_ALIGNMENT) unsigned char scratch[256];
    void *allocated = NULL, *struct_return = scratch;
    if (returned != NULL && returned->size > sizeof scratch && (struct_return = allocated = malloc(returned->size)) == NULL)
        deliverable = false; /* no memory: dropped */
    if (deliverable) call_with_values(handler, state, values, count, struct_return);
    free(allocated);
    dc__read_called(reader);
    if ((state & DC__STATE_ONCE) && !(state & DC__STATE_REMOVED)) dc__table_remove_handler(table, handler);
    frame->table = NULL;
    return deliverable;
}

/* ---- what a running handler asks of its execute ----------------------------------------------- */

/* Through its thread's frame of the innermost execute of the table: the
 * context it carries, a stop of the emission, a call that did nothing. */
DC__BINDING_API void *dc__table_execute_context(const dc_table *table) {
    dc_thread_record *reader = dc__current_record;
    for (unsigned depth = reader != NULL && table != NULL ? reader->depth : 0; depth > 0; depth--)
        if (reader->frames[depth - 1].table == table) return reader->frames[depth - 1].context;
    return NULL;
}

/* Sets `flag` in the frame of the innermost execute of `table` on this thread. */
static dc_status interrupt_execute(dc_table *table, uint8_t flag, const char *function) {
    if (table == NULL) return dc__fail(DC_ERR_NULL_ARGUMENT, "%s: the table must not be NULL", function);
    dc_thread_record *reader = dc__current_record;
    for (unsigned depth = reader != NULL ? reader->depth : 0; depth > 0; depth--) {
        if (reader->frames[depth - 1].table == table) {
            reader->frames[depth - 1].interrupted |= flag;
            return DC_OK;
        }
    }
    return dc__fail(DC_ERR_STATE, "%s: no execute of table %s is running on this thread", function,
                    display_name(table));
}

DC_API dc_status dc_table_stop_emission(dc_table *table) {
    return interrupt_execute(table, DC__FRAME_STOPPED, "dc_table_stop_emission");
}

DC__BINDING_API dc_status dc__table_decline_call(dc_table *table) {
    return interrupt_execute(table, DC__FRAME_DECLINED, "dc__table_decline_call");
}
