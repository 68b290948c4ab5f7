# The build tree's host configuration (etc/algenta/host.json, beside the
# keyring): the library directories, besides the system ones, where declared
# host libraries are found. CUDA engines link cuBLAS from the toolkit's
# library directory, so that one is listed; without CUDA none is.
set(ALGENTA_HOST_CONFIG ${CMAKE_BINARY_DIR}/etc/algenta/host.json)
set(_library_directories "")
if(ALGENTA_CUDA)
  set(_library_directories "\"${CUDAToolkit_LIBRARY_DIR}\"")
endif()
file(WRITE ${ALGENTA_HOST_CONFIG} "{\"library_directories\": [${_library_directories}]}\n")
file(CHMOD ${ALGENTA_HOST_CONFIG} PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
