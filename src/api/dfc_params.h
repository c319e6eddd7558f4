/*
 * dfc_params.h - filling the parameter registry (util/env.c) for dfc_info.
 *
 * A parameter is registered when the library reads it. DFC_Init reads most; the rest are
 * read lazily (collective generators, waits), only in multi-process jobs (shm, tcp) or only
 * with a GPU (the daemon). Each of those modules has a function that reads its parameters
 * where they are read for real, so their names, defaults and descriptions live in one place.
 */
#ifndef DFC_PARAMS_H
#define DFC_PARAMS_H

/* Calls every such function (api_params.c). After DFC_Init, the registry then holds every
 * parameter: the test check_dfc_info.sh compares dfc_info's list with dfc_env(7). */
void dfc_env_register_all(void);

/* The collective layer's: every DFC_<KIND>_ALGORITHM and the generators' own (select.c). */
void dfc_coll_register_params(void);

#endif /* DFC_PARAMS_H */
