/*
 * removal.pml — removing and blocking a handler while other threads call it:
 * the waiting rule and the handover of the C core (Sources/CDispatchCore), for
 * SPIN.
 *
 * Every interleaving of 2 or 3 threads, each running its handler a bounded
 * number of times. `make model` generates, compiles and runs the verifier of
 * each configuration below; one by hand, in a scratch folder:
 *
 *     spin -DCYCLE3 -a removal.pml && cc -O2 -DSAFETY -o pan pan.c && ./pan -m100000
 *
 * Memory model: sequentially consistent. Each racing pair the protocol relies
 * on is ordered in the C code by seq_cst fences or by membarrier(2), which
 * gives it sequential consistency: a reader's announce (store `calling`, light
 * fence, load the handler's state) against the writer's seq_cst update of the
 * state and dc__heavy_fence(); a leave (store `calling = NULL`, light fence,
 * load `deferred`) against the remover's push of a ticket, dc__heavy_fence()
 * and re-check; the `waiting` flag, set and read seq_cst. The fences are
 * therefore no steps here. Each load or store of shared state is one step; a
 * compare-and-swap, exchange or fetch-and-add is one atomic step.
 *
 * What stands for what:
 *
 *   Thread(self, ...)        a thread: `iterations` times, an execute (a read-side
 *                            section, depth 1) calling `handler`, which runs an
 *                            execute (depth 2) calling `inner` unless that is
 *                            NONE; the innermost call removes `target`, or
 *                            blocks and then unblocks it. With handler NONE the
 *                            thread does that outside every section instead.
 *   calling[self, d]         dc_thread_record.frames[d].calling
 *   depth_of[self]           dc_thread_record.depth
 *   waiting[self]            dc_thread_record.waiting
 *   in_use[self]             dc_thread_record.in_use (false once the thread exited)
 *   deferred[self]           dc_thread_record.deferred, as a set: bit h is the
 *                            ticket of h's handover (a handler is removed once,
 *                            so it has one handover and one ticket per record)
 *   removed[h], blocks[h]    dc__handler.state: DC__STATE_REMOVED, the block count
 *   unresolved[h]            handover.unresolved
 *   holders[h]               handover.holders (0: freed)
 *   resolved[h, r]           handover_ticket.resolved, of the ticket on record r
 *   remove(), block(),       dc_table_remove() (unlink_handler() under the table
 *   unblock()                lock, finish_removal(), finish_handlers()),
 *                            dc_table_block(), dc_table_unblock()
 *   wait_for_calls()         reclaim.c: dc__wait_for_calls(), with
 *                            wait_for_record(), record_calls(), claim(),
 *                            resolve_part(), let_go()
 *   finish(h)                the destroy notify of h: finish_handlers(), called
 *                            by the remover or, handed over, finish_handed_over()
 *   announce()               dc__announce_call() and the state test after it
 *   leave()                  dc__read_leave_fencing(), dc__read_leave_deferring(),
 *                            run_deferred(), run_ticket(outside = false)
 *   run_outside()            run_outside(), run_ticket(outside = true)
 *   thread_exit()            release_record_at_thread_exit()
 *
 * Not modeled: epochs, dc__synchronize() and freeing the table; queues; what a
 * destroy notify does (one that removes, blocks or executes); running out of
 * memory (the wait without skipping when no handover can be allocated); more
 * than 2 frames (DC_MAX_EXECUTE_DEPTH + 1 in C). A busy wait (the loop around
 * wait_for_record()'s back_off()) is a statement that blocks until what it
 * reads changes: a thread that would spin forever is a blocked process, and a
 * state where every thread is one is an invalid end state.
 *
 * Properties:
 *   1. No deadlock: no invalid end state; every run ends with each thread at
 *      its end.
 *   2. A call of h starts (its state test passes) only while no remove of h
 *      has returned, and no block of h has returned without its unblock.
 *   3. finish(h) runs exactly once per removed handler (checked when it runs,
 *      and at the end: once for each handler removed, never for the others),
 *      and only while no other thread is inside a call of h. "Other", as
 *      dc_handler_options.destroy says: a handler that removed itself is still
 *      in its call when the remover finishes it (SELF2).
 *   4. A remove or block made outside every section returns only when no
 *      other thread is inside a call of h.
 *   The weakening, expected to hold: a remove or block made inside a handler
 *   returns while another thread is inside a call of h only when it skipped
 *   that thread, and it skips a thread only while that thread is waiting
 *   inside a section, inside a call of h (the call is then h's last, by 2);
 *   finish still waits for that call (3). Also: no handover is used or let go
 *   once freed.
 *
 * Configurations (-D when generating the verifier), each thread running its
 * handler ITERATIONS (2) times:
 *   CYCLE2          T0's h1 removes h2, T1's h2 removes h1: two threads
 *                   removing each other's handler
 *   CYCLE2_NESTED   the same from executes nested in the calls of h1 and h2
 *                   (calling h3 and h4): the nested leave must keep the ticket
 *                   of the handler still called below it
 *   CYCLE3          T0's h1 removes h2, T1's h2 removes h3, T2's h3 removes h1
 *   BLOCK2          h1 on T0 and on T1 blocks itself, then unblocks itself
 *   SELF2           h1 on T0 and on T1 removes itself
 *   OUTSIDE         T0, outside every section, removes h1 once, while T1's h1
 *                   removes h2 and T2's h2 blocks and unblocks h1
 *   NESTED3         T0's h1 calls h4 (nested), which removes h2; T1's h2
 *                   removes h1; T2's h3 removes h4. With LAZY_ARRAY,
 *                   finish(h1) never runs: T0 is handed both h4 and h1; its
 *                   outermost leave takes h4's ticket, T1 pushes h1's just
 *                   after, and run_outside() lets it go as the remover's to
 *                   resolve; T0's next execute announces h1 (removed, still
 *                   in its event's array) before T1's re-check, which
 *                   therefore leaves the ticket to T0.
 *
 * Switches:
 *   NO_SKIP         mutant: a thread inside a section waits for every thread,
 *                   as one outside does; the cycles end in an invalid end
 *                   state (1)
 *   NO_HANDOVER     mutant: a remove that skipped a call finishes h at once;
 *                   3 fails
 *   CHECK_RELEASE   also require every handover freed at the end; fails, as
 *                   told at wait_for_calls() below
 *   LAZY_ARRAY      mutant: a removed handler stays in its event's array, so
 *                   an execute that loads its entry after the removal still
 *                   announces it (the code puts an always-removed tombstone
 *                   in the entry on removal, which is announced instead);
 *                   NESTED3 fails
 *   OUTSIDE_KEEP    a candidate fix: run_ticket(outside = true) keeps an
 *                   unresolved ticket for a later leave instead of letting it
 *                   go: NESTED3 holds
 */

