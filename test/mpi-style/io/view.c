/*
 * view.c - file views with a non-contiguous filetype: each rank's view is every size-th
 * block of B ints starting at its own block (a vector resized to the tile of all ranks);
 * the ranks write their interleaved blocks collectively, through the individual pointer in
 * two halves and at explicit offsets, nonblocking and split; the file is then read as plain
 * ints element by element, and read back through the views into poisoned buffers.
 */
#include "iotest.h"

#define B 3  /* ints per block */
#define NB 8 /* blocks per rank */
#define N (B * NB)

static int value(int rank, int i) { return 1000 * (rank + 1) + i; }

/* The int at file position k (in ints) once every rank wrote its N values. */
static int expected(int size, int k)
{
    int block = k / B, owner = block % size, i = (block / size) * B + k % B;
    return value(owner, i);
}

static void set_view(DFC_File fh, int rank, int size)
{
    DFC_Datatype vec, tile;
    DFCT_OK(DFC_Type_vector(NB, B, B * size, DFC_INT, &vec));
    DFCT_OK(DFC_Type_create_resized(vec, 0, (DFC_Aint)(B * size * NB * sizeof(int)), &tile));
    DFCT_OK(DFC_Type_commit(&tile));
    DFCT_OK(DFC_File_set_view(fh, (DFC_Offset)(rank * B * sizeof(int)), DFC_INT, tile, "native",
                              DFC_INFO_NULL));
    DFCT_OK(DFC_Type_free(&vec));
    DFCT_OK(DFC_Type_free(&tile));
}

static void write_views(DFC_File fh, const int *w, int rank, int size, int how)
{
    DFC_Request req;
    DFC_Status st;
    int count = -1;
    set_view(fh, rank, size);
    if (how == 0) { /* individual pointer, two halves; the pointer moves in etypes */
        DFC_Offset pos = -1;
        DFCT_OK(DFC_File_write_all(fh, w, N / 2, DFC_INT, &st));
        DFCT_OK(DFC_File_get_position(fh, &pos));
        DFCT_CHECK(pos == N / 2, "position after %d ints is %lld", N / 2, (long long)pos);
        DFCT_OK(DFC_File_write_all(fh, w + N / 2, N - N / 2, DFC_INT, &st));
        DFCT_OK(DFC_Get_count(&st, DFC_INT, &count));
        DFCT_CHECK(count == N - N / 2, "write_all count %d, expected %d", count, N - N / 2);
    } else if (how == 1) { /* explicit offsets, nonblocking */
        DFCT_OK(DFC_File_iwrite_at_all(fh, 0, w, N, DFC_INT, &req));
        DFCT_OK(DFC_Wait(&req, &st));
        DFCT_OK(DFC_Get_count(&st, DFC_INT, &count));
        DFCT_CHECK(count == N, "iwrite_at_all count %d, expected %d", count, N);
    } else { /* split collective at an explicit offset */
        DFCT_OK(DFC_File_write_at_all_begin(fh, 0, w, N, DFC_INT));
        DFCT_OK(DFC_File_write_at_all_end(fh, w, &st));
    }
    DFCT_OK(DFC_File_sync(fh));
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    DFCT_OK(DFC_File_sync(fh));
}

static void check_file(DFC_File fh, int rank, int size)
{
    DFC_Offset fsize = -1, byte = -1;
    DFCT_OK(DFC_File_get_size(fh, &fsize));
    DFCT_CHECK(fsize == (DFC_Offset)(N * size * sizeof(int)), "file size %lld", (long long)fsize);
    /* Byte offset of etype 4 of this rank's view: block 1 of its own, one int in. */
    DFCT_OK(DFC_File_get_byte_offset(fh, B + 1, &byte));
    DFCT_CHECK(byte == (DFC_Offset)(((size + rank) * B + 1) * sizeof(int)),
               "byte offset of etype %d is %lld", B + 1, (long long)byte);
    int *all = malloc((size_t)(N * size + 1) * sizeof(int)), *r = malloc((N + 1) * sizeof(int));
    DFCT_OK(DFC_File_set_view(fh, 0, DFC_INT, DFC_INT, "native", DFC_INFO_NULL));
    for (int k = 0; k <= N * size; k++) all[k] = -7;
    DFC_Status st;
    DFCT_OK(DFC_File_read_at(fh, 0, all, N * size + 1, DFC_INT, &st)); /* one past the end */
    int count = -1;
    DFCT_OK(DFC_Get_count(&st, DFC_INT, &count));
    DFCT_CHECK(count == N * size, "read past the end: count %d, expected %d", count, N * size);
    for (int k = 0; k < N * size; k++)
        DFCT_CHECK(all[k] == expected(size, k), "file int %d is %d, expected %d", k, all[k],
                   expected(size, k));
    DFCT_CHECK(all[N * size] == -7, "the int after the end was overwritten");
    set_view(fh, rank, size); /* and back through the view, one element at a time */
    for (int i = 0; i < N; i++) {
        r[0] = r[1] = -9;
        DFCT_OK(DFC_File_read(fh, r, 1, DFC_INT, DFC_STATUS_IGNORE));
        DFCT_CHECK(r[0] == value(rank, i) && r[1] == -9, "view element %d is %d (then %d)", i, r[0],
                   r[1]);
    }
    free(all);
    free(r);
}

int main(int argc, char **argv)
{
    int rank, size, w[N];
    char path[1024];
    DFC_File fh;
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    iot_mkdir();
    for (int i = 0; i < N; i++) w[i] = value(rank, i);
    for (int how = 0; how < 3; how++) {
        DFCT_OK(DFC_File_open(DFC_COMM_WORLD, iot_path(path, sizeof path, "view.dat"),
                              DFC_MODE_CREATE | DFC_MODE_RDWR | DFC_MODE_DELETE_ON_CLOSE,
                              DFC_INFO_NULL, &fh));
        write_views(fh, w, rank, size, how);
        check_file(fh, rank, size);
        DFCT_OK(DFC_File_close(&fh));
        DFCT_CHECK(fh == DFC_FILE_NULL, "close did not set the handle to DFC_FILE_NULL");
        DFCT_OK(DFC_Barrier(DFC_COMM_WORLD)); /* rank 0 deletes it after the others closed */
        DFCT_CHECK(access(path, F_OK) != 0, "DELETE_ON_CLOSE left %s", path);
    }
    iot_rmdir();
    dfct_finalize();
    return 0;
}
