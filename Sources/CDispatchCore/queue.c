/*
 * queue.c — delivery on a chosen thread: a FIFO of copied calls that the
 * queue's owner runs when it drains, and a descriptor any event loop can wait
 * on (the platform layer's pending signal, platform.h).
 */
#include "internal.h"
#include "platform.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* One posted call: the handler and its parameter values, with the strings
 * duplicated and the objects retained that it owns. */
typedef struct delivery {
    struct delivery *next;
    uint64_t sequence;
    dc_table *table;
    struct dc__handler *handler;
    dc_object_callbacks callbacks;
    uint32_t count;
    uint32_t first_owned; /* values before it (a bound target) are not owned */
    dc_value values[];
} delivery;

struct dc_queue {
    pthread_mutex_t lock;
    _Atomic size_t references;
    _Atomic uint64_t owner; /* thread_id() of the owner */
    dc__pending_signal signal; /* its ends -1 once destroyed */
    bool closed;
    delivery *head, *tail;
    size_t pending;
    uint64_t next_sequence;
};

/* A number per thread, never reused while the process runs (unlike a
 * pthread_t or a thread-local address, which a later thread may get again). */
static _Atomic uint64_t thread_ids = 1;
static _Thread_local uint64_t this_thread_id;

static uint64_t thread_id(void) {
    if (this_thread_id == 0) this_thread_id = atomic_fetch_add_explicit(&thread_ids, 1, memory_order_relaxed);
    return this_thread_id;
}

/* ---- references ------------------------------------------------------------------ */

void dc__queue_retain(dc_queue *queue) { atomic_fetch_add_explicit(&queue->references, 1, memory_order_relaxed); }

static void free_delivery(delivery *item) {
    for (uint32_t i = item->first_owned; i < item->count; i++) {
        dc_value *value = &item->values[i];
        if (value->type == DC_TYPE_STRING)
            free(value->string);
        else if (value->type == DC_TYPE_OBJECT && value->object != NULL && item->callbacks.release != NULL)
            item->callbacks.release(value->object);
    }
    free(item);
}

static void free_list(delivery *item) {
    while (item != NULL) {
        delivery *next = item->next;
        free_delivery(item);
        item = next;
    }
}

void dc__queue_release(dc_queue *queue) {
    if (atomic_fetch_sub_explicit(&queue->references, 1, memory_order_acq_rel) != 1) return;
    free_list(queue->head);
    if (queue->signal.read_end >= 0) dc__pending_signal_close(&queue->signal);
    pthread_mutex_destroy(&queue->lock);
    free(queue);
}

/* ---- the descriptor: readable exactly while deliveries are pending ---------------- */

/* Called under the queue's lock, raising only when pending goes from 0 to 1
 * and lowering when it is back at 0, as dc__pending_signal_raise() asks. */
static void signal_pending(dc_queue *queue) {
    if (queue->signal.read_end >= 0) dc__pending_signal_raise(&queue->signal);
}

static void clear_pending(dc_queue *queue) {
    if (queue->signal.read_end >= 0) dc__pending_signal_lower(&queue->signal);
}

/* ---- public API ----------------------------------------------------------------------- */

DC_API dc_status dc_queue_create(dc_queue **out) {
    if (out == NULL) return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_queue_create: out must not be NULL");
    dc__reclaim_initialize();
    dc_queue *queue = calloc(1, sizeof *queue);
    if (queue == NULL) return dc__fail(DC_ERR_NO_MEMORY, "dc_queue_create: out of memory");
    int error = dc__pending_signal_open(&queue->signal);
    if (error != 0) {
        free(queue);
        return dc__fail(error == ENOMEM || error == EMFILE || error == ENFILE ? DC_ERR_NO_MEMORY : DC_ERR_UNSUPPORTED,
                        "dc_queue_create: %s failed: %s", dc__pending_signal_kind, strerror(error));
    }
    pthread_mutex_init(&queue->lock, NULL);
    atomic_init(&queue->references, 1);
    atomic_init(&queue->owner, thread_id());
    queue->next_sequence = 1;
    *out = queue;
    return DC_OK;
}

