/*
 * dfc_sim_file.c - dfc_sim's workload files, so that users can replay their own orders.
 *
 * One directive per line, '#' starts a comment:
 *   ranks N                      (first) ranks; rpn R: ranks per node; iters I
 *   comm NAME STRIDE SIZE        a communicator family: rank w is in the group
 *                                base + i*STRIDE, i < SIZE (world: 1 N)
 *   coll NAME COMM KIND COUNT [root R] [priority P] [elem E]
 *                                a persistent collective on every group of COMM; KIND as in
 *                                DFC_<KIND>_ALGORITHM (allreduce, bcast, allgather, ...);
 *                                COUNT: items of E bytes (default 4) for reductions and
 *                                bcast, bytes per block for the gather/scatter/all* kinds
 *   order RANK|* NAME...         the order in which RANK (or every rank without its own
 *                                line) starts the collectives, each named once
 * Without order lines every rank starts them in file order.
 */
#include <stdlib.h>
#include <string.h>

#include "dfc_sim.h"

#define MAXC 1023

static int fail(const char *path, int line, const char *msg)
{
    fprintf(stderr, "dfc_sim: %s:%d: %s\n", path, line, msg);
    return -1;
}

static int find_name(const char *name, const char *names, size_t stride, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(names + (size_t)i * stride, name)) return i;
    return -1;
}

static int parse_coll(sim_config_t *cfg, char **tok, int nt, const char *path, int line)
{
    if (nt < 5 || cfg->ncdef >= MAXC)
        return fail(path, line, "coll NAME COMM KIND COUNT [root R] [priority P] [elem E]");
    sim_cdef_t *d = &cfg->cdefs[cfg->ncdef];
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "%s", tok[1]);
    d->comm = find_name(tok[2], cfg->comms[0].name, sizeof cfg->comms[0], cfg->ncomm);
    if (d->comm < 0) return fail(path, line, "unknown communicator");
    d->kind = DFC_COLL_KIND_COUNT;
    for (int k = 0; k < DFC_COLL_KIND_COUNT; k++)
        if (!strcmp(tok[3], dfc_coll_kind_name((dfc_coll_kind_t)k))) d->kind = (dfc_coll_kind_t)k;
    if (d->kind == DFC_COLL_KIND_COUNT || d->kind == DFC_COLL_GATHERV ||
        d->kind == DFC_COLL_SCATTERV || d->kind == DFC_COLL_ALLGATHERV ||
        d->kind == DFC_COLL_ALLTOALLV || d->kind == DFC_COLL_REDUCE_SCATTER)
        return fail(path, line, "unknown collective kind (the v forms are not simulated)");
    d->elem = 4;
    uint64_t count = strtoull(tok[4], NULL, 0);
    for (int i = 5; i + 1 < nt; i += 2) {
        if (!strcmp(tok[i], "root")) d->root = atoi(tok[i + 1]);
        else if (!strcmp(tok[i], "priority")) d->priority = atoi(tok[i + 1]);
        else if (!strcmp(tok[i], "elem")) d->elem = strtoull(tok[i + 1], NULL, 0);
        else return fail(path, line, "unknown coll attribute");
    }
    /* COUNT is items for reductions and bcast, bytes per block for the data-movement kinds */
    int blocks = d->kind == DFC_COLL_GATHER || d->kind == DFC_COLL_SCATTER ||
                 d->kind == DFC_COLL_ALLGATHER || d->kind == DFC_COLL_ALLTOALL ||
                 d->kind == DFC_COLL_BARRIER;
    d->count = blocks ? 0 : count;
    d->bytes = blocks ? count : count * d->elem;
    if (d->root < 0 || d->root >= cfg->comms[d->comm].size)
        return fail(path, line, "root out of range");
    cfg->ncdef++;
    return 0;
}

static int parse_order(sim_config_t *cfg, char **tok, int nt, const char *path, int line)
{
    if (!cfg->orders && !(cfg->orders = calloc((size_t)cfg->nranks + 1, sizeof *cfg->orders)))
        return fail(path, line, "out of memory");
    if (nt - 2 != cfg->ncdef) return fail(path, line, "an order names every collective once");
    int32_t *o = calloc((size_t)cfg->ncdef, sizeof *o);
    char *seen = calloc((size_t)cfg->ncdef, 1);
    if (!o || !seen) return fail(path, line, "out of memory");
    for (int i = 0; i < cfg->ncdef; i++) {
        o[i] = find_name(tok[i + 2], cfg->cdefs[0].name, sizeof cfg->cdefs[0], cfg->ncdef);
        if (o[i] < 0 || seen[o[i]]++) {
            free(o);
            free(seen);
            return fail(path, line, "an order names every collective once");
        }
    }
    free(seen);
    int r = strcmp(tok[1], "*") ? atoi(tok[1]) : cfg->nranks; /* slot nranks: the default */
    if (r < 0 || r > cfg->nranks) return fail(path, line, "rank out of range");
    free(cfg->orders[r]);
    cfg->orders[r] = o;
    return 0;
}

static int parse_line(sim_config_t *cfg, char *s, const char *path, int line)
{
    char *tok[MAXC + 3];
    int nt = 0;
    char *h = strchr(s, '#');
    if (h) *h = 0;
    for (char *p = strtok(s, " \t\r\n"); p && nt < MAXC + 3; p = strtok(NULL, " \t\r\n"))
        tok[nt++] = p;
    if (!nt) return 0;
    if (!strcmp(tok[0], "ranks") && nt == 2) cfg->nranks = atoi(tok[1]);
    else if (!strcmp(tok[0], "rpn") && nt == 2) cfg->rpn = atoi(tok[1]);
    else if (!strcmp(tok[0], "iters") && nt == 2) cfg->iters = atoi(tok[1]);
    else if (!strcmp(tok[0], "comm") && nt == 4 && cfg->ncomm < 8) {
        sim_comm_t *c = &cfg->comms[cfg->ncomm];
        snprintf(c->name, sizeof c->name, "%s", tok[1]);
        c->stride = atoi(tok[2]);
        c->size = atoi(tok[3]);
        if (c->stride < 1 || c->size < 1 || cfg->nranks % (c->stride * c->size))
            return fail(path, line, "STRIDE * SIZE must divide the rank count");
        cfg->ncomm++;
    } else if (!strcmp(tok[0], "coll")) return parse_coll(cfg, tok, nt, path, line);
    else if (!strcmp(tok[0], "order") && nt >= 2) return parse_order(cfg, tok, nt, path, line);
    else return fail(path, line, "unknown directive (ranks, rpn, iters, comm, coll, order)");
    return 0;
}

int dfc_sim_workload_file(const char *path, sim_config_t *cfg)
{
    FILE *f = fopen(path, "r");
    if (!f) return fail(path, 0, "cannot open the workload file");
    char buf[16384];
    int line = 0, rc = 0;
    cfg->ncomm = cfg->ncdef = 0;
    while (!rc && fgets(buf, sizeof buf, f)) rc = parse_line(cfg, buf, path, ++line);
    fclose(f);
    if (rc) return rc;
    if (!cfg->ncdef) return fail(path, line, "no collectives");
    if (cfg->orders) { /* ranks without a line of their own take the default, if any */
        for (int r = 0; r < cfg->nranks; r++)
            if (!cfg->orders[r]) cfg->orders[r] = cfg->orders[cfg->nranks];
    }
    cfg->chaos = 0;
    return 0;
}
