# `weft run` under Open MPI beyond the golden programs (docs/distributed.md), from a scratch copy
# WORK of tests/mpi (DIR): an error on rank 1 alone ends the whole job with status 1, said once;
# ranks started with other arguments are refused; a rank killed mid-collective ends the job;
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

# Rank 1 alone fails while rank 0 waits at a collective: mpirun's `:` form gives each rank a folder
# of its own, and only rank 0's holds the file the program loads.
file(MAKE_DIRECTORY ${WORK}/rank0 ${WORK}/rank1)
file(COPY_FILE ${DIR}/../fixtures/conv_1x1_w.npy ${WORK}/rank0/here.npy)
job(${MPIRUN} -np 1 ${mpi} -wdir ${WORK}/rank0 ${WEFT} run ${WORK}/rank_error.model
    : -np 1 ${mpi} -wdir ${WORK}/rank1 ${WEFT} run ${WORK}/rank_error.model)
if(NOT status STREQUAL "1" OR NOT out STREQUAL "before 28.0\n")
  string(APPEND problems "an error on rank 1: status ${status} (expected 1), stdout:\n${out}\n")
endif()
once("an error on rank 1" "${err}" "rank_error.model:8:8: error: cannot load 'here.npy': No such file or directory")

# Ranks started with other arguments (the `:` form again) would take other branches: refused at
# the start, said once.
job(${MPIRUN} -np 1 ${mpi} ${WEFT} run rank_error.model 1 : -np 1 ${mpi} ${WEFT} run rank_error.model 2)
if(NOT status STREQUAL "2" OR NOT out STREQUAL "")
  string(APPEND problems "other arguments on rank 1: status ${status} (expected 2), stdout:\n${out}\n")
endif()
once("other arguments on rank 1" "${err}" "weft run: rank 1 was started with other arguments or another program than rank 0")

# Rank 1 killed mid-loop (its shell runs weft in its place, and kills it two seconds in) while
# rank 0 waits for it at a collective: the job ends with the dead rank's status.
job(${MPIRUN} -np 1 ${mpi} ${WEFT} run endless.model
    : -np 1 ${mpi} sh -c "(sleep 2 && kill -9 $$) & exec ${WEFT} run endless.model")
if(NOT status STREQUAL "137" OR NOT out STREQUAL "started\n")
  string(APPEND problems "rank 1 killed: status ${status} (expected 137), stdout:\n${out}\nstderr:\n${err}\n")
endif()

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