#define NONE    0 /* calling: no handler; Thread: no handler, no nested execute */
#define NH      4 /* handlers are 1 .. NH */
#define TOMB_ID 7 /* what an array entry holds once its handler is removed */
#define DEPTH   2 /* frames per record: the handler's call, one execute nested in it */

#define REMOVE  1 /* the handler's body removes its target */
#define BLOCK   2 /* the handler's body blocks its target, then unblocks it */

#ifndef ITERATIONS
#define ITERATIONS 2
#endif

#if defined(CYCLE3) || defined(NESTED3) || defined(OUTSIDE)
#define NT 3
#elif defined(CYCLE2) || defined(CYCLE2_NESTED) || defined(BLOCK2) || defined(SELF2)
#define NT 2
#else
#error "choose a configuration: -DCYCLE2, -DCYCLE2_NESTED, -DCYCLE3, -DNESTED3, -DBLOCK2, -DSELF2 or -DOUTSIDE"
#endif

/* ---- shared state ---------------------------------------------------------------- */

byte calling[NT * DEPTH];
byte depth_of[NT];
bool waiting[NT];
bool in_use[NT];
byte deferred[NT];

bool removed[NH + 1];
byte blocks[NH + 1];

byte unresolved[NH + 1];
byte holders[NH + 1];
bool resolved[(NH + 1) * NT];

#define CALLING(t, d)   calling[(t) * DEPTH + (d)]
#define RESOLVED(h, t)  resolved[(h) * NT + (t)]
#define BIT(n)          (1 << (n))

/* ---- ghost state: what the properties are stated over ------------------------------ */

bool in_call[NT * (NH + 1)];  /* thread t is inside a call of h (its state test passed, not yet returned) */
#define IN_CALL(t, h)   in_call[(t) * (NH + 1) + (h)]
byte finished[NH + 1];        /* times finish(h) ran */
bool remove_returned[NH + 1]; /* a remove of h has returned */
byte block_returned[NH + 1];  /* blocks of h that have returned, less the unblocks since */

/* ---- the handover (reclaim.c) ------------------------------------------------------------ */

