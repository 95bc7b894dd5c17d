#include "filepreview.h"

#include "inspectorimages.h"
#include "inspectorsupport.h"
#include "textpageview.h"

#include <QCoroTask>

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QScrollArea>
#include <QStackedWidget>
#include <QVBoxLayout>

using namespace Paddock::Inspect;

FilePreview::FilePreview(const QString &prefix, QWidget *parent)
    : QWidget(parent)
    , m_info(new QLabel(this))
    , m_save(new QPushButton(this))
    , m_previews(new QStackedWidget(this))
    , m_imageArea(new QScrollArea(m_previews))
    , m_image(new QLabel(m_imageArea))
    , m_text(new TextPageView(m_previews))
    , m_images(new InspectorImages(QSize(1024, 1024), this))
{
    auto *pane = new QVBoxLayout(this);
    pane->setContentsMargins(0, 4, 0, 0);
    auto *header = new QHBoxLayout;
    header->addWidget(m_info, 1);
    header->addWidget(m_save);
    pane->addLayout(header);
    pane->addWidget(m_previews, 1);
    m_info->setObjectName(prefix + QStringLiteral("PreviewInfo"));
    m_info->setWordWrap(true);
    m_info->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_save->setObjectName(prefix + QStringLiteral("SaveButton"));
    m_save->setEnabled(false);
    m_image->setObjectName(prefix + QStringLiteral("Image"));
    m_image->setAlignment(Qt::AlignCenter);
    m_imageArea->setWidget(m_image);
    m_imageArea->setWidgetResizable(true);
    m_previews->addWidget(m_imageArea);
    m_previews->addWidget(m_text);
    connect(m_images, &InspectorImages::ready, this, [this](const QString &path) {
        if (path == m_previewed)
            showLoaded(path);
    });
    connect(m_save, &QPushButton::clicked, this, &FilePreview::saveRequested);
    retranslate();
}

FilePreview::~FilePreview() = default;

bool FilePreview::begin(const QString &path)
{
    if (path == m_previewed)
        return false;
    m_previewed = path;
    m_image->clear();
    m_text->clear();
    if (path.isEmpty())
        m_info->clear();
    return true;
}

void FilePreview::showImage(const WorkspaceRef &ref)
{
    m_previews->setCurrentWidget(m_imageArea);
    m_images->request(ref, m_previewed);
    showLoaded(m_previewed);
}

void FilePreview::showText(const WorkspaceRef &ref, bool redact, const QString &info)
{
    m_previews->setCurrentWidget(m_text);
    m_info->setText(info);
    m_text->setRedact(redact);
    m_text->open(ref, m_previewed);
}

void FilePreview::showInfo(const QString &info)
{
    m_previews->setCurrentWidget(m_imageArea);
    m_info->setText(info);
}

void FilePreview::setRedact(bool redact)
{
    m_text->setRedact(redact);
}

void FilePreview::saveAs(const WorkspaceRef &ref, const QString &path)
{
    if (path.isEmpty())
        return;
    const QPointer<FilePreview> self(this);
    Inspector::saveAs(this, ref, path, [self](const QString &message) {
        if (self)
            Q_EMIT self->statusMessage(message);
    });
}

void FilePreview::clear()
{
    m_previewed.clear();
    m_images->clear();
    m_text->clear();
    m_info->clear();
    m_image->clear();
    m_save->setEnabled(false);
}

void FilePreview::showLoaded(const QString &path)
{
    QString why;
    switch (m_images->state(path, &why)) {
    case InspectorImages::State::Loaded: {
        const QImage image = m_images->image(path);
        const QSize original = m_images->originalSize(path);
        m_image->setPixmap(QPixmap::fromImage(Inspector::visibleImage(image, 128)));
        QString info = tr("%1: %2 × %3 pixels").arg(path).arg(original.width()).arg(original.height());
        if (original != image.size() && original.width() > image.width())
            info += u' ' + tr("(shown at %1 × %2)").arg(image.width()).arg(image.height());
        m_info->setText(info);
        break;
    }
    case InspectorImages::State::Failed:
        m_image->clear();
        m_info->setText(tr("%1 cannot be shown: %2").arg(path, why));
        break;
    default:
        m_info->setText(tr("%1: reading…").arg(path));
        break;
    }
}

void FilePreview::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void FilePreview::retranslate()
{
    m_save->setText(tr("&Save As…"));
    m_save->setToolTip(tr("Save a copy of this file on this computer (the workspace is not changed)"));
}
