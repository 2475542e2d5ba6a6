#include "rank_agreement.h"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <utility>

namespace tp::mpi {
namespace {

// Each rank's texts gathered to rank 0 (empty elsewhere), sent as NUL-ended strings.
std::vector<std::vector<std::string>> gatherTexts(const std::vector<std::string>& texts,
                                                  MPI_Comm world) {
    int rank = 0;
    int size = 1;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    std::string packed;
    for (const std::string& text : texts)
        packed.append(text).push_back('\0');
    int length = int(packed.size());
    std::vector<int> lengths(rank == 0 ? size : 0);
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, world);
    std::vector<int> offsets(lengths.size());
    std::int64_t total = 0;
    for (std::size_t r = 0; r < lengths.size(); ++r) {
        offsets[r] = int(total);
        total += lengths[r];
    }
    std::string all(std::size_t(total), '\0');
    MPI_Gatherv(packed.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(),
                MPI_CHAR, 0, world);
    std::vector<std::vector<std::string>> byRank(lengths.size());
    for (std::size_t r = 0; r < lengths.size(); ++r) {
        const std::string_view part(all.data() + offsets[r], std::size_t(lengths[r]));
        for (std::size_t start = 0; start < part.size();) {
            const std::size_t end = part.find('\0', start);
            byRank[r].emplace_back(part.substr(start, end - start));
            start = end + 1;
        }
    }
    return byRank;
}

// "rank 3" or "ranks 1, 2, 5".
std::string rankList(const std::vector<int>& ranks) {
    std::string text = ranks.size() == 1 ? "rank " : "ranks ";
    for (std::size_t i = 0; i < ranks.size(); ++i)
        text += (i ? ", " : "") + std::to_string(ranks[i]);
    return text;
}

// Each distinct text once, in the order the ranks give them, with the ranks that have it.
std::vector<std::pair<std::string, std::vector<int>>> byText(
    const std::vector<std::vector<std::string>>& byRank) {
    std::vector<std::pair<std::string, std::vector<int>>> texts;
    for (std::size_t r = 0; r < byRank.size(); ++r)
        for (const std::string& text : byRank[r]) {
            auto it = std::find_if(texts.begin(), texts.end(),
                                   [&](const auto& entry) { return entry.first == text; });
            if (it == texts.end())
                it = texts.insert(texts.end(), {text, {}});
            if (it->second.empty() || it->second.back() != int(r))
                it->second.push_back(int(r));
        }
    return texts;
}

std::string joined(const std::vector<std::string>& words) {
    std::string text;
    for (const std::string& word : words)
        text += (text.empty() ? "" : " ") + word;
    return text;
}

}  // namespace

std::uint64_t wordsHash(const std::vector<std::string>& words) {
    std::uint64_t hash = 14695981039346656037ull;
    for (const std::string& word : words)
        for (const char c : word + '\0') {
            hash ^= std::uint8_t(c);
            hash *= 1099511628211ull;
        }
    return hash;
}

RunAgreement agreeOnRun(const std::vector<std::string>& problems,
                        const std::vector<std::string>& sceneWords, MPI_Comm world) {
    int size = 1;
    MPI_Comm_size(world, &size);
    RunAgreement agreement;
    int ok = problems.empty() ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, world);
    if (!ok) {
        for (const auto& [problem, ranks] : byText(gatherTexts(problems, world)))
            agreement.messages.push_back(
                int(ranks.size()) == size ? problem : rankList(ranks) + ": " + problem);
        return agreement;
    }

    std::uint64_t hashes[2] = {wordsHash(sceneWords), 0};
    hashes[1] = ~hashes[0];  // the largest hash, as the smallest of the complements
    MPI_Allreduce(MPI_IN_PLACE, hashes, 2, MPI_UINT64_T, MPI_MIN, world);
    if (hashes[0] == ~hashes[1]) {
        agreement.agreed = true;
        return agreement;
    }
    std::string message =
        "the ranks were started with different scenes, and every rank must compute the same one "
        "(start them with the same options and scene file):";
    const std::vector<std::vector<std::string>> byRank = gatherTexts({joined(sceneWords)}, world);
    for (const auto& [words, ranks] : byText(byRank))
        message += " " + rankList(ranks) + ": " + words + ";";
    if (!byRank.empty()) {
        message.pop_back();
        agreement.messages.push_back(message);
    }
    return agreement;
}

}  // namespace tp::mpi
