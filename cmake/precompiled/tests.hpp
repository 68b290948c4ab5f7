// The Catch2 programs' precompiled header: the common one and Catch2.
#pragma once

#include "common.hpp"
#include <catch2/catch.hpp>
