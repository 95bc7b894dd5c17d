#include "inspectorimages.h"

#include "inspectorsupport.h"
#include "profilesession.h"

#include <QCoroFuture>
#include <QCoroTask>

#include <QBuffer>
#include <QImageReader>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

using namespace Paddock;
using namespace Paddock::Inspect;

InspectorImages::InspectorImages(QSize bound, QObject *parent)
    : QObject(parent)
    , m_bound(bound)
{
}

InspectorImages::~InspectorImages() = default;

InspectorImages::State InspectorImages::state(const QString &path, QString *why) const
{
    const auto it = m_entries.constFind(path);
    if (it == m_entries.cend())
        return State::None;
    if (why)
        *why = it->why;
    return it->state;
}

QImage InspectorImages::image(const QString &path) const
{
    return m_entries.value(path).image;
}

QSize InspectorImages::originalSize(const QString &path) const
{
    return m_entries.value(path).original;
}

void InspectorImages::request(const WorkspaceRef &ref, const QString &path)
{
    if (m_entries.contains(path) || !ref.session)
        return;
    m_entries.insert(path, Entry{State::Pending, {}, {}, {}});
    m_order.append(path);
    load(ref, path, m_generation);
}

void InspectorImages::clear()
{
    ++m_generation;
    m_entries.clear();
    m_order.clear();
    m_bytes = 0;
}

void InspectorImages::trim(const QString &keep)
{
    // The oldest go first (those still coming stay, and the one just loaded).
    for (int i = 0; m_bytes > MaxBytes && i < m_order.size();) {
        const auto it = m_entries.find(m_order.at(i));
        if (it == m_entries.end() || it->state == State::Pending || it.key() == keep) {
            ++i;
            continue;
        }
        m_bytes -= it->image.sizeInBytes();
        m_entries.erase(it);
        m_order.removeAt(i);
    }
    // Entries of no image (failures) count for nothing: at most a few hundred are kept.
    while (m_order.size() > 500 && m_order.constFirst() != keep
           && m_entries.value(m_order.constFirst()).state != State::Pending) {
        m_bytes -= m_entries.value(m_order.constFirst()).image.sizeInBytes();
        m_entries.remove(m_order.takeFirst());
    }
}

Result<std::pair<QImage, QSize>> InspectorImages::decode(const QByteArray &bytes, QSize bound)
{
    QByteArray data = bytes;
    QBuffer buffer(&data);
    buffer.open(QIODevice::ReadOnly);
    QImageReader reader(&buffer);
    reader.setAutoTransform(true);
    const QSize original = reader.size();
    if (original.isValid() && (original.width() > bound.width() || original.height() > bound.height()))
        reader.setScaledSize(original.scaled(bound, Qt::KeepAspectRatio));
    QImage image = reader.read();
    if (image.isNull())
        return fail(Error::invalidArgument(reader.errorString()));
    return std::pair{image, original.isValid() ? original : image.size()};
}

QCoro::Task<void> InspectorImages::load(WorkspaceRef ref, QString path, quint64 generation)
{
    const QPointer<InspectorImages> self(this);
    const auto done = [&](State state, QImage image, QSize original, const QString &why) {
        if (!self || generation != m_generation || !m_entries.contains(path))
            return;
        m_bytes += image.sizeInBytes();
        m_entries[path] = Entry{state, std::move(image), original, why};
        trim(path);
        Q_EMIT ready(path);
    };
    if (!ref.session)
        co_return;
    // As every inspector read: refused at once where the files cannot be read now (a paused
    // sandbox's frozen execd is never waited on), and cancelled as the reader moves on.
    const qint64 limit = MaxFileBytes + 1;
    auto chunk = co_await readWorkspaceFile(ref, path, limit);
    if (!self || generation != m_generation)
        co_return;
    if (ref.cancel && ref.cancel->isCancelled()) {
        m_entries.remove(path); // asked again when shown again
        co_return;
    }
    if (!chunk) {
        done(State::Failed, {}, {}, Inspector::errorText(chunk.error()));
        co_return;
    }
    if (chunk->totalSize > MaxFileBytes) {
        done(State::Failed, {}, {},
             InspectorText::tr("%1 is larger than the %2 an image preview reads")
                 .arg(Inspector::sizeText(chunk->totalSize), Inspector::sizeText(MaxFileBytes)));
        co_return;
    }
    const QByteArray bytes = chunk->data;
    const QSize bound = m_bound;
    auto decoded = co_await QtConcurrent::run(&InspectorImages::decode, bytes, bound);
    if (!self || generation != m_generation)
        co_return;
    if (!decoded) {
        done(State::Failed, {}, {}, InspectorText::tr("not an image Qt can read (%1)").arg(decoded.error().message));
        co_return;
    }
    done(State::Loaded, decoded->first, decoded->second, {});
}
