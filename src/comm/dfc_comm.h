/*
 * dfc_comm.h - the comm layer: communicators, groups, info, datatypes and ops, requests,
 * point-to-point matching and the host progress engine.
 *
 * Depends on util, pmix (init/finalize only) and tl. The coll layer builds on this header;
 * the api layer checks arguments and calls in.
 */
#ifndef DFC_COMM_H
#define DFC_COMM_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "dfc.h"
#include "cuda/dfc_cuda.h"
#include "util/dfc_util.h"

/* ---- Process-wide state ----------------------------------------------------------------- */
typedef struct dfc_proc {
    int initialized, finalized;
    int thread_level;
    pthread_t main_thread;
    int world_rank, world_size;
    int local_rank, local_size;
    int kernel_size; /* processes of the job on this kernel (init.c), >= local_size */
    int singleton;
    char hostname[256];
    char nspace[256];
    int appnum, universe_size; /* from PMIx; -1 when the launcher does not say */
} dfc_proc_t;
extern dfc_proc_t dfc_proc;

/* One lock guards all library state when several threads may call in (thread level
 * MULTIPLE or the async progress thread). It is a no-op otherwise. Blocking waits drop it
 * while they sleep. A thread that changed state (dfc_progress_changed) wakes the threads
 * of its process asleep in a wait (dfc_lock_sleepers) as it drops the lock: both are read
 * and written only under the lock (progress.c, dfc(7) "Waiting"). */
extern int dfc_lock_enabled;
/* Alone on its cache line: a thread that spins on the lock takes the line, and each
 * API call reads dfc_lock_enabled and dfc_proc beside it. */
typedef struct dfc_lock_line {
    _Alignas(64) pthread_mutex_t mutex;
} dfc_lock_line_t;
extern dfc_lock_line_t dfc_big_lock;
extern int dfc_lock_sleepers, dfc_progress_changed;
/* Threads that found the lock held and wait for it now (dfc_lock_contended): the progress
 * thread lets them take it before it takes it again (progress.c), since a spinning or woken
 * thread would otherwise lose every race against one that never stopped. Atomic: read
 * without the lock. */
extern int dfc_lock_wanted;
void dfc_progress_wake(void);
/* Takes the lock when a first try found it held: spins DFC_LOCK_SPIN_US, then sleeps in the
 * mutex (progress.c). A thread that sleeps there pays a futex wake-up (microseconds, more
 * than a small nonblocking call) and makes the holder's unlock a system call. */
void dfc_lock_contended(void);
#define DFC_LOCK()                                                                                \
    do {                                                                                          \
        if (dfc_lock_enabled && pthread_mutex_trylock(&dfc_big_lock.mutex)) dfc_lock_contended(); \
    } while (0)
#define DFC_UNLOCK()                                                            \
    do {                                                                        \
        if (dfc_lock_enabled) {                                                 \
            if (dfc_lock_sleepers && dfc_progress_changed) dfc_progress_wake(); \
            pthread_mutex_unlock(&dfc_big_lock.mutex);                          \
        }                                                                       \
    } while (0)

/* ---- Info ------------------------------------------------------------------------------- */
typedef struct dfc_info {
    int handle;
    int nkeys, cap;
    char **keys, **vals; /* in insertion order, as MPI's get_nthkey expects */
} dfc_info_t;

extern dfc_htable_t dfc_info_table;
dfc_info_t *dfc_info_new(void);                   /* NULL on out-of-memory; no handle */
dfc_info_t *dfc_info_copy(const dfc_info_t *src); /* NULL on out-of-memory; no handle */
void dfc_info_destroy(dfc_info_t *info);          /* also removes its handle if it has one */
const char *dfc_info_lookup(const dfc_info_t *info, const char *key);   /* NULL if absent */
int dfc_info_put(dfc_info_t *info, const char *key, const char *value); /* DFC_SUCCESS/err */
int dfc_info_init(void);      /* the table and DFC_INFO_ENV */
void dfc_info_finalize(void); /* frees DFC_INFO_ENV and the table */
/* Removes key; DFC_ERR_INFO_NOKEY (message naming func) when it is absent. */
int dfc_info_remove(dfc_info_t *info, const char *key, const char *func);
/* A user copy (new handle in *out) of src, or an empty info for NULL; DFC_ERR_NO_MEM naming
 * func when out of memory. */
int dfc_info_dup_handle(const dfc_info_t *src, const char *func, DFC_Info *out);
/* DFC_Info_create_env: a user copy of DFC_INFO_ENV plus "command" (argv[0]) and "argv" (the
 * other arguments, blank-separated) when argc > 0. */
int dfc_info_create_env(int argc, char *argv[], const char *func, DFC_Info *out);


/* ---- Groups ------------------------------------------------------------------------------
 * A group is an ordered list of world ranks (DFC has no dynamic processes). */
typedef struct dfc_group {
    int handle;   /* 0 while the group has no user handle */
    int refcount; /* communicators and the user each hold a reference */
    int size;
    int rank;   /* this process's rank in the group or DFC_UNDEFINED */
    int *world; /* world rank of each member */
} dfc_group_t;

extern dfc_htable_t dfc_group_table;
/* Creates a group from `size` world ranks (copied); refcount 1, no handle. */
dfc_group_t *dfc_group_new(int size, const int *world_ranks);
void dfc_group_retain(dfc_group_t *g);
void dfc_group_release(dfc_group_t *g); /* frees at refcount 0 (never GROUP_EMPTY) */
/* Rank of world rank `w` in g, or DFC_UNDEFINED. */
int dfc_group_rank_of(const dfc_group_t *g, int w);
extern dfc_group_t dfc_group_empty;
/* Every non-empty group must come from dfc_group_new: it carries a hidden index (sorted
 * world ranks) that dfc_group_rank_of reads. */
int dfc_group_init(void);      /* before any group is built: the table and DFC_GROUP_EMPTY */
void dfc_group_finalize(void); /* after communicators are gone */
/* Checks a group handle; records "<func>: invalid argument <argname>: ..." (DFC_ERR_GROUP). */
int dfc_group_check(DFC_Group h, const char *func, const char *argname, dfc_group_t **out);
/* Gives the user a handle for g, consuming one reference of the caller (which becomes the
 * handle's). g already having a handle (DFC_Comm_group twice) returns the same handle. */
int dfc_group_publish(dfc_group_t *g, DFC_Group *out);
/* A new group of `size` world ranks with its own user handle in *out (DFC_Comm_group: each
 * call a new object); DFC_ERR_NO_MEM naming func when out of memory. */
int dfc_group_new_handle(int size, const int *world_ranks, const char *func, DFC_Group *out);
/* The algebra. Each returns DFC_SUCCESS and a new reference in *out (dfc_group_empty for an
 * empty result), or an error code whose message names `func` and the bad argument. */
int dfc_group_incl(dfc_group_t *g, int n, const int ranks[], const char *func, dfc_group_t **out);
int dfc_group_excl(dfc_group_t *g, int n, const int ranks[], const char *func, dfc_group_t **out);
int dfc_group_range_incl(dfc_group_t *g, int n, int ranges[][3], const char *func,
                         dfc_group_t **out);
int dfc_group_range_excl(dfc_group_t *g, int n, int ranges[][3], const char *func,
                         dfc_group_t **out);
int dfc_group_union(const dfc_group_t *a, const dfc_group_t *b, dfc_group_t **out);
int dfc_group_intersection(const dfc_group_t *a, const dfc_group_t *b, dfc_group_t **out);
int dfc_group_difference(const dfc_group_t *a, const dfc_group_t *b, dfc_group_t **out);
/* ranks2[i] = rank in b of the process of rank ranks1[i] in a (DFC_PROC_NULL stays
 * DFC_PROC_NULL, absent -> DFC_UNDEFINED). */
int dfc_group_translate_ranks(const dfc_group_t *a, int n, const int ranks1[], const dfc_group_t *b,
                              const char *func, int ranks2[]);
/* DFC_IDENT, DFC_SIMILAR or DFC_UNEQUAL. */
int dfc_group_compare(const dfc_group_t *a, const dfc_group_t *b);


/* ---- Datatypes ---------------------------------------------------------------------------
 * Every type is described by its layout (dataloop.c): a list of blocks, block i being
 * blens[i] consecutive items of a child type at byte displacement displs[i]. A vector keeps
 * the list implicit (count, blocklength, stride: O(1) whatever its count). The engine moves
 * a type's data packed: `size` bytes per item, in type-map order. A type whose data is one
 * run of `size` bytes starting at the buffer itself (`dense`) is used in place; any other is
 * packed into and unpacked out of contiguous buffers, resumable at any byte offset. */
enum { DFC_DL_VECTOR = 1, DFC_DL_BLOCKS };