/* The destroy notify. Property 3: once, and no call of h running on another
 * thread (a handler that removed itself is still in its call here). */
inline finish(h) {
    atomic {
        assert(finished[h] == 0);
        finished[h]++;
        t = 0;
        do
        :: t == NT -> t = 0; break
        :: t < NT -> assert(t == self || !IN_CALL(t, h)); t++
        od
    }
}

/* resolve_part(): whoever brings unresolved to 0 finishes. */
inline resolve_part(h) {
    atomic { unresolved[h]--; last = (unresolved[h] == 0) }
    if
    :: last -> last = false; finish(h)
    :: else
    fi
}

/* claim(): compare-and-swap of the ticket's resolved, false -> true. */
inline claim(h, rec) {
    atomic { won = !RESOLVED(h, rec); RESOLVED(h, rec) = true }
}

/* let_go(): the last holder frees the handover. */
inline let_go(h) {
    atomic { assert(holders[h] > 0); holders[h]-- }
}

/* record_calls(): whether any frame of `rec` calls h, one frame at a time. */
inline record_calls(rec, h) {
    calls = false;
    d = 0;
    do
    :: d == DEPTH -> d = 0; break
    :: atomic { d < DEPTH && CALLING(rec, d) == h -> calls = true; d = 0 }; break
    :: d < DEPTH && CALLING(rec, d) != h -> d++
    od
}

/* wait_for_record(): waits while a frame of `rec` calls h; gives up (waited
 * false) when `rec` is waiting itself and this wait may skip. */
inline wait_for_record(rec, h) {
    d_step { waited = true; d = 0 }
    do
    :: d == DEPTH -> d = 0; break
    :: d < DEPTH ->
        if
        :: CALLING(rec, d) != h -> d++
        :: CALLING(rec, d) == h ->
            if
            :: atomic {
                   may_skip && waiting[rec] ->
                   /* The weakening: only a thread waiting inside a section,
                    * in a call of h, is skipped (checked as the load sees it). */
                   assert(depth_of[rec] > 0 && IN_CALL(rec, h));
                   waited = false;
                   d = 0
               };
                break
            :: else ->
                /* back_off(): until either load would read otherwise */
                (CALLING(rec, d) != h || (may_skip && waiting[rec]))
            fi
        fi
    od
}

/*
 * dc__wait_for_calls(h, finish or NULL): handed is true when the finishing of h
 * went to the threads skipped (the remover then does not finish h itself).
 *
 * The tickets are pushed after the whole scan. A skipped thread may meanwhile
 * stop waiting, return from h, leave its last section and exit
 * (release_record_at_thread_exit() having dropped what its list held then):
 * the ticket then lands on a record not in use, the remover's re-check
 * resolves it, and the handover is freed only when another thread adopts that
 * record and leaves a section. CHECK_RELEASE shows that run.
 */
inline wait_for_calls(h, is_remove) {
    may_skip = (depth_of[self] > 0);
#ifdef NO_SKIP
    may_skip = false;
#endif
    if
    :: may_skip -> waiting[self] = true
    :: else
    fi;
    skipped = 0;
    tickets = 0;
    r = 0;
    do
    :: r == NT -> r = 0; break
    :: r < NT && (r == self || !in_use[r]) -> r++
    :: r < NT && r != self && in_use[r] ->
        wait_for_record(r, h);
        if
        :: !waited -> skipped = skipped | BIT(r); tickets++; waited = true
        :: else
        fi;
        r++
    od;
    if
    :: may_skip -> waiting[self] = false
    :: else
    fi;
    handed = false;
#ifndef NO_HANDOVER
    if
    :: is_remove && tickets > 0 ->
        unresolved[h] = tickets + 1;  /* the tickets and the remover's own part */
        holders[h] = tickets + 1;
        /* dc__defer() onto each skipped record */
        r = 0;
        do
        :: r == NT -> r = 0; break
        :: r < NT && (skipped & BIT(r)) -> deferred[r] = deferred[r] | BIT(h); r++
        :: r < NT && !(skipped & BIT(r)) -> r++
        od;
        /* dc__heavy_fence(); then each skipped record seen no longer calling h
         * has its ticket claimed and resolved here */
        do
        :: r == NT -> r = 0; break
        :: r < NT && (skipped & BIT(r)) ->
            record_calls(r, h);
            if
            :: calls -> calls = false
            :: else ->
                claim(h, r);
                if
                :: won -> won = false; resolve_part(h)
                :: else
                fi
            fi;
            r++
        :: r < NT && !(skipped & BIT(r)) -> r++
        od;
        resolve_part(h);
        let_go(h);
        handed = true
    :: else
    fi
#endif
}

