/*
 * coll_sim.c - the schedule simulator of coll_sim.h: n ranks' schedules run in one process,
 * plus whole reductions checked against serial references.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_sim.h"

/* ---- Random numbers (xorshift64*) -------------------------------------------------------- */
static uint64_t sim_rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545f4914f6cdd1dull;
}

/* ---- Simulator state ------------------------------------------------------------------------ */
typedef struct {
    int32_t *v;
    int n, cap;
} sim_ivec_t;

typedef struct sim {
    const char *label;
    int n;
    coll_sim_rank_t *ranks;
    const dfc_dtype_t *dt;
    const dfc_op_t *op;
    int *pc, *fstart, *finished;
    char **done;       /* per rank, per step: transfer complete */
    sim_ivec_t *sends; /* [s * n + r]: steps of sender s posted to receiver r, in order */
    sim_ivec_t *recvs; /* [s * n + r]: steps of receiver r posted from sender s, in order */
    int *matched;      /* [s * n + r]: pairs matched so far */
    void *scratch;     /* IN_SECOND reductions */
    uint64_t scratch_bytes;
    int failed;
} sim_t;

static const char *const kind_names[] = {"?",    "SEND",   "RECV", "RECV_REDUCE",
                                         "COPY", "REDUCE", "FENCE"};
static const char *const buf_names[] = {"NONE", "SEND", "RECV", "TMP"};

static const char *kind_name(int k) { return k >= 1 && k <= DFC_STEP_FENCE ? kind_names[k] : "?"; }
static const char *buf_name(int b) { return b >= 0 && b < DFC_BUF_COUNT ? buf_names[b] : "?"; }
static int is_transfer(int k)
{
    return k == DFC_STEP_SEND || k == DFC_STEP_RECV || k == DFC_STEP_RECV_REDUCE;
}

