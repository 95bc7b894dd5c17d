#include "textpageview.h"

#include "elidedlabel.h"
#include "inspect/secretmask.h"

#include <QCoroTask>

#include <QDialogButtonBox>
#include <QEvent>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLocale>
#include <QPointer>
#include <QPushButton>
#include <QStyle>
#include <QTextBrowser>
#include <QToolButton>
#include <QUrl>
#include <QVBoxLayout>

using namespace Paddock;
using namespace Paddock::Inspect;

TextPageView::TextPageView(QWidget *parent)
    : QWidget(parent)
    , m_where(new ElidedLabel(this))
    , m_previous(new QToolButton(this))
    , m_next(new QToolButton(this))
    , m_note(new InspectorNote(this))
    , m_browser(new QTextBrowser(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    auto *header = new QHBoxLayout;
    header->addWidget(m_where, 1);
    header->addWidget(m_previous);
    header->addWidget(m_next);
    layout->addLayout(header);
    layout->addWidget(m_note);
    layout->addWidget(m_browser, 1);
    m_previous->setObjectName(QStringLiteral("previousPage"));
    m_next->setObjectName(QStringLiteral("nextPage"));
    m_previous->setIcon(style()->standardIcon(QStyle::SP_ArrowBack));
    m_next->setIcon(style()->standardIcon(QStyle::SP_ArrowForward));
    m_browser->setObjectName(QStringLiteral("textPage"));
    m_browser->setOpenLinks(false);
    m_browser->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_browser->setLineWrapMode(QTextEdit::WidgetWidth);
    connect(m_previous, &QToolButton::clicked, this, &TextPageView::previousPage);
    connect(m_next, &QToolButton::clicked, this, &TextPageView::nextPage);
    connect(m_browser, &QTextBrowser::anchorClicked, this, [this](const QUrl &url) {
        const QString link = QString::fromUtf8(url.toEncoded());
        static const QLatin1String Prefix("inspect:data/");
        if (link.startsWith(Prefix))
            Q_EMIT dataRequested(QUrl::fromPercentEncoding(link.mid(Prefix.size()).toUtf8()));
    });
    retranslate();
    updateHeader();
}

TextPageView::~TextPageView() = default;

void TextPageView::open(const WorkspaceRef &ref, const QString &path, qint64 start, qint64 length)
{
    m_ref = ref;
    m_path = path;
    m_start = start;
    m_length = length;
    m_previousOffsets.clear();
    m_page.reset();
    m_error.reset();
    m_browser->clear();
    m_note->clear();
    read(start);
}

void TextPageView::clear()
{
    m_slot.cancel();
    m_ref = {};
    m_path.clear();
    m_page.reset();
    m_error.reset();
    m_previousOffsets.clear();
    m_browser->clear();
    m_note->clear();
    m_reading = false;
    updateHeader();
}

void TextPageView::setRedact(bool redact)
{
    if (m_redact == redact)
        return;
    m_redact = redact;
    showPage();
}

QString TextPageView::text() const
{
    return m_browser->toPlainText();
}

void TextPageView::nextPage()
{
    if (!m_page || m_reading)
        return;
    const qint64 next = m_page->offset + m_page->bytes;
    if (next >= m_page->totalSize || (m_length >= 0 && next >= m_start + m_length) || m_page->bytes <= 0)
        return;
    m_previousOffsets.append(m_page->offset);
    read(next);
}

void TextPageView::previousPage()
{
    if (m_previousOffsets.isEmpty() || m_reading)
        return;
    read(m_previousOffsets.takeLast());
}

QCoro::Task<void> TextPageView::read(qint64 offset)
{
    const QPointer<TextPageView> self(this);
    const WorkspaceRef ref = m_slot.start(m_ref);
    qint64 length = PageBytes;
    if (m_length >= 0)
        length = std::max<qint64>(0, std::min(length, m_start + m_length - offset));
    const QString path = m_path;
    m_reading = true;
    updateHeader();
    auto page = co_await readTextPage(ref, path, offset, length);
    if (!self || !m_slot.isCurrent(ref))
        co_return;
    m_reading = false;
    if (page) {
        m_page = std::move(*page);
        m_error.reset();
    } else {
        m_error = page.error();
    }
    showPage();
    Q_EMIT pageShown();
}

void TextPageView::showPage()
{
    updateHeader();
    if (m_error) {
        m_note->setNote(InspectorNote::Kind::Error,
                        tr("%1 cannot be read: %2").arg(m_path, Inspector::errorText(*m_error)));
        m_browser->clear();
        return;
    }
    if (!m_page)
        return;
    const TextPage &page = *m_page;
    if (page.binary) {
        m_note->setNote(InspectorNote::Kind::Info,
                        tr("This file holds binary data (%1), not text: it is not shown as text. Save it to look at "
                           "it with another program.")
                            .arg(Inspector::sizeText(page.totalSize)));
        m_browser->clear();
        return;
    }
    const QString masked = m_redact ? maskText(page.text) : page.text;
    if (masked != page.text) {
        m_note->setNote(InspectorNote::Kind::Info,
                        tr("Likely secrets on this page are masked (Redact, in the inspector's header, shows them)."));
    } else {
        m_note->clear();
    }
    if (page.placeholders.isEmpty()) {
        m_browser->setPlainText(masked);
        return;
    }
    // Data placeholders become links to their data/ files.
    QString html = QStringLiteral("<div style=\"white-space:pre-wrap; font-family:monospace\">");
    qsizetype at = 0;
    const auto plain = [&](qsizetype from, qsizetype to) {
        const QString part = page.text.mid(from, to - from);
        html += (m_redact ? maskText(part) : part).toHtmlEscaped();
    };
    for (const DataPlaceholder &placeholder : page.placeholders) {
        if (placeholder.offset < at || placeholder.offset + placeholder.length > page.text.size())
            continue;
        plain(at, placeholder.offset);
        const QString shown = page.text.mid(placeholder.offset, placeholder.length).toHtmlEscaped();
        if (placeholder.dataFile) {
            html += QStringLiteral("<a href=\"inspect:data/%1\">%2</a>")
                        .arg(QString::fromLatin1(QUrl::toPercentEncoding(*placeholder.dataFile, "/")), shown);
        } else {
            html += shown;
        }
        at = placeholder.offset + placeholder.length;
    }
    plain(at, page.text.size());
    html += QStringLiteral("</div>");
    m_browser->setHtml(html);
}

void TextPageView::updateHeader()
{
    if (m_path.isEmpty()) {
        m_where->setText(QString());
        m_where->hide();
        m_previous->hide();
        m_next->hide();
        return;
    }
    m_where->show();
    QString where = m_path;
    if (m_reading) {
        where = tr("%1: reading…").arg(m_path);
    } else if (m_page && !m_page->binary) {
        const qint64 end = m_page->offset + m_page->bytes;
        where = tr("%1: bytes %2–%3 of %4")
                    .arg(m_path, QLocale().toString(m_page->offset), QLocale().toString(end),
                         Inspector::sizeText(m_page->totalSize));
    }
    m_where->setText(where);
    m_previous->setEnabled(!m_reading && !m_previousOffsets.isEmpty());
    const bool more = m_page && m_page->bytes > 0 && m_page->offset + m_page->bytes < m_page->totalSize
        && (m_length < 0 || m_page->offset + m_page->bytes < m_start + m_length);
    m_next->setEnabled(!m_reading && more);
    // Page buttons only where there are pages.
    const bool paged = more || !m_previousOffsets.isEmpty();
    m_previous->setVisible(paged);
    m_next->setVisible(paged);
}

void TextPageView::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::LanguageChange)
        retranslate();
}

void TextPageView::retranslate()
{
    m_previous->setToolTip(tr("Previous page"));
    m_previous->setAccessibleName(tr("Previous page"));
    m_next->setToolTip(tr("Next page"));
    m_next->setAccessibleName(tr("Next page"));
    showPage();
}

TextPageDialog::TextPageDialog(QWidget *parent)
    : QDialog(parent)
    , m_view(new TextPageView(this))
{
    setObjectName(QStringLiteral("textPageDialog"));
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_view, 1);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    resize(760, 560);
    setModal(false);
}

TextPageDialog::~TextPageDialog() = default;

void TextPageDialog::showFile(const WorkspaceRef &ref, const QString &path, qint64 start, qint64 length,
                              const QString &title)
{
    setWindowTitle(title.isEmpty() ? path : title);
    m_view->open(ref, path, start, length);
    show();
    raise();
    activateWindow();
}
