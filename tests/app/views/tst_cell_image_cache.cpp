// CellImageCache: small renders at once, large ones on a worker, stale ones stopped and dropped.

#include "cell_image_cache.h"

#include <QSignalSpy>
#include <QTest>

#include <memory>

using namespace tp;

namespace {

// A request for all of `m` at `size` device pixels, in generation `generation`.
CellImageRequest wholeMatrix(const std::shared_ptr<Matrix>& m, QSize size, quint64 generation) {
    CellImageRequest request;
    request.block = MatrixData::of(m, *m);
    request.key.generation = generation;
    request.key.rows = {0, m->rows()};
    request.key.cols = {0, m->cols()};
    request.key.deviceSize = size;
    request.style.groups = {{0, m->cols()}};
    return request;
}

}  // namespace

class TestCellImageCache : public QObject {
    Q_OBJECT

private slots:
    void smallRenderHappensAtOnce();
    void largeRenderRunsOnAWorker();
    void newerRequestStopsAndDropsTheStaleRender();
    void returningToTheShownImageStopsTheWorker();
};

void TestCellImageCache::smallRenderHappensAtOnce() {
    const auto m = std::make_shared<Matrix>(Matrix::Random(8, 12));
    CellImageCache cache;
    cache.request(wholeMatrix(m, QSize(120, 80), 1));
    QCOMPARE(cache.renderCount(), 1);
    QVERIFY(!cache.isRendering());
    QCOMPARE(cache.image().size(), QSize(120, 80));
    QCOMPARE(cache.key(), wholeMatrix(m, QSize(120, 80), 1).key);
    cache.request(wholeMatrix(m, QSize(120, 80), 1));  // the image it has: no render
    QCOMPARE(cache.renderCount(), 1);
    cache.request(wholeMatrix(m, QSize(60, 40), 1));
    QCOMPARE(cache.renderCount(), 2);
}

void TestCellImageCache::largeRenderRunsOnAWorker() {
    const auto m = std::make_shared<Matrix>(Matrix::Random(1024, 2048));
    CellImageCache cache;
    QSignalSpy ready(&cache, &CellImageCache::imageReady);
    cache.request(wholeMatrix(m, QSize(800, 400), 1));
    // Had it rendered inside request(), the count would have grown already.
    QVERIFY(cache.isRendering());
    QCOMPARE(cache.renderCount(), 0);
    QVERIFY(cache.image().isNull());
    QTRY_COMPARE(ready.count(), 1);
    QVERIFY(!cache.isRendering());
    QCOMPARE(cache.renderCount(), 1);
    QCOMPARE(cache.image().size(), QSize(800, 400));
}

void TestCellImageCache::newerRequestStopsAndDropsTheStaleRender() {
    const auto m = std::make_shared<Matrix>(Matrix::Random(1024, 2048));
    CellImageCache cache;
    QSignalSpy ready(&cache, &CellImageCache::imageReady);
    cache.request(wholeMatrix(m, QSize(800, 400), 1));
    // The worker cannot report before the event loop runs: whatever it returns is stale now.
    cache.request(wholeMatrix(m, QSize(600, 300), 2));
    QCOMPARE(cache.stoppedCount(), 1);
    QVERIFY(cache.isRendering());
    QTRY_VERIFY(!cache.isRendering());
    QCOMPARE(ready.count(), 1);
    QCOMPARE(cache.renderCount(), 1);  // the stale image never became image()
    QCOMPARE(cache.key().generation, quint64(2));
    QCOMPARE(cache.image().size(), QSize(600, 300));
}

void TestCellImageCache::returningToTheShownImageStopsTheWorker() {
    const auto m = std::make_shared<Matrix>(Matrix::Random(1024, 2048));
    CellImageCache cache;
    cache.request(wholeMatrix(m, QSize(800, 400), 1));
    QTRY_VERIFY(!cache.isRendering());
    cache.request(wholeMatrix(m, QSize(600, 300), 2));
    cache.request(wholeMatrix(m, QSize(800, 400), 1));  // back before the worker reported
    QCOMPARE(cache.stoppedCount(), 1);
    QTRY_VERIFY(!cache.isRendering());
    QCOMPARE(cache.renderCount(), 1);
    QCOMPARE(cache.key().generation, quint64(1));
}

QTEST_MAIN(TestCellImageCache)
#include "tst_cell_image_cache.moc"
