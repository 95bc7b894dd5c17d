#include "transcriptview.h"

#include "colorscheme.h"
#include "inspectorimages.h"
#include "inspectorsupport.h"
#include "transcriptmodel.h"

#include <QApplication>
#include <QEvent>
#include <QFontDatabase>
#include <QListView>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QUrl>
#include <QVBoxLayout>

using namespace Paddock::Inspect;

namespace {

QColor roleColor(const QString &role)
{
    if (role == QLatin1String("user"))
        return QColor(0x25, 0x63, 0xeb);
    if (role == QLatin1String("assistant"))
        return QColor(0x05, 0x96, 0x69);
    if (role == QLatin1String("system"))
        return QColor(0x6b, 0x72, 0x80);
    return QColor(0x7c, 0x3a, 0xed);
}

// A message's row: role, name and time with its tokens on the right, then what it holds (small
// tags) and the start of its text. Every row is as high as two lines, so the list lays out tens of
// thousands of rows at once.
class TranscriptDelegate final : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &) const override
    {
        return {200, 2 * option.fontMetrics.lineSpacing() + 12};
    }

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        QStyleOptionViewItem opt = option;
        initStyleOption(&opt, index);
        opt.text.clear();
        QStyle *style = opt.widget ? opt.widget->style() : QApplication::style();
        style->drawPrimitive(QStyle::PE_PanelItemViewItem, &opt, painter, opt.widget);

        const bool selected = opt.state.testFlag(QStyle::State_Selected);
        const QPalette &palette = opt.palette;
        const QColor text = palette.color(selected ? QPalette::HighlightedText : QPalette::Text);
        const QColor dim = selected ? text : palette.color(QPalette::PlaceholderText);
        const QFontMetrics metrics = opt.fontMetrics;
        const QRect area = opt.rect.adjusted(8, 5, -8, -5);
        const int line = metrics.lineSpacing();
        painter->save();

        const auto kind = TranscriptMessage::Kind(index.data(TranscriptModel::KindRole).toInt());
        // First line: role · name · time ... tokens
        QRect first(area.left(), area.top(), area.width(), line);
        QString role = index.data(TranscriptModel::RoleRole).toString();
        QColor roleTint = roleColor(role);
        if (kind != TranscriptMessage::Kind::Message) {
            role = index.data(TranscriptModel::LinesRole).toString();
            roleTint = kind == TranscriptMessage::Kind::NotJson ? Tones::error(palette) : Tones::warning(palette);
        }
        QFont bold = opt.font;
        bold.setBold(true);
        painter->setFont(bold);
        painter->setPen(selected ? text : roleTint);
        const QString roleText = QFontMetrics(bold).elidedText(role, Qt::ElideRight, area.width() / 3);
        painter->drawText(first, Qt::AlignLeft | Qt::AlignVCenter, roleText);
        int x = first.left() + QFontMetrics(bold).horizontalAdvance(roleText) + 8;
        painter->setFont(opt.font);
        const QString tokens = index.data(TranscriptModel::TokensRole).toString();
        const int tokensWidth = tokens.isEmpty() ? 0 : metrics.horizontalAdvance(tokens) + 8;
        if (!tokens.isEmpty()) {
            painter->setPen(dim);
            painter->drawText(first, Qt::AlignRight | Qt::AlignVCenter, tokens);
        }
        QStringList parts;
        if (const QString name = index.data(TranscriptModel::NameRole).toString(); !name.isEmpty())
            parts.append(name);
        if (const QString time = index.data(TranscriptModel::TimeRole).toString(); !time.isEmpty())
            parts.append(time);
        if (kind == TranscriptMessage::Kind::Message)
            parts.append(index.data(TranscriptModel::LinesRole).toString());
        painter->setPen(dim);
        const int room = std::max(0, first.right() - tokensWidth - x);
        painter->drawText(QRect(x, first.top(), room, line), Qt::AlignLeft | Qt::AlignVCenter,
                          metrics.elidedText(parts.join(QStringLiteral(" · ")), Qt::ElideRight, room));

        // Second line: tags, then the start of the text.
        QRect second(area.left(), area.top() + line + 2, area.width(), line);
        x = second.left();
        QFont small = opt.font;
        small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.85));
        const QFontMetrics smallMetrics(small);
        painter->setFont(small);
        for (const QString &badge : index.data(TranscriptModel::BadgesRole).toStringList()) {
            const int width = smallMetrics.horizontalAdvance(badge) + 10;
            if (x + width > second.right() - 40)
                break;
            const QRect chip(x, second.top() + 1, width, line - 2);
            QPainterPath path;
            path.addRoundedRect(chip, 4, 4);
            QColor ground = selected ? text : palette.color(QPalette::Mid);
            ground.setAlpha(60);
            painter->fillPath(path, ground);
            painter->setPen(text);
            painter->drawText(chip, Qt::AlignCenter, badge);
            x += width + 4;
        }
        painter->setFont(opt.font);
        painter->setPen(text);
        const QString preview = index.data(TranscriptModel::PreviewRole).toString();
        const int rest = std::max(0, second.right() - x);
        painter->drawText(QRect(x, second.top(), rest, line), Qt::AlignLeft | Qt::AlignVCenter,
                          metrics.elidedText(preview, Qt::ElideRight, rest));
        painter->restore();
    }
};

} // namespace

