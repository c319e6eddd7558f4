/*
 * api_params.c - dfc_env_register_all (dfc_params.h). It lives at the top layer because it
 * calls into every layer that reads parameters lazily.
 */
#include "api/dfc_params.h"
#include "comm/dfc_comm.h"
#include "comm/dfc_win.h"
#include "gpu/params.h"
#include "tl/dfc_tl.h"

void dfc_env_register_all(void)
{
    dfc_tl_shm_register_params(); /* only multi-process jobs start shm and tcp */
    dfc_tl_tcp_register_params();
    dfc_tl_ofi_register_params();
    dfc_progress_register_params(); /* read by the first wait */
    dfc_coll_register_params();     /* read by the first collective of each kind */
    dfc_gpu_params_read(NULL);      /* read by the GPU daemon, which needs a GPU */
    dfc_stage_params();             /* read by the first staged device-buffer call */
    dfc_gpu_copy_flags_min();       /* read by the first staging copy's event */
    dfc_win_register_params();      /* read by the first window */
}