/* One failure line: "<label>: rank R step S (KIND peer P): <msg>". Only the first counts. */
static int sim_fail(sim_t *S, int r, int pc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int sim_fail(sim_t *S, int r, int pc, const char *fmt, ...)
{
    if (S->failed++) return -1;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const dfc_sched_t *s = &S->ranks[r].sched;
    if (pc >= 0 && pc < s->nsteps) {
        const dfc_step_t *st = &s->steps[pc];
        if (is_transfer(st->kind))
            fprintf(stderr, "%s: rank %d step %d (%s peer %d): %s\n", S->label, r, pc,
                    kind_name(st->kind), (int)st->peer, msg);
        else
            fprintf(stderr, "%s: rank %d step %d (%s): %s\n", S->label, r, pc, kind_name(st->kind),
                    msg);
    } else {
        fprintf(stderr, "%s: rank %d: %s\n", S->label, r, msg);
    }
    return -1;
}

static int ivec_push(sim_ivec_t *v, int32_t x)
{
    if (v->n == v->cap) {
        int cap = v->cap ? 2 * v->cap : 8;
        int32_t *p = realloc(v->v, (size_t)cap * sizeof *p);
        if (!p) return -1;
        v->v = p;
        v->cap = cap;
    }
    v->v[v->n++] = x;
    return 0;
}

/* Checks that rank r may access [off, off+bytes) of buffer `buf`; returns its address. */
static int sim_region(sim_t *S, int r, int pc, int buf, uint64_t off, uint64_t bytes, int write,
                      char **addr)
{
    *addr = NULL;
    if (bytes == 0) return 0;
    if (buf <= DFC_BUF_NONE || buf >= DFC_BUF_COUNT)
        return sim_fail(S, r, pc, "invalid buffer name %d", buf);
    if (write && buf == DFC_BUF_SEND) return sim_fail(S, r, pc, "writes the SEND buffer");
    coll_sim_rank_t *R = &S->ranks[r];
    char *p = R->buf[buf];
    uint64_t size = R->bytes[buf];
    if (!p || off > size || bytes > size - off)
        return sim_fail(S, r, pc, "%s bytes [%llu, %llu) of %s, which has %llu bytes%s",
                        write ? "writes" : "reads", (unsigned long long)off,
                        (unsigned long long)(off + bytes), buf_name(buf), (unsigned long long)size,
                        p ? "" : " (not bound)");
    *addr = p + off;
    return 0;
}

/* The bytes a transfer step touches while in flight (RECV_REDUCE: its TMP region). */
static void transfer_region(const dfc_step_t *st, int *buf, uint64_t *off, int *write)
{
    if (st->kind == DFC_STEP_SEND) {
        *buf = st->src_buf, *off = st->src_off, *write = 0;
    } else if (st->kind == DFC_STEP_RECV) {
        *buf = st->dst_buf, *off = st->dst_off, *write = 1;
    } else {
        *buf = DFC_BUF_TMP, *off = st->tmp_off, *write = 1;
    }
}

static int overlap(int b1, uint64_t o1, uint64_t n1, int b2, uint64_t o2, uint64_t n2)
{
    return b1 == b2 && n1 && n2 && o1 < o2 + n2 && o2 < o1 + n1;
}

/* Within one epoch, no receive may land on bytes another transfer of the epoch uses. */
static int sim_hazard(sim_t *S, int r, int pc)
{
    const dfc_step_t *steps = S->ranks[r].sched.steps, *st = &steps[pc];
    int b1, w1;
    uint64_t o1;
    transfer_region(st, &b1, &o1, &w1);
    for (int i = S->fstart[r]; i < pc; i++) {
        const dfc_step_t *p = &steps[i];
        if (!is_transfer(p->kind)) continue;
        int b2, w2;
        uint64_t o2;
        transfer_region(p, &b2, &o2, &w2);
        if ((w1 || w2) && overlap(b1, o1, st->bytes, b2, o2, p->bytes))
            return sim_fail(S, r, pc,
                            "%s [%llu, +%llu) overlaps step %d (%s %s [%llu, +%llu)) of the "
                            "same epoch",
                            buf_name(b1), (unsigned long long)o1, (unsigned long long)st->bytes, i,
                            kind_name(p->kind), buf_name(b2), (unsigned long long)o2,
                            (unsigned long long)p->bytes);
    }
    return 0;
}

/* Matches posted sends and receives of the pair (s -> r), moving their bytes. */
static int sim_match(sim_t *S, int s, int r)
{
    int k = s * S->n + r;
    sim_ivec_t *sv = &S->sends[k], *rv = &S->recvs[k];
    while (S->matched[k] < sv->n && S->matched[k] < rv->n) {
        int m = S->matched[k]++;
        int ss = sv->v[m], rs = rv->v[m];
        const dfc_step_t *sst = &S->ranks[s].sched.steps[ss], *rst = &S->ranks[r].sched.steps[rs];
        if (sst->bytes != rst->bytes)
            return sim_fail(S, r, rs,
                            "receives %llu bytes but the matching send (rank %d step %d) has "
                            "%llu bytes",
                            (unsigned long long)rst->bytes, s, ss, (unsigned long long)sst->bytes);
        char *src, *dst;
        if (sim_region(S, s, ss, sst->src_buf, sst->src_off, sst->bytes, 0, &src)) return -1;
        if (rst->kind == DFC_STEP_RECV) {
            if (sim_region(S, r, rs, rst->dst_buf, rst->dst_off, rst->bytes, 1, &dst)) return -1;
        } else {
            if (sim_region(S, r, rs, DFC_BUF_TMP, rst->tmp_off, rst->bytes, 1, &dst)) return -1;
        }
        if (sst->bytes) memcpy(dst, src, sst->bytes);
        S->done[s][ss] = 1;
        S->done[r][rs] = 1;
    }
    return 0;
}

/* dst = in (op) dst (IN_FIRST) or dst (op) in (IN_SECOND); `in` is never written. */
static int sim_reduce(sim_t *S, int r, int pc, const void *in, void *dst, uint64_t count, int order)
{
    if (!count) return 0;
    if (!S->op || !S->dt) return sim_fail(S, r, pc, "reduces, but the run has no op/datatype");
    uint64_t bytes = count * S->dt->size;
    if (order == DFC_REDUCE_IN_FIRST) {
        dfc_op_reduce(S->op, S->dt, in, dst, count);
    } else if (order == DFC_REDUCE_IN_SECOND) {
        if (S->scratch_bytes < bytes) {
            void *p = realloc(S->scratch, bytes);
            if (!p) return sim_fail(S, r, pc, "out of memory");
            S->scratch = p;
            S->scratch_bytes = bytes;
        }
        memcpy(S->scratch, in, bytes);
        dfc_op_reduce(S->op, S->dt, dst, S->scratch, count); /* scratch = dst op in */
        memcpy(dst, S->scratch, bytes);
    } else {
        return sim_fail(S, r, pc, "invalid reduction order %d", order);
    }
    return 0;
}

/* The first incomplete transfer of rank r's current epoch, or -1. */
static int sim_pending(const sim_t *S, int r)
{
    const dfc_step_t *steps = S->ranks[r].sched.steps;
    for (int i = S->fstart[r]; i < S->pc[r]; i++)
        if (is_transfer(steps[i].kind) && !S->done[r][i]) return i;
    return -1;
}

/* Completes the epoch: applies its RECV_REDUCE reductions in step order. */
static int sim_close_epoch(sim_t *S, int r)
{
    coll_sim_rank_t *R = &S->ranks[r];
    for (int i = S->fstart[r]; i < S->pc[r]; i++) {
        const dfc_step_t *st = &R->sched.steps[i];
        if (st->kind != DFC_STEP_RECV_REDUCE || !st->bytes) continue;
        char *in, *dst;
        if (sim_region(S, r, i, DFC_BUF_TMP, st->tmp_off, st->bytes, 1, &in)) return -1;
        if (sim_region(S, r, i, st->dst_buf, st->dst_off, st->bytes, 1, &dst)) return -1;
        if (sim_reduce(S, r, i, in, dst, st->count, st->order)) return -1;
        memset(in, 0xa5, st->bytes); /* the executor may have reduced in TMP */
    }
    return 0;
}

/* Advances rank r by one step: 1 advanced, 0 blocked, -1 failed. */
static int sim_step(sim_t *S, int r)
{
    coll_sim_rank_t *R = &S->ranks[r];
    int pc = S->pc[r];
    if (S->finished[r]) return 0;
    if (pc == R->sched.nsteps) {
        if (S->fstart[r] < pc)
            return sim_fail(S, r, S->fstart[r],
                            "transfers after the last FENCE (the schedule "
                            "must end with a FENCE)");
        S->finished[r] = 1;
        return 1;
    }
    const dfc_step_t *st = &R->sched.steps[pc];
    char *src, *dst;
    switch (st->kind) {
    case DFC_STEP_SEND:
    case DFC_STEP_RECV:
    case DFC_STEP_RECV_REDUCE: {
        int peer = st->peer;
        if (peer < 0 || peer >= S->n) return sim_fail(S, r, pc, "peer out of range");
        if (peer == r) return sim_fail(S, r, pc, "transfer to itself");
        if (st->kind == DFC_STEP_SEND) {
            if (sim_region(S, r, pc, st->src_buf, st->src_off, st->bytes, 0, &src)) return -1;
        } else if (st->kind == DFC_STEP_RECV) {
            if (sim_region(S, r, pc, st->dst_buf, st->dst_off, st->bytes, 1, &dst)) return -1;
        } else {
            if (!S->dt) return sim_fail(S, r, pc, "reduces, but the run has no datatype");
            if (st->bytes != st->count * S->dt->size)
                return sim_fail(S, r, pc, "bytes %llu != count %llu * item size %zu",
                                (unsigned long long)st->bytes, (unsigned long long)st->count,
                                S->dt->size);
            if (sim_region(S, r, pc, DFC_BUF_TMP, st->tmp_off, st->bytes, 1, &src)) return -1;
            if (sim_region(S, r, pc, st->dst_buf, st->dst_off, st->bytes, 1, &dst)) return -1;
            if (overlap(DFC_BUF_TMP, st->tmp_off, st->bytes, st->dst_buf, st->dst_off, st->bytes))
                return sim_fail(S, r, pc, "TMP region overlaps the reduction destination");
        }
        if (sim_hazard(S, r, pc)) return -1;
        int s = st->kind == DFC_STEP_SEND ? r : peer, d = st->kind == DFC_STEP_SEND ? peer : r;
        sim_ivec_t *v = st->kind == DFC_STEP_SEND ? &S->sends[s * S->n + d]
                                                  : &S->recvs[s * S->n + d];
        if (ivec_push(v, pc)) return sim_fail(S, r, pc, "out of memory");
        S->pc[r]++;
        if (sim_match(S, s, d)) return -1;
        return 1;
    }
    case DFC_STEP_FENCE:
    case DFC_STEP_COPY:
    case DFC_STEP_REDUCE:
        if (sim_pending(S, r) >= 0) return 0;
        if (sim_close_epoch(S, r)) return -1;
        if (st->kind == DFC_STEP_COPY || st->kind == DFC_STEP_REDUCE) {
            uint64_t bytes = st->bytes;
            if (st->kind == DFC_STEP_REDUCE) {
                if (!S->dt) return sim_fail(S, r, pc, "reduces, but the run has no datatype");
                bytes = st->count * S->dt->size;
            }
            if (sim_region(S, r, pc, st->src_buf, st->src_off, bytes, 0, &src)) return -1;
            if (sim_region(S, r, pc, st->dst_buf, st->dst_off, bytes, 1, &dst)) return -1;
            if (overlap(st->src_buf, st->src_off, bytes, st->dst_buf, st->dst_off, bytes))
                return sim_fail(S, r, pc, "source and destination overlap");
            if (st->kind == DFC_STEP_COPY) {
                if (bytes) memcpy(dst, src, bytes);
            } else {
                if (sim_reduce(S, r, pc, src, dst, st->count, st->order)) return -1;
                /* exec.c computes IN_SECOND in a TMP source, clobbering it */
                if (st->src_buf == DFC_BUF_TMP && st->order == DFC_REDUCE_IN_SECOND && bytes)
                    memset(src, 0xa5, bytes);
            }
        }
        S->pc[r]++;
        S->fstart[r] = S->pc[r];
        return 1;
    default: return sim_fail(S, r, pc, "invalid step kind %d", st->kind);
    }
}

/* One line naming every unfinished rank's current step and what it waits for. */
static void sim_report_deadlock(sim_t *S)
{
    char line[2048];
    size_t len = 0;
    for (int r = 0; r < S->n && len < sizeof line - 128; r++) {
        if (S->finished[r]) continue;
        const dfc_sched_t *s = &S->ranks[r].sched;
        int pc = S->pc[r], w = sim_pending(S, r);
        const char *at = pc < s->nsteps ? kind_name(s->steps[pc].kind) : "end";
        if (w >= 0)
            len += (size_t)snprintf(line + len, sizeof line - len,
                                    "%s rank %d step %d (%s) waits for step %d (%s peer %d)",
                                    len ? ";" : "", r, pc, at, w, kind_name(s->steps[w].kind),
                                    (int)s->steps[w].peer);
        else
            len += (size_t)snprintf(line + len, sizeof line - len, "%s rank %d step %d (%s)",
                                    len ? ";" : "", r, pc, at);
    }
    if (len >= sizeof line - 128) snprintf(line + len, sizeof line - len, "; ...");
    S->failed++;
    fprintf(stderr, "%s: deadlock:%s\n", S->label, line);
}

int coll_sim_run(const char *label, int n, coll_sim_rank_t *ranks, const dfc_dtype_t *dt,
                 const dfc_op_t *op, int mode, uint64_t seed)
{
    sim_t S;
    memset(&S, 0, sizeof S);
    S.label = label;
    S.n = n;
    S.ranks = ranks;
    S.dt = dt;
    S.op = op;
    S.pc = calloc((size_t)n, sizeof(int));
    S.fstart = calloc((size_t)n, sizeof(int));
    S.finished = calloc((size_t)n, sizeof(int));
    S.done = calloc((size_t)n, sizeof(char *));
    S.sends = calloc((size_t)n * (size_t)n, sizeof(sim_ivec_t));
    S.recvs = calloc((size_t)n * (size_t)n, sizeof(sim_ivec_t));
    S.matched = calloc((size_t)n * (size_t)n, sizeof(int));
    int *order = calloc((size_t)n, sizeof(int));
    char *tmp_owned = calloc((size_t)n, 1);
    int ok = S.pc && S.fstart && S.finished && S.done && S.sends && S.recvs && S.matched && order &&
             tmp_owned;
    for (int r = 0; ok && r < n; r++) {
        S.done[r] = calloc((size_t)ranks[r].sched.nsteps + 1, 1);
        if (!ranks[r].buf[DFC_BUF_TMP]) {
            ranks[r].bytes[DFC_BUF_TMP] = ranks[r].sched.tmp_bytes;
            if (ranks[r].sched.tmp_bytes) {
                /* Garbage, so that a schedule that reads scratch it never wrote fails. */
                ranks[r].buf[DFC_BUF_TMP] = malloc(ranks[r].sched.tmp_bytes);
                tmp_owned[r] = 1;
                if (ranks[r].buf[DFC_BUF_TMP])
                    memset(ranks[r].buf[DFC_BUF_TMP], 0x5a, ranks[r].sched.tmp_bytes);
                else ok = 0;
            }
        }
        if (!S.done[r]) ok = 0;
    }
    uint64_t rng = seed * 0x9e3779b97f4a7c15ull + 1;
    if (!ok) {
        fprintf(stderr, "%s: out of memory in the simulator\n", label);
        S.failed = 1;
    }
    while (!S.failed) {
        int unfinished = 0, progress = 0;
        for (int r = 0; r < n; r++)
            if (!S.finished[r]) order[unfinished++] = r;
        if (!unfinished) break;
        if (mode == COLL_SIM_RANDOM)
            for (int i = unfinished - 1; i > 0; i--) {
                int j = (int)(sim_rnd(&rng) % (uint64_t)(i + 1)), t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
        for (int i = 0; i < unfinished && !S.failed; i++) {
            int r = order[i];
            /* Ordered: as far as it goes. Random: 1 to 4 steps. */
            int budget = mode == COLL_SIM_RANDOM ? 1 + (int)(sim_rnd(&rng) % 4) : -1;
            while (budget != 0) {
                int rc = sim_step(&S, r);
                if (rc <= 0) break;
                progress = 1;
                if (budget > 0) budget--;
            }
        }
        if (!S.failed && !progress) sim_report_deadlock(&S);
    }
    for (int r = 0; r < n; r++) {
        if (S.done) free(S.done[r]);
        if (tmp_owned && tmp_owned[r]) {
            free(ranks[r].buf[DFC_BUF_TMP]);
            ranks[r].buf[DFC_BUF_TMP] = NULL;
        }
    }
    for (int k = 0; S.sends && S.recvs && k < n * n; k++) {
        free(S.sends[k].v);
        free(S.recvs[k].v);
    }
    free(S.pc), free(S.fstart), free(S.finished), free(S.done), free(S.sends), free(S.recvs);
    free(S.matched), free(S.scratch), free(order), free(tmp_owned);
    return S.failed ? -1 : 0;
}

/* ---- Whole reductions ------------------------------------------------------------------------ */
static void *xmalloc(uint64_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "coll_sim: out of memory (%llu bytes)\n", (unsigned long long)bytes);
        exit(2);
    }
    return p;
}

