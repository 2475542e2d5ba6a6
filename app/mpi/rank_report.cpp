#include "rank_report.h"

#include "devices/duration_text.h"
#include "layer/float_format.h"

#include <sys/resource.h>

#include <array>
#include <sstream>

namespace tp::mpi {
namespace {

constexpr int kIntFields = 7;
constexpr int kTimeFields = 4;

// Every rank's backward stats on rank 0, in rank order; empty elsewhere. Every rank has the same
// number of collectives.
std::vector<RankBackwardStats> gatherBackwardStats(const RankBackwardStats& mine, MPI_Comm world) {
    constexpr int kInts = 4;
    const std::array<std::int64_t, kInts> ints{mine.dyBytesHeld, mine.dxBytesHeld,
                                               mine.dkernelBytesHeld, mine.dbiasBytesHeld};
    std::vector<double> reals{mine.generateSeconds, mine.computeSeconds};
    reals.insert(reals.end(), mine.collectiveSeconds.begin(), mine.collectiveSeconds.end());
    const int realCount = int(reals.size());
    int rank = 0;
    int size = 1;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    std::vector<std::int64_t> allInts(rank == 0 ? std::size_t(size) * kInts : 0);
    std::vector<double> allReals(rank == 0 ? std::size_t(size) * std::size_t(realCount) : 0);
    MPI_Gather(ints.data(), kInts, MPI_INT64_T, allInts.data(), kInts, MPI_INT64_T, 0, world);
    MPI_Gather(reals.data(), realCount, MPI_DOUBLE, allReals.data(), realCount, MPI_DOUBLE, 0,
               world);
    std::vector<RankBackwardStats> all;
    for (std::size_t r = 0; r < allInts.size() / kInts; ++r) {
        const std::int64_t* i = allInts.data() + r * kInts;
        const double* f = allReals.data() + r * std::size_t(realCount);
        all.push_back({i[0], i[1], i[2], i[3], f[0], f[1], {f + 2, f + realCount}});
    }
    return all;
}

// Every rank's layout stats on rank 0, in rank order; empty elsewhere. Every rank has the same
// number of collectives.
std::vector<RankLayoutStats> gatherLayoutStats(const RankLayoutStats& mine, MPI_Comm world) {
    const std::array<std::int64_t, 2> ints{mine.bytesAtRest, mine.bytesPeak};
    const int count = int(mine.collectiveSeconds.size());
    int rank = 0;
    int size = 1;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    std::vector<std::int64_t> allInts(rank == 0 ? std::size_t(size) * 2 : 0);
    std::vector<double> allReals(rank == 0 ? std::size_t(size) * std::size_t(count) : 0);
    MPI_Gather(ints.data(), 2, MPI_INT64_T, allInts.data(), 2, MPI_INT64_T, 0, world);
    MPI_Gather(mine.collectiveSeconds.data(), count, MPI_DOUBLE, allReals.data(), count, MPI_DOUBLE,
               0, world);
    std::vector<RankLayoutStats> all;
    for (std::size_t r = 0; r < allInts.size() / 2; ++r) {
        const double* f = allReals.data() + r * std::size_t(count);
        all.push_back({allInts[2 * r], allInts[2 * r + 1], {f, f + count}});
    }
    return all;
}

Json layoutJson(const RankLayoutStats& l, const std::vector<LayoutCollective>& program) {
    Json times = Json::array();
    for (std::size_t i = 0; i < program.size(); ++i)
        times.push_back({{"name", std::string(toString(program[i].cost.kind))},
                         {"phase", std::string(toString(program[i].phase))},
                         {"axis", std::string(toString(program[i].axis))},
                         {"of", program[i].of},
                         {"communication_s", l.collectiveSeconds[i]}});
    return {{"bytes_at_rest", l.bytesAtRest},
            {"bytes_peak", l.bytesPeak},
            {"collectives", std::move(times)}};
}

std::string layoutText(const RankLayoutStats& l, const std::vector<LayoutCollective>& program) {
    std::ostringstream out;
    out << "    layout: " << formatBytes(l.bytesAtRest) << " at rest, " << formatBytes(l.bytesPeak)
        << " at its peak";
    for (std::size_t i = 0; i < program.size(); ++i)
        out << (i == 0 ? "; " : ", ") << toString(program[i].phase) << ' '
            << toString(program[i].cost.kind) << " of " << program[i].of << " over \""
            << toString(program[i].axis) << "\" " << durationText(l.collectiveSeconds[i]);
    out << '\n';
    return out.str();
}

Json backwardJson(const RankBackwardStats& b, const std::vector<BackwardCollective>& collectives) {
    Json times = Json::array();
    for (std::size_t i = 0; i < collectives.size(); ++i)
        times.push_back({{"name", std::string(toString(collectives[i].cost.kind))},
                         {"axis", std::string(toString(collectives[i].axis))},
                         {"of", collectives[i].of},
                         {"communication_s", b.collectiveSeconds[i]}});
    return {{"dy_bytes_held", b.dyBytesHeld},           {"dx_bytes_held", b.dxBytesHeld},
            {"dkernel_bytes_held", b.dkernelBytesHeld}, {"dbias_bytes_held", b.dbiasBytesHeld},
            {"generate_s", b.generateSeconds},          {"compute_s", b.computeSeconds},
            {"collectives", std::move(times)}};
}

std::string backwardText(const RankBackwardStats& b,
                         const std::vector<BackwardCollective>& collectives) {
    std::ostringstream out;
    out << "    backward: dy held " << formatBytes(b.dyBytesHeld) << ", dx "
        << formatBytes(b.dxBytesHeld) << ", dkernel " << formatBytes(b.dkernelBytesHeld)
        << ", dbias " << formatBytes(b.dbiasBytesHeld) << "; generate dy "
        << durationText(b.generateSeconds) << ", compute " << durationText(b.computeSeconds);
    for (std::size_t i = 0; i < collectives.size(); ++i)
        out << ", " << toString(collectives[i].cost.kind) << " of " << collectives[i].of
            << " over \"" << toString(collectives[i].axis) << "\" "
            << durationText(b.collectiveSeconds[i]);
    out << '\n';
    return out.str();
}

}  // namespace

std::int64_t peakRssBytes() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return std::int64_t(usage.ru_maxrss) * 1024;  // kilobytes on Linux
}

