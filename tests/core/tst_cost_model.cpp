// The cost model: a ring collective's steps * (alpha + chunk / beta), a product's roofline
// max(math, memory) + launch, their words, and the estimates of scenes on the presets.

#include "devices/backward_costs.h"
#include "devices/duration_text.h"
#include "devices/hardware.h"
#include "devices/mesh_costs.h"
#include "scene/costs_report.h"

#include <QTest>

using namespace tp;

Q_DECLARE_METATYPE(tp::LayerConfig)
Q_DECLARE_METATYPE(tp::CollectiveKind)

namespace {

// Round figures, so that every expected time below is worked out by hand.
HardwarePreset roundPreset() {
    return {"round", "round figures", {1e-6, 1e9}, 1e12, 1e11, 1e-5};
}

}  // namespace

class TestCostModel : public QObject {
    Q_OBJECT

private slots:
    void collective_data() {
        QTest::addColumn<CollectiveKind>("kind");
        QTest::addColumn<qint64>("devices");
        QTest::addColumn<qint64>("bytes");
        QTest::addColumn<qint64>("steps");
        QTest::addColumn<qint64>("chunk");
        QTest::addColumn<double>("latency");
        QTest::addColumn<double>("bandwidth");
        // V = 4000 bytes on 2 devices: all-reduce 2 steps of 2000 bytes.
        QTest::newRow("all-reduce 4000 B on 2")
            << CollectiveKind::AllReduce << qint64(2) << qint64(4000) << qint64(2) << qint64(2000)
            << 2e-6 << 4e-6;
        // 8 devices, 1 MiB: 7 steps of 128 KiB.
        QTest::newRow("all-gather 1 MiB on 8")
            << CollectiveKind::AllGather << qint64(8) << qint64(1 << 20) << qint64(7)
            << qint64(1 << 17) << 7e-6 << 7 * 131072 / 1e9;
        QTest::newRow("reduce-scatter 64 B on 4")
            << CollectiveKind::ReduceScatter << qint64(4) << qint64(64) << qint64(3) << qint64(16)
            << 3e-6 << 48 / 1e9;
        QTest::newRow("all-reduce on 1 device")
            << CollectiveKind::AllReduce << qint64(1) << qint64(4096) << qint64(0) << qint64(0)
            << 0.0 << 0.0;
    }

    void collective() {
        QFETCH(CollectiveKind, kind);
        QFETCH(qint64, devices);
        QFETCH(qint64, bytes);
        QFETCH(qint64, steps);
        QFETCH(qint64, chunk);
        QFETCH(double, latency);
        QFETCH(double, bandwidth);
        const CollectiveTime t = collectiveTime(ringCost(kind, devices, bytes), roundPreset());
        QCOMPARE(t.steps, steps);
        QCOMPARE(t.chunkBytes, chunk);
        QCOMPARE(t.latencySeconds, latency);
        QCOMPARE(t.bandwidthSeconds, bandwidth);
        QCOMPARE(t.seconds(), latency + bandwidth);
        QCOMPARE(t.latencyBound(), latency > bandwidth);
        if (steps > 0)
            QVERIFY(
                collectiveWords(t).find(t.latencyBound() ? "latency-bound" : "bandwidth-bound") !=
                std::string::npos);
        else
            QCOMPARE(collectiveWords(t), std::string("nothing sent"));
    }

    void product_data() {
        QTest::addColumn<qint64>("flops");
        QTest::addColumn<qint64>("bytes");
        QTest::addColumn<double>("seconds");
        QTest::addColumn<bool>("memoryBound");
        // Balance of the round preset: 1e12 / 1e11 = 10 FLOPs per byte.
        QTest::newRow("1 GFLOP over 1 MB")
            << qint64(1000000000) << qint64(1000000) << 1e-3 + 1e-5 << false;
        QTest::newRow("1 MFLOP over 10 MB")
            << qint64(1000000) << qint64(10000000) << 1e-4 + 1e-5 << true;
        QTest::newRow("at the balance")
            << qint64(1000000) << qint64(100000) << 1e-6 + 1e-5 << false;
        QTest::newRow("no product") << qint64(0) << qint64(0) << 0.0 << false;
    }

