# Precompiled headers for the host library and the Catch2 programs: parsing
# nlohmann/json, Catch2 and the standard library took a third of each of
# their compiles, repeated in about 150 files. Plugins never use them (their
# bytes are checked for reproducibility and stay plain compiles).
option(ALGENTA_PRECOMPILED_HEADERS "Precompile common headers of the host and tests" ON)

# algenta_precompile(TARGET HEADER): TARGET gets its own precompiled header
# made of cmake/precompiled/HEADER (common.hpp, tests.hpp).
function(algenta_precompile target header)
  if(ALGENTA_PRECOMPILED_HEADERS)
    target_precompile_headers(${target} PRIVATE
      "${PROJECT_SOURCE_DIR}/cmake/precompiled/${header}")
    algenta_quiet_system_header_warnings(${target})
  endif()
endfunction()

# GCC 12 loses the system-header mark of what it read from a precompiled
# header, so its known false -Wstringop-overflow/-overread reports inside
# libstdc++'s string code (at -O3) surface; without precompiling they are
# not shown. The same two stay quiet in these targets.
function(algenta_quiet_system_header_warnings target)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-Wno-stringop-overflow -Wno-stringop-overread>)
  endif()
endfunction()

# algenta_precompile_like(OWNER TARGET...): the targets reuse OWNER's
# precompiled header (one compile of it instead of one per program).
function(algenta_precompile_like owner)
  if(ALGENTA_PRECOMPILED_HEADERS)
    foreach(target IN LISTS ARGN)
      target_precompile_headers(${target} REUSE_FROM ${owner})
      algenta_quiet_system_header_warnings(${target})
    endforeach()
  endif()
endfunction()