std::vector<RankStats> gatherStats(const RankStats& mine, MPI_Comm world) {
    const std::array<std::int64_t, kIntFields> ints{mine.rank,
                                                    mine.d,
                                                    mine.m,
                                                    mine.kernelBytesHeld,
                                                    mine.biasBytesHeld,
                                                    mine.xBytesHeld,
                                                    mine.outputBytesHeld};
    const std::array<double, kTimeFields + 1> reals{mine.generateSeconds, mine.computeSeconds,
                                                    mine.communicationSeconds, mine.waitSeconds,
                                                    double(mine.peakRssBytes)};
    int rank = 0;
    int size = 1;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    std::vector<std::int64_t> allInts(rank == 0 ? std::size_t(size) * kIntFields : 0);
    std::vector<double> allReals(rank == 0 ? std::size_t(size) * (kTimeFields + 1) : 0);
    MPI_Gather(ints.data(), kIntFields, MPI_INT64_T, allInts.data(), kIntFields, MPI_INT64_T, 0,
               world);
    MPI_Gather(reals.data(), kTimeFields + 1, MPI_DOUBLE, allReals.data(), kTimeFields + 1,
               MPI_DOUBLE, 0, world);

    std::vector<RankStats> all;
    for (std::size_t r = 0; r < allInts.size() / kIntFields; ++r) {
        const std::int64_t* i = allInts.data() + r * kIntFields;
        const double* f = allReals.data() + r * (kTimeFields + 1);
        all.push_back({int(i[0]), i[1], i[2], i[3], i[4], i[5], i[6], std::int64_t(f[4]), f[0],
                       f[1], f[2], f[3], std::nullopt, std::nullopt});
    }
    if (mine.backward) {
        const std::vector<RankBackwardStats> backward = gatherBackwardStats(*mine.backward, world);
        for (std::size_t r = 0; r < backward.size(); ++r)
            all[r].backward = backward[r];
    }
    if (mine.layout) {
        const std::vector<RankLayoutStats> layout = gatherLayoutStats(*mine.layout, world);
        for (std::size_t r = 0; r < layout.size(); ++r)
            all[r].layout = layout[r];
    }
    return all;
}

