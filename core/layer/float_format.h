#pragma once

// Text forms of float32 values.

#include <cstdint>
#include <string>

namespace tp {

/// The shortest decimal text that reads back to the same float32 (std::to_chars), e.g. "0.6178674".
/// Non-finite values print as "nan", "inf", "-inf".
std::string formatFloat(float value);

/// The shortest decimal text that reads back to the same double (std::to_chars), e.g. "1e-05".
/// NaN prints as "nan" whatever its sign, infinities as "inf", "-inf".
std::string formatDouble(double value);

/// Fixed-width text with `digits` significant digits, for tables and cells (e.g. "-0.262").
std::string formatFloatShort(float value, int digits = 3);

/// The IEEE-754 bit pattern as 8 lower-case hex digits, e.g. "3f1e2c8f".
std::string floatBitsHex(float value);

/// The float32 whose bit pattern is `bits`.
float floatFromBits(std::uint32_t bits);
std::uint32_t bitsOfFloat(float value);

}  // namespace tp
