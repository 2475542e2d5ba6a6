#pragma once

// The timing of one direction of tpviz-delay-line, the userspace link of two_hosts.sh on a kernel
// without netem: a FIFO with a rate, a one-way delay and a bounded queue, as `tc qdisc ... netem
// rate R delay D` and tbf's `latency` bound shape a link. Pure: times in, times out.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tp::test {

/// One direction of the link.
struct LinkShape {
    std::int64_t bitsPerSecond = 0;  ///< the rate: a frame of n bytes takes n * 8 / it seconds
    std::int64_t delayNs = 0;        ///< from a frame's last bit sent to the frame delivered
    /// The longest a frame may wait for the frames ahead of it before its first bit leaves, as
    /// tbf's `latency`: a frame that would wait longer is dropped.
    std::int64_t queueLimitNs = 0;
};

/// A frame read from one side: when it was read (ns on a monotonic clock) and its bytes
/// (Ethernet header and payload, as netem counts them).
struct FrameArrival {
    std::int64_t arrivalNs = 0;
    std::int64_t bytes = 0;
};

/// What becomes of a frame. busyUntilNs is the direction's state after it.
struct FrameFate {
    bool dropped = false;
    std::int64_t departureNs = 0;  ///< its first bit leaves: max(arrival, the previous last bit)
    std::int64_t lastBitNs = 0;    ///< departure + transmissionNs(bytes)
    std::int64_t deliveryNs = 0;   ///< lastBit + delay: written to the other side then
    std::int64_t busyUntilNs = 0;  ///< the last bit of the newest frame kept (unchanged on a drop)
};

/// The time n bytes take at bitsPerSecond, rounded up to a whole nanosecond: bytes * 8 * 1e9 /
/// bitsPerSecond. 1500 bytes at 1 Gbit/s: 12'000 ns.
std::int64_t transmissionNs(std::int64_t bytes, std::int64_t bitsPerSecond);

/// The fate of a frame of `bytes` read at arrivalNs on a direction whose last kept frame's last
/// bit leaves at busyUntilNs (0 when nothing was sent yet). It departs at max(arrivalNs,
/// busyUntilNs), unless that is more than shape.queueLimitNs after arrivalNs: then it is dropped.
FrameFate scheduleFrame(const LinkShape& shape, std::int64_t busyUntilNs, std::int64_t arrivalNs,
                        std::int64_t bytes);

/// scheduleFrame over frames in the order read (arrivals not decreasing), from an idle direction.
std::vector<FrameFate> scheduleFrames(const LinkShape& shape,
                                      const std::vector<FrameArrival>& frames);

/// A rate in tc's words: a number and bit, kbit, mbit or gbit (decimal: 1gbit is 1e9 bit/s), as
/// bits per second; nothing when the words are not a positive rate.
std::optional<std::int64_t> parseRate(const std::string& words);

/// A time in tc's words: a number and s, ms, us or ns, as nanoseconds; nothing when the words are
/// not a time of zero or more.
std::optional<std::int64_t> parseTime(const std::string& words);

}  // namespace tp::test