DC_API void dc_queue_destroy(dc_queue *queue) {
    if (queue == NULL) return;
    pthread_mutex_lock(&queue->lock);
    delivery *dropped = queue->head;
    queue->head = queue->tail = NULL;
    queue->pending = 0;
    queue->closed = true;
    dc__pending_signal pending = queue->signal;
    queue->signal.read_end = queue->signal.write_end = -1;
    pthread_mutex_unlock(&queue->lock);
    free_list(dropped);
    if (pending.read_end >= 0) dc__pending_signal_close(&pending);
    dc__queue_release(queue);
}

DC_API dc_status dc_queue_bind_to_current_thread(dc_queue *queue) {
    if (queue == NULL) return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_queue_bind_to_current_thread: queue is NULL");
    atomic_store_explicit(&queue->owner, thread_id(), memory_order_release);
    return DC_OK;
}

DC_API bool dc_queue_is_owner(const dc_queue *queue) {
    return queue != NULL && atomic_load_explicit(&queue->owner, memory_order_acquire) == thread_id();
}

DC_API int dc_queue_fd(const dc_queue *queue) {
    if (queue == NULL) return -1;
    dc_queue *mutable_queue = (dc_queue *)queue;
    pthread_mutex_lock(&mutable_queue->lock);
    int fd = queue->signal.read_end;
    pthread_mutex_unlock(&mutable_queue->lock);
    return fd;
}

DC_API size_t dc_queue_pending(const dc_queue *queue) {
    if (queue == NULL) return 0;
    dc_queue *mutable_queue = (dc_queue *)queue;
    pthread_mutex_lock(&mutable_queue->lock);
    size_t pending = queue->pending;
    pthread_mutex_unlock(&mutable_queue->lock);
    return pending;
}

/* ---- posting and dropping (called by execute.c) ---------------------------------------- */

/* The size of struct value `i`: its parameter's, or for a variadic
 * marshal (no signature) the size the value knows. */
static size_t struct_size(const dc_value *value, const dc_signature *signature, size_t i) {
    return signature != NULL ? signature->parameter_layouts[i]->size : dc__value_bytes(value);
}

dc_status dc__queue_post(dc_queue *queue, dc_table *table, struct dc__handler *handler, const dc_value *values,
                         size_t count, size_t first_owned, const dc_signature *signature,
                         const dc_object_callbacks *callbacks) {
    /* Struct bytes follow the values, each at a multiple of DC__STRUCT_ALIGNMENT. */
    size_t struct_bytes = 0;
    for (size_t i = 0; i < count; i++) {
        if (!dc__by_address(values[i].type) || values[i].pointer == NULL) continue;
        if (signature == NULL && dc__value_bytes(&values[i]) == 0)
            return dc__fail(DC_ERR_UNSUPPORTED,
                            "a queued variadic marshal cannot receive a struct whose size is not known (dc_struct; "
                            "dc_struct_of and dc_struct_with_layout say it)");
        struct_bytes += dc__struct_storage_size(struct_size(&values[i], signature, i));
    }
    size_t values_end = sizeof(delivery) + count * sizeof values[0];
    delivery *item = malloc(values_end + (struct_bytes > 0 ? struct_bytes + DC__STRUCT_ALIGNMENT - 1 : 0));
    if (item == NULL) return dc__fail(DC_ERR_NO_MEMORY, "no memory to post a delivery");
    item->next = NULL;
    item->table = table;
    item->handler = handler;
    item->callbacks = *callbacks;
    item->count = (uint32_t)count;
    item->first_owned = (uint32_t)first_owned;
    if (count > 0) memcpy(item->values, values, count * sizeof values[0]); /* values may be NULL when 0 */
    uintptr_t structs = ((uintptr_t)item + values_end + DC__STRUCT_ALIGNMENT - 1) / DC__STRUCT_ALIGNMENT *
                        DC__STRUCT_ALIGNMENT;
    for (size_t i = 0; struct_bytes > 0 && i < count; i++) {
        if (!dc__by_address(values[i].type) || values[i].pointer == NULL) continue;
        size_t size = struct_size(&values[i], signature, i);
        /* The copy knows what the value knew, or its parameter's layout. */
        item->values[i].pointer = memcpy((void *)structs, values[i].pointer, size);
        if (signature != NULL) item->values[i] = dc__struct_value(item->values[i].pointer, signature->parameter_layouts[i]);
        structs += dc__struct_storage_size(size);
    }
    for (size_t i = first_owned; i < count; i++) {
        dc_value *value = &item->values[i];
        if (value->type == DC_TYPE_STRING && value->string != NULL) {
            value->string = strdup(value->string);
            if (value->string == NULL) {
                item->count = (uint32_t)i; /* release only what was taken so far */
                free_delivery(item);
                return dc__fail(DC_ERR_NO_MEMORY, "no memory to copy a string argument for a delivery");
            }
        } else if (value->type == DC_TYPE_OBJECT && value->object != NULL && callbacks->retain != NULL) {
            callbacks->retain(value->object);
        }
    }

    pthread_mutex_lock(&queue->lock);
    /* Checked under the queue lock: a removal marks the handler before it
     * purges, so a delivery is either purged or never queued. */
    bool accepted = !queue->closed && dc__handler_deliverable(handler);
    if (accepted) {
        item->sequence = queue->next_sequence++;
        if (queue->tail != NULL)
            queue->tail->next = item;
        else
            queue->head = item;
        queue->tail = item;
        if (queue->pending++ == 0) signal_pending(queue);
    }
    pthread_mutex_unlock(&queue->lock);
    if (!accepted) {
        free_delivery(item);
        return dc__fail(DC_ERR_STATE, "the delivery was dropped: its queue is destroyed or its handler gone");
    }
    return DC_OK;
}

