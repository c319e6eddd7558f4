# dfc_sim workload file (bench/dfc_sim_file.c has the format): the ranks of a 2 x 2 grid start
# a row allreduce and a column allreduce in crossed orders (0 -> 1 -> 3 -> 2 -> 0 wait on each
# other in issue order), then a small row allreduce.
# Run: bench/dfc_sim -workload bench/dfc_sim_example.wl   (add -no-preempt to see the cycle)
ranks 4
rpn 2
iters 3
comm row 1 2
comm col 2 2
coll r0 row allreduce 65536
coll c0 col allreduce 65536
coll r1 row allreduce 256 priority 0
order 0 r0 c0 r1
order 1 c0 r0 r1
order 2 c0 r0 r1
order 3 r0 c0 r1
