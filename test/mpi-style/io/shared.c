/*
 * shared.c - the shared file pointer: ordered writes land in rank order (rank r writes r+1
 * ints of its own value), independent Write_shared calls from every rank each get a
 * distinct place (every record found exactly once), Seek_shared/Get_position_shared agree,
 * and Read_ordered reads back what Write_ordered wrote, into poisoned buffers.
 */
#include "iotest.h"

#define REC 4 /* ints per Write_shared record */
#define NREC 5

static void ordered(DFC_File fh, int rank, int size)
{
    int w[64], r[65], n = rank + 1, total = size * (size + 1) / 2;
    DFC_Offset pos = -1;
    for (int i = 0; i < n; i++) w[i] = 100 * rank + i;
    DFCT_OK(DFC_File_seek_shared(fh, 0, DFC_SEEK_SET));
    DFCT_OK(DFC_File_write_ordered(fh, w, n, DFC_INT, DFC_STATUS_IGNORE));
    DFCT_OK(DFC_File_get_position_shared(fh, &pos));
    DFCT_CHECK(pos == total, "shared position after the ordered write: %lld, expected %d",
               (long long)pos, total);
    DFCT_OK(DFC_File_sync(fh));
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    DFCT_OK(DFC_File_seek_shared(fh, 0, DFC_SEEK_SET));
    for (int i = 0; i <= n; i++) r[i] = -5;
    DFC_Status st;
    int count = -1;
    DFCT_OK(DFC_File_read_ordered_begin(fh, r, n, DFC_INT));
    DFCT_OK(DFC_File_read_ordered_end(fh, r, &st));
    DFCT_OK(DFC_Get_count(&st, DFC_INT, &count));
    DFCT_CHECK(count == n, "read_ordered count %d, expected %d", count, n);
    for (int i = 0; i < n; i++)
        DFCT_CHECK(r[i] == w[i], "ordered read %d: %d, expected %d", i, r[i], w[i]);
    DFCT_CHECK(r[n] == -5, "read_ordered wrote past its count");
    /* The file itself: rank q's ints start after those of ranks 0..q-1. */
    int *all = malloc((size_t)total * sizeof(int));
    DFCT_OK(DFC_File_read_at(fh, 0, all, total, DFC_INT, DFC_STATUS_IGNORE));
    for (int q = 0, k = 0; q < size; q++)
        for (int i = 0; i <= q; i++, k++)
            DFCT_CHECK(all[k] == 100 * q + i, "file int %d: %d, expected %d", k, all[k],
                       100 * q + i);
    free(all);
}

static void independent(DFC_File fh, int rank, int size)
{
    int rec[REC];
    DFC_Request req;
    DFCT_OK(DFC_File_seek_shared(fh, 0, DFC_SEEK_SET));
    for (int j = 0; j < NREC; j++) { /* record: rank, j, and a check pair */
        int v[REC] = {rank, j, rank * 31 + j, -rank - j};
        if (j % 2) {
            DFCT_OK(DFC_File_iwrite_shared(fh, v, REC, DFC_INT, &req));
            DFCT_OK(DFC_Wait(&req, DFC_STATUS_IGNORE));
        } else {
            DFCT_OK(DFC_File_write_shared(fh, v, REC, DFC_INT, DFC_STATUS_IGNORE));
        }
    }
    DFCT_OK(DFC_File_sync(fh));
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    DFC_Offset pos = -1, end = -1;
    DFCT_OK(DFC_File_get_position_shared(fh, &pos));
    DFCT_CHECK(pos == size * NREC * REC, "shared position %lld, expected %d", (long long)pos,
               size * NREC * REC);
    DFCT_OK(DFC_File_seek_shared(fh, 0, DFC_SEEK_END));
    DFCT_OK(DFC_File_get_position_shared(fh, &end));
    DFCT_CHECK(end == pos, "SEEK_END put the shared pointer at %lld, expected %lld", (long long)end,
               (long long)pos);
    int *seen = calloc((size_t)(size * NREC), sizeof(int));
    for (int k = 0; k < size * NREC; k++) {
        DFCT_OK(DFC_File_read_at(fh, (DFC_Offset)k * REC, rec, REC, DFC_INT, DFC_STATUS_IGNORE));
        int q = rec[0], j = rec[1];
        if (q < 0 || q >= size || j < 0 || j >= NREC || rec[2] != q * 31 + j || rec[3] != -q - j) {
            DFCT_CHECK(0, "record %d is garbled: %d %d %d %d", k, rec[0], rec[1], rec[2], rec[3]);
            continue;
        }
        seen[q * NREC + j]++;
    }
    for (int k = 0; k < size * NREC; k++)
        DFCT_CHECK(seen[k] == 1, "record (rank %d, %d) found %d times", k / NREC, k % NREC,
                   seen[k]);
    free(seen);
}

int main(int argc, char **argv)
{
    int rank, size;
    char path[1024];
    DFC_File fh;
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    iot_mkdir();
    DFCT_OK(DFC_File_open(DFC_COMM_WORLD, iot_path(path, sizeof path, "shared.dat"),
                          DFC_MODE_CREATE | DFC_MODE_RDWR, DFC_INFO_NULL, &fh));
    DFCT_OK(DFC_File_set_view(fh, 0, DFC_INT, DFC_INT, "native", DFC_INFO_NULL));
    ordered(fh, rank, size);
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD)); /* everyone's reads done before the truncation */
    DFCT_OK(DFC_File_set_size(fh, 0));
    independent(fh, rank, size);
    DFCT_OK(DFC_File_close(&fh));
    if (rank == 0) DFCT_OK(DFC_File_delete(path, DFC_INFO_NULL));
    iot_rmdir();
    dfct_finalize();
    return 0;
}