typedef struct dfc_dtype dfc_dtype_t;
struct dfc_dtype {
    int handle;
    int refcount;
    int builtin;  /* predefined: never freed */
    int base;     /* index (low 24 bits of the handle) of the predefined element type; -1 when
                     a derived type mixes several (no predefined reduction applies) */
    size_t size;  /* packed bytes of one item, as DFC moves it: pair types (DFC_DOUBLE_INT...)
                     count their padding; MPI's size is mpi_size */
    size_t nbase; /* number of predefined elements in one item */
    size_t nelem; /* basic elements in one item as Get_elements counts them (a pair is 2) */
    size_t mpi_size;
    size_t align; /* strictest alignment of its elements (struct extents are padded to it) */
    DFC_Aint lb, extent;
    DFC_Aint true_lb, true_extent;
    int contig; /* the data of one item is one run of `size` bytes starting at true_lb */
    int dense;  /* contig, true_lb == 0 and size == extent: count items are count*size bytes
                     at the buffer, moved in place */
    int committed;
    int combiner;     /* DFC_COMBINER_* */
    const char *name; /* predefined types: e.g. "DFC_INT" */
    char *uname;      /* set by DFC_Type_set_name (overrides name) */
    /* layout (derived types): */
    int dl_kind;                /* DFC_DL_VECTOR or DFC_DL_BLOCKS */
    size_t dl_count, dl_blen;   /* vector: count, blocklength (items of dl_child) */
    DFC_Aint dl_stride;         /* vector: bytes between blocks */
    dfc_dtype_t *dl_child;      /* vector: the child type (held) */
    DFC_Aint *dl_displs;        /* blocks: byte displacements */
    size_t *dl_blens, *dl_pofs; /* blocks: items per block, packed offset of each block */
    dfc_dtype_t **dl_types;     /* blocks: each block's child type (each held) */
    /* envelope and contents (MPI_Type_get_contents), as the constructor received them */
    int n_ints, n_aints, n_types;
    int *c_ints;
    DFC_Aint *c_aints;
    dfc_dtype_t **c_types; /* held */
    void *attrs;           /* reserved for type attributes (keyvals) */
};

/* MPI's pair types (DFC_FLOAT_INT...), declared once for datatype.c (their extents) and op.c
 * (MINLOC/MAXLOC over them). */
typedef struct {
    float v;
    int i;
} dfc_pair_float_int_t;
typedef struct {
    double v;
    int i;
} dfc_pair_double_int_t;
typedef struct {
    long v;
    int i;
} dfc_pair_long_int_t;
typedef struct {
    int v;
    int i;
} dfc_pair_2int_t;
typedef struct {
    short v;
    int i;
} dfc_pair_short_int_t;
typedef struct {
    long double v;
    int i;
} dfc_pair_long_double_int_t;

extern dfc_htable_t dfc_dtype_table;
int dfc_dtype_init(void); /* registers the predefined types */
void dfc_dtype_finalize(void);
static inline dfc_dtype_t *dfc_dtype_get(DFC_Datatype h)
{
    return (dfc_dtype_t *)dfc_htable_get(&dfc_dtype_table, h);
}
/* Checks that h is a valid, committed datatype for communication; on failure records a
 * message "<func>: invalid argument <argname>: ..." and returns the code. */
int dfc_dtype_check(DFC_Datatype h, const char *func, const char *argname, dfc_dtype_t **out);
/* Handle lookup without the "committed" requirement (Type_size and friends). */
int dfc_dtype_lookup(DFC_Datatype h, const char *func, const char *argname, dfc_dtype_t **out);
int dfc_dtype_contiguous(const char *func, size_t count, const dfc_dtype_t *old, dfc_dtype_t **out);
int dfc_dtype_dup(const char *func, const dfc_dtype_t *old, dfc_dtype_t **out);
/* Pending operations hold a reference, so a type freed by the user lives until they end. */
void dfc_dtype_retain(dfc_dtype_t *dt);
void dfc_dtype_release(dfc_dtype_t *dt);
void dfc_dtype_free_handle(dfc_dtype_t *dt);
const dfc_dtype_t *dfc_dtype_base_type(const dfc_dtype_t *dt);
/* MPI's size (data bytes); `size` above is the extent, padding included, which is what
 * DFC moves (pair types such as DFC_DOUBLE_INT carry padding). */
size_t dfc_dtype_mpi_size(const dfc_dtype_t *dt);
DFC_Count dfc_dtype_elements(const dfc_dtype_t *dt, uint64_t bytes);
/* The name DFC_Type_get_name reports. */
const char *dfc_dtype_name(const dfc_dtype_t *dt);

/* Derived types (dataloop.c). A new type takes references on its children; every
 * constructor records its arguments for Type_get_contents (ints, aints, types as MPI lists
 * them) and fails with a recorded message naming func. blens/displs in bytes. */
typedef struct dfc_dtype_args {
    int combiner;
    int n_ints, n_aints, n_types;
    const int *ints;
    const DFC_Aint *aints;
    dfc_dtype_t *const *types;
    int publish; /* give the new type a handle (else it stays internal) */
} dfc_dtype_args_t;
int dfc_dtype_vector(const char *func, size_t count, size_t blen, DFC_Aint stride_bytes,
                     dfc_dtype_t *old, const dfc_dtype_args_t *args, dfc_dtype_t **out);
int dfc_dtype_blocks(const char *func, size_t n, const size_t *blens, const DFC_Aint *displs,
                     dfc_dtype_t *const *types, const dfc_dtype_args_t *args, dfc_dtype_t **out);
int dfc_dtype_resized(const char *func, dfc_dtype_t *old, DFC_Aint lb, DFC_Aint extent,
                      const dfc_dtype_args_t *args, dfc_dtype_t **out);
/* Subarray and darray layouts (datatype_array.c), arguments checked, handed out with a
 * handle. */
typedef struct dfc_darray {
    int size, rank, ndims;
    const int *gsizes, *distribs, *dargs, *psizes;
    int order;
} dfc_darray_t;
int dfc_dtype_subarray(const char *func, int ndims, const int *sizes, const int *subsizes,
                       const int *starts, int order, dfc_dtype_t *old, dfc_dtype_t **out);
int dfc_dtype_darray(const char *func, const dfc_darray_t *d, dfc_dtype_t *old, dfc_dtype_t **out);
/* Gives an internal (handle-less) type a handle: constructors build the intermediate
 * types of subarray/darray without handles. */
int dfc_dtype_publish(const char *func, dfc_dtype_t *dt);
/* A new handle for the same layout (Type_get_contents returns derived types this way). */
int dfc_dtype_alias(const char *func, dfc_dtype_t *dt, DFC_Datatype *out);
/* Packs bytes [first, first+len) of the packed form of count items of dt at buf into out;
 * unpack is the reverse. Any byte range may be asked for, so transports may stream. */
void dfc_dtype_pack(const dfc_dtype_t *dt, const void *buf, uint64_t first, uint64_t len,
                    void *out);
void dfc_dtype_unpack(const dfc_dtype_t *dt, void *buf, uint64_t first, uint64_t len,
                      const void *in);
/* The same walk with the runs handed to a mover instead of memcpy (stage.c: CUDA copies
 * between a device buffer and packed host memory). strided: nblk runs of `run` bytes,
 * `stride` apart at u (the user's buffer), consecutive at p (packed); a single run comes
 * with nblk 1. unpack: p -> u. After the first error no further call is made; returns it. */
typedef struct dfc_dtype_mover {
    int (*strided)(void *arg, char *u, DFC_Aint stride, char *p, size_t run, size_t nblk,
                   int unpack);
    void *arg;
    int rc;
} dfc_dtype_mover_t;
int dfc_dtype_move(const dfc_dtype_t *dt, void *buf, uint64_t first, uint64_t len, void *packed,
                   int unpack, dfc_dtype_mover_t *m);
/* Get_elements for `bytes` received as items of dt: basic elements, -1 when the bytes end
 * inside one. */
DFC_Count dfc_dtype_elements_any(const dfc_dtype_t *dt, uint64_t bytes);
/* The lowest and highest byte count items of dt touch, relative to buf (for device checks). */
void dfc_dtype_span(const dfc_dtype_t *dt, uint64_t count, DFC_Aint *lo, DFC_Aint *hi);

/* ---- Reduction operations ---------------------------------------------------------------- */
typedef struct dfc_op {
    int handle;
    int refcount;
    int builtin;
    int commute;
    DFC_User_function *user_fn;
    const char *name;
} dfc_op_t;

extern dfc_htable_t dfc_op_table;
int dfc_op_init(void);
void dfc_op_finalize(void);
static inline dfc_op_t *dfc_op_get(DFC_Op h)
{
    return (dfc_op_t *)dfc_htable_get(&dfc_op_table, h);
}
/* Checks that h is a valid op that is defined on datatype dt (MPI-4.1 5.9.2); records a
 * message naming func and argname otherwise. */
int dfc_op_check(DFC_Op h, const dfc_dtype_t *dt, const char *func, const char *argname,
                 dfc_op_t **out);
