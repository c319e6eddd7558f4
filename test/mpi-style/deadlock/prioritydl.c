/*
 * prioritydl - blockedwait's scenarios with priorities set: dfc_priority info on the
 * communicators (DFC_Comm_dup_with_info; the communicator a peer needs progressed first
 * is sometimes the lower priority, and the same scenarios run again with the priorities
 * swapped) and on persistent _init calls. Everything must still complete with the right
 * results: priorities order ready work, they never starve work that a peer waits for.
 */
#define DL_PRIORITY 1
#include "blockedwait.c"
