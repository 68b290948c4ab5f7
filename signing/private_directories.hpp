// Directories algenta-sign creates: mode 0755 whatever the umask, because a
// host refuses a keyring any user other than root or itself could change.
#pragma once

#include <filesystem>

namespace algenta::sign {

// Creates `directory` and every missing directory above it, each 0755.
// Existing directories are left as they are. Throws IoError.
void make_private_directories(const std::filesystem::path& directory);

}  // namespace algenta::sign
