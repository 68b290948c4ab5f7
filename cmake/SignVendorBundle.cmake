# Signs the vendor bundle at build time with a development key made in the
# build tree (never committed), and trusts that key in the build's keyring.
set(_dev_key ${CMAKE_BINARY_DIR}/dev-signing/dev.key)
set(_dev_pub ${CMAKE_BINARY_DIR}/dev-signing/dev.pub)
add_custom_command(
  OUTPUT ${_dev_key} ${_dev_pub}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/dev-signing ${ALGENTA_KEYRING_DIR}
  COMMAND $<TARGET_FILE:algenta-sign> keygen --private ${_dev_key} --public ${_dev_pub}
  COMMAND $<TARGET_FILE:algenta-sign> trust --public ${_dev_pub} --keyring ${ALGENTA_KEYRING_DIR}
  COMMENT "Making the development signing key")
# No file dependency on algenta-sign: relinking the tool must not make a new
# key (keygen refuses to overwrite one). The generator expressions already
# order the tool before these commands.

get_property(_vendor_plugins GLOBAL PROPERTY ALGENTA_VENDOR_PLUGINS)
set(_plugin_files)
foreach(_p IN LISTS _vendor_plugins)
  list(APPEND _plugin_files $<TARGET_FILE:${_p}>)
endforeach()

add_custom_command(
  OUTPUT ${ALGENTA_VENDOR_BUNDLE}/manifest.json.sig
  COMMAND $<TARGET_FILE:algenta-sign> sign --key ${_dev_key} --plugins ${ALGENTA_VENDOR_BUNDLE}
  DEPENDS ${_dev_key} ${_vendor_plugins} ${_plugin_files}
  COMMENT "Signing the vendor plugin bundle with the development key")
add_custom_target(sign_vendor_bundle ALL DEPENDS ${ALGENTA_VENDOR_BUNDLE}/manifest.json.sig)