/* Once a remove or block of h has returned: property 4 when made outside
 * every section, the weakening when made inside one. */
inline check_returned(h) {
    atomic {
        t = 0;
        do
        :: t == NT -> t = 0; break
        :: t < NT ->
            assert(t == self || !IN_CALL(t, h) || depth_of[self] > 0);       /* 4 */
            assert(t == self || !IN_CALL(t, h) || (skipped & BIT(t)) != 0);  /* weakening */
            t++
        od;
        skipped = 0; tickets = 0; may_skip = false; handed = false
    }
}

/* ---- writers (table.c) -------------------------------------------------------------------- */

inline remove(h) {
    /* unlink_handler() under the table lock; the remove of a handler removed
     * already is DC_ERR_NOT_FOUND */
    atomic { found = !removed[h]; removed[h] = true }
    if
    :: found ->
        wait_for_calls(h, true);
        if
        :: !handed -> finish(h)  /* finish_handlers() */
        :: else
        fi;
        check_returned(h);
        remove_returned[h] = true
    :: else
    fi;
    found = false
}

inline block(h) {
    atomic {
        found = !removed[h];
        if
        :: found -> blocks[h]++
        :: else
        fi
    }
    if
    :: found ->
        wait_for_calls(h, false);
        check_returned(h);
        block_returned[h]++
    :: else
    fi
}

/* After block(h): the unblock of a handler removed meanwhile is
 * DC_ERR_NOT_FOUND. */
inline unblock(h) {
    atomic {
        if
        :: found ->
            block_returned[h]--;
            if
            :: !removed[h] -> blocks[h]--
            :: else
            fi
        :: else
        fi;
        found = false
    }
}

/* ---- readers (dispatch_core_inline.h, reclaim.c) ------------------------------------------- */

inline enter(dd) {
    depth_of[self] = dd
}

/* dc__announce_call() and the state test after it. Property 2. */
inline announce(dd, hh) {
#ifndef LAZY_ARRAY
    /* The array entry, loaded before the announce: the tombstone once hh is
     * removed, which is announced and never called. */
    if
    :: removed[hh] -> CALLING(self, dd - 1) = TOMB_ID; callable = false
    :: else -> CALLING(self, dd - 1) = hh; callable = true
    fi;
#else
    CALLING(self, dd - 1) = hh;
    callable = true;
#endif
    /* light fence */
    atomic {
        callable = callable && !removed[hh] && blocks[hh] == 0;
        if
        :: callable ->
            assert(!remove_returned[hh] && block_returned[hh] == 0);  /* 2 */
            IN_CALL(self, hh) = true
        :: else
        fi
    }
}

/* The lowest ticket of the taken list, out of it. */
inline next_item() {
    d_step {
        item = 1;
        do
        :: list & BIT(item) -> break
        :: else -> item++
        od;
        list = list & ~BIT(item)
    }
}

/* run_deferred(record, true): each ticket run_ticket(outside = true), which
 * lets go of it, leaving its resolving to the remover; ran when anything ran. */
inline run_deferred_outside() {
    atomic { list = deferred[self]; deferred[self] = 0 }
    do
    :: list == 0 -> break
    :: list != 0 ->
        next_item();
#ifdef OUTSIDE_KEEP
        /* A candidate fix: an unresolved ticket stays for a later leave. */
        if
        :: !RESOLVED(item, self) -> kept = kept | BIT(item)
        :: else -> let_go(item); ran = true
        fi;
#else
        let_go(item);
        ran = true;
#endif
        item = 0
    od;
    if
    :: kept != 0 -> deferred[self] = deferred[self] | kept; kept = 0  /* dc__defer() */
    :: else
    fi
}

inline run_outside() {
    do
    :: deferred[self] != 0 ->
        run_deferred_outside();
        if
        :: ran -> ran = false
        :: else -> break
        fi
    :: else -> break
    od
}

