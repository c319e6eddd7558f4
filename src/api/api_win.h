/* api_win.h - what the one-sided entry points (api_win*.c) share. */
#ifndef DFC_API_WIN_H
#define DFC_API_WIN_H

#include "api/dfc_api.h"
#include "comm/dfc_win.h"

/* Applies the error handler of window w (DFC_COMM_WORLD's when w is NULL) to code. */
int dfc_api_win_error(dfc_win_t *w, int code);

#endif /* DFC_API_WIN_H */
