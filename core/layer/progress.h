#pragma once

// Progress and cancellation of long work, shared between a worker and whoever watches it.

#include <atomic>
#include <cstdint>

namespace tp {

/// Counts units of work done out of a total, and carries a cancel request.
/// Thread-safe: the worker calls advance() and polls cancelled(); a UI polls fraction() and calls
/// cancel(). Work that sees cancelled() stops early and its result must be discarded.
class Progress {
public:
    void setTotal(std::int64_t total) { m_total.store(total, std::memory_order_relaxed); }
    /// Adds units * unitSize() to the work done.
    void advance(std::int64_t units = 1) {
        m_done.fetch_add(units * unitSize(), std::memory_order_relaxed);
    }
    /// How much one advanced unit counts (1 by default): lets a caller weigh a stage whose
    /// functions count coarse units (one per group) by what each unit costs.
    void setUnitSize(std::int64_t size) { m_unitSize.store(size, std::memory_order_relaxed); }
    std::int64_t unitSize() const { return m_unitSize.load(std::memory_order_relaxed); }
    void cancel() { m_cancelled.store(true, std::memory_order_relaxed); }

    bool cancelled() const { return m_cancelled.load(std::memory_order_relaxed); }
    std::int64_t done() const { return m_done.load(std::memory_order_relaxed); }
    std::int64_t total() const { return m_total.load(std::memory_order_relaxed); }

    /// done / total in [0, 1]; 0 while the total is unknown.
    double fraction() const {
        const std::int64_t t = total();
        if (t <= 0)
            return 0.0;
        const double f = double(done()) / double(t);
        return f < 1.0 ? f : 1.0;
    }

private:
    std::atomic<std::int64_t> m_done{0};
    std::atomic<std::int64_t> m_total{0};
    std::atomic<std::int64_t> m_unitSize{1};
    std::atomic<bool> m_cancelled{false};
};

/// Helpers that accept a null Progress*, so core functions can take it as optional.
inline bool isCancelled(const Progress* progress) {
    return progress && progress->cancelled();
}
inline void advance(Progress* progress, std::int64_t units = 1) {
    if (progress)
        progress->advance(units);
}

}  // namespace tp
