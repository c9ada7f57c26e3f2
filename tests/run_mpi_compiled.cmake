# Compiled SPMD programs under Open MPI (docs/distributed.md): tests/compile/megatron.model and
# data_parallel.model (mesh of 2) and tests/mpi/grid.model (2x2) compiled with `weft compile
# --main` and built once; each export's driver run in one process (every device a thread) and
# under `mpirun -np 2` (and -np 4 for the grid: two devices per rank, then one) must write the
# same outputs, within 1e-5 relative (MPI's sums may round otherwise), and each train step's
# driver, called 10 times (`--time 9 --save DIR`), the same weights after them; the grid's outputs
# must also agree with the interpreter's. A main of its own calls the grid's train step alone and on 2 and 4 ranks
# without allocating, and saves the same state. Errors: a rank count that is not the mesh's, a call error (every rank returns it,
# rank 0 says it once), a load error or wrong arguments on rank 1 alone, an input rank 0 cannot
# read, and with --every-rank-reads an unreadable input or one of other sizes on rank 1 alone all
# end the job at once; a driver's --save to a missing folder fails.
# Built where CMake finds no MPI, a sharded program runs in one process and refuses several ranks.
# Arguments: -DMPIRUN=... -DWEFT=... -DSRC=tests/compile -DWORK=a scratch folder
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/gen ${WORK}/got)
include(${CMAKE_CURRENT_LIST_DIR}/compiled_cases.cmake)
set(mpi --bind-to none --mca btl self,vader)
set(problems "")

# Runs a job; `status`, `out` and `err` are its own. A job that hangs fails at 60 s.
macro(job)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY ${WORK} OUTPUT_VARIABLE out ERROR_VARIABLE err
                  RESULT_VARIABLE status TIMEOUT 60)
endmacro()
# A job that ends with status 1 and says `what` once.
function(fails case what)
  string(FIND "${err}" "${what}" first)
  string(FIND "${err}" "${what}" last REVERSE)
  if(NOT status STREQUAL "1" OR first EQUAL -1 OR NOT first EQUAL last)
    set(problems "${problems}${case}: status ${status} (expected 1), '${what}' not said once in:\n${err}\n" PARENT_SCOPE)
  endif()
endfunction()

set(super "cmake_minimum_required(VERSION 3.16)\nproject(mpi_compiled CXX)\n")
foreach(program ${SRC}/megatron.model ${SRC}/data_parallel.model ${CMAKE_CURRENT_LIST_DIR}/mpi/grid.model)
  get_filename_component(name ${program} NAME_WE)
  run(${WEFT} compile ${program} -o ${WORK}/gen/${name} --main)
  file(MAKE_DIRECTORY ${WORK}/cases/${name})
  run(${WEFT} run ${program} ${WORK}/cases/${name})  # the cases, and the interpreter's outputs
  string(APPEND super "add_subdirectory(${name})\n")
endforeach()
string(APPEND super "add_executable(compiled_ranks ${CMAKE_CURRENT_LIST_DIR}/mpi/compiled_ranks.cpp)\n"
                    "target_link_libraries(compiled_ranks PRIVATE grid)\n")
file(WRITE ${WORK}/gen/CMakeLists.txt "${super}")
find_program(ccache ccache)
set(launcher "")
if(ccache)
  set(launcher -DCMAKE_CXX_COMPILER_LAUNCHER=${ccache})
endif()
run(${CMAKE_COMMAND} -S ${WORK}/gen -B ${WORK}/build -G Ninja -DCMAKE_BUILD_TYPE=Release ${launcher})
file(READ ${WORK}/build/build.ninja rules)
if(NOT rules MATCHES "-DWEFT_RT_MPI")
  message(FATAL_ERROR "the generated CMakeLists did not find MPI")
endif()
run(${CMAKE_COMMAND} --build ${WORK}/build -j2)

