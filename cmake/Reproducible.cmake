# Reproducible output: the same commit built in two directories gives the same
# plugin bytes. Paths of the checkout and the build tree are mapped to fixed
# names wherever the compilers would embed them (__FILE__, debug info, the
# assembler's file symbols); the build tree's map comes last because it wins
# when the build tree sits inside the checkout. Time stamps cannot enter the
# objects: __DATE__, __TIME__ and __TIMESTAMP__ are errors.
set(_source_map "-ffile-prefix-map=${CMAKE_SOURCE_DIR}/=")
set(_build_map "-ffile-prefix-map=${CMAKE_BINARY_DIR}/=build/")
add_compile_options(
  "$<$<COMPILE_LANGUAGE:C,CXX>:${_source_map};${_build_map};-Werror=date-time>")
# The link order is the order CMake lists the objects and libraries, which
# is fixed by the CMake files; the build id is a hash of the output.
add_link_options("LINKER:--build-id=sha1")
if(ALGENTA_CUDA)
  # nvcc hands the host compiler the same maps (its host code embeds the
  # source paths it was given too).
  add_compile_options(
    "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${_source_map},${_build_map},-Werror=date-time>")
endif()
