# Shared settings for every plugin shared object (ours and test plugins):
# hidden visibility, a version script exporting only algenta_plugin_entry,
# no undefined symbols, and output into the given bundle directory.
set(ALGENTA_PLUGIN_EXPORTS_MAP ${CMAKE_CURRENT_LIST_DIR}/plugin_exports.map)

function(algenta_plugin_settings target output_dir)
  set_target_properties(${target} PROPERTIES
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    CUDA_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY ${output_dir})
  target_link_options(${target} PRIVATE
    "LINKER:--version-script=${ALGENTA_PLUGIN_EXPORTS_MAP}"
    "LINKER:--no-undefined")
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${ALGENTA_PLUGIN_EXPORTS_MAP})
endfunction()