void dc__queue_purge(dc_queue *queue, const struct dc__handler *handler) {
    delivery *dropped = NULL;
    pthread_mutex_lock(&queue->lock);
    delivery *previous = NULL;
    for (delivery *item = queue->head; item != NULL;) {
        delivery *next = item->next;
        if (item->handler == handler) {
            if (previous != NULL)
                previous->next = next;
            else
                queue->head = next;
            if (queue->tail == item) queue->tail = previous;
            queue->pending--;
            item->next = dropped;
            dropped = item;
        } else {
            previous = item;
        }
        item = next;
    }
    if (queue->pending == 0) clear_pending(queue);
    pthread_mutex_unlock(&queue->lock);
    free_list(dropped);
}

/* ---- draining ---------------------------------------------------------------------------- */

/* The oldest delivery posted before `limit`, taken off the queue; NULL when
 * there is none. */
static delivery *pop_before(dc_queue *queue, uint64_t limit) {
    pthread_mutex_lock(&queue->lock);
    delivery *item = queue->head;
    if (item != NULL && item->sequence < limit) {
        queue->head = item->next;
        if (queue->head == NULL) queue->tail = NULL;
        if (--queue->pending == 0) clear_pending(queue);
    } else {
        item = NULL;
    }
    pthread_mutex_unlock(&queue->lock);
    return item;
}

DC_API dc_status dc_queue_drain(dc_queue *queue, size_t *delivered) {
    if (queue == NULL) return dc__fail(DC_ERR_NULL_ARGUMENT, "dc_queue_drain: queue is NULL");
    pthread_mutex_lock(&queue->lock);
    uint64_t limit = queue->next_sequence;
    pthread_mutex_unlock(&queue->lock);

    size_t count = 0;
    for (;;) {
        /* One delivery per read-side section: a handler's memory stays valid
         * while its delivery runs, and a table being destroyed elsewhere waits
         * for one delivery at most. */
        dc_thread_record *reader = dc__read_begin();
        if (reader == NULL) {
            if (delivered != NULL) *delivered = count;
            return dc__fail(DC_ERR_NO_MEMORY, "dc_queue_drain: no memory for this thread's record");
        }
        if (reader->depth > DC_MAX_EXECUTE_DEPTH) {
            dc__read_end(reader);
            if (delivered != NULL) *delivered = count;
            return dc__fail(DC_ERR_DEPTH, "dc_queue_drain: nested more than %d deep on this thread",
                            DC_MAX_EXECUTE_DEPTH);
        }
        delivery *item = pop_before(queue, limit);
        if (item == NULL) {
            dc__read_end(reader);
            break;
        }
        if (dc__handler_deliver(reader, item->table, item->handler, item->values, item->count)) count++;
        dc__read_end(reader);
        free_delivery(item);
    }
    if (delivered != NULL) *delivered = count;
    return DC_OK;
}
