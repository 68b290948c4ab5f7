#include "sampling/portable_math.hpp"

#include "sampling/draw_math.hpp"

namespace algenta::sampling {

double portable_log(double x) { return draw_math::log(x); }

double portable_exp(double x) { return draw_math::exp(x); }

}  // namespace algenta::sampling
