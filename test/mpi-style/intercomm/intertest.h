/*
 * intertest.h - what the intercommunicator tests share (intercomm.c, fromgroups.c): the
 * shape check of an intercommunicator.
 */
#ifndef INTERTEST_H
#define INTERTEST_H

#include "../dfctest.h"

/* ic is an intercommunicator of lsize local processes, this one local rank lrank, and
 * rsize remote ones, remote rank i being world rank remote[i] (wg: WORLD's group). */
static inline void intert_check_shape(DFC_Comm ic, DFC_Group wg, int lsize, int lrank, int rsize,
                                      const int *remote)
{
    int flag = -1, n = -1, r = -1, tr[64], idx[64];
    DFC_Group rg;
    DFCT_OK(DFC_Comm_test_inter(ic, &flag));
    DFCT_CHECK(flag == 1, "Comm_test_inter: %d", flag);
    DFCT_OK(DFC_Comm_size(ic, &n));
    DFCT_OK(DFC_Comm_rank(ic, &r));
    DFCT_CHECK(n == lsize && r == lrank, "local size/rank %d/%d, expected %d/%d", n, r, lsize,
               lrank);
    DFCT_OK(DFC_Comm_remote_size(ic, &n));
    DFCT_CHECK(n == rsize, "remote size %d, expected %d", n, rsize);
    DFCT_OK(DFC_Comm_remote_group(ic, &rg));
    DFCT_OK(DFC_Group_size(rg, &n));
    DFCT_CHECK(n == rsize, "remote group size %d, expected %d", n, rsize);
    for (int i = 0; i < rsize; i++) idx[i] = i, tr[i] = -5;
    DFCT_OK(DFC_Group_translate_ranks(rg, rsize, idx, wg, tr));
    for (int i = 0; i < rsize; i++)
        DFCT_CHECK(tr[i] == remote[i], "remote rank %d is world %d, expected %d", i, tr[i],
                   remote[i]);
    DFCT_OK(DFC_Group_free(&rg));
}

#endif