void coll_sim_args(const coll_sim_case_t *c, int rank, dfc_coll_args_t *a)
{
    memset(a, 0, sizeof *a);
    a->kind = c->kind;
    a->rank = rank;
    a->size = c->n;
    a->root = c->root;
    a->in_place = c->kind == DFC_COLL_REDUCE ? (c->in_place && rank == c->root) : c->in_place;
    a->commutative = c->op ? c->op->commute : 1;
    a->count = c->count;
    a->elem = c->dt ? c->dt->size : 0;
    a->rcounts = c->rcounts;
    a->world = c->world;
    a->world_node = c->world_node;
    a->gpu = c->gpu;
}

/* Items of input and of RECV on `rank`, and where its result starts in the input. */
static void case_items(const coll_sim_case_t *c, int rank, uint64_t *in, uint64_t *out,
                       uint64_t *disp)
{
    *disp = 0;
    switch (c->kind) {
    case DFC_COLL_REDUCE_SCATTER_BLOCK:
        *in = (uint64_t)c->n * c->count;
        *out = c->count;
        *disp = (uint64_t)rank * c->count;
        break;
    case DFC_COLL_REDUCE_SCATTER:
        *in = 0;
        for (int j = 0; j < c->n; j++) {
            if (j == rank) *disp = *in;
            *in += (uint64_t)c->rcounts[j];
        }
        *out = (uint64_t)c->rcounts[rank];
        break;
    case DFC_COLL_REDUCE:
        *in = c->count;
        *out = rank == c->root ? c->count : 0;
        break;
    default: /* allreduce, scan, exscan */ *in = *out = c->count; break;
    }
}