/* Whether op is a predefined operation defined on dt's elements: dfc_op_check's answer for a
 * valid op handle, without recording an error (the fast paths' test). */
int dfc_op_builtin_on(const dfc_op_t *op, const dfc_dtype_t *dt);
/* inout[i] = in[i] (op) inout[i] for `count` items of dt: the MPI argument order, so that
 * non-commutative ops reduce as in[0..] first. Never fails once dfc_op_check passed. */
void dfc_op_reduce(const dfc_op_t *op, const dfc_dtype_t *dt, const void *in, void *inout,
                   size_t count);
/* DFC_Reduce_local's reduction: as dfc_op_reduce, but a user function runs without the
 * library lock (which the caller holds), so that it may call DFC; a non-contiguous type is
 * reduced on packed copies (DFC_ERR_NO_MEM when they cannot be had). */
int dfc_op_reduce_local(dfc_op_t *op, dfc_dtype_t *dt, const void *in, void *inout, size_t count);
int dfc_op_create(const char *func, DFC_User_function *user_fn, int commute, dfc_op_t **out);
void dfc_op_retain(dfc_op_t *op); /* as for datatypes: pending operations hold one */
void dfc_op_release(dfc_op_t *op);
void dfc_op_free_handle(dfc_op_t *op);


/* ---- Attributes (attr.c) ------------------------------------------------------------------
 * Keyvals and per-object attribute lists, for communicators, datatypes and windows alike
 * (their handles are ints, so one callback type serves all). Callbacks run with the library lock
 * dropped; their return code is passed up unchanged. */
typedef int(dfc_attr_copy_fn_t)(int oldobj, int keyval, void *extra, void *in, void *out,
                                int *flag);
typedef int(dfc_attr_delete_fn_t)(int obj, int keyval, void *val, void *extra);
typedef struct dfc_keyval {
    int handle; /* removed from the table when freed; callbacks still get it */
    int kind;   /* DFC_KIND_COMM, DFC_KIND_DATATYPE or DFC_KIND_WIN */
    dfc_attr_copy_fn_t *copy;
    dfc_attr_delete_fn_t *del;
    void *extra;
    int refcount; /* the user's handle plus one per attribute */
} dfc_keyval_t;
typedef struct dfc_attr {
    struct dfc_attr *next;
    dfc_keyval_t *kv;
    void *val;
} dfc_attr_t;
#define DFC_KEYVAL_FIRST_DYNAMIC 16 /* indices below are predefined attribute keys */
static inline int dfc_keyval_predefined(int h)
{
    return DFC_HANDLE_KIND(h) == DFC_KIND_KEYVAL && DFC_HANDLE_INDEX(h) > 0 &&
           DFC_HANDLE_INDEX(h) < DFC_KEYVAL_FIRST_DYNAMIC;
}
extern dfc_htable_t dfc_keyval_table;
int dfc_keyval_init(void);
void dfc_keyval_finalize(void);
int dfc_keyval_create(int kind, dfc_attr_copy_fn_t *copy, dfc_attr_delete_fn_t *del, void *extra,
                      const char *func, int *out);
/* A user keyval of `kind`; DFC_ERR_KEYVAL naming func and argname otherwise (predefined
 * keys included: they are read with dfc_attr_get's caller, never set or freed). */
int dfc_keyval_check(int h, int kind, const char *func, const char *argname, dfc_keyval_t **out);
void dfc_keyval_free(dfc_keyval_t *kv); /* the handle goes; the object when unused */
int dfc_attr_get(dfc_attr_t *list, const dfc_keyval_t *kv, void **val); /* 1 if set */
/* Sets (an old value's delete callback runs first), deletes one, deletes all (last set
 * first), or copies all through the copy callbacks (first set first). obj/oldobj is the
 * handle the callbacks get. */
int dfc_attr_set(dfc_attr_t **list, int obj, dfc_keyval_t *kv, void *val, const char *func);
int dfc_attr_delete(dfc_attr_t **list, int obj, dfc_keyval_t *kv);
int dfc_attr_delete_all(dfc_attr_t **list, int obj);
int dfc_attr_copy_all(dfc_attr_t *src, int oldobj, dfc_attr_t **dst, const char *func);
void dfc_attr_drop_all(dfc_attr_t **list); /* frees the list without calling callbacks */
/* The user-key part of every object kind's Set/Get/Delete_attr (communicators, datatypes,
 * windows): checks that keyval is a user keyval of kind (dfc_keyval_check, naming func and
 * argname), then sets, reads (*flag 1 when set) or deletes it in list. */
int dfc_attr_set_key(dfc_attr_t **list, int obj, int kind, int keyval, void *val, const char *func,
                     const char *argname);
int dfc_attr_get_key(dfc_attr_t *list, int kind, int keyval, const char *func, const char *argname,
                     void **val, int *flag);
int dfc_attr_delete_key(dfc_attr_t **list, int obj, int kind, int keyval, const char *func,
                        const char *argname);
/* DFC_Comm_get_attr: the predefined keys (DFC_TAG_UB ...) on every communicator, or a user
 * key of c; *flag 1 when set. DFC_ERR_KEYVAL naming func for a bad key. */
struct dfc_comm;
int dfc_attr_comm_get(struct dfc_comm *c, int keyval, const char *func, void **val, int *flag);


/* ---- Communicators ------------------------------------------------------------------------ */
struct dfc_coll_comm; /* the coll layer's per-communicator state */
struct dfc_topo;      /* a process topology (comm/dfc_topo.h) */

typedef struct dfc_comm {
    int handle;
    int refcount; /* the user's handle, plus one per pending operation */
    uint32_t ctx; /* context id: point-to-point uses 2*ctx, collectives 2*ctx+1 */
    int rank, size;
    dfc_group_t *group;
    const int *world; /* = group->world: world rank of each comm rank */
    int is_world, is_self;
    char name[DFC_MAX_OBJECT_NAME];
    DFC_Errhandler errhandler;
    dfc_info_t *info;           /* hints given at creation or by set_info; NULL if none */
    int priority;               /* info key dfc_priority; 0 by default, higher runs first */
    uint32_t coll_seq;          /* collectives initiated on this communicator so far */
    uint32_t pcoll_seq;         /* persistent collective _init calls so far */
    struct dfc_coll_comm *coll; /* owned by the coll layer */
    uint32_t fail_epoch;        /* fault.c's cache: failures seen when fail_code was computed */
    int fail_code;              /* 0, or the code for a failed member (DFC_ERR_PROC_FAILED) */
    struct dfc_topo *topo;      /* process topology (comm/dfc_topo.h, topo.c); NULL if none */
    struct dfc_attr *attrs;     /* cached attributes (attr.c), in the order first set */
    /* Same on every member, and larger than that of every communicator any member was in
     * before (a Lamport clock agreed at creation; 0 for the predefined ones): with the context
     * id it names this incarnation, so that a freed and re-created communicator with the
     * same id never takes its predecessor's leftovers (the GPU daemon's idents, issue 23). */
    uint64_t incarnation;
    /* Intercommunicators (intercomm.c): group, rank and size above are the local group's;
     * `remote` is the group that point-to-point ranks name (NULL on intracommunicators), and
     * `local` a private intracommunicator over the local group for the local phases of the
     * intercommunicator collectives (src/coll/inter_*.c). */
    dfc_group_t *remote;
    struct dfc_comm *local;
    struct dfc_tl_slot_comm *slots; /* see dfc_comm_slots; NULL on the predefined ones */
    /* Requests on it that the user freed while active (Request_free, Bsend's own): no handle
     * names them, so Comm_disconnect counts them here to wait for them (request.c). */
    int orphans;
} dfc_comm_t;

/* The world ranks that point-to-point ranks of c name, and how many: the remote group's on
 * an intercommunicator, c's own members otherwise. */
static inline const int *dfc_comm_peers(const dfc_comm_t *c)
{
    return c->remote ? c->remote->world : c->world;
}
static inline int dfc_comm_npeers(const dfc_comm_t *c)
{
    return c->remote ? c->remote->size : c->size;
}

extern dfc_htable_t dfc_comm_table;
/* The shm transport's collective slots (src/tl/shm_slots.h) of a communicator whose members
 * are all on this node (DFC_COMM_WORLD: dfc_world_slots; the others: opened at creation
 * with their context id as the set, closed when they are destroyed), else NULL; used
 * through dfc_comm_slot_xchg. */
extern struct dfc_tl_slot_comm *dfc_world_slots;
static inline struct dfc_tl_slot_comm *dfc_comm_slots(const dfc_comm_t *c)
{
    return c->is_world ? dfc_world_slots : c->slots;
}
/* init.c: opens c's slots with stamps above `base` (NULL when c cannot have them; an error
 * only when memory is short), closes them, and the clock a creation gathers for `base`. */