    void product() {
        QFETCH(qint64, flops);
        QFETCH(qint64, bytes);
        QFETCH(double, seconds);
        QFETCH(bool, memoryBound);
        const ProductTime t = productTime(flops, 0, bytes, roundPreset());
        QCOMPARE(t.seconds(), seconds);
        QCOMPARE(t.memoryBound(), memoryBound);
        QCOMPARE(t.machineBalance, 10.0);
        if (bytes > 0) {
            QCOMPARE(t.intensity(), double(flops) / double(bytes));
            QVERIFY(productWords(t).find(memoryBound ? ": memory-bound" : ": compute-bound") !=
                    std::string::npos);
        }
    }

    // A preset's rate for products summed in order stands for the math of those FLOPs only; without
    // one they run at achievable_flops.
    void inOrderProducts() {
        HardwarePreset preset = roundPreset();
        QCOMPARE(inOrderRate(preset), 1e12);
        const ProductTime oneRate = productTime(1000000000, 1000000000, 1000000, preset);
        QCOMPARE(oneRate.mathSeconds, 1e-3);
        QCOMPARE(oneRate.inOrderFlops, qint64(0));
        QVERIFY(productWords(oneRate).ends_with(": compute-bound"));
        preset.inOrderFlops = 5e11;
        QCOMPARE(inOrderRate(preset), 5e11);
        const ProductTime all = productTime(1000000000, 1000000000, 1000000, preset);
        QCOMPARE(all.mathSeconds, 2e-3);
        QCOMPARE(all.seconds(), 2e-3 + 1e-5);
        QCOMPARE(all.machineBalance, 5.0);  // 5e11 FLOP/s over 1e11 bytes/s
        QVERIFY(productWords(all).ends_with(
            "compute-bound, at the rate of products of at most 8 rows, summed in order"));
        const ProductTime half = productTime(1000000000, 500000000, 1000000, preset);
        QCOMPARE(half.mathSeconds, 0.5e-3 + 1e-3);
        const ProductTime none = productTime(1000000000, 0, 1000000, preset);
        QCOMPARE(none.mathSeconds, 1e-3);
        QCOMPARE(none.machineBalance, 10.0);
        QVERIFY(productWords(none).ends_with(": compute-bound"));
        // Memory still bounds a product of few rows that streams a big kernel.
        QVERIFY(productTime(1000000, 1000000, 100000000, preset).memoryBound());
    }

    // A forward's product is summed in order up to kFewRows (8) rows of x per device, in both
    // modes; a backward's products have a factor transposed and never are.
    void inOrderFlopsOfThePasses_data() {
        QTest::addColumn<LayerConfig>("config");
        QTest::addColumn<bool>("inOrder");
        for (const ParallelMode mode : {ParallelMode::Column, ParallelMode::Row})
            for (const std::int64_t batch : {1, 8, 9, 64}) {
                const std::string name =
                    std::string(mode == ParallelMode::Column ? "column" : "row") + " batch " +
                    std::to_string(batch);
                QTest::newRow(name.c_str()) << LayerConfig{.batch = batch,
                                                           .inDim = 64,
                                                           .features = 128,
                                                           .tpSize = 2,
                                                           .mode = mode}
                                            << (batch <= 8);
            }
        // 16 rows over 2 data groups: 8 rows a device.
        QTest::newRow("batch 16 on 2 data groups")
            << LayerConfig{.batch = 16, .inDim = 64, .features = 128, .tpSize = 2, .dataSize = 2}
            << true;
    }

    void inOrderFlopsOfThePasses() {
        QFETCH(LayerConfig, config);
        QFETCH(bool, inOrder);
        const MeshCosts costs = meshCosts(config);
        QCOMPARE(costs.perDevice.inOrderFlops, inOrder ? costs.perDevice.flops : 0);
        HardwarePreset preset = roundPreset();
        preset.inOrderFlops = 5e11;
        const TimeEstimate forward = estimateTime(costs, preset);
        QCOMPARE(forward.product.inOrderFlops, costs.perDevice.inOrderFlops);
        QCOMPARE(forward.product.mathSeconds,
                 double(costs.perDevice.flops) / (inOrder ? 5e11 : 1e12));
        QCOMPARE(estimateBackwardTime(config, preset).product.inOrderFlops, qint64(0));
    }

