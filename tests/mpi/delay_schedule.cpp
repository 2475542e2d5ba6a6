#include "delay_schedule.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdlib>
#include <utility>

namespace tp::test {

std::int64_t transmissionNs(std::int64_t bytes, std::int64_t bitsPerSecond) {
    assert(bytes >= 0 && bytes < (std::int64_t{1} << 32) && bitsPerSecond > 0);
    const std::int64_t bitNs = bytes * 8 * 1'000'000'000;
    return (bitNs + bitsPerSecond - 1) / bitsPerSecond;
}

FrameFate scheduleFrame(const LinkShape& shape, std::int64_t busyUntilNs, std::int64_t arrivalNs,
                        std::int64_t bytes) {
    FrameFate fate;
    fate.departureNs = std::max(arrivalNs, busyUntilNs);
    if (fate.departureNs - arrivalNs > shape.queueLimitNs) {
        fate.dropped = true;
        fate.busyUntilNs = busyUntilNs;
        return fate;
    }
    fate.lastBitNs = fate.departureNs + transmissionNs(bytes, shape.bitsPerSecond);
    fate.deliveryNs = fate.lastBitNs + shape.delayNs;
    fate.busyUntilNs = fate.lastBitNs;
    return fate;
}

std::vector<FrameFate> scheduleFrames(const LinkShape& shape,
                                      const std::vector<FrameArrival>& frames) {
    std::vector<FrameFate> fates;
    fates.reserve(frames.size());
    std::int64_t busyUntilNs = 0;
    for (const FrameArrival& frame : frames) {
        fates.push_back(scheduleFrame(shape, busyUntilNs, frame.arrivalNs, frame.bytes));
        busyUntilNs = fates.back().busyUntilNs;
    }
    return fates;
}

namespace {

// A number followed by one of the units, as the unit's multiple of the number; nothing when the
// words are not that.
std::optional<std::int64_t> parseWithUnit(
    const std::string& words, const std::vector<std::pair<std::string, double>>& units) {
    const char* begin = words.c_str();
    char* end = nullptr;
    const double number = std::strtod(begin, &end);
    if (end == begin || !std::isfinite(number) || number < 0)
        return std::nullopt;
    const std::string unit(end);
    for (const auto& [name, multiple] : units) {
        if (unit != name)
            continue;
        const double value = std::round(number * multiple);
        if (value > 9e18)
            return std::nullopt;
        return static_cast<std::int64_t>(value);
    }
    return std::nullopt;
}

}  // namespace

std::optional<std::int64_t> parseRate(const std::string& words) {
    const auto rate =
        parseWithUnit(words, {{"bit", 1}, {"kbit", 1e3}, {"mbit", 1e6}, {"gbit", 1e9}});
    if (!rate || *rate <= 0)
        return std::nullopt;
    return rate;
}

std::optional<std::int64_t> parseTime(const std::string& words) {
    return parseWithUnit(words, {{"s", 1e9}, {"ms", 1e6}, {"us", 1e3}, {"ns", 1}});
}

}  // namespace tp::test