set(count 0)
foreach(case megatron/megatron_forward/2 megatron/megatron_step/2 data_parallel/dp_predict/2 data_parallel/dp_step/2
             grid/grid_forward/2 grid/grid_forward/4 grid/grid_step/2 grid/grid_step/4)
  string(REPLACE "/" ";" case ${case})
  list(GET case 0 name)
  list(GET case 1 fn)
  list(GET case 2 n)
  file(GLOB ins ${WORK}/cases/${name}/${fn}.0.in*.npy)
  file(GLOB outs RELATIVE ${WORK}/cases/${name} ${WORK}/cases/${name}/${fn}.0.out*.npy)
  list(SORT ins COMPARE NATURAL)
  list(SORT outs COMPARE NATURAL)
  set(alone "")
  set(ranks "")
  foreach(o ${outs})
    list(APPEND alone ${WORK}/got/alone.${o})
    list(APPEND ranks ${WORK}/got/ranks${n}.${o})
  endforeach()
  set(driver ${WORK}/build/${name}/${fn}_main)
  set(steps "")
  set(steps_ranks "")
  if(fn MATCHES "_step$")
    file(MAKE_DIRECTORY ${WORK}/saved/${fn}.alone ${WORK}/saved/${fn}.ranks${n})
    set(steps --time 9 --save ${WORK}/saved/${fn}.alone)
    set(steps_ranks --time 9 --save ${WORK}/saved/${fn}.ranks${n})
  endif()
  # The grid's 2 ranks hold 2 devices each: on one core per rank they take turns, lending it at
  # the collectives between them.
  if(name STREQUAL "grid" AND n EQUAL 2)
    list(APPEND steps_ranks --threads 1)
  endif()
  run(${driver} ${steps} ${ins} ${alone})
  job(${MPIRUN} -np ${n} --oversubscribe ${mpi} ${driver} ${steps_ranks} ${ins} ${ranks})
  if(NOT status STREQUAL "0" OR NOT err STREQUAL "")
    string(APPEND problems "${fn} on ${n} ranks: status ${status}\n${out}\n${err}\n")
    continue()
  endif()
  foreach(o ${outs})
    run(${WEFT} run ${SRC}/compare.model ${WORK}/got/alone.${o} ${WORK}/got/ranks${n}.${o})
    if(name STREQUAL "grid")  # not in compiled/differential
      run(${WEFT} run ${SRC}/compare.model ${WORK}/cases/${name}/${o} ${WORK}/got/alone.${o})
    endif()
    math(EXPR count "${count} + 1")
  endforeach()
  file(GLOB saved RELATIVE ${WORK}/saved/${fn}.alone ${WORK}/saved/${fn}.alone/*.npy)
  list(LENGTH saved variables)
  if(steps AND NOT variables EQUAL 4)
    string(APPEND problems "${fn} saved ${variables} variables after 10 steps, not 4\n")
  endif()
  foreach(v ${saved})
    run(${WEFT} run ${SRC}/compare.model ${WORK}/saved/${fn}.alone/${v} ${WORK}/saved/${fn}.ranks${n}/${v})
    math(EXPR count "${count} + 1")
  endforeach()
endforeach()

# A main of its own (tests/mpi/compiled_ranks.cpp): no allocations in steady-state calls, alone and
# on each rank, and the state it saves after them the same.
file(MAKE_DIRECTORY ${WORK}/saved/alone)
run(${WORK}/build/compiled_ranks ${WORK}/saved/alone)
file(GLOB saved RELATIVE ${WORK}/saved/alone ${WORK}/saved/alone/*.npy)
list(LENGTH saved variables)
if(NOT variables EQUAL 4)
  string(APPEND problems "compiled_ranks saved ${variables} variables, not 4\n")
endif()
foreach(n 2 4)
  file(MAKE_DIRECTORY ${WORK}/saved/ranks${n})
  job(${MPIRUN} -np ${n} --oversubscribe ${mpi} ${WORK}/build/compiled_ranks ${WORK}/saved/ranks${n})
  if(NOT status STREQUAL "0" OR NOT out MATCHES "^loss [0-9.]+\n$")
    string(APPEND problems "compiled_ranks on ${n} ranks: status ${status}\n${out}\n${err}\n")
    continue()
  endif()
  foreach(v ${saved})
    run(${WEFT} run ${SRC}/compare.model ${WORK}/saved/alone/${v} ${WORK}/saved/ranks${n}/${v})
    math(EXPR count "${count} + 1")
  endforeach()
endforeach()

# --save to a folder that is not there: the step runs, and saving its variables fails.
job(${WORK}/build/data_parallel/dp_step_main --save ${WORK}/no/folder ${WORK}/cases/data_parallel/dp_step.0.in0.npy
    ${WORK}/cases/data_parallel/dp_step.0.in1.npy ${WORK}/got/loss.npy)
fails("--save to no folder" "cannot write '${WORK}/no/folder/")

set(dp ${WORK}/build/data_parallel/dp_predict_main)
set(xs ${WORK}/cases/data_parallel/dp_predict.0.in0.npy)
# mesh(batch=2) on 4 ranks.
job(${MPIRUN} -np 4 --oversubscribe ${mpi} ${dp} ${xs} ${WORK}/got/four.npy)
fails("four ranks" "the mesh has 2 devices and mpirun started 4 ranks, which do not divide them: run with a number of ranks that divides 2")
# A batch the mesh cannot split: rank 0 finds it, every rank returns it.
job(${MPIRUN} -np 2 ${mpi} ${dp} ${WORK}/cases/data_parallel/uneven_batch.npy ${WORK}/got/uneven.npy)
fails("an uneven batch" "dp_predict: input 'x' of shape [7, 8] does not split evenly on mesh(batch=2) along dimension 0")
# Rank 1 alone cannot load its weights (its own arguments, mpirun's `:` form).
file(MAKE_DIRECTORY ${WORK}/no_weights)
job(${MPIRUN} -np 1 ${mpi} ${dp} ${xs} ${WORK}/got/a.npy : -np 1 ${mpi} ${dp} --weights ${WORK}/no_weights ${xs}
    ${WORK}/got/a.npy)
fails("no weights on rank 1" "rank 1: cannot open '${WORK}/no_weights/")
# Rank 1 alone has wrong arguments.
job(${MPIRUN} -np 1 ${mpi} ${dp} ${xs} ${WORK}/got/a.npy : -np 1 ${mpi} ${dp} ${xs})
if(NOT status STREQUAL "2" OR NOT err MATCHES "rank 1: usage: [^\n]*dp_predict_main \\[--weights DIR\\] \\[--time N\\] \\[--save DIR\\] \\[--threads N\\] \\[--every-rank-reads\\] x.npy out0.npy")
  string(APPEND problems "wrong arguments on rank 1: status ${status} (expected 2):\n${err}\n")
endif()
# Rank 0 alone reads the inputs: a missing one is said once and ends the job at once.
string(TIMESTAMP t0 "%s")
job(${MPIRUN} -np 2 ${mpi} ${dp} ${WORK}/missing.npy ${WORK}/got/a.npy)
string(TIMESTAMP t1 "%s")
fails("a missing input" "cannot open '${WORK}/missing.npy'")
math(EXPR seconds "${t1} - ${t0}")
if(seconds GREATER 10)
  string(APPEND problems "a missing input took ${seconds} s to end the job\n")
endif()
# With --every-rank-reads (rank 0's rules), every rank reads the inputs (call_on_every_rank): the
# outputs are the same bits as when rank 0 scatters them; rank 1 alone unable to read its input,
# or reading one of other sizes than rank 0's, stops the job, said once.
job(${MPIRUN} -np 2 ${mpi} ${dp} ${xs} ${WORK}/got/scattered.npy)
job(${MPIRUN} -np 1 ${mpi} ${dp} --every-rank-reads ${xs} ${WORK}/got/everywhere.npy : -np 1 ${mpi} ${dp} ${xs}
    ${WORK}/got/everywhere.npy)
file(SHA256 ${WORK}/got/scattered.npy scattered)
file(SHA256 ${WORK}/got/everywhere.npy everywhere)
if(NOT status STREQUAL "0" OR NOT scattered STREQUAL everywhere)
  string(APPEND problems "--every-rank-reads: status ${status}, outputs ${everywhere} against ${scattered}\n${err}\n")
endif()
job(${MPIRUN} -np 1 ${mpi} ${dp} --every-rank-reads ${xs} ${WORK}/got/a.npy : -np 1 ${mpi} ${dp} ${WORK}/missing.npy
    ${WORK}/got/a.npy)
fails("an input missing on rank 1" "rank 1: cannot open '${WORK}/missing.npy'")
job(${MPIRUN} -np 1 ${mpi} ${dp} --every-rank-reads ${xs} ${WORK}/got/a.npy : -np 1 ${mpi} ${dp}
    ${WORK}/cases/data_parallel/short_batch.npy ${WORK}/got/a.npy)
fails("inputs of other sizes on rank 1"
      "dp_predict: the ranks passed inputs of different sizes: each must pass the same to call_on_every_rank")

# Where CMake finds no MPI, a sharded program builds all the same (at -O1: only that it builds
# and runs matters here), runs its devices on threads of one process, and under mpirun says it
# cannot run on several ranks.
execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK}/gen/data_parallel -B ${WORK}/build_no_mpi -G Ninja
                        -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG"
                        -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON ${launcher}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE status)
if(NOT status EQUAL 0 OR NOT out MATCHES "data_parallel: MPI not found, so its devices run as threads of one process only")
  string(APPEND problems "configuring without MPI: status ${status}:\n${out}\n${err}\n")
endif()
run(${CMAKE_COMMAND} --build ${WORK}/build_no_mpi -j2 --target dp_predict_main)
set(dp ${WORK}/build_no_mpi/dp_predict_main)
run(${dp} ${xs} ${WORK}/got/no_mpi.npy)
run(${WEFT} run ${SRC}/compare.model ${WORK}/cases/data_parallel/dp_predict.0.out0.npy ${WORK}/got/no_mpi.npy)
job(${MPIRUN} -np 2 ${mpi} ${dp} ${xs} ${WORK}/got/no_mpi_ranks.npy)
if(NOT status STREQUAL "1" OR NOT err MATCHES "mpirun started 2 ranks, but this program was built without MPI")
  string(APPEND problems "built without MPI, under mpirun -np 2: status ${status} (expected 1):\n${err}\n")
endif()

if(problems)
  message(FATAL_ERROR "${problems}")
endif()
message("${count} outputs and saved variables on 2 and 4 ranks agree with one process's; 6 errors end the job; "
        "built without MPI, a program runs in one process and refuses mpirun's ranks")
