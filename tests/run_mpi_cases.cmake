# `weft run` under Open MPI beyond the golden programs (docs/distributed.md), from a scratch copy
# WORK of tests/mpi (DIR): an error on rank 1 alone ends the whole job with status 1, said once;
# a number of ranks that does not divide a mesh is refused at the mesh; save_npy writes from
# rank 0 the value put together from every rank, and every rank reads it back.
set(mpi --bind-to none --mca btl self,vader)
set(problems "")
file(REMOVE_RECURSE ${WORK})
file(COPY ${DIR}/ DESTINATION ${WORK})

# Runs a job; `status`, `out` and `err` are its own. A job that hangs fails at 60 s.
macro(job)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY ${WORK} OUTPUT_VARIABLE out ERROR_VARIABLE err
                  RESULT_VARIABLE status TIMEOUT 60)
endmacro()
# `text` holds `what` exactly once.
function(once case text what)
  string(FIND "${text}" "${what}" first)
  string(FIND "${text}" "${what}" last REVERSE)
  if(first EQUAL -1 OR NOT first EQUAL last)
    set(problems "${problems}${case}: '${what}' is not said once in:\n${text}\n" PARENT_SCOPE)
  endif()
endfunction()

# Rank 1 alone fails (its own arguments, mpirun's `:` form) while rank 0 waits at a collective.
job(${MPIRUN} -np 1 ${mpi} ${WEFT} run rank_error.model : -np 1 ${mpi} ${WEFT} run rank_error.model fail)
if(NOT status STREQUAL "1" OR NOT out STREQUAL "before 28.0\n")
  string(APPEND problems "an error on rank 1: status ${status} (expected 1), stdout:\n${out}\n")
endif()
once("an error on rank 1" "${err}" "rank_error.model:9:7: error: cannot reshape [4, 2] (8 elements) to [3, 3]")

# Three ranks for a mesh of two devices.
job(${MPIRUN} -np 3 --oversubscribe ${mpi} ${WEFT} run rank_error.model)
if(NOT status STREQUAL "1" OR NOT out STREQUAL "")
  string(APPEND problems "three ranks for two devices: status ${status} (expected 1), stdout:\n${out}\n")
endif()
once("three ranks for two devices" "${err}" "rank_error.model:5:1: error: the mesh has 2 devices and mpirun started 3 ranks, which do not divide them: run with a number of ranks that divides 2")

job(${MPIRUN} -np 2 ${mpi} ${WEFT} run save_load.model)
if(NOT status STREQUAL "0" OR NOT out STREQUAL "true [6, 2]\n" OR NOT err STREQUAL "")
  string(APPEND problems "save_npy: status ${status}, stdout:\n${out}\nstderr:\n${err}\n")
endif()

if(problems)
  message(FATAL_ERROR "${problems}")
endif()
message("errors end every rank, said once; save_npy writes from rank 0")