Json mpiJson(std::size_t worldSize, const CheckKind& check) {
    Json mpi = {{"world_size", worldSize},
                {"check", check.singleProcess ? "single-process" : "per-block"},
                {"check_note", check.note}};
    if (check.singleProcess) {
        mpi["bit_identical"] = check.bitIdentical;
        mpi["elements"] = check.elements;
    }
    return mpi;
}

std::string mpiText(std::size_t worldSize, const CheckKind& check) {
    std::ostringstream out;
    out << "\nMPI: " << worldSize << " ranks; checked "
        << (check.singleProcess ? "against the single-process reference on rank 0"
                                : "block by block on each rank")
        << ": " << check.note << '\n';
    if (check.singleProcess)
        out << "  output: " << check.bitIdentical << " of " << check.elements
            << " elements bit-identical to the single-process split\n";
    return out.str();
}

Json ranksJson(const std::vector<RankStats>& ranks, const CheckKind& check,
               const std::vector<BackwardCollective>& collectives,
               const std::vector<LayoutCollective>& program) {
    Json mpi = mpiJson(ranks.size(), check);
    Json all = Json::array();
    for (const RankStats& r : ranks) {
        Json rank = {{"rank", r.rank},
                     {"device", {r.d, r.m}},
                     {"kernel_bytes_held", r.kernelBytesHeld},
                     {"bias_bytes_held", r.biasBytesHeld},
                     {"x_bytes_held", r.xBytesHeld},
                     {"output_bytes_held", r.outputBytesHeld},
                     {"peak_rss_bytes", r.peakRssBytes},
                     {"generate_s", r.generateSeconds},
                     {"compute_s", r.computeSeconds},
                     {"wait_s", r.waitSeconds},
                     {"communication_s", r.communicationSeconds}};
        if (r.backward)
            rank["backward"] = backwardJson(*r.backward, collectives);
        if (r.layout)
            rank["layout"] = layoutJson(*r.layout, program);
        all.push_back(std::move(rank));
    }
    return {{"mpi", std::move(mpi)}, {"ranks", std::move(all)}};
}

std::string ranksText(const std::vector<RankStats>& ranks, const CheckKind& check,
                      const std::vector<BackwardCollective>& collectives,
                      const std::vector<LayoutCollective>& program) {
    std::ostringstream out;
    out << mpiText(ranks.size(), check);
    for (const RankStats& r : ranks)
        out << "  rank " << r.rank << " device (" << r.d << ", " << r.m << "): kernel held "
            << formatBytes(r.kernelBytesHeld) << ", x " << formatBytes(r.xBytesHeld) << ", output "
            << formatBytes(r.outputBytesHeld) << ", peak RSS " << formatBytes(r.peakRssBytes)
            << "; generate " << durationText(r.generateSeconds) << ", compute "
            << durationText(r.computeSeconds) << ", wait " << durationText(r.waitSeconds)
            << ", communication " << durationText(r.communicationSeconds) << '\n'
            << (r.backward ? backwardText(*r.backward, collectives) : "")
            << (r.layout ? layoutText(*r.layout, program) : "");
    return out.str();
}

}  // namespace tp::mpi
