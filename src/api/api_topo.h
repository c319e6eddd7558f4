/*
 * api_topo.h - what the topology entry points share (api_topo.c, api_topo_graph.c,
 * api_neighbor.c).
 */
#ifndef DFC_API_TOPO_H
#define DFC_API_TOPO_H

#include "api/api_coll_common.h"
#include "comm/dfc_topo.h"

/* The common tail of an entry point whose error handler is that of cobj. */
#define TOPO_EXIT(cobj)             \
    fn_exit:                        \
    DFC_API_EXIT();                 \
    return rc;                      \
    fn_fail:                        \
    rc = dfc_api_error((cobj), rc); \
    goto fn_exit;

/* Checks comm and that it has a topology of `kind` (0: any); *t is the topology. */
int dfc_topo_api_check(const char *func, DFC_Comm comm, int kind, dfc_comm_t **c, dfc_topo_t **t);
/* Hands out the handle of nc, a new topology communicator (NULL on a process not part of
 * it: *out = DFC_COMM_NULL); nc is released if that fails. */
int dfc_topo_api_give(const char *func, dfc_comm_t *nc, DFC_Comm *out);
/* An array argument of n entries must not be NULL when n > 0 (DFC_ERR_ARG). */
int dfc_topo_api_check_array(const char *func, const char *name, const void *p, int n);

#endif
