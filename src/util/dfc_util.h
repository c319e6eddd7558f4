/*
 * dfc_util.h - the util layer: error recording, debug logging, environment parameters,
 * time, intrusive lists and a handle table. Depends on nothing else in DFC.
 */
#ifndef DFC_UTIL_H
#define DFC_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dfc.h"

#define DFC_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define DFC_LIKELY(x) __builtin_expect(!!(x), 1)
#define DFC_MIN2(a, b) ((a) < (b) ? (a) : (b)) /* not DFC_MIN: that is the op */
#define DFC_MAX2(a, b) ((a) > (b) ? (a) : (b))

/* ---- Errors ----------------------------------------------------------------------------
 * An error code is (message slot << 8) | class. The place that detects an error records its
 * message once with dfc_err(); callers pass the returned code up unchanged. The message is
 * kept in a small ring so that DFC_Error_string can still return it later.
 */
#define DFC_ERR_CLASS(code) ((code)&0xff)

/* Records "<func>: <formatted reason>" and returns a code of class `errclass`. */
int dfc_err(int errclass, const char *func, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Copies the message of `code` (or the class string when it has none) into buf. */
void dfc_err_message(int code, char *buf, size_t len);
/* The fixed description of an error class, or NULL if `errclass` is not one (a class
 * added by DFC_Add_error_class is one: its string, "" until one is given). */
const char *dfc_err_class_string(int errclass);
/* User error classes and codes (DFC_Add_error_class/_code/_string). An added code is
 * ((DFC_ERR_USER_SLOT + n) << 8) | class, above every recorded message's code; classes go
 * from DFC_ERR_LASTCODE + 1 up to 255 (the class is the code's low byte). */
#define DFC_ERR_USER_SLOT 0x100
#define DFC_ERR_USER_CODES 4096
int dfc_err_valid(int code); /* 1 for a predefined or added class or code, or a recorded code */
int dfc_err_add_class(int *errclass);            /* DFC_ERR_OTHER when none is left */
int dfc_err_add_code(int errclass, int *code);   /* errclass must be valid */
int dfc_err_add_string(int code, const char *s); /* DFC_ERR_NO_MEM or DFC_SUCCESS */
int dfc_err_is_predefined(int code);             /* classes 0..DFC_ERR_LASTCODE, recorded codes */
int dfc_err_last_used(void);                     /* the value of DFC_LASTUSEDCODE */
/* DFC_Remove_error_class/_code/_string: what is one of these; DFC_ERR_ARG naming func when
 * code is not an added class (without live codes) or code, or has no string to remove. */
enum { DFC_ERR_REMOVE_CLASS = 1, DFC_ERR_REMOVE_CODE, DFC_ERR_REMOVE_STRING };
int dfc_err_remove(int code, int what, const char *func);
void dfc_err_user_reset(void); /* forgets added classes, codes and strings */

/* Convenience for argument checks inside API functions (uses __func__). */
#define DFC_ERR(cls, ...) dfc_err((cls), __func__, __VA_ARGS__)

/* ---- Logging (DFC_DEBUG) -----------------------------------------------------------------
 * DFC_DEBUG="level[:subsys,subsys]" (level 0 none, 1 errors, 2 info, 3 trace). Silent by
 * default. Output goes to stderr, prefixed with the world rank.
 */
enum { DFC_LOG_ERROR = 1, DFC_LOG_INFO = 2, DFC_LOG_TRACE = 3 };
extern int dfc_log_level;
void dfc_log_init(int world_rank);
int dfc_log_enabled(int level, const char *subsys);
void dfc_log_write(const char *subsys, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define DFC_LOG(level, subsys, ...)                                                       \
    do {                                                                                  \
        if (DFC_UNLIKELY(dfc_log_level >= (level)) && dfc_log_enabled((level), (subsys))) \
            dfc_log_write((subsys), __VA_ARGS__);                                         \
    } while (0)

/* Prints a fatal message to stderr and aborts the whole job (through the bootstrap hook). */
void dfc_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Set by init: how to abort the job (PMIx abort); defaults to abort(). */
extern void (*dfc_abort_hook)(int code, const char *msg);

/* ---- Environment parameters --------------------------------------------------------------
 * Every parameter is read through these, with its default and a one-line description, so
 * that dfc_info can list them; each must also appear in dfc_env(7).
 */
typedef struct dfc_env_param {
    const char *name;
    const char *dflt;
    const char *desc;
} dfc_env_param_t;

long dfc_env_long(const char *name, long dflt, const char *desc);
double dfc_env_double(const char *name, double dflt, const char *desc);
const char *dfc_env_str(const char *name, const char *dflt, const char *desc);
/* All parameters read so far (for dfc_info). */
const dfc_env_param_t *dfc_env_params(int *count);

/* The registry (env_registry.c): every parameter with the values it accepts. A reader given
 * a value the registry rejects returns the default; DFC_Init has failed on it before. */
typedef enum dfc_env_kind {
    DFC_ENV_INT,    /* integer in [lo, hi], C syntax, optional k/m/g suffix (x 1024^n) */
    DFC_ENV_REAL,   /* floating-point number in [lo, hi] */
    DFC_ENV_CHOICE, /* one of the words of `choices` ("a|b|c") */
    DFC_ENV_DEBUG,  /* level in [lo, hi], then optionally ":" and words of `choices`, "," */
    DFC_ENV_IPV4,   /* dotted-quad IPv4 address */
    DFC_ENV_TEXT    /* any text (a file name) */
} dfc_env_kind_t;

typedef struct dfc_env_spec {
    const char *name;
    dfc_env_kind_t kind;
    long lo, hi;
    const char *choices;
} dfc_env_spec_t;

const dfc_env_spec_t *dfc_env_specs(int *count);
/* The registry's entry for name, or NULL. */
const dfc_env_spec_t *dfc_env_spec(const char *name);
/* DFC_ variables that the source tree's scripts read and the library ignores. */
const char *const *dfc_env_script_vars(int *count);
/* DFC_SUCCESS when `value` is acceptable for `spec`; else a DFC_ERR_ARG code whose message
 * reads "<func>: invalid environment parameter NAME=VALUE: NAME accepts <what>". */
int dfc_env_validate(const dfc_env_spec_t *spec, const char *value, const char *func);
/* Checks every DFC_ variable of envp (NULL-terminated "NAME=VALUE" strings): returns the
 * error of the first invalid value, or DFC_SUCCESS. When `warn` is not NULL, writes one line
 * "[dfc rank R] warning: ..." to it for each DFC_ variable that is neither a parameter nor a
 * script variable (a typo must not go unnoticed). */
int dfc_env_check(char *const *envp, const char *func, int rank, FILE *warn);

/* ---- Time ---------------------------------------------------------------------------- */
double dfc_time_now(void); /* seconds, monotonic */
uint64_t dfc_time_ns(void);
/* One turn of a spin-wait: tells the core (pause, yield) so that its sibling hyperthread
 * and the peer it waits for run better. */
static inline void dfc_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

/* ---- Memory ---------------------------------------------------------------------------- */
void *dfc_malloc(size_t size); /* NULL on failure (callers report DFC_ERR_NO_MEM) */
void *dfc_calloc(size_t n, size_t size);
void *dfc_realloc(void *p, size_t size);
void dfc_free(void *p);

/* ---- Intrusive doubly linked list ------------------------------------------------------ */
typedef struct dfc_list {
    struct dfc_list *next, *prev;
} dfc_list_t;

static inline void dfc_list_init(dfc_list_t *l) { l->next = l->prev = l; }
static inline int dfc_list_empty(const dfc_list_t *l) { return l->next == l; }
static inline void dfc_list_insert_tail(dfc_list_t *l, dfc_list_t *e)
{
    e->prev = l->prev;
    e->next = l;
    l->prev->next = e;
    l->prev = e;
}
static inline void dfc_list_remove(dfc_list_t *e)
{
    e->prev->next = e->next;
    e->next->prev = e->prev;
    e->next = e->prev = e;
}
#define DFC_CONTAINER_OF(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))
#define DFC_LIST_FOREACH_SAFE(pos, tmp, head)                        \
    for ((pos) = (head)->next, (tmp) = (pos)->next; (pos) != (head); \
         (pos) = (tmp), (tmp) = (pos)->next)

/* ---- Handle tables ----------------------------------------------------------------------
 * Objects of one kind live in a table indexed by the low 24 bits of their handle. Slot 0 is
 * the null handle. Freed slots are reused (lowest first is not promised).
 */
#define DFC_HANDLE_KIND(h) (((unsigned)(h)) >> 24)
#define DFC_HANDLE_INDEX(h) (((unsigned)(h)) & 0xffffffu)
enum {
    DFC_KIND_COMM = 1,
    DFC_KIND_GROUP = 2,
    DFC_KIND_DATATYPE = 3,
    DFC_KIND_OP = 4,
    DFC_KIND_REQUEST = 5,
    DFC_KIND_INFO = 6,
    DFC_KIND_ERRHANDLER = 7,
    DFC_KIND_WIN = 10,     /* windows (one-sided communication) */
    DFC_KIND_MESSAGE = 11, /* matched-probe messages (DFC_MESSAGE_NULL, mprobe.c) */
    DFC_KIND_KEYVAL = 12,  /* attribute keys (DFC_KEYVAL_INVALID, DFC_TAG_UB, ...) */
    DFC_KIND_FILE = 13     /* MPI-IO files (src/io) */
};

typedef struct dfc_htable {
    int kind;
    void **slots;
    uint32_t cap;   /* slots allocated */
    uint32_t first; /* first index handed out dynamically (after predefined ones) */
    uint32_t *freelist;
    uint32_t nfree, next;
} dfc_htable_t;

void dfc_htable_init(dfc_htable_t *t, int kind, uint32_t first_dynamic);
/* Registers obj at a fixed index (predefined objects). */
void dfc_htable_set(dfc_htable_t *t, uint32_t index, void *obj);
/* Allocates a handle for obj; returns 0 (the null handle's index) on out-of-memory. */
int dfc_htable_add(dfc_htable_t *t, void *obj);
/* Returns the object or NULL when h is not a live handle of this table's kind. */
static inline void *dfc_htable_get(const dfc_htable_t *t, int h)
{
    uint32_t i = DFC_HANDLE_INDEX(h);
    if (DFC_HANDLE_KIND(h) != (unsigned)t->kind || i == 0 || i >= t->cap) return NULL;
    return t->slots[i];
}
void dfc_htable_remove(dfc_htable_t *t, int h);
void dfc_htable_destroy(dfc_htable_t *t);

#endif /* DFC_UTIL_H */
