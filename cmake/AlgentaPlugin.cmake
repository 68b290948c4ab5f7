# Shared settings for every plugin shared object (ours and test plugins):
# hidden visibility, a version script exporting only algenta_plugin_entry,
# no undefined symbols, no RPATH/RUNPATH (the host refuses plugins whose
# search path could lead to unverified code; declared host libraries are
# preloaded by absolute path), output into the given bundle directory, and
# no group or other write on the file whatever the umask.
set(ALGENTA_PLUGIN_EXPORTS_MAP ${CMAKE_CURRENT_LIST_DIR}/plugin_exports.map)

function(algenta_plugin_settings target output_dir)
  set_target_properties(${target} PROPERTIES
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    CUDA_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    SKIP_BUILD_RPATH ON
    BUILD_WITH_INSTALL_RPATH OFF
    INSTALL_RPATH ""
    LIBRARY_OUTPUT_DIRECTORY ${output_dir})
  algenta_private_directory(${output_dir})
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND chmod go-w $<TARGET_FILE:${target}>
    VERBATIM)
  target_link_options(${target} PRIVATE
    "LINKER:--version-script=${ALGENTA_PLUGIN_EXPORTS_MAP}"
    "LINKER:--no-undefined")
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${ALGENTA_PLUGIN_EXPORTS_MAP})
endfunction()

# Creates `dir` and every missing directory above it, and takes group and
# other write off each from `dir` up to the build tree, whatever the umask:
# the host refuses anything a user other than root or itself could change.
function(algenta_private_directory dir)
  file(MAKE_DIRECTORY ${dir})
  set(_d ${dir})
  while(TRUE)
    file(CHMOD ${_d} PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE
                                 GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
    string(FIND "${_d}" "${CMAKE_BINARY_DIR}" _inside)
    if(NOT _inside EQUAL 0 OR _d STREQUAL CMAKE_BINARY_DIR)
      break()
    endif()
    get_filename_component(_d ${_d} DIRECTORY)
  endwhile()
endfunction()