MessageBrowser::MessageBrowser(QWidget *parent)
    : QTextBrowser(parent)
{
    setOpenLinks(false);
    setOpenExternalLinks(false);
}

MessageBrowser::~MessageBrowser() = default;

QVariant MessageBrowser::loadResource(int type, const QUrl &name)
{
    // Only the thumbnails handed over: nothing is read from a disk or a network.
    if (type == QTextDocument::ImageResource && name.scheme() == QLatin1String("thumb")) {
        bool ok = false;
        const int index = name.path().toInt(&ok);
        if (ok && m_thumbnails.contains(index))
            return m_thumbnails.value(index);
    }
    return {};
}

TranscriptView::TranscriptView(QWidget *parent)
    : QWidget(parent)
    , m_model(new TranscriptModel(this))
    , m_splitter(new QSplitter(Qt::Vertical, this))
    , m_list(new QListView(m_splitter))
    , m_detail(new MessageBrowser(m_splitter))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_splitter);
    m_list->setObjectName(QStringLiteral("transcriptList"));
    m_list->setModel(m_model);
    m_list->setItemDelegate(new TranscriptDelegate(m_list));
    m_list->setUniformItemSizes(true);
    m_list->setSelectionMode(QAbstractItemView::SingleSelection);
    m_list->setVerticalScrollMode(QAbstractItemView::ScrollPerPixel);
    m_list->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_detail->setObjectName(QStringLiteral("transcriptDetail"));
    m_splitter->addWidget(m_list);
    m_splitter->addWidget(m_detail);
    m_splitter->setStretchFactor(0, 2);
    m_splitter->setStretchFactor(1, 3);
    m_splitter->setSizes({1, 2});
    m_splitter->setChildrenCollapsible(false);
    m_state.palette = palette();
    m_state.monospaceFamily = QFontDatabase::systemFont(QFontDatabase::FixedFont).family();
    connect(m_list->selectionModel(), &QItemSelectionModel::currentChanged, this, &TranscriptView::currentChanged);
    m_renderLater.setSingleShot(true);
    m_renderLater.setInterval(0);
    connect(&m_renderLater, &QTimer::timeout, this, &TranscriptView::render);
    connect(m_detail, &QTextBrowser::anchorClicked, this,
            [this](const QUrl &url) { followLink(QString::fromUtf8(url.toEncoded())); });
    m_state.image = [this](const QString &path, QString *why) {
        if (!m_images)
            return TranscriptRenderState::Image::None;
        switch (m_images->state(path, why)) {
        case InspectorImages::State::Loaded:
            return TranscriptRenderState::Image::Loaded;
        case InspectorImages::State::Failed:
            return TranscriptRenderState::Image::Failed;
        case InspectorImages::State::Pending:
            return TranscriptRenderState::Image::Pending;
        case InspectorImages::State::None:
            break;
        }
        return TranscriptRenderState::Image::None;
    };
}

TranscriptView::~TranscriptView() = default;

void TranscriptView::setImages(InspectorImages *images)
{
    m_images = images;
}

int TranscriptView::currentRow() const
{
    const QModelIndex current = m_list->currentIndex();
    return current.isValid() ? current.row() : -1;
}

void TranscriptView::setCurrentRow(int row)
{
    if (row < 0 || row >= m_model->rowCount()) {
        m_list->setCurrentIndex({});
        return;
    }
    m_list->setCurrentIndex(m_model->index(row));
    m_list->scrollTo(m_model->index(row));
}

void TranscriptView::clear()
{
    m_model->clear();
    m_detail->clear();
    m_shownRow = -1;
    m_askedRow = -1;
    m_state.expanded.clear();
    m_state.shown.clear();
}

