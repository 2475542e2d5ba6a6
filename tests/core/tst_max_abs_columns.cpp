// The column step of a heatmap's MaxAbs downsampling, on every SIMD path this machine runs,
// checked bit for bit against a plain scan of each column, on bands full of ties, zeros of both
// signs, NaN and infinities, with widths that end inside a vector and span several tiles.

#include "layer/max_abs_columns.h"

#include <QTest>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace tp;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

std::uint32_t bitsOf(float v) {
    std::uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    return bits;
}

// rows x stride floats drawn from a few values, so that equal |values| of both signs, zeros, NaN
// (two payloads, so that which NaN wins shows) and infinities meet in most columns; `special` is
// the share of NaN and infinities.
std::vector<float> tiedBand(Index rows, Index stride, unsigned seed, double special) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const std::array<float, 8> finite{0.0f, -0.0f, 0.5f, -0.5f, 1.0f, -1.0f, 2.0f, -2.0f};
    const std::array<float, 4> nonFinite{kNan, -std::nanf("7"), kInf, -kInf};
    std::vector<float> data(std::size_t(rows * stride));
    for (float& v : data)
        v = unit(rng) < special ? nonFinite[rng() % nonFinite.size()]
                                : finite[rng() % finite.size()];
    return data;
}

// What maxAbsDownColumns must find, by a scan of each column from the top.
ColumnWinners scannedColumns(const FloatBand& band) {
    ColumnWinners expected;
    for (Index c = 0; c < band.cols; ++c) {
        float kept = 0.0f, largest = 0.0f;
        std::int32_t row = 0;
        for (Index r = 0; r < band.rows; ++r) {
            const float v = band.data[r * band.stride + c];
            if (std::isnan(v) || std::fabs(v) > std::fabs(kept)) {
                kept = v;
                row = std::int32_t(r);
            }
            if (std::isfinite(v))
                largest = std::max(largest, std::fabs(v));
        }
        expected.value.push_back(kept);
        expected.row.push_back(row);
        expected.finiteMax.push_back(largest);
    }
    return expected;
}

}  // namespace

class TestMaxAbsColumns : public QObject {
    Q_OBJECT

private slots:
    void everyPathGivesTheScannedBits_data() {
        QTest::addColumn<int>("path");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        QTest::addColumn<int>("stride");
        QTest::addColumn<double>("special");
        QTest::addColumn<bool>("trackFiniteMax");
        struct Shape {
            const char* name;
            int rows, cols, stride;
            double special;
        };
        const Shape shapes[] = {
            {"9 rows, 5000 columns (three tiles), strided", 9, 5000, 5003, 0.02},
            {"4 rows, 2048 columns (one tile)", 4, 2048, 2048, 0.01},
            {"3 rows, 16390 columns (nine tiles), strided", 3, 16390, 16401, 0.01},
            {"13 rows, 37 columns (ends inside a vector)", 13, 37, 40, 0.1},
            {"one row, 15 columns", 1, 15, 15, 0.2},
            {"5 rows, all NaN and infinities", 5, 131, 131, 1.0},
            {"6 rows, no special value", 6, 4099, 4099, 0.0},
            {"no rows: +0s", 0, 21, 21, 0.0},
        };
        for (const SimdPath path : availableSimdPaths()) {
            for (const Shape& shape : shapes) {
                for (const bool track : {false, true})
                    QTest::newRow(qPrintable(
                        QStringLiteral("%1, %2%3")
                            .arg(simdPathName(path), shape.name, track ? ", finite max" : "")))
                        << int(path) << shape.rows << shape.cols << shape.stride << shape.special
                        << track;
            }
        }
    }

    void everyPathGivesTheScannedBits() {
        QFETCH(int, path);
        QFETCH(int, rows);
        QFETCH(int, cols);
        QFETCH(int, stride);
        QFETCH(double, special);
        QFETCH(bool, trackFiniteMax);
        // The path asked for is the path run: only paths this process runs are listed.
        QCOMPARE(resolveSimdPath(SimdPath(path)), SimdPath(path));
        const std::vector<float> data =
            tiedBand(rows, stride, unsigned(rows * 977 + cols), special);
        const FloatBand band{data.data(), rows, cols, stride};
        const ColumnWinners expected = scannedColumns(band);

        ColumnWinners winners;
        // Stale winners of a wider band first: every call starts afresh.
        const std::vector<float> stale = tiedBand(3, stride + 64, 1, 0.5);
        maxAbsDownColumns({stale.data(), 3, stride + 64, stride + 64}, true, winners,
                          SimdPath(path));
        maxAbsDownColumns(band, trackFiniteMax, winners, SimdPath(path));

        QCOMPARE(winners.value.size(), std::size_t(cols));
        QCOMPARE(winners.row.size(), std::size_t(cols));
        QCOMPARE(winners.finiteMax.size(), trackFiniteMax ? std::size_t(cols) : std::size_t(0));
        for (Index c = 0; c < cols; ++c) {
            const auto i = std::size_t(c);
            QVERIFY2(bitsOf(winners.value[i]) == bitsOf(expected.value[i]) &&
                         winners.row[i] == expected.row[i],
                     qPrintable(QStringLiteral("column %1: %2 at row %3, the scan keeps %4 at %5")
                                    .arg(c)
                                    .arg(double(winners.value[i]))
                                    .arg(winners.row[i])
                                    .arg(double(expected.value[i]))
                                    .arg(expected.row[i])));
            if (trackFiniteMax)
                QCOMPARE(bitsOf(winners.finiteMax[i]), bitsOf(expected.finiteMax[i]));
        }
    }

    // A column of zeros of both signs keeps +0 at row 0; a later NaN replaces an earlier one and
    // an infinity; a tie keeps the earlier row.
    void rulesOnOneColumnPerCase() {
        // Rows down, one column per case: zeros; NaN then inf then NaN; -2 then 2; 1 then -inf.
        const float nan2 = -std::nanf("3");
        const std::vector<float> data{-0.0f, kNan, -2.0f, 1.0f,  //
                                      0.0f,  kInf, 2.0f,  -kInf, -0.0f, nan2, -2.0f, 0.5f};
        for (const SimdPath path : availableSimdPaths()) {
            ColumnWinners winners;
            maxAbsDownColumns({data.data(), 3, 4, 4}, true, winners, path);
            QCOMPARE(bitsOf(winners.value[0]), bitsOf(0.0f));
            QCOMPARE(winners.row[0], 0);
            QCOMPARE(bitsOf(winners.value[1]), bitsOf(nan2));
            QCOMPARE(winners.row[1], 2);
            QCOMPARE(winners.finiteMax[1], 0.0f);
            QCOMPARE(winners.value[2], -2.0f);
            QCOMPARE(winners.row[2], 0);
            QCOMPARE(winners.value[3], -kInf);
            QCOMPARE(winners.row[3], 1);
            QCOMPARE(winners.finiteMax[3], 1.0f);
        }
    }
};

QTEST_MAIN(TestMaxAbsColumns)
#include "tst_max_abs_columns.moc"
