/* dfc_mpi.h: maps MPI_ names to DFC_ (generated later) */
