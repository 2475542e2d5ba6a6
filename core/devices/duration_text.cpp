#include "devices/duration_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tp {

std::string durationText(double seconds) {
    if (!std::isfinite(seconds) || seconds < 0)
        return "unknown";
    if (seconds == 0)
        return "0 s";
    // Past a million seconds, or below a picosecond, a figure of fixed digits would run long
    // ("%.0f" of 1e100 is 101 digits) or read 0: three significant digits and an exponent.
    if (seconds >= 1e6 || seconds < 1e-12) {
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%.2e s", seconds);
        return buffer;
    }
    const struct {
        double scale;
        const char* unit;
    } units[] = {{1, "s"}, {1e-3, "ms"}, {1e-6, "µs"}, {1e-9, "ns"}};
    for (const auto& u : units) {
        const double value = seconds / u.scale;
        // 999.7 ms prints as 1.00 s: a value that rounds to 1000 of a unit takes the larger one.
        if (value < 0.9995 && u.scale > 1e-9)
            continue;
        const int decimals = value >= 99.95   ? 0
                             : value >= 9.995 ? 1
                             : value >= 0.9995
                                 ? 2
                                 : std::min(20, 2 + int(std::ceil(-std::log10(value))));
        char buffer[64];
        std::snprintf(buffer, sizeof buffer, "%.*f %s", decimals, value, u.unit);
        return buffer;
    }
    return "unknown";
}

}  // namespace tp