/* Random inputs that every op reduces exactly: small integers, also in floating types. */
static void fill_input(const dfc_dtype_t *dt, void *buf, uint64_t items, uint64_t *rng)
{
    size_t nb = dt->nbase ? dt->nbase : 1, bsize = dt->size / nb;
    uint64_t n = items * nb;
    unsigned base = (unsigned)dt->base;
    for (uint64_t i = 0; i < n; i++) {
        long v = (long)(sim_rnd(rng) % 21) - 10;
        char *p = (char *)buf + i * bsize;
        if (base == DFC_HANDLE_INDEX(DFC_DOUBLE)) {
            double d = (double)v;
            memcpy(p, &d, sizeof d);
        } else if (base == DFC_HANDLE_INDEX(DFC_FLOAT)) {
            float f = (float)v;
            memcpy(p, &f, sizeof f);
        } else if (bsize == 1) {
            int8_t x = (int8_t)v;
            memcpy(p, &x, 1);
        } else if (bsize == 2) {
            int16_t x = (int16_t)v;
            memcpy(p, &x, 2);
        } else if (bsize == 4) {
            int32_t x = (int32_t)v;
            memcpy(p, &x, 4);
        } else if (bsize == 8) {
            int64_t x = (int64_t)v;
            memcpy(p, &x, 8);
        } else {
            for (size_t b = 0; b < bsize; b++) p[b] = (char)sim_rnd(rng);
        }
    }
}