int dfc_comm_slots_open(dfc_comm_t *c, uint64_t base);
void dfc_comm_slots_close(dfc_comm_t *c);
uint64_t dfc_comm_slot_clock(void);
static inline dfc_comm_t *dfc_comm_get(DFC_Comm h)
{
    return (dfc_comm_t *)dfc_htable_get(&dfc_comm_table, h);
}
/* Checks a communicator handle; records "<func>: invalid argument <argname>: ..." */
int dfc_comm_check(DFC_Comm h, const char *func, const char *argname, dfc_comm_t **out);
/* Builds a communicator over `group` (every member calls it with the same group, in the
 * same order relative to other creations on `parent`). Collective over the group's members,
 * which must all be members of parent. Not a member -> *out = NULL. */
int dfc_comm_create_from_group(dfc_comm_t *parent, dfc_group_t *group, dfc_info_t *info, int tag,
                               dfc_comm_t **out);
void dfc_comm_release(dfc_comm_t *c); /* drops a reference; frees ctx at zero */
/* DFC_Comm_free: deletes the attributes (a refusing callback's code stops it), removes the
 * handle and drops the user's reference. */
int dfc_comm_free(dfc_comm_t *c);
/* Reads dfc_priority and other hints from info into c. */
void dfc_comm_apply_info(dfc_comm_t *c, const dfc_info_t *info);
/* The name of the transport used to reach comm rank r ("self", "shm", "tcp"). */
const char *dfc_comm_peer_transport(const dfc_comm_t *c, int r);

/* Communicator constructors (comm.c). Each is collective as its MPI counterpart; the new
 * communicator is NULL on processes that are not members. */
int dfc_comm_dup(dfc_comm_t *c, const dfc_info_t *info, dfc_comm_t **out);
int dfc_comm_split(dfc_comm_t *c, int color, int key, dfc_comm_t **out);
int dfc_comm_split_type(dfc_comm_t *c, int split_type, int key, const dfc_info_t *info,
                        dfc_comm_t **out);
int dfc_comm_create(dfc_comm_t *c, dfc_group_t *group, dfc_comm_t **out);
int dfc_comm_create_group(dfc_comm_t *c, dfc_group_t *group, int tag, dfc_comm_t **out);
/* The same, gathering on c's members at context shadow_ctx (no communicator's id: an id
 * plus a multiple of DFC_CTXID_MAX) instead of Comm_create_group's own shadow. */
int dfc_comm_create_group_on(dfc_comm_t *c, dfc_group_t *group, int tag, uint32_t shadow_ctx,
                             dfc_comm_t **out);

/* Intercommunicators (intercomm.c). Each is collective as its MPI counterpart; errors are
 * recorded naming func. */
int dfc_intercomm_create(dfc_comm_t *local, int local_leader, dfc_comm_t *peer, int remote_leader,
                         int tag, const char *func, dfc_comm_t **out);
int dfc_intercomm_merge(dfc_comm_t *c, int high, const char *func, dfc_comm_t **out);
int dfc_intercomm_dup(dfc_comm_t *c, const dfc_info_t *info, dfc_comm_t **out);
/* Intercomm_create_from_groups: local group lg (this process a member) and remote group rg,
 * both over DFC_COMM_WORLD's processes, matched by tag on both sides (a string tag's hash). */
int dfc_intercomm_from_groups(dfc_group_t *lg, dfc_group_t *rg, dfc_info_t *info, int tag,
                              const char *func, dfc_comm_t **out);
/* DFC_ERR_COMM naming func and argname when c is an intercommunicator (what does not take
 * one yet); also the converse, for calls that need one. */
int dfc_comm_intra_check(const dfc_comm_t *c, const char *func, const char *argname);
int dfc_comm_inter_check(const dfc_comm_t *c, const char *func, const char *argname);
int dfc_comm_compare(const dfc_comm_t *a, const dfc_comm_t *b);
/* Called when a communicator's last reference goes (the coll layer frees its state). */
extern void (*dfc_comm_destroy_hook)(dfc_comm_t *c);
extern int *dfc_node_of; /* node index of each world rank */
int dfc_comm_layer_init(int required, int *provided);
int dfc_comm_layer_finalize(void);
/* The GPU daemon (src/gpu) sits above comm, which may not call it, yet init and finalize must
 * set it up at fixed points around the transports' fences, and a waiting thread must not
 * sleep while it has work. The api layer fills these in before dfc_comm_layer_init; a NULL
 * member does nothing (unit tests, builds that leave the daemon out). */
typedef struct dfc_comm_gpu_hooks {
    void (*publish)(int world_rank, int world_size, const int *node_of); /* before the fence */
    void (*connect)(void);  /* after the transports' init */
    void (*finalize)(void); /* after the finalize fence: no peer writes into its mailboxes */
    int (*busy)(void);      /* 1 while submitted work is pending */
} dfc_comm_gpu_hooks_t;
extern dfc_comm_gpu_hooks_t dfc_comm_gpu_hooks;
static inline int dfc_comm_gpu_busy(void)
{
    return dfc_comm_gpu_hooks.busy && dfc_comm_gpu_hooks.busy();
}

/* Context ids: a bitmask of free ids per process; a new communicator takes the lowest id
 * that is free on every member (an allreduce-BAND of the masks over the parent). */
#define DFC_CTXID_MAX 4096
#define DFC_CTXID_WORDS (DFC_CTXID_MAX / 32)
/* Contexts above the ids communicators take: each is a shadow (a communicator's members and
 * ranks, for internal traffic that must not match a user's). All of them are listed here, so
 * that two users cannot pick one id: the GPU proxy once shared Intercomm_create's. The value
 * is added to the id of the communicator shadowed. */
enum {
    DFC_CTX_SHADOW_CREATE = 1 * DFC_CTXID_MAX,       /* creation rounds of any parent (comm.c) */
    DFC_CTX_SHADOW_INTER_CREATE = 2 * DFC_CTXID_MAX, /* over WORLD (intercomm.c) */
    DFC_CTX_SHADOW_INTER_MERGE = 3 * DFC_CTXID_MAX,  /* over WORLD (intercomm.c) */
    DFC_CTX_SHADOW_INTER_DUP = 4 * DFC_CTXID_MAX,    /* over WORLD (intercomm.c) */
    DFC_CTX_SHADOW_GPU_PROXY = 5 * DFC_CTXID_MAX,    /* over WORLD (gpu/proxy.c) */
};
void dfc_ctxid_reset(void);          /* all free but WORLD (0) and SELF (1) */
void dfc_ctxid_mask(uint32_t *mask); /* copies this process's free mask */
void dfc_ctxid_take(uint32_t ctx);
void dfc_ctxid_free(uint32_t ctx);
/* Unit-testable core: picks the lowest set bit of mask (DFC_CTXID_MAX bits); -1 if none. */
int dfc_ctxid_pick(const uint32_t *mask);
/* And-combines `n` masks laid out one after another with `stride` bytes between them. */
void dfc_ctxid_and(uint32_t *acc, const void *masks, int n, size_t stride);

/* The agreement among creations in flight at once in one process (threads): ctxid.c says
 * why it is safe and always progresses. A space is one process's ids and creations; the
 * process has dfc_ctxid_proc (what the functions above act on), the unit test several. */
typedef struct dfc_ctxid_creation {
    uint64_t key; /* (parent context << 32) | internal tag: equal on every participant */
    int entered;  /* a round has ended: every participant is inside this creation */
    struct dfc_ctxid_creation *next;
} dfc_ctxid_creation_t;
typedef struct dfc_ctxid_space {
    uint32_t free[DFC_CTXID_WORDS];
    dfc_ctxid_creation_t *flight;        /* creations in flight (caller-owned nodes) */
    const dfc_ctxid_creation_t *lent_to; /* the creation whose round holds the mask */
} dfc_ctxid_space_t;
extern dfc_ctxid_space_t dfc_ctxid_proc;
void dfc_ctxid_space_reset(dfc_ctxid_space_t *s);
void dfc_ctxid_space_take(dfc_ctxid_space_t *s, uint32_t ctx);
void dfc_ctxid_space_free(dfc_ctxid_space_t *s, uint32_t ctx);
/* A creation starts; `entered` = 1 when no other creation can be in flight in this process
 * (below THREAD_MULTIPLE), so that its first round may already offer the mask. */
void dfc_ctxid_begin(dfc_ctxid_space_t *s, dfc_ctxid_creation_t *cr, uint64_t key, int entered);
/* Fills the offer of cr's next round: the free mask, lent to this round (returns 1), or an
 * empty mask (returns 0). */
int dfc_ctxid_offer(dfc_ctxid_space_t *s, dfc_ctxid_creation_t *cr, uint32_t *mask);
/* The round's gather is done and its id, if any, taken: cr is entered; the mask comes back. */
void dfc_ctxid_round_end(dfc_ctxid_space_t *s, dfc_ctxid_creation_t *cr);
void dfc_ctxid_end(dfc_ctxid_space_t *s, dfc_ctxid_creation_t *cr); /* cr leaves the space */

