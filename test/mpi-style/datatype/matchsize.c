/*
 * matchsize.c - DFC_Type_match_size (MPI-4.1 19.1.9): the predefined type of a class
 * (DFC_TYPECLASS_REAL, _INTEGER, _COMPLEX) with a given size. mpi4py's testMatchSize asks
 * for integers of 1, 2, 4 and 8 bytes, reals of 4 and 8 and complex of 8 and 16. Each answer
 * must have exactly that size and be of the class asked for (checked by the value it carries:
 * a sum over it, with DFC_Reduce_local, of integers or of reals); a class that is none of the
 * three, or a size no type of the class has, fails with DFC_ERR_ARG naming the argument, and
 * leaves the output alone.
 */
#include "../dfctest.h"

#include <complex.h>

static DFC_Datatype match(int tclass, int size)
{
    DFC_Datatype t = DFC_DATATYPE_NULL;
    int got = -1;
    DFCT_OK(DFC_Type_match_size(tclass, size, &t));
    DFCT_OK(DFC_Type_size(t, &got));
    DFCT_CHECK(got == size, "class %d size %d: type 0x%x has size %d", tclass, size, (unsigned)t,
               got);
    return t;
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFCT_OK(DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN));
    /* Integers: the type must add integers (3 + 4 = 7 in one element of its size). */
    static const int isizes[] = {1, 2, 4, 8};
    for (int k = 0; k < 4; k++) {
        DFC_Datatype t = match(DFC_TYPECLASS_INTEGER, isizes[k]);
        unsigned char in[8] = {3}, io[8] = {4};
        DFCT_OK(DFC_Reduce_local(in, io, 1, t, DFC_SUM));
        DFCT_CHECK(io[0] == 7 && io[isizes[k] - 1] == (isizes[k] == 1 ? 7 : 0),
                   "integer type of %d bytes: 3 + 4 gave bytes %u..%u", isizes[k], io[0],
                   io[isizes[k] - 1]);
    }
    /* Reals: 0.5 + 0.25 is 0.75 only in a floating-point type of that size. */
    DFC_Datatype f = match(DFC_TYPECLASS_REAL, 4), d = match(DFC_TYPECLASS_REAL, 8);
    float fi = 0.5f, fo = 0.25f;
    double di = 0.5, dout = 0.25;
    DFCT_OK(DFC_Reduce_local(&fi, &fo, 1, f, DFC_SUM));
    DFCT_OK(DFC_Reduce_local(&di, &dout, 1, d, DFC_SUM));
    DFCT_CHECK(fo == 0.75f, "real of 4 bytes: 0.5 + 0.25 = %g", (double)fo);
    DFCT_CHECK(dout == 0.75, "real of 8 bytes: 0.5 + 0.25 = %g", dout);
    /* Complex: (1 + 2i) * (3 + 4i) = -5 + 10i. */
    DFC_Datatype cf = match(DFC_TYPECLASS_COMPLEX, 8), cd = match(DFC_TYPECLASS_COMPLEX, 16);
    float complex cfi = 1 + 2 * I, cfo = 3 + 4 * I;
    double complex cdi = 1 + 2 * I, cdo = 3 + 4 * I;
    DFCT_OK(DFC_Reduce_local(&cfi, &cfo, 1, cf, DFC_PROD));
    DFCT_OK(DFC_Reduce_local(&cdi, &cdo, 1, cd, DFC_PROD));
    DFCT_CHECK(crealf(cfo) == -5 && cimagf(cfo) == 10, "complex of 8 bytes: %g%+gi",
               (double)crealf(cfo), (double)cimagf(cfo));
    DFCT_CHECK(creal(cdo) == -5 && cimag(cdo) == 10, "complex of 16 bytes: %g%+gi", creal(cdo),
               cimag(cdo));

    /* Bad input: the output is left alone. */
    DFC_Datatype t = DFC_INT;
    DFCT_FAILS(DFC_Type_match_size(7, 4, &t), DFC_ERR_ARG,
               "DFC_Type_match_size: invalid argument typeclass: 7 is not DFC_TYPECLASS_REAL");
    DFCT_FAILS(DFC_Type_match_size(DFC_TYPECLASS_REAL, 3, &t), DFC_ERR_ARG,
               "DFC_Type_match_size: invalid argument size: no predefined real type has 3 bytes");
    DFCT_FAILS(DFC_Type_match_size(DFC_TYPECLASS_INTEGER, -8, &t), DFC_ERR_ARG,
               "invalid argument size: no predefined integer type has -8 bytes");
    DFCT_FAILS(DFC_Type_match_size(DFC_TYPECLASS_COMPLEX, 4, &t), DFC_ERR_ARG,
               "invalid argument size: no predefined complex type has 4 bytes");
    DFCT_CHECK(t == DFC_INT, "a failed call changed the output to 0x%x", (unsigned)t);
    DFCT_FAILS(DFC_Type_match_size(DFC_TYPECLASS_INTEGER, 4, NULL), DFC_ERR_ARG,
               "DFC_Type_match_size: invalid argument datatype");
    return dfct_finalize();
}
