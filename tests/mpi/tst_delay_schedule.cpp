// The schedule of tpviz-delay-line's each way: frames spaced by the rate, a frame that arrives
// while another is sent waits for its last bit, the delay after the last bit, and the queue's
// bound that drops a frame, as netem's rate and tbf's latency do. Also the rates and times of tc.

#include "delay_schedule.h"

#include <QTest>

using tp::test::FrameArrival;
using tp::test::FrameFate;
using tp::test::LinkShape;

namespace {

// 1 Gbit/s each way, 100 us one way, at most 10 ms in the queue: two_hosts.sh's link.
const LinkShape kGigabit{
    .bitsPerSecond = 1'000'000'000, .delayNs = 100'000, .queueLimitNs = 10'000'000};

}  // namespace

class TestDelaySchedule : public QObject {
    Q_OBJECT

private slots:
    void transmission_data() {
        QTest::addColumn<qint64>("bytes");
        QTest::addColumn<qint64>("bitsPerSecond");
        QTest::addColumn<qint64>("ns");
        QTest::newRow("1500 bytes at 1 Gbit/s")
            << qint64{1500} << qint64{1'000'000'000} << qint64{12'000};
        QTest::newRow("9014 bytes at 1 Gbit/s")
            << qint64{9014} << qint64{1'000'000'000} << qint64{72'112};
        QTest::newRow("1500 bytes at 100 Mbit/s")
            << qint64{1500} << qint64{100'000'000} << qint64{120'000};
        QTest::newRow("1 byte at 3 bit/s, rounded up")
            << qint64{1} << qint64{3} << qint64{2'666'666'667};
        QTest::newRow("nothing") << qint64{0} << qint64{1'000'000'000} << qint64{0};
    }

    void transmission() {
        QFETCH(qint64, bytes);
        QFETCH(qint64, bitsPerSecond);
        QFETCH(qint64, ns);
        QCOMPARE(tp::test::transmissionNs(bytes, bitsPerSecond), ns);
    }

    // Frames further apart than their sending leave when they arrive.
    void idleLinkSendsAtOnce() {
        const std::vector<FrameFate> fates = tp::test::scheduleFrames(
            kGigabit, {{1'000, 1500}, {50'000, 1500}, {50'000 + 12'000, 64}});
        QCOMPARE(fates.size(), std::size_t{3});
        QCOMPARE(fates[0].departureNs, 1'000);
        QCOMPARE(fates[1].departureNs, 50'000);
        // The third arrives as the second's last bit leaves: it waits for nothing.
        QCOMPARE(fates[2].departureNs, 62'000);
        QCOMPARE(fates[2].lastBitNs, 62'000 + 512);
    }

    // Frames read together leave one after another, each when the previous one's last bit has.
    void rateSpacesBackToBackFrames() {
        const std::vector<FrameFate> fates = tp::test::scheduleFrames(
            kGigabit, {{1'000, 1500}, {1'000, 1500}, {1'000, 9014}, {2'000, 100}});
        const qint64 expectedDepartures[] = {1'000, 13'000, 25'000, 25'000 + 72'112};
        for (int i = 0; i < 4; ++i) {
            QVERIFY(!fates[i].dropped);
            QCOMPARE(fates[i].departureNs, expectedDepartures[i]);
        }
        QCOMPARE(fates[3].lastBitNs, 25'000 + 72'112 + 800);
        QCOMPARE(fates[3].busyUntilNs, fates[3].lastBitNs);
    }

    // Every frame is delivered the delay after its last bit, so the order is kept.
    void deliveryIsTheDelayAfterTheLastBit_data() {
        QTest::addColumn<qint64>("delayNs");
        QTest::newRow("100 us") << qint64{100'000};
        QTest::newRow("none") << qint64{0};
        QTest::newRow("5 ms") << qint64{5'000'000};
    }

    void deliveryIsTheDelayAfterTheLastBit() {
        QFETCH(qint64, delayNs);
        LinkShape shape = kGigabit;
        shape.delayNs = delayNs;
        const std::vector<FrameFate> fates = tp::test::scheduleFrames(
            shape, {{0, 9014}, {10, 60}, {200'000, 1500}, {200'001, 1500}});
        for (const FrameFate& fate : fates)
            QCOMPARE(fate.deliveryNs, fate.lastBitNs + delayNs);
        QCOMPARE(fates[0].deliveryNs, 72'112 + delayNs);
        QCOMPARE(fates[3].deliveryNs, 200'000 + 24'000 + delayNs);
    }

    // A frame that would wait more than the bound is dropped and takes no time of the link; one
    // read after the queue drained is sent again.
    void queueBoundDropsFrames() {
        std::vector<FrameArrival> burst(200, FrameArrival{0, 9014});
        // 138 frames ahead wait 138 * 72'112 = 9'951'456 ns, 139 wait 10'023'568 ns: past 10 ms.
        burst.push_back({10'023'568, 9014});
        const std::vector<FrameFate> fates = tp::test::scheduleFrames(kGigabit, burst);
        int kept = 0;
        for (int i = 0; i < 200; ++i)
            kept += fates[i].dropped ? 0 : 1;
        QCOMPARE(kept, 139);
        QVERIFY(!fates[138].dropped);
        QVERIFY(fates[139].dropped);
        QCOMPARE(fates[199].busyUntilNs, 139 * 72'112);
        QVERIFY(!fates[200].dropped);
        QCOMPARE(fates[200].departureNs, 10'023'568);
    }

    void rates_data() {
        QTest::addColumn<QString>("words");
        QTest::addColumn<qint64>("bitsPerSecond");  // 0: refused
        QTest::newRow("1gbit") << "1gbit" << qint64{1'000'000'000};
        QTest::newRow("2.5mbit") << "2.5mbit" << qint64{2'500'000};
        QTest::newRow("100kbit") << "100kbit" << qint64{100'000};
        QTest::newRow("8bit") << "8bit" << qint64{8};
        QTest::newRow("no unit") << "1000" << qint64{0};
        QTest::newRow("bytes") << "1gbps" << qint64{0};
        QTest::newRow("zero") << "0gbit" << qint64{0};
        QTest::newRow("negative") << "-1gbit" << qint64{0};
        QTest::newRow("no number") << "gbit" << qint64{0};
    }

    void rates() {
        QFETCH(QString, words);
        QFETCH(qint64, bitsPerSecond);
        const auto rate = tp::test::parseRate(words.toStdString());
        QCOMPARE(rate.value_or(0), bitsPerSecond);
    }

    void times_data() {
        QTest::addColumn<QString>("words");
        QTest::addColumn<qint64>("ns");  // -1: refused
        QTest::newRow("100us") << "100us" << qint64{100'000};
        QTest::newRow("10ms") << "10ms" << qint64{10'000'000};
        QTest::newRow("1.5s") << "1.5s" << qint64{1'500'000'000};
        QTest::newRow("250ns") << "250ns" << qint64{250};
        QTest::newRow("0us") << "0us" << qint64{0};
        QTest::newRow("no unit") << "100" << qint64{-1};
        QTest::newRow("minutes") << "1min" << qint64{-1};
        QTest::newRow("negative") << "-1ms" << qint64{-1};
    }

    void times() {
        QFETCH(QString, words);
        QFETCH(qint64, ns);
        const auto time = tp::test::parseTime(words.toStdString());
        QCOMPARE(time.value_or(-1), ns);
    }
};

QTEST_GUILESS_MAIN(TestDelaySchedule)
#include "tst_delay_schedule.moc"
