# Golden programs with meshes under Open MPI (docs/distributed.md): each of PROGRAMS (paths of
# .model files, `;`-separated) runs from its folder as `MPIRUN... weft run [NAME.args] NAME.model
# [NAME.argv]` on RANKS ranks, and must print exactly its NAME.out, what the one-process run
# prints, with nothing on stderr and status 0. One mpirun per program (each start costs ~0.6 s).
# With WORK, each runs in a fresh copy of itself in WORK/NAME (programs that write files).
set(ENV{WEFT_GEMM} eigen)  # as run_golden.cmake: the expected outputs' GEMM library
set(problems "")
foreach(model ${PROGRAMS})
  get_filename_component(dir ${model} DIRECTORY)
  get_filename_component(name ${model} NAME_WE)
  set(options "")
  set(argv "")
  if(EXISTS ${dir}/${name}.args)
    file(READ ${dir}/${name}.args options)
    separate_arguments(options UNIX_COMMAND "${options}")
  endif()
  if(EXISTS ${dir}/${name}.argv)
    file(READ ${dir}/${name}.argv argv)
    separate_arguments(argv UNIX_COMMAND "${argv}")
  endif()
  set(run_dir ${dir})
  if(WORK)
    set(run_dir ${WORK}/${name})
    file(REMOVE_RECURSE ${run_dir})
    file(MAKE_DIRECTORY ${run_dir})
    file(COPY ${model} DESTINATION ${run_dir})
  endif()
  execute_process(COMMAND ${MPIRUN} -np ${RANKS} --oversubscribe --bind-to none --mca btl self,vader
                          ${WEFT} run ${options} ${name}.model ${argv}
                  WORKING_DIRECTORY ${run_dir} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE status TIMEOUT 120)
  file(READ ${dir}/${name}.out expected)
  if(NOT status STREQUAL "0")
    string(APPEND problems "${name}: exit status ${status}\n${err}\n")
  elseif(NOT out STREQUAL expected)
    string(APPEND problems "${name}: stdout differs from ${name}.out:\n${out}\n")
  elseif(NOT err STREQUAL "")
    string(APPEND problems "${name}: stderr is not empty:\n${err}\n")
  endif()
endforeach()
if(problems)
  message(FATAL_ERROR "under mpirun -np ${RANKS}:\n${problems}")
endif()
list(LENGTH PROGRAMS count)
message("${count} programs print under mpirun -np ${RANKS} what they print in one process")