/* ---- Requests ----------------------------------------------------------------------------- */
enum {
    DFC_REQ_SEND = 1,
    DFC_REQ_RECV,
    DFC_REQ_COLL,
    /* issue 17, part 3: generalized (greq.c), Isendrecv pairs (greq.c), buffer flushes
        * (bsend.c) */
    DFC_REQ_GREQ,
    DFC_REQ_PAIR,
    DFC_REQ_FLUSH
};

typedef struct dfc_req dfc_req_t;
struct dfc_req {
    int handle; /* 0 for internal requests (collective steps) */
    int kind;
    int persistent; /* created by *_init: survives completion, restarted by Start */
    int active;     /* started and not yet waited for (persistent); 1 otherwise */
    volatile int complete;
    int user_freed; /* Request_free while active: release at completion */
    int cancelled;
    DFC_Status status;
    dfc_comm_t *comm;
    uint64_t id; /* for rendezvous replies; unique in this process */

    /* point-to-point */
    const void *sbuf;
    void *rbuf;
    uint64_t bytes; /* buffer capacity (recv) or message length (send) */
    int peer;       /* comm rank, DFC_ANY_SOURCE allowed for receives */
    int tag;
    int sync;              /* Ssend */
    int coll_ctx;          /* 1: uses the communicator's collective context */
    const char *func;      /* receives: the entry point that posted it and the name of */
    const char *count_arg; /* its count argument, for the truncation message (or NULL) */
    uint64_t done;         /* rendezvous bytes sent or received so far */
    uint64_t remote_id;    /* the peer's request id (CTS target / DATA destination) */
    uint64_t msg_len;      /* rendezvous receive: the sender's full length */
    int peer_world;        /* world rank of the peer once known */
    int rndv_state;        /* protocol state, see p2p.c */
    dfc_list_t link;       /* posted queue, pending-send queue or active list */

    /* collectives: the coll layer's schedule state and hooks */
    void *coll;
    int (*start)(dfc_req_t *req);    /* persistent restart (Start); NULL for p2p */
    void (*destroy)(dfc_req_t *req); /* releases coll state */
    /* A completed nonblocking collective's request, freed by the user's Wait or Test: 1 when
     * the coll layer kept it (with its instance) for the next call of the same arguments
     * instead (its handle is gone; dfc_req_free then frees nothing). */
    int (*keep)(dfc_req_t *req);

    DFC_Request_callback *cb;
    void *cb_arg;

    void *ext;        /* DFC_REQ_GREQ, _PAIR: their state (greq.c) */
    int cancel_state; /* sends: 1 while a cancel is asked of the receiver, -1: the user's
                         request of a buffered send, which has nothing to cancel (p2p.c) */
    int defer;        /* a nonblocking eager send left to the progress thread (p2p.c) */
    int eager_packet; /* a nonblocking collective's send with the progress thread: eager up to
                         DFC_P2P_COLL_EAGER_MAX, not the transport's limit (p2p.c) */
    int pull_alone;   /* a receive whose data is reduced right after (exec.c): pulled by this
                         core alone (DFC_TL_RGET_ALONE), not shared with the sender */

    /* Device buffers staged through host shadows (point-to-point, and collectives the GPU
     * daemon cannot run: src/coll/run.c): copied in when the operation starts, out when it
     * completes. */
    struct dfc_stage *stages;
    int nstages;

    /* Device point-to-point (p2p.c, dfc(7) "Device buffers"): the buffer is device memory and
     * not staged; a send's CUDA IPC name; a receive's copy in flight. */
    int dev;
    dfc_gpu_ipc_t dev_ipc;
    int dev_ipc_ready; /* dev_ipc names the send's buffer already (dfc_p2p_dev_direct) */
    dfc_gpu_copy_op_t *dev_op;
    int dev_fin_sent;  /* a receive's FIN went when the copy had read the source (p2p.c) */
    int dev_dst_local; /* a send's destination: 1 on this node, 2 this process, 0 else
                           (dfc_p2p_send_dst, before staging) */
    struct dfc_p2p_hold *dev_hold; /* a receive copying a held message out (p2p_hold.c) */
    void *tl_op;                   /* a receive's transport copy in flight (rget_start, p2p.c) */
    uint64_t pull_addr; /* a receive's rget queued to run without the lock: where it reads */
    struct dfc_p2p_devstream *devstream; /* DATA of a device buffer through pinned slots */

    /* A non-contiguous host buffer moved in pieces (p2p.c, "Non-contiguous buffers"): the
     * buffer's datatype (retained; released by dfc_req_unstage), or NULL when the bytes at
     * sbuf/rbuf are the message as is. */
    const dfc_dtype_t *pack_dt;
};

/* ---- Staging device buffers through host memory (stage.c, stage_pool.c) -----------------
 * The fallback for device buffers that the GPU daemon does not take: pinned host buffers
 * from a pool kept across calls (never a pageable copy, never an allocation per call), and
 * asynchronous copies on streams of DFC's own. Two forms:
 *   - whole-buffer shadows on a request (point-to-point, nonblocking and persistent
 *     collectives, those that cannot be cut in segments): copied in when the operation
 *     starts, out when it completes, the copies of one request issued together;
 *   - a pipeline (blocking allreduce, reduce, bcast: src/coll/run.c): the operation runs
 *     chunk by chunk on pinned chunk buffers while the device-to-host copy of the next chunks
 *     and the host-to-device copy of the previous ones run on their own streams. */
typedef struct dfc_stage_buf {
    struct dfc_stage_buf *next; /* in the pool's idle list */
    void *p;                    /* pinned host memory */
    size_t bytes;               /* its class: a power of two from 64 KiB */
    int transient;              /* past DFC_STAGE_POOL_MAX: released when given back */
} dfc_stage_buf_t;

typedef struct dfc_stage {
    void *dev;            /* the user's device buffer */
    void *host;           /* its host shadow (buf->p), which the operation uses */
    dfc_stage_buf_t *buf; /* from the pool */
    size_t bytes;
    int copy_in, copy_out;
    /* a non-dense datatype: `host` holds count items of dt packed (pack at copy-in, unpack
     * at copy-out; partial: only the bytes the status says arrived). On a device buffer
     * `host` is `buf`'s pinned memory and the copies move the type map's runs only
     * (dfc_stage_dev_pack/unpack); on a host buffer buf is NULL and `host` malloc'd. */
    const dfc_dtype_t *dt;
    uint64_t count;
    int partial;
} dfc_stage_t;

/* If buf is device memory, gives the request a host shadow of `bytes` and returns it in
 * *use (else *use = buf). copy_in: device -> host at each start; copy_out: host -> device at
 * each completion. */
int dfc_req_stage(dfc_req_t *r, void *buf, size_t bytes, int copy_in, int copy_out, void **use);
int dfc_req_stage_in(dfc_req_t *r);  /* at start */
int dfc_req_stage_out(dfc_req_t *r); /* at completion (dfc_req_complete) */
void dfc_req_unstage(dfc_req_t *r);  /* gives the shadows back (internal requests on the stack) */

/* What staging needs of CUDA (src/cuda/stage_copy.c's functions by default; the unit test
 * puts a stand-in here). Streams and events are opaque. */
typedef struct dfc_stage_ops {
    int (*is_device)(const void *p);
    int (*host_alloc)(size_t bytes, void **out); /* pinned */
    void (*host_free)(void *p);
    int (*stream_create)(void **out);
    void (*stream_destroy)(void *s);
    int (*event_create)(void **out);
    void (*event_destroy)(void *e);
    int (*copy_async)(void *dst, const void *src, size_t bytes, void *stream);
    int (*event_record)(void *e, void *stream);
    int (*event_sync)(void *e);
    int (*stream_sync)(void *s);
    /* height rows of width bytes, pitches apart (cudaMemcpy2DAsync); NULL: row by row */
    int (*copy2d_async)(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                        size_t height, void *stream);
    /* *done = 1 once the copies recorded before e are done; NULL: event_sync stands in */
    int (*event_query)(void *e, int *done);
} dfc_stage_ops_t;
extern const dfc_stage_ops_t *dfc_stage_ops;
/* Finalizes the pool, then uses `ops` (NULL: CUDA's) from now on. For tests. */
void dfc_stage_set_ops(const dfc_stage_ops_t *ops);

#define DFC_STAGE_MAX_DEPTH 16
typedef struct dfc_stage_params {
    size_t chunk;     /* DFC_STAGE_CHUNK: the largest chunk */
    size_t chunk_min; /* DFC_STAGE_CHUNK_MIN (at most chunk) */
    int depth;        /* DFC_STAGE_DEPTH, 1 to DFC_STAGE_MAX_DEPTH */
    size_t pool_max;  /* DFC_STAGE_POOL_MAX */
} dfc_stage_params_t;
const dfc_stage_params_t *dfc_stage_params(void); /* read on first use after finalize */

