#!/bin/sh
# mpi-families.sh - prints the table of MPI-4.1 function families for README.md: for each
# family, MPI-4.1's C functions (without the large-count _c forms, the Fortran handle
# conversions, the tool interface MPI_T and the deprecated functions), how many of them
# include/dfc.h declares as DFC_ functions, and which it lacks. Run it after changing dfc.h
# and paste its output over the table in README.md (between its "families" markers).
here=$(dirname "$0")
have=$(grep -oE '^(int|double|DFC_Aint) DFC_[A-Za-z0-9_]+\(' "$here/dfc.h" |
    sed -E 's/^(int|double|DFC_Aint) DFC_//; s/\($//' | tr '\n' ' ')
# One family a line: "name|function function ...".
cat <<'LIST' | awk -v have="$have" '
BEGIN { n = split(have, h, " "); for (i = 1; i <= n; i++) H[h[i]] = 1
        printf "| family | MPI-4.1 | DFC | not in DFC yet |\n|---|---:|---:|---|\n" }
{
    split($0, p, "|"); k = split(p[2], f, " "); got = 0; miss = ""; nm = 0
    for (i = 1; i <= k; i++) {
        L[f[i]] = 1
        if (f[i] in H) got++
        else { nm++; if (nm <= 8) miss = miss (miss == "" ? "" : ", ") f[i] }
    }
    if (nm > 8) miss = miss sprintf(" and %d more", nm - 8)
    if (nm == k) miss = "all"
    printf "| %s | %d | %d | %s |\n", p[1], k, got, miss; tm += k; tg += got
}
END {
    for (x in H) if (!(x in L)) { extra = extra (extra == "" ? "" : ", ") x; ne++ }
    printf "| **total** | **%d** | **%d** | |\n", tm, tg
    printf "\nBeyond these lists dfc.h has %d more: %s.\n", ne, extra
}'
environment|Init Init_thread Initialized Finalized Finalize Abort Query_thread Is_thread_main Wtime Wtick Get_processor_name Get_version Get_library_version Get_hw_resource_info Pcontrol Alloc_mem Free_mem
errors|Error_class Error_string Add_error_class Add_error_code Add_error_string Remove_error_class Remove_error_code Remove_error_string Comm_create_errhandler Comm_set_errhandler Comm_get_errhandler Comm_call_errhandler Errhandler_free
info|Info_create Info_set Info_get Info_get_string Info_get_valuelen Info_delete Info_dup Info_free Info_get_nkeys Info_get_nthkey Info_create_env
attributes|Comm_create_keyval Comm_free_keyval Comm_set_attr Comm_get_attr Comm_delete_attr Type_create_keyval Type_free_keyval Type_set_attr Type_get_attr Type_delete_attr Win_create_keyval Win_free_keyval Win_set_attr Win_get_attr Win_delete_attr
groups|Group_size Group_rank Group_incl Group_excl Group_range_incl Group_range_excl Group_union Group_intersection Group_difference Group_translate_ranks Group_compare Group_free Group_from_session_pset
communicators|Comm_size Comm_rank Comm_dup Comm_dup_with_info Comm_idup Comm_idup_with_info Comm_split Comm_split_type Comm_create Comm_create_group Comm_create_from_group Comm_free Comm_compare Comm_group Comm_set_name Comm_get_name Comm_set_info Comm_get_info Comm_test_inter Comm_remote_size Comm_remote_group Intercomm_create Intercomm_create_from_groups Intercomm_merge
datatypes|Type_contiguous Type_vector Type_create_hvector Type_indexed Type_create_hindexed Type_create_indexed_block Type_create_hindexed_block Type_create_struct Type_create_subarray Type_create_darray Type_create_resized Type_dup Type_commit Type_free Type_size Type_size_x Type_get_extent Type_get_extent_x Type_get_true_extent Type_get_true_extent_x Type_get_envelope Type_get_contents Type_set_name Type_get_name Type_match_size Type_create_f90_real Type_create_f90_complex Type_create_f90_integer Type_get_value_index Get_address Aint_add Aint_diff Get_count Get_elements Get_elements_x Pack Unpack Pack_size Pack_external Unpack_external Pack_external_size Status_set_elements Status_set_elements_x
reduction operations|Op_create Op_free Op_commutative Reduce_local
point-to-point|Send Bsend Ssend Rsend Recv Isend Ibsend Issend Irsend Irecv Sendrecv Sendrecv_replace Isendrecv Isendrecv_replace Probe Iprobe Mprobe Improbe Mrecv Imrecv Send_init Bsend_init Ssend_init Rsend_init Recv_init Buffer_attach Buffer_detach Buffer_flush Buffer_iflush Comm_attach_buffer Comm_detach_buffer Comm_flush_buffer Comm_iflush_buffer Test_cancelled
requests|Start Startall Wait Test Waitany Testany Waitall Testall Waitsome Testsome Request_free Request_get_status Request_get_status_all Request_get_status_any Request_get_status_some Cancel Grequest_start Grequest_complete Status_set_cancelled Status_get_source Status_set_source Status_get_tag Status_set_tag Status_get_error Status_set_error
partitioned|Psend_init Precv_init Pready Pready_range Pready_list Parrived
collectives|Barrier Ibarrier Barrier_init Bcast Ibcast Bcast_init Gather Igather Gather_init Gatherv Igatherv Gatherv_init Scatter Iscatter Scatter_init Scatterv Iscatterv Scatterv_init Allgather Iallgather Allgather_init Allgatherv Iallgatherv Allgatherv_init Alltoall Ialltoall Alltoall_init Alltoallv Ialltoallv Alltoallv_init Alltoallw Ialltoallw Alltoallw_init Reduce Ireduce Reduce_init Allreduce Iallreduce Allreduce_init Reduce_scatter_block Ireduce_scatter_block Reduce_scatter_block_init Reduce_scatter Ireduce_scatter Reduce_scatter_init Scan Iscan Scan_init Exscan Iexscan Exscan_init
process topologies|Cart_create Cart_get Cartdim_get Cart_rank Cart_coords Cart_shift Cart_sub Cart_map Dims_create Graph_create Graph_get Graphdims_get Graph_neighbors_count Graph_neighbors Graph_map Dist_graph_create_adjacent Dist_graph_create Dist_graph_neighbors_count Dist_graph_neighbors Topo_test
neighborhood collectives|Neighbor_allgather Ineighbor_allgather Neighbor_allgather_init Neighbor_allgatherv Ineighbor_allgatherv Neighbor_allgatherv_init Neighbor_alltoall Ineighbor_alltoall Neighbor_alltoall_init Neighbor_alltoallv Ineighbor_alltoallv Neighbor_alltoallv_init Neighbor_alltoallw Ineighbor_alltoallw Neighbor_alltoallw_init
one-sided (RMA)|Win_create Win_allocate Win_allocate_shared Win_create_dynamic Win_attach Win_detach Win_free Win_get_group Win_set_info Win_get_info Win_set_name Win_get_name Win_shared_query Put Get Accumulate Get_accumulate Fetch_and_op Compare_and_swap Rput Rget Raccumulate Rget_accumulate Win_fence Win_start Win_complete Win_post Win_wait Win_test Win_lock Win_unlock Win_lock_all Win_unlock_all Win_flush Win_flush_all Win_flush_local Win_flush_local_all Win_sync Win_create_errhandler Win_set_errhandler Win_get_errhandler Win_call_errhandler
I/O|File_open File_close File_delete File_set_size File_preallocate File_get_size File_get_group File_get_amode File_set_info File_get_info File_set_view File_get_view File_read_at File_read_at_all File_write_at File_write_at_all File_iread_at File_iwrite_at File_iread_at_all File_iwrite_at_all File_read File_read_all File_write File_write_all File_iread File_iwrite File_iread_all File_iwrite_all File_seek File_get_position File_get_byte_offset File_read_shared File_write_shared File_iread_shared File_iwrite_shared File_read_ordered File_write_ordered File_seek_shared File_get_position_shared File_read_at_all_begin File_read_at_all_end File_write_at_all_begin File_write_at_all_end File_read_all_begin File_read_all_end File_write_all_begin File_write_all_end File_read_ordered_begin File_read_ordered_end File_write_ordered_begin File_write_ordered_end File_get_type_extent File_set_atomicity File_get_atomicity File_sync File_create_errhandler File_set_errhandler File_get_errhandler File_call_errhandler Register_datarep
dynamic processes|Comm_spawn Comm_spawn_multiple Comm_get_parent Open_port Close_port Comm_accept Comm_connect Publish_name Unpublish_name Lookup_name Comm_disconnect Comm_join
sessions|Session_init Session_finalize Session_get_num_psets Session_get_nth_pset Session_get_info Session_get_pset_info Session_create_errhandler Session_set_errhandler Session_get_errhandler Session_call_errhandler Session_attach_buffer Session_detach_buffer Session_flush_buffer Session_iflush_buffer
LIST