    // (8, 4096, 16384) row tp 8, all-reduced: the product streams its 32 MiB kernel block to do
    // 134 MFLOP, and the all-reduce sends 14 chunks of 64 KiB.
    void rowAllReduceOnH100() {
        const LayerConfig config{
            .batch = 8, .inDim = 4096, .features = 16384, .tpSize = 8, .mode = ParallelMode::Row};
        const HardwarePreset* h100 = findHardware("h100-nvlink");
        QVERIFY(h100);
        const TimeEstimate e = estimateTime(meshCosts(config), *h100);
        QCOMPARE(e.product.flops, qint64(134217728));
        // kernel 512*16384*4 + x 8*512*4 + partial 8*16384*4.
        QCOMPARE(e.product.bytesMoved, qint64(33554432 + 16384 + 524288));
        QCOMPARE(e.product.memorySeconds, 34095104 / h100->memoryBytesPerSecond);
        QVERIFY(e.product.memoryBound());
        QCOMPARE(e.computeSeconds, e.product.memorySeconds + h100->launchSeconds);
        QCOMPARE(e.collective.steps, qint64(14));
        QCOMPARE(e.collective.chunkBytes, qint64(65536));
        QCOMPARE(e.collective.latencySeconds, 14 * h100->link.alphaSeconds);
        QCOMPARE(e.collective.bandwidthSeconds, 917504 / h100->link.busBytesPerSecond);
        QCOMPARE(e.totalSeconds, e.computeSeconds + e.communicationSeconds);
        QVERIFY(e.collective.latencyBound());
        QCOMPARE(boundWord(e), std::string_view("communication"));
        // Column mode sends nothing: the product's own bound, memory, bounds the estimate.
        LayerConfig column = config;
        column.mode = ParallelMode::Column;
        QCOMPARE(boundWord(estimateTime(meshCosts(column), *h100)), std::string_view("memory"));
    }

    // A preset with a knee and sums: an all-reduce of 64 MiB on 2 devices sends 2 chunks of 32 MiB,
    // each 1 MiB at beta and 31 MiB at beta_large, and sums one chunk at gamma; a reduce-scatter of
    // the same sums its one chunk; a gather sums nothing; below the knee beta alone.
    void kneeAndSums() {
        HardwarePreset kneed;
        kneed.link.alphaSeconds = 1e-6;
        kneed.link.busBytesPerSecond = 1e10;
        kneed.link.kneeBytes = double(1 << 20);
        kneed.link.largeBusBytesPerSecond = 1e9;
        kneed.link.reduceBytesPerSecond = 4e9;
        const double mib = 1 << 20;
        const CollectiveTime reduce =
            collectiveTime(ringCost(CollectiveKind::AllReduce, 2, 64 << 20), kneed);
        QCOMPARE(reduce.steps, qint64(2));
        QCOMPARE(reduce.latencySeconds, 2e-6);
        QCOMPARE(reduce.bandwidthSeconds, 2 * (mib / 1e10 + 31 * mib / 1e9));
        QCOMPARE(reduce.sumSeconds, 32 * mib / 4e9);
        QCOMPARE(reduce.seconds(), 2e-6 + 2 * (mib / 1e10 + 31 * mib / 1e9) + 32 * mib / 4e9);
        QVERIFY(collectiveWords(reduce).find(" + sums 8.39 ms, bandwidth-bound") !=
                std::string::npos);
        // Sums slower than the sending bound the collective.
        HardwarePreset slowSums = kneed;
        slowSums.link.reduceBytesPerSecond = 1e8;
        const CollectiveTime summing =
            collectiveTime(ringCost(CollectiveKind::ReduceScatter, 2, 1 << 20), slowSums);
        QCOMPARE(summing.bound(), std::string_view("sums"));
        QVERIFY(!summing.latencyBound());
        QVERIFY(collectiveWords(summing).find("bound by the sums") != std::string::npos);
        const CollectiveTime scatter =
            collectiveTime(ringCost(CollectiveKind::ReduceScatter, 2, 64 << 20), kneed);
        QCOMPARE(scatter.sumSeconds, 32 * mib / 4e9);
        const CollectiveTime gather =
            collectiveTime(ringCost(CollectiveKind::AllGather, 4, 64 << 20), kneed);
        QCOMPARE(gather.steps, qint64(3));
        QCOMPARE(gather.sumSeconds, 0.0);
        QCOMPARE(gather.bandwidthSeconds, 3 * (mib / 1e10 + 15 * mib / 1e9));
        const CollectiveTime small =
            collectiveTime(ringCost(CollectiveKind::AllGather, 2, 1 << 20), kneed);
        QCOMPARE(small.bandwidthSeconds, 0.5 * mib / 1e10);
        // Without gamma the sums are in beta; without a knee one bandwidth.
        kneed.link.reduceBytesPerSecond = 0;
        kneed.link.kneeBytes = 0;
        const CollectiveTime plain =
            collectiveTime(ringCost(CollectiveKind::AllReduce, 2, 64 << 20), kneed);
        QCOMPARE(plain.sumSeconds, 0.0);
        QCOMPARE(plain.bandwidthSeconds, 64 * mib / 1e10);
        QVERIFY(collectiveWords(plain).find("sums") == std::string::npos);
    }

