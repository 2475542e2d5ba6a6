#include "mlp/mlp_rank_report.h"

#include "devices/duration_text.h"

#include <sstream>

namespace tp::mpi {
namespace {

// A rank's figures as two flat arrays, the same length on every rank, for one MPI_Gather each.
struct Fields {
    std::vector<std::int64_t> ints;
    std::vector<double> reals;
};

Fields fieldsOf(const MlpRankStats& s) {
    Fields f;
    f.ints = {s.rank,
              s.hidden.start,
              s.hidden.stop,
              s.kernel1BytesHeld,
              s.bias1BytesHeld,
              s.kernel2BytesHeld,
              s.bias2BytesHeld,
              s.xBytesHeld,
              s.hiddenBytesHeld,
              s.partialBytesHeld,
              s.outputBytesHeld,
              s.peakRssBytes};
    f.reals = {s.generateSeconds, s.computeSeconds, s.communicationSeconds};
    if (const auto& b = s.backward) {
        f.ints.insert(f.ints.end(), {b->dyBytesHeld, b->daBytesHeld, b->dhBytesHeld,
                                     b->dkernel1BytesHeld, b->dbias1BytesHeld, b->dkernel2BytesHeld,
                                     b->dbias2BytesHeld, b->dxBytesHeld});
        f.reals.insert(f.reals.end(),
                       {b->generateSeconds, b->computeSeconds, b->communicationSeconds});
    }
    return f;
}

// The inverse of fieldsOf for one rank's figures.
MlpRankStats statsOf(const std::int64_t* i, const double* r, bool backward) {
    MlpRankStats s;
    s.rank = int(i[0]);
    s.hidden = {i[1], i[2]};
    s.kernel1BytesHeld = i[3];
    s.bias1BytesHeld = i[4];
    s.kernel2BytesHeld = i[5];
    s.bias2BytesHeld = i[6];
    s.xBytesHeld = i[7];
    s.hiddenBytesHeld = i[8];
    s.partialBytesHeld = i[9];
    s.outputBytesHeld = i[10];
    s.peakRssBytes = i[11];
    s.generateSeconds = r[0];
    s.computeSeconds = r[1];
    s.communicationSeconds = r[2];
    if (backward)
        s.backward = MlpRankBackwardStats{i[12], i[13], i[14], i[15], i[16], i[17],
                                          i[18], i[19], r[3],  r[4],  r[5]};
    return s;
}

Json backwardJson(const MlpRankBackwardStats& b) {
    return {{"dy_bytes_held", b.dyBytesHeld},
            {"da_bytes_held", b.daBytesHeld},
            {"dh_bytes_held", b.dhBytesHeld},
            {"dkernel1_bytes_held", b.dkernel1BytesHeld},
            {"dbias1_bytes_held", b.dbias1BytesHeld},
            {"dkernel2_bytes_held", b.dkernel2BytesHeld},
            {"dbias2_bytes_held", b.dbias2BytesHeld},
            {"dx_bytes_held", b.dxBytesHeld},
            {"generate_s", b.generateSeconds},
            {"compute_s", b.computeSeconds},
            {"collectives", Json::array({{{"name", "all-reduce"},
                                          {"axis", "model"},
                                          {"of", "dx"},
                                          {"communication_s", b.communicationSeconds}}})}};
}

}  // namespace

std::vector<MlpRankStats> gatherMlpStats(const MlpRankStats& mine, MPI_Comm world) {
    const Fields f = fieldsOf(mine);
    const int ints = int(f.ints.size());
    const int reals = int(f.reals.size());
    int rank = 0;
    int size = 1;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    std::vector<std::int64_t> allInts(rank == 0 ? std::size_t(size * ints) : 0);
    std::vector<double> allReals(rank == 0 ? std::size_t(size * reals) : 0);
    MPI_Gather(f.ints.data(), ints, MPI_INT64_T, allInts.data(), ints, MPI_INT64_T, 0, world);
    MPI_Gather(f.reals.data(), reals, MPI_DOUBLE, allReals.data(), reals, MPI_DOUBLE, 0, world);
    std::vector<MlpRankStats> all;
    for (std::size_t r = 0; rank == 0 && r < std::size_t(size); ++r)
        all.push_back(statsOf(allInts.data() + r * std::size_t(ints),
                              allReals.data() + r * std::size_t(reals), mine.backward.has_value()));
    return all;
}

Json mlpRanksJson(const std::vector<MlpRankStats>& ranks, const CheckKind& check) {
    Json all = Json::array();
    for (const MlpRankStats& r : ranks) {
        Json rank = {{"rank", r.rank},
                     {"device", {0, r.rank}},
                     {"hidden", {r.hidden.start, r.hidden.stop}},
                     {"kernel1_bytes_held", r.kernel1BytesHeld},
                     {"bias1_bytes_held", r.bias1BytesHeld},
                     {"kernel2_bytes_held", r.kernel2BytesHeld},
                     {"bias2_bytes_held", r.bias2BytesHeld},
                     {"x_bytes_held", r.xBytesHeld},
                     {"hidden_bytes_held", r.hiddenBytesHeld},
                     {"partial_bytes_held", r.partialBytesHeld},
                     {"output_bytes_held", r.outputBytesHeld},
                     {"peak_rss_bytes", r.peakRssBytes},
                     {"generate_s", r.generateSeconds},
                     {"compute_s", r.computeSeconds},
                     {"communication_s", r.communicationSeconds}};
        if (r.backward)
            rank["backward"] = backwardJson(*r.backward);
        all.push_back(std::move(rank));
    }
    return {{"mpi", mpiJson(ranks.size(), check)}, {"ranks", std::move(all)}};
}

std::string mlpRanksText(const std::vector<MlpRankStats>& ranks, const CheckKind& check) {
    std::ostringstream out;
    out << mpiText(ranks.size(), check);
    for (const MlpRankStats& r : ranks) {
        out << "  rank " << r.rank << " device (0, " << r.rank << "), hidden " << r.hidden.start
            << ":" << r.hidden.stop << ": kernel1 held " << formatBytes(r.kernel1BytesHeld)
            << ", kernel2 " << formatBytes(r.kernel2BytesHeld) << ", x "
            << formatBytes(r.xBytesHeld) << ", h and a " << formatBytes(r.hiddenBytesHeld)
            << ", partial " << formatBytes(r.partialBytesHeld) << ", output "
            << formatBytes(r.outputBytesHeld) << ", peak RSS " << formatBytes(r.peakRssBytes)
            << "; generate " << durationText(r.generateSeconds) << ", compute "
            << durationText(r.computeSeconds) << ", all-reduce of the partial sums "
            << durationText(r.communicationSeconds) << '\n';
        if (const auto& b = r.backward)
            out << "    backward: dy held " << formatBytes(b->dyBytesHeld) << ", da and dh "
                << formatBytes(b->daBytesHeld + b->dhBytesHeld) << ", dkernel1 "
                << formatBytes(b->dkernel1BytesHeld) << ", dkernel2 "
                << formatBytes(b->dkernel2BytesHeld) << ", dx " << formatBytes(b->dxBytesHeld)
                << "; generate dy " << durationText(b->generateSeconds) << ", compute "
                << durationText(b->computeSeconds) << ", all-reduce of dx "
                << durationText(b->communicationSeconds) << '\n';
    }
    return out.str();
}

}  // namespace tp::mpi