/* Prints up to 16 bytes of an item: as int32 words, doubles, or hex bytes. */
static void format_item(const dfc_dtype_t *dt, const void *p, char *out, size_t len)
{
    size_t n = dt->size < 16 ? dt->size : 16, o = 0;
    out[0] = 0;
    if (dt->base == (int)DFC_HANDLE_INDEX(DFC_DOUBLE)) {
        for (size_t i = 0; i + 8 <= n && o < len; i += 8) {
            double d;
            memcpy(&d, (const char *)p + i, 8);
            o += (size_t)snprintf(out + o, len - o, "%s%g", i ? "," : "", d);
        }
    } else if (n % 4 == 0) {
        for (size_t i = 0; i < n && o < len; i += 4) {
            int32_t x;
            memcpy(&x, (const char *)p + i, 4);
            o += (size_t)snprintf(out + o, len - o, "%s%d", i ? "," : "", (int)x);
        }
    } else {
        for (size_t i = 0; i < n && o < len; i++)
            o += (size_t)snprintf(out + o, len - o, "%02x", ((const unsigned char *)p)[i]);
    }
}

int coll_sim_check(const char *label, const coll_sim_case_t *c)
{
    int n = c->n, failed = 0;
    const dfc_dtype_t *dt = c->dt;
    size_t sz = dt->size;
    uint64_t rng = c->seed * 0xd1342543de82ef95ull + 0x632be59bd9b4e019ull;
    coll_sim_rank_t *ranks = calloc((size_t)n, sizeof *ranks);
    char **x = calloc((size_t)n, sizeof(char *));    /* inputs */
    char **init = calloc((size_t)n, sizeof(char *)); /* RECV before the run */
    char *want = NULL;
    if (!ranks || !x || !init) {
        fprintf(stderr, "%s: out of memory\n", label);
        free(ranks), free(x), free(init);
        return -1;
    }
    uint64_t max_in = 0;
    for (int r = 0; r < n; r++) {
        dfc_coll_args_t a;
        uint64_t in, out, disp;
        coll_sim_args(c, r, &a);
        case_items(c, r, &in, &out, &disp);
        max_in = in > max_in ? in : max_in;
        x[r] = xmalloc(in * sz);
        fill_input(dt, x[r], in, &rng);
        uint64_t recv_items = a.in_place ? in : out;
        ranks[r].bytes[DFC_BUF_RECV] = recv_items * sz;
        ranks[r].buf[DFC_BUF_RECV] = recv_items ? xmalloc(recv_items * sz) : NULL;
        init[r] = xmalloc(recv_items * sz);
        if (a.in_place) {
            if (in) memcpy(ranks[r].buf[DFC_BUF_RECV], x[r], in * sz);
        } else {
            for (uint64_t b = 0; b < recv_items * sz; b += 8) { /* garbage */
                uint64_t g = sim_rnd(&rng);
                memcpy((char *)ranks[r].buf[DFC_BUF_RECV] + b, &g,
                       DFC_MIN2(8, recv_items * sz - b));
            }
            ranks[r].bytes[DFC_BUF_SEND] = in * sz;
            ranks[r].buf[DFC_BUF_SEND] = in ? xmalloc(in * sz) : NULL;
            if (in) memcpy(ranks[r].buf[DFC_BUF_SEND], x[r], in * sz);
        }
        if (recv_items) memcpy(init[r], ranks[r].buf[DFC_BUF_RECV], recv_items * sz);
        dfc_sched_init(&ranks[r].sched);
        if (c->build(&a, &ranks[r].sched) != DFC_SUCCESS && !failed++)
            fprintf(stderr, "%s: rank %d: the generator failed\n", label, r);
    }
    if (!failed) failed = coll_sim_run(label, n, ranks, dt, c->op, c->mode, c->seed) != 0;

    want = xmalloc(max_in * sz);
    int bad_ranks = 0;
    for (int r = 0; r < n && !failed; r++) {
        dfc_coll_args_t a;
        uint64_t in, out, disp;
        coll_sim_args(c, r, &a);
        case_items(c, r, &in, &out, &disp);
        char *recv = ranks[r].buf[DFC_BUF_RECV], *send = ranks[r].buf[DFC_BUF_SEND];
        if (send && memcmp(send, x[r], in * sz)) {
            fprintf(stderr, "%s: rank %d: the SEND buffer was modified\n", label, r);
            failed = 1;
            break;
        }
        /* The reference: the fold over ranks [0, last] of the items at disp. */
        int last = n - 1;
        if (c->kind == DFC_COLL_SCAN) last = r;
        if (c->kind == DFC_COLL_EXSCAN) last = r - 1;
        if (c->kind == DFC_COLL_REDUCE && r != c->root) continue;
        if (last < 0) { /* exscan on rank 0: RECV untouched */
            uint64_t rb = ranks[r].bytes[DFC_BUF_RECV];
            if (rb && memcmp(recv, init[r], rb)) {
                fprintf(stderr, "%s: rank 0: exscan modified RECV\n", label);
                failed = 1;
            }
            continue;
        }
        if (out) memcpy(want, x[last] + disp * sz, out * sz);
        for (int j = last - 1; j >= 0; j--)
            dfc_op_reduce(c->op, dt, x[j] + disp * sz, want, out); /* want = xj op want */
        if (out && memcmp(recv, want, out * sz)) {
            uint64_t i = 0;
            while (memcmp(recv + i * sz, want + i * sz, sz) == 0) i++;
            if (!bad_ranks++) {
                char got_s[160], want_s[160];
                format_item(dt, recv + i * sz, got_s, sizeof got_s);
                format_item(dt, want + i * sz, want_s, sizeof want_s);
                fprintf(stderr, "%s: rank %d item %llu of %llu: got %s, want %s", label, r,
                        (unsigned long long)i, (unsigned long long)out, got_s, want_s);
            }
        }
    }
    if (bad_ranks) {
        fprintf(stderr, " (%d rank%s wrong)\n", bad_ranks, bad_ranks > 1 ? "s" : "");
        failed = 1;
    }
    for (int r = 0; r < n; r++) {
        dfc_sched_destroy(&ranks[r].sched);
        free(ranks[r].buf[DFC_BUF_SEND]);
        free(ranks[r].buf[DFC_BUF_RECV]);
        free(x[r]);
        free(init[r]);
    }
    free(ranks), free(x), free(init), free(want);
    return failed ? -1 : 0;
}
