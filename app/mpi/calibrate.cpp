#include "calibrate.h"

#include "devices/calibration.h"
#include "devices/duration_text.h"
#include "io/hardware_file.h"
#include "io/staged_file.h"
#include "io/standard_output.h"
#include "layer/eigen_types.h"
#include "layer/layer_config.h"
#include "layer/products.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <vector>

namespace tp::mpi {
namespace {

constexpr std::int64_t kLargestBytes = std::int64_t(64) << 20;

// The slowest rank's time of `call`, started after a barrier, median of `repetitions` (after one
// call that is not timed); `prepare` runs before each barrier, untimed.
double medianSeconds(
    MPI_Comm comm, int repetitions, const std::function<void()>& call,
    const std::function<void()>& prepare = [] {}) {
    call();
    std::vector<double> times;
    for (int i = 0; i < repetitions; ++i) {
        prepare();
        MPI_Barrier(comm);
        const double start = MPI_Wtime();
        call();
        double mine = MPI_Wtime() - start, slowest = 0;
        MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
        times.push_back(slowest);
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

CollectiveTiming timeCollective(CollectiveKind kind, std::int64_t bytes, int ranks, MPI_Comm comm) {
    // Each rank's block is a whole number of floats, at least one.
    const int block = int(std::max<std::int64_t>(1, bytes / 4 / ranks));
    const std::int64_t whole = std::int64_t(block) * ranks;
    std::vector<float> in(static_cast<std::size_t>(whole), 1.0f);
    std::vector<float> out(static_cast<std::size_t>(whole));
    const int repetitions = whole * 4 <= (1 << 20) ? 21 : 5;
    // Each timed call's input is written just before it, as a rank's is by the product before its
    // collective: its lines are then new in this core's cache, where the peer has to fetch them.
    // On the same buffers read again, an all-gather of 64 KiB took 3.9 µs, the ranks' 7 to 9 µs.
    // The all-reduce sums in place, as the ranks' does (and a framework's on its gradients): its
    // input is its output. On 2 ranks of an AMD EPYC, 1 MiB took 106 µs from a separate input and
    // 191 µs in place, the ranks' 180 to 230 µs.
    std::vector<float>& input = kind == CollectiveKind::AllReduce ? out : in;
    const auto write = [&] { std::fill(input.begin(), input.end(), input.front() + 1.0f); };
    const double seconds = medianSeconds(
        comm, repetitions,
        [&] {
            switch (kind) {
                case CollectiveKind::AllGather:
                    MPI_Allgather(in.data(), block, MPI_FLOAT, out.data(), block, MPI_FLOAT, comm);
                    break;
                case CollectiveKind::ReduceScatter:
                    MPI_Reduce_scatter_block(in.data(), out.data(), block, MPI_FLOAT, MPI_SUM,
                                             comm);
                    break;
                default:
                    MPI_Allreduce(MPI_IN_PLACE, out.data(), int(whole), MPI_FLOAT, MPI_SUM, comm);
            }
        },
        write);
    return {kind, ranks, whole * 4, seconds};
}

std::string cpuName() {
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line))
        if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos)
            return line.substr(line.find(':') + 2);
    return "an unknown CPU";
}

std::string rateText(double perSecond, const char* unit) {
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%.3g %s", perSecond, unit);
    return buffer;
}

std::string residualText(const Residual& r) {
    char residual[32], mean[48];
    std::snprintf(residual, sizeof residual, "%.0f%%", 100 * r.worst);
    std::snprintf(mean, sizeof mean, ", root mean square %.0f%%", 100 * r.rms);
    return std::string(residual) + " (at " + formatBytes(r.bytes) + ")" + mean;
}

std::string fitLine(const std::string& what, const CollectiveFit& fit) {
    if (!fit.valid)
        return what + ": no fit with a positive bandwidth\n";
    return what + ": " + linkWords(fit.link) + ", worst residual " + residualText(fit.residual) +
           "\n";
}

// Each kind's fit beside the shared figures' residual on it, which kinds keep their own figures,
// and the shared figures the preset then has.
std::string kindLines(const LinkCalibration& calibration) {
    std::string text, kept, left;
    for (const KindFit& k : calibration.kinds) {
        const std::string kind(toString(k.kind));
        text += fitLine("fit of " + kind + " alone", k.own);
        if (calibration.shared.valid)
            text += "  the shared figures' worst residual on " + kind + ": " +
                    residualText(k.shared) + "\n";
        (k.kept ? kept : left) += ((k.kept ? kept : left).empty() ? "" : ", ") + kind;
    }
    char rule[192];
    std::snprintf(rule, sizeof rule,
                  "(a kind keeps its own when the shared figures' root mean square on it is above "
                  "%.0f%% and its own fit's below %.0f%% of that)",
                  100 * kOwnLinkResidual, 100 * kOwnLinkGain);
    text += "own figures in the preset: " + (kept.empty() ? "none" : kept) + " " + rule + "\n";
    if (!kept.empty() && !left.empty())
        text += fitLine("shared figures, fitted again to " + left, calibration.shared);
    return text;
}

}  // namespace