typedef struct dfc_stage_stats {
    size_t held;           /* bytes of pooled buffers, idle or in use */
    long in_use;           /* buffers handed out and not given back */
    long allocs;           /* pinned allocations made since the start */
    long transients;       /* of which past the cap */
    long ctxs, ctx_in_use; /* copy contexts existing, and handed out */
} dfc_stage_stats_t;
void dfc_stage_get_stats(dfc_stage_stats_t *out);

/* A pinned buffer of at least `bytes` from the pool, and giving it back. */
int dfc_stage_buf_get(size_t bytes, dfc_stage_buf_t **out);
void dfc_stage_buf_put(dfc_stage_buf_t *b);

/* A copy context: a stream per direction (0: device to host, 1: host to device) and
 * DFC_STAGE_MAX_DEPTH events on each. */
typedef struct dfc_stage_ctx {
    struct dfc_stage_ctx *next;
    void *stream[2];
    void *ev[2][DFC_STAGE_MAX_DEPTH];
} dfc_stage_ctx_t;
int dfc_stage_ctx_get(dfc_stage_ctx_t **out);
void dfc_stage_ctx_put(dfc_stage_ctx_t *x);

/* Releases the pool's idle buffers and contexts (DFC_Finalize). */
void dfc_stage_finalize(void);
void dfc_stage_pipe_log(void); /* DFC_DEBUG=2:stage: where the pipeline's time went */

/* Runs one segment of a pipelined operation: in (NULL when nothing is read) holds bytes
 * [off, off + bytes) of the input, out receives that segment of the output (NULL when
 * nothing is written). Both are host memory; they are the same buffer when the input and
 * output are one device buffer. */
typedef int dfc_stage_segment_fn(void *arg, void *in, void *out, size_t off, size_t bytes);
typedef struct dfc_stage_pipe {
    const void *in; /* the input, device or host memory, or NULL */
    void *out;      /* the output, device or host memory, or NULL; may be `in` */
    size_t bytes;   /* of each */
    size_t unit;    /* chunks are multiples of it (the item size) */
    dfc_stage_segment_fn *segment;
    void *arg;
} dfc_stage_pipe_t;
/* Runs p->segment on every chunk in order, the copies pipelined behind it (see the top
 * of stage.c); with 0 bytes runs it once with (in, out, 0, 0). Returns its first error or
 * that of a copy, with everything given back and no copy in flight. */
int dfc_stage_pipeline(const dfc_stage_pipe_t *p);
/* The same for count items of dt: a non-dense type gets a packed shadow in host memory
 * (host buffers too; packed at start, unpacked at completion; on a device buffer a pinned
 * one from the pool, filled and emptied by dfc_stage_dev_pack/unpack). partial: a receive,
 * which unpacks
 * only what arrived and needs no copy-in. */
int dfc_req_stage_type(dfc_req_t *r, void *buf, uint64_t count, const dfc_dtype_t *dt, int copy_in,
                       int copy_out, int partial, void **use);
/* The packed form of items of dt between a device buffer and host memory (pack: count
 * items; unpack: the first `bytes` packed bytes, a partial receive's): each contiguous run
 * of the type map is one copy, a strided set of equal runs one 2D copy; pack copies the
 * type's span whole first and packs on the host when the runs would take more than
 * DFC_STAGE_DT_COPIES (64) copies. Bytes outside the type map are never written.
 * Synchronous: returns once the copies are done. */
int dfc_stage_dev_pack(const dfc_dtype_t *dt, const void *dev, uint64_t count, void *packed);

/* ---- A device buffer's rendezvous bytes through pinned slots (p2p_dev.c says how) -------
 * open: r->devstream for `bytes` of `dev` (a send issues its first copies to host memory);
 * on failure nothing is left and the caller copies synchronously. peek (send): how many bytes
 * from `off` are in host memory now, and where; sent: the transport took `upto` bytes. land
 * (receive): a DATA fragment, its full chunks' copies to the device issued; drained: the
 * last copy is done. close: gives everything back (after a failure, once its copies end). */
typedef struct dfc_p2p_devstream dfc_p2p_devstream_t;
int dfc_p2p_devstream_open(dfc_req_t *r, int is_recv, void *dev, uint64_t bytes);
int dfc_p2p_devstream_peek(dfc_req_t *r, uint64_t off, uint64_t *avail, const void **src);
int dfc_p2p_devstream_sent(dfc_req_t *r, uint64_t upto);
int dfc_p2p_devstream_land(dfc_req_t *r, uint64_t off, const void *src, uint64_t n);
int dfc_p2p_devstream_drained(dfc_req_t *r, int *done);
void dfc_p2p_devstream_close(dfc_req_t *r);
int dfc_p2p_devstreams_open(void); /* streams not yet closed (progress must poll them) */
int dfc_stage_dev_unpack(const dfc_dtype_t *dt, void *dev, uint64_t bytes, const void *packed);

extern dfc_htable_t dfc_req_table;
dfc_req_t *dfc_req_new(int kind, dfc_comm_t *comm);   /* zeroed, active, not complete */
int dfc_req_handle(dfc_req_t *req, DFC_Request *out); /* gives it a user handle */
/* The shared completed send request (request.c): what DFC_Isend returns for a message that
 * left within the call. Freeing it does nothing; DFC_Init registers it. */
extern dfc_req_t dfc_req_sent;
extern DFC_Request dfc_req_sent_handle;
int dfc_req_sent_init(void);
/* Initializes an internal (handle-less, caller-owned) request; takes no comm reference. */
void dfc_req_init_internal(dfc_req_t *r, dfc_comm_t *comm);
static inline dfc_req_t *dfc_req_get(DFC_Request h)
{
    return (dfc_req_t *)dfc_htable_get(&dfc_req_table, h);
}
/* Marks req complete and runs its callback (once). */
void dfc_req_complete(dfc_req_t *req);
void dfc_req_free(dfc_req_t *req); /* removes the handle and frees */
/* Nobody will wait for req (Request_free while active, Bsend's internal sends): freed at its
 * completion, counted in its communicator's orphans meanwhile. */
void dfc_req_orphan(dfc_req_t *req);
/* Request_free: frees req now when complete or inert, else orphans it. */
void dfc_req_release_user(dfc_req_t *req);
/* Comm_disconnect: makes progress until no request on c is pending (active and incomplete,
 * with a handle or orphaned). */
int dfc_req_wait_comm(dfc_comm_t *c);
/* The cache of freed requests (request.c): DFC_Init reads its size, DFC_Finalize empties it. */
void dfc_req_cache_init(void);
void dfc_req_cache_finalize(void);
/* Restarts a persistent request (Start). */
int dfc_req_start(dfc_req_t *req);
/* Null or inactive persistent: nothing to wait for (MPI-4.1 3.7.3). */
static inline int dfc_req_is_inert(const dfc_req_t *r)
{
    return !r || (r->persistent && !r->active);
}
/* Index of the first complete active request in reqs, -1 if none, -2 if all are inert. */
int dfc_req_first_complete(int count, const DFC_Request reqs[]);
/* Waitany: makes progress until one of reqs is complete or all are inert. Testany: makes
 * progress once if none is complete yet. *index: as dfc_req_first_complete; *r: that
 * request, or NULL. */
int dfc_req_waitany(int count, const DFC_Request reqs[], int *index, dfc_req_t **r);
int dfc_req_testany(int count, const DFC_Request reqs[], int *index, dfc_req_t **r);

/* ---- Point-to-point (used by the api and by collective schedules) -------------------------
 * `req` is caller-owned (from dfc_req_new or embedded); these only post the operation. */
/* The largest send of a nonblocking collective that goes eagerly while the progress thread
 * runs (dfc_req_t.eager_packet), where the transport's packets are that large. */
#define DFC_P2P_COLL_EAGER_MAX 32768
int dfc_p2p_isend(dfc_comm_t *c, int coll_ctx, const void *buf, uint64_t bytes, int dst, int tag,
                  int sync, dfc_req_t *req);
int dfc_p2p_irecv(dfc_comm_t *c, int coll_ctx, void *buf, uint64_t bytes, int src, int tag,
                  dfc_req_t *req);
/* Partitioned requests (part.c): state attached to a persistent send or receive; the
 * check fails (naming func) unless r is a partitioned send (want_send) or receive, and an
 * active one for sends; ready marks [lo, hi] or list[0..n) and sends when all are ready. */
int dfc_part_attach(dfc_req_t *r, int partitions, int is_send);
int dfc_part_check(dfc_req_t *r, const char *func, int want_send);
int dfc_part_ready(dfc_req_t *r, const char *func, int lo, int hi, const int *list, int n);
int dfc_part_arrived(dfc_req_t *r, int partition, int *flag);
/* Standard send (blocking, or DFC_Isend's) of a small host message without a request: 1 if
 * sent, 0 when the caller must use dfc_p2p_isend (see p2p.c). */
