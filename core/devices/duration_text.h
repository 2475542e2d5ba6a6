#pragma once

// A time in the unit a person reads it in: s, ms, µs or ns, three significant digits.

#include <string>

namespace tp {

/// "1.20 s", "16.0 ms", "53.3 µs", "136 ns", and below a nanosecond still in ns ("0.194 ns",
/// "0.0197 ns"): never picoseconds. From 10^6 s, and below 10^-12 s, with an exponent
/// ("1.00e+100 s"). 0 is "0 s"; a negative or non-finite time is "unknown".
std::string durationText(double seconds);

}  // namespace tp
