/* dfc_mpi_impl.h - what libmpi's generated entry points (mpi_gen.c) share. */
#ifndef DFC_MPI_IMPL_H
#define DFC_MPI_IMPL_H

#include "dfc.h"

/* MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE of mpi.h: libmpi's own marker, because a program
 * linked with libmpi alone does not see libdfc's dfc_status_ignore_marker. */
extern DFC_Status dfc_mpi_status_ignore[1];
#define DFC_MPI_STATUS(s) \
    ((const void *)(s) == (const void *)dfc_mpi_status_ignore ? DFC_STATUS_IGNORE : (s))

#endif