int dfc_p2p_send_eager_now(dfc_comm_t *c, const void *buf, uint64_t bytes, int dst, int tag);
/* Whether a nonblocking send of `bytes` (contiguous, host) is left to the progress thread
 * (issue 16, overlap): with the thread running, from DFC_ASYNC_DEFER_MIN up to the eager limit,
 * its EAGER packet is queued and the thread copies it into the transport while the
 * application computes, where DFC_Isend would have copied it itself. Set req->defer. */
int dfc_p2p_defers(uint64_t bytes);
/* Probe: looks for a matching unexpected message; fills status when found. */
int dfc_p2p_iprobe(dfc_comm_t *c, int src, int tag, int *flag, DFC_Status *status);
/* Cancels a receive that has not matched yet. */
int dfc_p2p_cancel_recv(dfc_req_t *req);
/* Blocking operations (p2p_blocking.c): stage device buffers, post, progress until done.
 * The operation's own error comes back in status->DFC_ERROR (Recv) or *err (the pairs);
 * func/count_arg name the entry point and argument in a truncation message. */
int dfc_p2p_recv_blocking(dfc_comm_t *c, const char *func, const char *count_arg, void *buf,
                          uint64_t count, const dfc_dtype_t *dt, int src, int tag,
                          DFC_Status *status);
int dfc_p2p_sendrecv_blocking(dfc_comm_t *c, const char *func, const void *sendbuf, uint64_t scount,
                              const dfc_dtype_t *sdt, int dst, int sendtag, void *recvbuf,
                              uint64_t rcount, const dfc_dtype_t *rdt, int src, int recvtag,
                              DFC_Status *status, int *err);
int dfc_p2p_sendrecv_replace_blocking(dfc_comm_t *c, const char *func, void *buf, uint64_t count,
                                      const dfc_dtype_t *dt, int dst, int sendtag, int src,
                                      int recvtag, DFC_Status *status, int *err);
/* The same on c's collective context (the intercommunicator collectives, src/coll). */
int dfc_p2p_sendrecv_replace_coll(dfc_comm_t *c, const char *func, void *buf, uint64_t count,
                                  const dfc_dtype_t *dt, int dst, int sendtag, int src, int recvtag,
                                  DFC_Status *status, int *err);
/* The temporary that the _replace forms (Sendrecv_replace, Isendrecv_replace) receive into
 * while the send still reads buf: pinned from the staging pool when buf is device memory,
 * else malloc'd. Once both halves are done, the n bytes received go into buf (unpacked
 * through dt's layout when dt is not dense, copied otherwise). */
typedef struct dfc_p2p_tmp {
    void *p;
    struct dfc_stage_buf *tb; /* the pool's buffer, or NULL */
    int dev;                  /* buf is device memory */
} dfc_p2p_tmp_t;
int dfc_p2p_tmp_get(const char *func, const void *buf, uint64_t bytes, dfc_p2p_tmp_t *t);
int dfc_p2p_tmp_unpack(const dfc_p2p_tmp_t *t, void *buf, const dfc_dtype_t *dt, uint64_t n);
void dfc_p2p_tmp_put(dfc_p2p_tmp_t *t);
/* Iprobe, making progress once when nothing matches yet. */
int dfc_p2p_iprobe_progress(dfc_comm_t *c, int src, int tag, int *flag, DFC_Status *status);

/* ---- Issue 17, part 3: matched probe, buffered sends, pairs, generalized requests ---------
 * p2p.c: Improbe takes a matching unexpected message off the queue (only Imrecv or Mrecv
 * can receive it then); Imrecv receives it into (buf, bytes) through req. */
typedef struct dfc_p2p_msg dfc_p2p_msg_t;
int dfc_p2p_improbe(dfc_comm_t *c, int src, int tag, int *flag, dfc_p2p_msg_t **msg,
                    DFC_Status *status);
int dfc_p2p_imrecv(dfc_comm_t *c, dfc_p2p_msg_t *m, void *buf, uint64_t bytes, dfc_req_t *req);
void dfc_p2p_msg_free(dfc_p2p_msg_t *m);
/* Cancels a send whose first packet has not left this process; else does nothing. */
int dfc_p2p_cancel_send(dfc_req_t *req);

/* mprobe.c: DFC_Message handles. A message is checked and resolved (DFC_MESSAGE_NO_PROC
 * resolves to a message with no comm); Mprobe/Improbe make one. */
typedef struct dfc_msg {
    int handle;
    dfc_comm_t *comm; /* NULL for DFC_MESSAGE_NO_PROC */
    dfc_p2p_msg_t *m;
} dfc_msg_t;
int dfc_msg_check(DFC_Message h, const char *func, const char *argname, dfc_msg_t **m);
int dfc_p2p_mprobe(dfc_comm_t *c, int src, int tag, int blocking, int *flag, DFC_Message *message,
                   DFC_Status *status);
/* Receives message m (Mrecv: blocking, status out; Imrecv: a new request in *request). */
int dfc_p2p_mrecv(dfc_msg_t *m, const char *func, void *buf, uint64_t count, const dfc_dtype_t *dt,
                  DFC_Status *status);
int dfc_p2p_imrecv_start(dfc_msg_t *m, const char *func, void *buf, uint64_t count,
                         const dfc_dtype_t *dt, DFC_Request *request);
void dfc_msg_finalize(void);

/* greq.c: generalized requests and Isendrecv(_replace). */
int dfc_greq_start(DFC_Grequest_query_function *query_fn, DFC_Grequest_free_function *free_fn,
                   DFC_Grequest_cancel_function *cancel_fn, void *extra_state,
                   DFC_Request *request);
int dfc_greq_complete(dfc_req_t *r, const char *func);
int dfc_greq_query(dfc_req_t *r);   /* runs query_fn into r->status; returns its code */
int dfc_greq_free_fn(dfc_req_t *r); /* runs free_fn once (before dfc_req_free) */
void dfc_greq_finalize(void);
/* Cancels what can be cancelled: unmatched receives, unsent sends, generalized requests. */
int dfc_req_cancel(dfc_req_t *r);
/* One side of a pair: count items of dt at buf, with the peer and tag. Non-dense types
 * move packed (dfc_req_stage_type). */
typedef struct dfc_p2p_side {
    void *buf;
    uint64_t count;
    const dfc_dtype_t *dt;
    int peer, tag;
} dfc_p2p_side_t;
/* replace: the receive side is the send side's buffer, count and type, received through a
 * temporary (dfc_p2p_tmp_t). */
int dfc_p2p_isendrecv(dfc_comm_t *c, const char *func, const dfc_p2p_side_t *s,
                      const dfc_p2p_side_t *r, int replace, DFC_Request *request);

/* bsend.c: buffered sends. comm NULL: the process's buffer. */
int dfc_bsend_attach(dfc_comm_t *comm, const char *func, void *buffer, size_t size);
int dfc_bsend_detach(dfc_comm_t *comm, const char *func, void **buffer, size_t *size);
int dfc_bsend_flush(dfc_comm_t *comm, DFC_Request *request); /* request NULL: blocking */
/* Copies the message into the buffer and sends it from there; mode 0: Bsend, 1: Ibsend
 * (a complete request in *request), 2: Bsend_init (a persistent request). */
int dfc_bsend(dfc_comm_t *c, const char *func, const void *buf, uint64_t count,
              const dfc_dtype_t *dt, int dst, int tag, int mode, DFC_Request *request);
void dfc_bsend_finalize(void);
/* ---- end of issue 17, part 3 ---------------------------------------------------------------- */

/* ---- Transports and the protocol engine (init.c, p2p.c) ------------------------------ */
#include "tl/dfc_tl.h"
extern dfc_tl_t **dfc_route;                  /* the transport that reaches each world rank */
#define DFC_COMM_SLOT_BYTES DFC_TL_SLOT_BYTES /* the most one member contributes */
/* One call of the collective slots' exchange (dfc_tl_ops_t.slot_xchg) among c's members,
 * for the coll layer's executor: c must have slots (dfc_comm_slots), so every other member
 * is reached through the transport that owns them. Fills in x's members, n and me. */
static inline int dfc_comm_slot_xchg(const dfc_comm_t *c, dfc_tl_slot_xchg_t *x)
{
    dfc_tl_t *tl = dfc_route[c->world[c->rank == 0]];
    x->sc = dfc_comm_slots(c);
    x->members = c->world;
    x->n = c->size;
    x->me = c->rank;
    return tl->ops->slot_xchg(tl, x);
}
/* For the hang report: the rank of c that slot exchange `stamp` waits for, or -1. */
static inline int dfc_comm_slot_waiting_for(const dfc_comm_t *c, uint64_t stamp, int written,
                                            int root)
{
    return dfc_tl_shm_slot_waiting_for(dfc_comm_slots(c), stamp, written, root >= 0, root);
}
int dfc_p2p_init(void);
void dfc_p2p_finalize(void);
void dfc_p2p_deliver(const dfc_pkt_t *pkt, const void *payload); /* the tl callback */
int dfc_p2p_progress_sends(void); /* pushes queued packets and rendezvous data */
int dfc_p2p_idle(void);           /* 1 when nothing is queued for output */
/* Device point-to-point (p2p.c): whether device buffer buf of `bytes` of request r skips
 * staging (receive: always; send: above DFC_GPU_EAGER_LIMIT, or to a rank of this node that
 * can hold it, which dfc_p2p_send_dst told r before), and whether copies are in flight. */