    // An eager limit of 4 KiB a step: a 4 KiB all-reduce on 2 devices sends 2 steps of 2 KiB
    // eagerly, at beta_eager and alpha alone; an 8 KiB one 2 steps of 4 KiB, still eagerly; a
    // 64 KiB one by rendezvous, each step paying the handshake and going at beta.
    void eagerLimit() {
        HardwarePreset link;
        link.link = LinkFigures(1e-6, 1e10, 0, 0, 0, 4096, 1e9, 5e-6);
        const CollectiveTime small =
            collectiveTime(ringCost(CollectiveKind::AllReduce, 2, 4096), link);
        QCOMPARE(small.protocol, std::string_view("eagerly"));
        QCOMPARE(small.latencySeconds, 2e-6);
        QCOMPARE(small.bandwidthSeconds, 2 * 2048 / 1e9);
        QCOMPARE(collectiveTime(ringCost(CollectiveKind::AllReduce, 2, 8192), link).protocol,
                 std::string_view("eagerly"));
        const CollectiveTime large =
            collectiveTime(ringCost(CollectiveKind::AllReduce, 2, 65536), link);
        QCOMPARE(large.protocol, std::string_view("by rendezvous"));
        QCOMPARE(large.latencySeconds, 2 * 6e-6);
        QCOMPARE(large.bandwidthSeconds, 2 * 32768 / 1e10);
        QCOMPARE(collectiveWords(small).substr(0, 27), std::string("2 steps of 2.0 KiB, eagerly"));
        QVERIFY(collectiveWords(large).find("by rendezvous: latency 12.0 µs") != std::string::npos);
        // A pass of both names neither; a link without a limit names none.
        const CollectiveCost both[] = {ringCost(CollectiveKind::AllReduce, 2, 4096),
                                       ringCost(CollectiveKind::AllReduce, 2, 65536)};
        QVERIFY(estimatePassTime(0, 0, 0, both, link).collective.protocol.empty());
        QCOMPARE(estimatePassTime(0, 0, 0, std::span(both, 1), link).collective.protocol,
                 std::string_view("eagerly"));
        link.link.eagerBytes = 0;
        QVERIFY(
            collectiveTime(ringCost(CollectiveKind::AllReduce, 2, 4096), link).protocol.empty());
    }

    // A pass of several collectives: each in its own words, headed by their sum, whose steps are
    // of no one size (it once read "none: 9 steps of 64 bytes" for 384 + 48 bytes sent).
    void severalCollectivesEachInWords() {
        const CollectiveCost pass[] = {ringCost(CollectiveKind::AllReduce, 4, 256),
                                       ringCost(CollectiveKind::AllGather, 4, 64)};
        const TimeEstimate e = estimatePassTime(0, 0, 0, pass, roundPreset());
        QCOMPARE(e.collectives.size(), std::size_t(2));
        QCOMPARE(e.collective.steps, std::int64_t(9));
        const std::vector<std::string> lines = collectiveLines(e);
        QCOMPARE(lines.size(), std::size_t(3));
        QCOMPARE(lines[0].substr(0, 32), std::string("collectives: 9 steps: latency 9."));
        QCOMPARE(lines[1].substr(0, 32), std::string("all-reduce: 6 steps of 64 bytes:"));
        QCOMPARE(lines[2].substr(0, 31), std::string("all-gather: 3 steps of 16 bytes"));
        // One collective is its own line; none, no line.
        QCOMPARE(collectiveLines(estimatePassTime(0, 0, 0, std::span(pass, 1), roundPreset())),
                 std::vector<std::string>{lines[1]});
        QVERIFY(collectiveLines(estimatePassTime(0, 0, 0, {}, roundPreset())).empty());
    }

