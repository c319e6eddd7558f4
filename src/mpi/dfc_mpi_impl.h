/* dfc_mpi_impl.h - what libmpi's generated entry points (mpi_gen.c) share. The markers
 * (libmpi's twins of dfc.h's marker objects, such as MPI_STATUS_IGNORE's) and the macros that
 * turn them back into DFC's are generated into mpi_gen.c itself by src/mpi/gen-mpi.sh. */
#ifndef DFC_MPI_IMPL_H
#define DFC_MPI_IMPL_H

#include "dfc.h"

#endif
