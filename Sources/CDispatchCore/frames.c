/*
 * frames.c — what a running handler asks of the execute that called it,
 * through the frame its thread keeps for each execute it is inside
 * (dispatch_core_binding.h): the context the execute carries, a stop of the
 * emission, a call that did nothing. The innermost execute of the table on
 * the calling thread is the one asked.
 */
#include "table.h"

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