void dfc_p2p_send_dst(dfc_req_t *r, dfc_comm_t *c, int dst); /* dst: a rank of c, or PROC_NULL */
int dfc_p2p_dev_direct(dfc_req_t *r, const void *buf, size_t bytes, int is_recv);
/* FIN to the sender of rendezvous message msg (its RTS): its buffer is free (p2p_hold.c). */
void dfc_p2p_fin(const dfc_pkt_t *msg);

/* ---- Device messages held before their receive (p2p_hold.c) -------------------------------
 * Under the library lock. A hold is owned by its unexpected message until a receive claims
 * it or the message goes (cancel, drop). */
typedef struct dfc_p2p_hold dfc_p2p_hold_t;
void dfc_p2p_hold_params(void); /* reads DFC_GPU_HOLD_DELAY_US */
/* A hold for device message rts (payload: its IPC name): after DFC_GPU_HOLD_DELAY_US its bytes
 * are copied into the hold arena and FIN goes to the sender once they are read. NULL when
 * nothing is held (DFC_GPU_HOLD_MEMORY=0, no memory). Records no error. */
dfc_p2p_hold_t *dfc_p2p_hold_new(const dfc_pkt_t *rts, const void *payload);
/* A receive matched the message: 1 when h holds its bytes (or is copying them: deliver or
 * take them); 0 when it never started (h is freed: the caller takes a rendezvous). */
int dfc_p2p_hold_claim(dfc_p2p_hold_t *h);
/* Receive r (status set) takes n bytes of claimed h into r->rbuf by a device copy; r
 * completes when it is done (with the hold's error, if its copy failed). */
void dfc_p2p_hold_deliver(dfc_p2p_hold_t *h, dfc_req_t *r, uint64_t n);
/* Waits for claimed h's copy, copies n bytes into host memory and frees h; the outcome. */
int dfc_p2p_hold_take(dfc_p2p_hold_t *h, void *host, uint64_t n);
/* The sender cancels: 1 when h is dropped without FIN; 0 when its FIN went (too late). */
int dfc_p2p_hold_cancel(dfc_p2p_hold_t *h);
void dfc_p2p_hold_drop(dfc_p2p_hold_t *h); /* its message was freed; a started copy still FINs */
int dfc_p2p_hold_progress(void);           /* events */
int dfc_p2p_holds_busy(void);              /* a hold waits or copies: poll, do not sleep */
void dfc_p2p_hold_report(FILE *f);
/* For the hang report: where h stands ("waiting to be held", "held", ...). */
const char *dfc_p2p_hold_state(const dfc_p2p_hold_t *h);
void dfc_p2p_hold_finalize(void); /* waits for the copies (p2p.c frees the arena after) */
/* Whether a non-contiguous host buffer of `bytes` is packed and unpacked in pieces by the
 * protocol instead of through a whole-message shadow (receive: always; send: above the eager
 * limit, where the data goes by rendezvous anyway). */
int dfc_p2p_stream_packed(size_t bytes, int is_recv);
int dfc_p2p_dev_busy(void);
/* Prints posted receives, queued sends and rendezvous sends, one hang-report line each. */
void dfc_p2p_report(FILE *f);

/* ---- Process failure (fault.c) -----------------------------------------------------------
 * A failed world rank is declared once (by progress, from a transport or a PMIx event);
 * p2p.c then fails what depends on it. */
extern int dfc_fault_timeout_s; /* DFC_FAULT_TIMEOUT */
int dfc_fault_init(void);       /* before the transports */
void dfc_fault_finalize(void);
int dfc_fault_count(void); /* failed ranks so far */
/* Declares world rank `world` failed (once): `code` is what detected it, `how` says who. */
void dfc_fault_peer(int world, int code, const char *how);
int dfc_fault_poll(void); /* collects launcher events; returns the new failures */
/* The code a new operation fails with: peer `world` (-1: none) failed, or coll_ctx and c
 * has a failed member; DFC_SUCCESS otherwise. */
int dfc_fault_check(dfc_comm_t *c, int coll_ctx, int world);
int dfc_comm_has_member(const dfc_comm_t *c, int world);
void dfc_p2p_fail_peer(int world, int code); /* p2p.c: fails what depends on world */

/* ---- Progress ----------------------------------------------------------------------------
 * One engine drives transports, the p2p protocol and the collective scheduler. */
int dfc_progress(void);     /* one pass; returns the number of events (>= 0) or -(error code) */
int dfc_progress_net(void); /* transports and queued output only (no collective scheduler) */
/* One pass for the test family; yields the CPU when polls keep finding nothing. */
int dfc_progress_poll(void);
/* Progresses until *done becomes non-zero, backing off from spinning to yielding to
 * sleeping in the transports (so that oversubscribed ranks leave the CPU to peers). */
int dfc_progress_until(volatile int *done);
/* The same, until ready(arg) returns non-zero. */
int dfc_progress_wait(int (*ready)(void *arg), void *arg);
/* The coll layer registers its scheduler here; called once per progress pass. */
typedef int (*dfc_progress_hook_fn)(void);
void dfc_progress_set_coll_hook(dfc_progress_hook_fn fn);
/* 1 while the coll layer has scheduled collectives (the progress thread does not sleep) */
void dfc_progress_set_coll_active_hook(dfc_progress_hook_fn fn);
/* The hang report (progress.c): on SIGUSR1 or after DFC_HANG_REPORT_SECONDS without a
 * progress event in a blocking wait, the progress loop prints a header and then each
 * layer's pending operations, one line each. The coll layer registers its dump here, so
 * that comm does not depend on coll. */
typedef void (*dfc_report_hook_fn)(FILE *f);
void dfc_progress_set_coll_report_hook(dfc_report_hook_fn fn);
void dfc_hang_report(FILE *f, const char *reason, double waited_s);
void dfc_hang_report_init(void);         /* reads the parameters, installs the SIGUSR1 handler */
void dfc_progress_register_params(void); /* reads DFC_SPIN_US.. as the first wait would */
void dfc_hang_report_finalize(void);     /* restores the previous SIGUSR1 action */
/* For a wait that loops by itself (win_sync.c's fence on flags), idle since idle_since: the
 * report SIGUSR1 asked for, and DFC_HANG_REPORT_SECONDS's once per wait (*reported), as in
 * dfc_progress_wait. */
void dfc_progress_hang_check(uint64_t idle_since, int *reported);
/* 1 when this node runs more ranks than it has processors (waits yield, budgets shrink). */
int dfc_progress_oversubscribed(void);
/* Starts the progress thread if DFC_ASYNC_PROGRESS=1 (end of init); stops it (called with
 * the library lock held, start of finalize). */
int dfc_progress_thread_start(void);
void dfc_progress_thread_stop(void);
/* Starts the progress thread now if it does not run (one-sided windows, win.c). */
int dfc_progress_thread_ensure(void);
/* 1 while the progress thread runs (read under the lock). */
int dfc_progress_thread_runs(void);
/* 1 on the progress thread (DFC_ASYNC_PROGRESS), 0 on the application's threads. */
int dfc_progress_on_thread(void);
/* For DFC_DEBUG=2:sched (under the lock): a host collective completed, in the call that
 * posted it (in_start) or in a later pass, which the progress thread's or another's. */
void dfc_progress_count_coll_done(int in_start);

/* ---- Status helpers ----------------------------------------------------------------------- */
static inline void dfc_status_set_bytes(DFC_Status *s, uint64_t bytes)
{
    s->count_lo = (int)(uint32_t)bytes;
    s->count_hi_and_cancelled = (s->count_hi_and_cancelled & 1) | (int)((bytes >> 32) << 1);
}
static inline uint64_t dfc_status_bytes(const DFC_Status *s)
{
    return (uint64_t)(uint32_t)s->count_lo |
           ((uint64_t)((uint32_t)s->count_hi_and_cancelled >> 1) << 32);
}
static inline void dfc_status_empty(DFC_Status *s)
{
    s->DFC_SOURCE = DFC_ANY_SOURCE;
    s->DFC_TAG = DFC_ANY_TAG;
    s->DFC_ERROR = DFC_SUCCESS;
    s->count_lo = 0;
    s->count_hi_and_cancelled = 0;
}

#endif /* DFC_COMM_H */