int runCalibration(const CalibrateOptions& options, MPI_Comm world) {
    int rank = 0, ranks = 1;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &ranks);
    std::ostringstream out;
    if (ranks < 2) {
        if (rank == 0)
            std::cerr << "tpviz-mpi: --calibrate needs at least 2 ranks (mpirun -n 2)\n";
        return 2;
    }

    std::vector<CollectiveTiming> all;
    out << "calibration on " << ranks << " ranks, " << cpuName()
        << "; each time the slowest rank's after a barrier, the median of repetitions\n"
        << "collective       bytes       measured    fitted      fitted / measured\n";
    std::vector<std::int64_t> sizes;
    for (std::int64_t bytes = 8; bytes < kLargestBytes; bytes *= 2)
        sizes.push_back(bytes);
    sizes.push_back(kLargestBytes);
    for (const CollectiveKind kind : kLinkKinds)
        for (const std::int64_t bytes : sizes)
            all.push_back(timeCollective(kind, bytes, ranks, world));
    const LinkCalibration calibration = calibrateLinks(all);
    const CollectiveFit& joint = calibration.shared;
    // The fitted column is the preset's model: each kind at the figures the preset gives it.
    const HardwarePreset fitted = withLinks(HardwarePreset{}, calibration);
    for (const CollectiveTiming& t : all) {
        char line[160];
        const double model = joint.valid ? fittedSeconds(linkFor(fitted, t.kind), t) : 0;
        std::snprintf(line, sizeof line, "%-16s %-11s %-11s %-11s %.2f\n",
                      std::string(toString(t.kind)).c_str(), formatBytes(t.bytes).c_str(),
                      durationText(t.seconds).c_str(), durationText(model).c_str(),
                      model / t.seconds);
        out << line;
    }
    out << fitLine("fit of all three", calibration.all) << kindLines(calibration);

    const Index n = 256, k = 1024, m = 1024;
    const Matrix a = Matrix::Constant(n, k, 0.5f), b = Matrix::Constant(k, m, 0.25f);
    Matrix c(n, m);
    const double productSeconds = medianSeconds(world, 5, [&] { multiply(c, a, b); });
    const double flops = 2.0 * double(n * k * m) / productSeconds;
    // Products of at most kFewRows rows take the core's other route, summed in order: timed at
    // kFewRows rows on a kernel of 64 MiB, which streams from memory as a rank's does.
    const Index fewK = 2048, fewM = 8192;
    const Matrix fewA = Matrix::Constant(kFewRows, fewK, 0.5f);
    const Matrix fewB = Matrix::Constant(fewK, fewM, 0.25f);
    Matrix fewC(kFewRows, fewM);
    const double inOrderSeconds = medianSeconds(world, 5, [&] { multiply(fewC, fewA, fewB); });
    const double inOrderFlops = 2.0 * double(kFewRows * fewK * fewM) / inOrderSeconds;
    std::vector<char> from(static_cast<std::size_t>(kLargestBytes), 1);
    std::vector<char> to(static_cast<std::size_t>(kLargestBytes));
    const double copySeconds =
        medianSeconds(world, 5, [&] { std::memcpy(to.data(), from.data(), from.size()); });
    const double memory = 2.0 * double(kLargestBytes) / copySeconds;
    const Matrix x1 = Matrix::Constant(1, 8, 0.5f), k8 = Matrix::Constant(8, 8, 0.25f);
    Matrix y1(1, 8);
    const double launch = medianSeconds(world, 101, [&] { multiply(y1, x1, k8); });
    out << "products (256, 1024) @ (1024, 1024): " << rateText(flops, "FLOP/s") << '\n'
        << "products (" << kFewRows << ", " << fewK << ") @ (" << fewK << ", " << fewM
        << "), summed in order: " << rateText(inOrderFlops, "FLOP/s") << '\n'
        << "copies of 64 MiB: " << rateText(memory, "bytes/s") << " read and written\n"
        << "products (1, 8) @ (8, 8), the launch: " << durationText(launch) << '\n';

    int status = 0;
    if (rank == 0) {
        if (!joint.valid) {
            std::cerr << "tpviz-mpi: --calibrate: " << fitLine("the fit", joint);
            status = 2;
        } else {
            HardwarePreset measured;
            measured.name = "this-machine";
            measured.description = "this machine, calibrated: " + std::to_string(ranks) +
                                   " Open MPI ranks on " + cpuName();
            measured.achievableFlops = flops;
            measured.memoryBytesPerSecond = memory;
            measured.launchSeconds = launch;
            measured.inOrderFlops = inOrderFlops;
            const std::string json = hardwareJson(withLinks(measured, calibration));
            if (!options.output.empty()) {
                StagedFile file(options.output);
                std::string error = file.write({json});
                if (error.empty())
                    error = file.commit();
                if (!error.empty()) {
                    std::cerr << "tpviz-mpi: --output: " << error << '\n';
                    status = 2;
                }
            }
            std::string text = options.json ? json : out.str() + "preset:\n" + json;
            std::string error = writeStandardOutput(text);
            if (error.empty())
                error = finishStandardOutput();
            if (!error.empty()) {
                std::cerr << "tpviz-mpi: " << error << '\n';
                status = 2;
            }
        }
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, world);
    return status;
}

}  // namespace tp::mpi