/* dc__read_leave_fencing() at depth dd. */
inline leave(dd) {
    CALLING(self, dd - 1) = NONE;
    /* light fence */
    if
    :: deferred[self] != 0 ->
        /* dc__read_leave_deferring(): run_deferred(record, false), each ticket
         * run_ticket(outside = false) */
        atomic { list = deferred[self]; deferred[self] = 0 }
        do
        :: list == 0 -> break
        :: list != 0 ->
            next_item();
            assert(holders[item] > 0);
            if
            :: !RESOLVED(item, self) -> record_calls(self, item)
            :: else
            fi;
            if
            :: calls -> calls = false; kept = kept | BIT(item)  /* still called here: kept */
            :: else ->
                claim(item, self);
                if
                :: won -> won = false; resolve_part(item)
                :: else
                fi;
                let_go(item)
            fi;
            item = 0
        od;
        if
        :: kept != 0 -> deferred[self] = deferred[self] | kept; kept = 0  /* dc__defer() */
        :: else
        fi;
        depth_of[self] = dd - 1;
        if
        :: dd == 1 -> run_outside()
        :: else
        fi
    :: else ->
        depth_of[self] = dd - 1
    fi
}

/* release_record_at_thread_exit() */
inline thread_exit() {
    run_deferred_outside();
    ran = false;
    in_use[self] = false
}

/* ---- threads -------------------------------------------------------------------------------- */

proctype Thread(byte self; byte handler; byte inner; byte action; byte target; byte iterations) {
    byte iteration, d, r, t, item, list, kept, skipped, tickets;
    bool callable, found, may_skip, waited, handed, calls, won, last, ran;

    iteration = 0;
    do
    :: iteration == iterations -> break
    :: iteration < iterations ->
        if
        :: handler != NONE -> enter(1); announce(1, handler)
        :: else -> callable = true  /* outside every section */
        fi;
        if
        :: callable && inner != NONE -> enter(2); announce(2, inner)  /* an execute nested in the call */
        :: else
        fi;
        if
        :: callable && action == REMOVE -> remove(target)
        :: callable && action == BLOCK -> block(target); unblock(target)
        :: else
        fi;
        if
        :: inner != NONE && depth_of[self] == 2 -> IN_CALL(self, inner) = false; leave(2)
        :: else
        fi;
        if
        :: handler != NONE -> IN_CALL(self, handler) = false; leave(1)
        :: else
        fi;
        callable = false;
        iteration++
    od;
    thread_exit()
}

init {
    byte h;
    atomic {
        h = 0;
        do
        :: h == NT -> break
        :: h < NT -> in_use[h] = true; h++
        od;
        /*         self handler inner  action  target */
#if defined(CYCLE2)
        run Thread(0,   1,      NONE,  REMOVE, 2,     ITERATIONS);
        run Thread(1,   2,      NONE,  REMOVE, 1,     ITERATIONS);
#elif defined(CYCLE2_NESTED)
        run Thread(0,   1,      3,     REMOVE, 2,     ITERATIONS);
        run Thread(1,   2,      4,     REMOVE, 1,     ITERATIONS);
#elif defined(CYCLE3)
        run Thread(0,   1,      NONE,  REMOVE, 2,     ITERATIONS);
        run Thread(1,   2,      NONE,  REMOVE, 3,     ITERATIONS);
        run Thread(2,   3,      NONE,  REMOVE, 1,     ITERATIONS);
#elif defined(NESTED3)
        run Thread(0,   1,      4,     REMOVE, 2,     ITERATIONS);
        run Thread(1,   2,      NONE,  REMOVE, 1,     ITERATIONS);
        run Thread(2,   3,      NONE,  REMOVE, 4,     ITERATIONS);
#elif defined(BLOCK2)
        run Thread(0,   1,      NONE,  BLOCK,  1,     ITERATIONS);
        run Thread(1,   1,      NONE,  BLOCK,  1,     ITERATIONS);
#elif defined(SELF2)
        run Thread(0,   1,      NONE,  REMOVE, 1,     ITERATIONS);
        run Thread(1,   1,      NONE,  REMOVE, 1,     ITERATIONS);
#elif defined(OUTSIDE)
        run Thread(0,   NONE,   NONE,  REMOVE, 1,     1);
        run Thread(1,   1,      NONE,  REMOVE, 2,     ITERATIONS);
        run Thread(2,   2,      NONE,  BLOCK,  1,     ITERATIONS);
#endif
    }
    (_nr_pr == 1);  /* every thread has ended */
    h = 1;
    do
    :: h > NH -> break
    :: h <= NH ->
        assert(finished[h] == removed[h]);  /* 3: exactly once per removed handler */
#ifdef CHECK_RELEASE
        assert(holders[h] == 0);
#endif
        h++
    od
}
