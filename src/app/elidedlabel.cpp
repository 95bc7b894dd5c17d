#include "elidedlabel.h"

#include <QAccessible>
#include <QAccessibleWidget>
#include <QEvent>
#include <QPainter>
#include <QStyle>

#include <cmath>

namespace {

// A label to assistive technology (QLabel's role), named by its whole text.
class AccessibleElidedLabel final : public QAccessibleWidget
{
public:
    explicit AccessibleElidedLabel(ElidedLabel *label)
        : QAccessibleWidget(label, QAccessible::StaticText)
    {
    }

    QString text(QAccessible::Text kind) const override
    {
        if (kind == QAccessible::Name && widget()->accessibleName().isEmpty())
            return static_cast<const ElidedLabel *>(widget())->text();
        return QAccessibleWidget::text(kind);
    }
};

QAccessibleInterface *accessibleElidedLabel(const QString &key, QObject *object)
{
    if (key == QLatin1String("ElidedLabel")) {
        if (auto *label = qobject_cast<ElidedLabel *>(object))
            return new AccessibleElidedLabel(label);
    }
    return nullptr;
}

} // namespace

ElidedLabel::ElidedLabel(QWidget *parent)
    : ElidedLabel(QString(), parent)
{
}

ElidedLabel::ElidedLabel(const QString &text, QWidget *parent)
    : QFrame(parent)
{
    static const bool accessible = (QAccessible::installFactory(accessibleElidedLabel), true);
    Q_UNUSED(accessible);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    m_text = text;
    setToolTip(text);
    setAccessibleDescription(text);
}

ElidedLabel::~ElidedLabel() = default;

void ElidedLabel::setText(const QString &text)
{
    if (text == m_text)
        return;
    m_text = text;
    setToolTip(text);
    setAccessibleDescription(text);
    updateGeometry();
    update();
    QAccessibleEvent event(this, QAccessible::NameChanged);
    QAccessible::updateAccessibility(&event);
    Q_EMIT textChanged(m_text);
}

void ElidedLabel::setElideMode(Qt::TextElideMode mode)
{
    if (mode == m_elideMode)
        return;
    m_elideMode = mode;
    update();
}

void ElidedLabel::setAlignment(Qt::Alignment alignment)
{
    if (alignment == m_alignment)
        return;
    m_alignment = alignment;
    update();
}

QString ElidedLabel::oneLine() const
{
    QString line = m_text;
    for (QChar &c : line) {
        if (c == u'\n' || c == u'\r' || c == QChar::LineSeparator || c == QChar::ParagraphSeparator)
            c = u' ';
    }
    return line;
}

QString ElidedLabel::shownText() const
{
    const QString line = oneLine();
    if (m_elideMode == Qt::ElideNone)
        return line;
    return fontMetrics().elidedText(line, m_elideMode, contentsRect().width());
}

bool ElidedLabel::isElided() const
{
    return m_elideMode != Qt::ElideNone ? shownText() != oneLine()
                                        : fontMetrics().horizontalAdvance(oneLine()) > contentsRect().width();
}

QSize ElidedLabel::sizeHint() const
{
    // Rounded up: at this width elidedText() keeps the whole text (text in fallback fonts, such
    // as Chinese, has fractional widths).
    const int width = int(std::ceil(QFontMetricsF(font()).horizontalAdvance(oneLine()))) + 1;
    const QMargins margins = contentsMargins();
    return {width + margins.left() + margins.right(), fontMetrics().height() + margins.top() + margins.bottom()};
}

QSize ElidedLabel::minimumSizeHint() const
{
    // A few characters and the ellipsis, whatever the text.
    const QFontMetrics metrics = fontMetrics();
    const QMargins margins = contentsMargins();
    return {metrics.averageCharWidth() * 3 + metrics.horizontalAdvance(QChar(0x2026)) + margins.left()
                + margins.right(),
            metrics.height() + margins.top() + margins.bottom()};
}

void ElidedLabel::paintEvent(QPaintEvent *event)
{
    QFrame::paintEvent(event);
    QPainter painter(this);
    style()->drawItemText(&painter, contentsRect(), int(QStyle::visualAlignment(layoutDirection(), m_alignment)),
                          palette(), isEnabled(), shownText(), foregroundRole());
}

void ElidedLabel::changeEvent(QEvent *event)
{
    QFrame::changeEvent(event);
    if (event->type() == QEvent::FontChange || event->type() == QEvent::StyleChange)
        updateGeometry();
}
