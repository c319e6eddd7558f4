# mpix.sed - DFC names that are not MPI names, spelled as MPICH spells its extensions (sed -E).
# Applied before DFC_ becomes MPI_ by src/mpi/gen-mpi.sh (mpi.h) and by the tests that turn
# DFC programs into MPI programs (test/mpi-style/mpi/Makefile.inc).
s/\bDFC_BFLOAT16\b/MPIX_BFLOAT16/g
s/\bDFC_FLOAT16\b/MPIX_C_FLOAT16/g
s/\bDFC_(MAX_TRANSPORT_NAME|ERR_INTERNAL_TRANSPORT|DATATYPE_BUILTIN_MAX|OP_BUILTIN_MAX|TAG_UB_VALUE)\b/MPIX_\1/g