    // A kind's own link figures: its collectives run at them, the other kinds at the shared ones.
    void kindsOwnFigures() {
        HardwarePreset preset = roundPreset();
        preset.ownLinks[CollectiveKind::ReduceScatter] = {2e-6, 5e8};
        const CollectiveTime scatter =
            collectiveTime(ringCost(CollectiveKind::ReduceScatter, 2, 1 << 20), preset);
        QCOMPARE(scatter.latencySeconds, 2e-6);  // 1 step of 512 KiB at its own figures
        QCOMPARE(scatter.bandwidthSeconds, 524288 / 5e8);
        const CollectiveTime reduce =
            collectiveTime(ringCost(CollectiveKind::AllReduce, 2, 1 << 20), preset);
        QCOMPARE(reduce.latencySeconds, 2e-6);  // 2 steps of 512 KiB at the shared figures
        QCOMPARE(reduce.bandwidthSeconds, 2 * 524288 / 1e9);
        QVERIFY(&linkFor(preset, CollectiveKind::AllGather) == &preset.link);
        QVERIFY(&linkFor(preset, CollectiveKind::ReduceScatter) ==
                &preset.ownLinks.at(CollectiveKind::ReduceScatter));
    }

    // (1024, 1024, 4096) column tp 4 all-gathered: 170 FLOPs per byte, compute-bound on a GPU.
    void columnAllGather() {
        const LayerConfig config{.batch = 1024,
                                 .inDim = 1024,
                                 .features = 4096,
                                 .tpSize = 4,
                                 .mode = ParallelMode::Column,
                                 .output = OutputLayout::Replicated};
        const TimeEstimate e = estimateTime(meshCosts(config), *findHardware("h100-nvlink"));
        QCOMPARE(e.product.bytesMoved, qint64(4194304 + 4096 + 4194304 + 4194304));
        QVERIFY(!e.product.memoryBound());
        QVERIFY(e.collective.kind == CollectiveKind::AllGather);
        QCOMPARE(e.collective.steps, qint64(3));
        QCOMPARE(e.collective.chunkBytes, qint64(4194304));
        QVERIFY(!e.collective.latencyBound());
    }

    // Backward of (8, 4096, 16384) column tp 8: dx's all-reduce over "model", 14 steps of 16 KiB.
    void backwardColumn() {
        const LayerConfig config{.batch = 8,
                                 .inDim = 4096,
                                 .features = 16384,
                                 .tpSize = 8,
                                 .mode = ParallelMode::Column};
        const HardwarePreset round = roundPreset();
        const TimeEstimate e = estimateBackwardTime(config, round);
        QCOMPARE(e.collective.steps, qint64(14));
        QCOMPARE(e.collective.chunkBytes, qint64(8 * 4096 * 4 / 8));
        QCOMPARE(e.collective.latencySeconds, 14e-6);
        QCOMPARE(e.product.flops, backwardHoldings(config).flops);
        QVERIFY(e.product.bytesMoved > backwardHoldings(config).totalBytes());
    }

    void presets() {
        QVERIFY(hardwarePresets().size() >= 6);
        for (const HardwarePreset& preset : hardwarePresets()) {
            QCOMPARE(findHardware(preset.name), &preset);
            QVERIFY(preset.link.alphaSeconds > 0 && preset.link.busBytesPerSecond > 0);
            QVERIFY(preset.achievableFlops > 0 && preset.memoryBytesPerSecond > 0);
            QVERIFY(preset.launchSeconds >= 0);
        }
        for (const char* name :
             {"h100-nvlink", "h200-nvlink", "a100-pcie", "tpu-v4", "tpu-v5e", "this-machine"})
            QVERIFY2(findHardware(name), name);
        QCOMPARE(findHardware("h100"), nullptr);
        QCOMPARE(defaultHardware().name, std::string("h100-nvlink"));
    }

    // A tiny scene's times on the fastest preset still print in nanoseconds or more.
    void humanUnits() {
        const LayerConfig config{.batch = 1, .inDim = 2, .features = 4, .tpSize = 2};
        const TimeEstimate e = estimateTime(meshCosts(config), *findHardware("h200-nvlink"));
        for (const double t : {e.product.mathSeconds, e.product.memorySeconds, e.totalSeconds})
            QVERIFY(durationText(t).find("ps") == std::string::npos);
        QVERIFY(e.totalSeconds >= e.product.launchSeconds);
    }
};

QTEST_APPLESS_MAIN(TestCostModel)
#include "tst_cost_model.moc"
