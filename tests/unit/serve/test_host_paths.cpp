// Where an installed host looks for its configuration: beside its prefix in
// a build tree or a relocated tarball, beside usr in a Debian layout.
#include <catch2/catch.hpp>

#include "engine/host_paths.hpp"

using algenta::host::configuration_dir_for_prefix;

TEST_CASE("a tarball or build tree keeps its configuration under its own prefix") {
  CHECK(configuration_dir_for_prefix("/opt/algenta-host-0.1.0") == "/opt/algenta-host-0.1.0/etc");
  CHECK(configuration_dir_for_prefix("/home/op/build") == "/home/op/build/etc");
  CHECK(configuration_dir_for_prefix("/srv/usr-local") == "/srv/usr-local/etc");
}

TEST_CASE("a usr prefix has its configuration beside usr") {
  CHECK(configuration_dir_for_prefix("/usr") == "/etc");
  CHECK(configuration_dir_for_prefix("/usr/") == "/etc");
  CHECK(configuration_dir_for_prefix("/tmp/extracted/usr") == "/tmp/extracted/etc");
}
