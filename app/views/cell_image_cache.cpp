#include "cell_image_cache.h"

#include <QtConcurrent/QtConcurrentRun>

namespace tp {

CellImageCache::CellImageCache(QObject* parent) : QObject(parent) {
    connect(&m_watcher, &QFutureWatcher<Rendered>::finished, this, &CellImageCache::onFinished);
}

CellImageCache::~CellImageCache() {
    // The worker holds its own MatrixData (and so the owner); stopping and waiting only avoids
    // computing for nobody.
    if (m_stop)
        *m_stop = true;
    m_watcher.waitForFinished();
}

void CellImageCache::request(CellImageRequest request) {
    const CellImageKey& key = request.key;
    if (key.deviceSize.isEmpty() || request.block.isEmpty())
        return;
    if (m_running) {
        if (key == *m_running && !*m_stop) {  // already rendering it
            m_next.reset();
            return;
        }
        if (!*m_stop)
            ++m_stoppedCount;
        *m_stop = true;
        if (key == m_key)  // back to the image already shown
            m_next.reset();
        else
            m_next = std::move(request);
        return;
    }
    if (key == m_key)
        return;
    const double work = double(request.block.rows()) * double(request.block.cols()) +
                        double(key.deviceSize.width()) * double(key.deviceSize.height());
    if (work <= kSyncRenderLimit) {
        m_image = renderBlock(request.block, request.style, key.deviceSize, request.decoration);
        m_key = key;
        ++m_renderCount;
        return;
    }
    start(std::move(request));
}

void CellImageCache::start(CellImageRequest request) {
    m_running = request.key;
    m_stop = std::make_shared<std::atomic_bool>(false);
    m_watcher.setFuture(QtConcurrent::run([request = std::move(request), stop = m_stop] {
        return Rendered{renderBlock(request.block, request.style, request.key.deviceSize,
                                    request.decoration, stop.get()),
                        request.key};
    }));
}

void CellImageCache::onFinished() {
    Rendered rendered = m_watcher.result();
    const int before = m_renderCount;
    m_running.reset();
    if (!*m_stop && !rendered.image.isNull()) {
        m_image = std::move(rendered.image);
        m_key = rendered.key;
        ++m_renderCount;
    }
    if (m_next) {  // the newest request, waiting for the stopped worker
        CellImageRequest next = std::move(*m_next);
        m_next.reset();
        request(std::move(next));
    }
    if (m_renderCount != before)
        emit imageReady();
}

}  // namespace tp
