# weft_gemm_libraries(TARGET SCOPE): finds the GEMM libraries Weft loads beside Eigen and tells
# TARGET's code where they are (WEFT_OPENBLAS_FILE, WEFT_BLIS_FILE: the runtime's shared objects,
# so running needs no -dev package); gemm_libraries.h loads them when a product first needs one.
# BLIS's single-threaded build (Debian's libblis4-serial) comes first: the threaded ones allocate
# on every call. Weft's build and the CMakeLists.txt `weft compile` emits both call this.
function(weft_gemm_libraries target scope)
  find_library(WEFT_OPENBLAS_SO NAMES libopenblas.so.0 openblas)
  find_library(WEFT_BLIS_SO NAMES libblis.so.4 blis
               PATHS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/blis-serial NO_DEFAULT_PATH)
  find_library(WEFT_BLIS_SO NAMES libblis.so.4 blis)
  foreach(lib OPENBLAS BLIS)
    if(WEFT_${lib}_SO)
      target_compile_definitions(${target} ${scope} WEFT_${lib}_FILE="${WEFT_${lib}_SO}")
    endif()
  endforeach()
  target_link_libraries(${target} ${scope} ${CMAKE_DL_LIBS})
endfunction()
