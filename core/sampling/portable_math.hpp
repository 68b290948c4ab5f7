// log and exp in double built only from IEEE-754 +, -, *, / (round to
// nearest), floor and exponent bit manipulation, in a fixed order. Library
// log/exp differ between glibc and CUDA's libdevice by an ulp here and there;
// these give the same bits on both, so the GPU sampler can reproduce the
// host's decisions exactly (both compile draw_math.hpp, without FMA
// contraction).
// Accuracy: within a few ulp of the true value (tests check 4e-16 relative).
#pragma once

namespace algenta::sampling {

// Natural log of a positive finite x (normal or subnormal).
double portable_log(double x);

// e^x for x <= 709; returns 0 below -745.2 (the smallest subnormal).
double portable_exp(double x);

}  // namespace algenta::sampling
