#!/bin/sh
# Fails when include/dfc_mpi.h is not what include/gen-dfc-mpi.sh makes from dfc.h, and
# checks that an MPI program compiles against it.
set -e
top=${srcdir:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$top/include/dfc.h" "$top/include/gen-dfc-mpi.sh" "$tmp/"
sh "$tmp/gen-dfc-mpi.sh"
if ! cmp -s "$tmp/dfc_mpi.h" "$top/include/dfc_mpi.h"; then
    echo "include/dfc_mpi.h is out of date: run include/gen-dfc-mpi.sh"
    exit 1
fi
cat > "$tmp/prog.c" <<'C'
#include "dfc_mpi.h"
int main(int argc, char **argv)
{
    int rank, x = 1, y;
    MPI_Status st;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Irecv(&y, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &req);
    MPI_Send(&x, 1, MPI_INT, 0, 7, MPI_COMM_SELF);
    MPI_Wait(&req, &st);
    MPI_Finalize();
    return st.MPI_SOURCE == 0 && st.MPI_TAG == 7 ? 0 : 1;
}
C
${CC:-cc} -fsyntax-only -I"$top/include" -I"${builddir:-.}/include" "$tmp/prog.c"
echo "ok: dfc_mpi.h is current and an MPI program compiles against it"
