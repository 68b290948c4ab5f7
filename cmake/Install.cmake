# The release tree, relative to its prefix: the tarball's top directory, or
# /usr (with etc/ beside it) in the .deb. scripts/package installs it, signs
# the bundle with the packager's key (the build's development manifest is not
# installed) and adds a keyring holding only the packager's public key.
set(ALGENTA_PACKAGE_CUDA_LIBRARY_DIR /usr/local/cuda/lib64 CACHE PATH
    "Where the release's host.json tells the host to find cuBLAS/cuBLASLt")

install(TARGETS algenta-host algenta-sign RUNTIME DESTINATION bin)

get_property(_release_plugins GLOBAL PROPERTY ALGENTA_VENDOR_PLUGINS)
foreach(_p IN LISTS _release_plugins)
  install(FILES $<TARGET_FILE:${_p}> DESTINATION lib/algenta/plugins/vendor
          PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
endforeach()

# The host configuration of an installed host: the CUDA engines' declared
# host libraries come from the toolkit's library directory on that machine.
set(_release_library_directories "")
if(ALGENTA_CUDA)
  set(_release_library_directories "\"${ALGENTA_PACKAGE_CUDA_LIBRARY_DIR}\"")
endif()
set(_release_host_config ${CMAKE_BINARY_DIR}/release-config/host.json)
file(WRITE ${_release_host_config} "{\"library_directories\": [${_release_library_directories}]}\n")
install(FILES ${_release_host_config} DESTINATION etc/algenta
        PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)

install(FILES README.md docs/release.md core/include/algenta/ABI_CHANGELOG.md
        DESTINATION share/doc/algenta-host
        PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