void TranscriptView::setRedact(bool redact)
{
    m_model->setRedact(redact);
    m_state.redact = redact;
    render();
}

void TranscriptView::currentChanged()
{
    const int row = currentRow();
    if (row != m_shownRow) {
        // Another message: its blocks start closed and short.
        m_state.expanded.clear();
        m_state.shown.clear();
        m_askedWhole = false;
    }
    render();
}

void TranscriptView::messageArrived(int row)
{
    if (row == m_askedRow)
        m_askedRow = -1;
    if (row == currentRow())
        render();
}

void TranscriptView::messageFailed(int row, const QString &why)
{
    if (row == m_askedRow)
        m_askedRow = -1;
    if (row != currentRow())
        return;
    m_shownImages.clear();
    m_detail->setHtml(
        QStringLiteral("<p style=\"color:%1\">%2</p>").arg(Tones::css(Tones::error()), why.toHtmlEscaped()));
}

void TranscriptView::render()
{
    const int row = currentRow();
    if (row < 0) {
        m_detail->clear();
        m_shownRow = -1;
        m_shownImages.clear();
        return;
    }
    const bool same = row == m_shownRow;
    const int scroll = m_detail->verticalScrollBar()->value();
    m_shownRow = row;
    const TranscriptMessage *message = m_model->message(row);
    if (!message) {
        m_shownImages.clear();
        m_detail->setHtml(TranscriptRender::loading(m_model->summary(row)));
        if (m_askedRow != row) {
            m_askedRow = row;
            Q_EMIT messageNeeded(row, m_askedWhole);
        }
        return;
    }
    QStringList images;
    const QString html = TranscriptRender::message(*message, m_state, &images);
    QHash<int, QImage> thumbnails;
    QStringList needed;
    for (int i = 0; i < images.size(); ++i) {
        if (!m_images)
            break;
        const QString &path = images.at(i);
        const auto state = m_images->state(path);
        if (state == InspectorImages::State::Loaded)
            thumbnails.insert(i, Inspector::visibleImage(m_images->image(path), 48));
        else if (state == InspectorImages::State::None && !needed.contains(path))
            needed.append(path);
    }
    m_shownImages = images;
    m_detail->setThumbnails(std::move(thumbnails));
    m_detail->setHtml(html);
    // Asked for once shown: an answer at once comes back through imageArrived().
    for (const QString &path : std::as_const(needed))
        Q_EMIT imageNeeded(path);
    if (same)
        m_detail->verticalScrollBar()->setValue(scroll);
}

void TranscriptView::imageArrived(const QString &path)
{
    // Once per burst of images, from the event loop (never inside a render).
    if (m_shownImages.contains(path))
        m_renderLater.start();
}

void TranscriptView::followLink(const QString &link)
{
    static const QLatin1String Prefix("inspect:");
    if (!link.startsWith(Prefix))
        return;
    const QString rest = link.mid(Prefix.size());
    const qsizetype slash = rest.indexOf(u'/');
    const QString verb = slash < 0 ? rest : rest.left(slash);
    const QString argument = slash < 0 ? QString() : QUrl::fromPercentEncoding(rest.mid(slash + 1).toUtf8());
    const int row = currentRow();
    if (verb == QLatin1String("toggle")) {
        if (!m_state.expanded.remove(argument))
            m_state.expanded.insert(argument);
        render();
    } else if (verb == QLatin1String("more")) {
        const qsizetype shown = m_state.shown.value(argument, TranscriptRender::StartChars);
        m_state.shown.insert(argument, std::min(TranscriptRender::MaxShownChars, shown * 4));
        render();
    } else if (verb == QLatin1String("reread") && row >= 0) {
        m_askedWhole = true;
        m_askedRow = row;
        Q_EMIT messageNeeded(row, true);
    } else if (verb == QLatin1String("file")) {
        Q_EMIT fileRequested(argument);
    } else if (verb == QLatin1String("data")) {
        Q_EMIT dataRequested(argument);
    } else if (verb == QLatin1String("raw") && row >= 0) {
        Q_EMIT rawRequested(row);
    } else if (verb == QLatin1String("again")) {
        Q_EMIT readAgainRequested();
    }
}

void TranscriptView::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::LanguageChange) {
        m_model->retranslate();
        render();
    } else if (event->type() == QEvent::PaletteChange) {
        m_state.palette = palette();
        render();
    }
}

void TranscriptView::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    // Side by side when there is room across (the dock at the bottom), else one above the other.
    m_splitter->setOrientation(width() > 2 * height() && width() > 900 ? Qt::Horizontal : Qt::Vertical);
}
