#include "profileswitcher.h"

#include <QAbstractItemView>
#include <QEvent>
#include <QHelpEvent>
#include <QScrollBar>
#include <QStyleOptionComboBox>
#include <QStylePainter>
#include <QToolTip>

#include <algorithm>

ProfileSwitcher::ProfileSwitcher(QWidget *parent)
    : QComboBox(parent)
{
    // The popup follows the entries: a new name can be longer.
    connect(model(), &QAbstractItemModel::rowsInserted, this, &ProfileSwitcher::updateGeometry);
    connect(model(), &QAbstractItemModel::rowsRemoved, this, &ProfileSwitcher::updateGeometry);
    connect(model(), &QAbstractItemModel::dataChanged, this, &ProfileSwitcher::updateGeometry);
    connect(model(), &QAbstractItemModel::modelReset, this, &ProfileSwitcher::updateGeometry);
}

ProfileSwitcher::~ProfileSwitcher() = default;

int ProfileSwitcher::contentsWidth(bool capped) const
{
    const QFontMetrics metrics = fontMetrics();
    int text = 0;
    bool icons = false;
    for (int i = 0; i < count(); ++i) {
        text = std::max(text, metrics.horizontalAdvance(itemText(i)));
        icons = icons || !itemIcon(i).isNull();
    }
    if (capped)
        text = std::min(text, metrics.averageCharWidth() * MaxCharacters);
    // At least a few characters, so that an empty box is still a box.
    text = std::max(text, metrics.averageCharWidth() * 6);
    return text + (icons ? iconSize().width() + 4 : 0);
}

QSize ProfileSwitcher::sizeHint() const
{
    QStyleOptionComboBox option;
    initStyleOption(&option);
    const QSize contents(contentsWidth(true), std::max(fontMetrics().height(), iconSize().height()));
    return style()->sizeFromContents(QStyle::CT_ComboBox, &option, contents, this);
}

QSize ProfileSwitcher::minimumSizeHint() const
{
    return sizeHint();
}

void ProfileSwitcher::showPopup()
{
    // As wide as the longest entry with its icon and a scroll bar's room, never cut.
    QAbstractItemView *popup = view();
    const int frame = 2 * popup->frameWidth() + style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, popup)
        + 4 * style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, popup);
    popup->setMinimumWidth(std::max(width(), contentsWidth(false) + frame + fontMetrics().averageCharWidth() * 2));
    QComboBox::showPopup();
}

QRect ProfileSwitcher::textRect() const
{
    QStyleOptionComboBox option;
    initStyleOption(&option);
    QRect rect = style()->subControlRect(QStyle::CC_ComboBox, &option, QStyle::SC_ComboBoxEditField, this);
    if (!option.currentIcon.isNull())
        rect.setLeft(rect.left() + option.iconSize.width() + 4);
    return rect;
}

QString ProfileSwitcher::shownText() const
{
    return fontMetrics().elidedText(currentText(), Qt::ElideMiddle, textRect().width());
}

void ProfileSwitcher::paintEvent(QPaintEvent *)
{
    // As QComboBox paints itself, with the current name cut in the middle where it is too long.
    QStylePainter painter(this);
    painter.setPen(palette().color(QPalette::Text));
    QStyleOptionComboBox option;
    initStyleOption(&option);
    painter.drawComplexControl(QStyle::CC_ComboBox, option);
    option.currentText = shownText();
    painter.drawControl(QStyle::CE_ComboBoxLabel, option);
}

bool ProfileSwitcher::event(QEvent *event)
{
    // A name cut short shows whole in the tooltip; else the box's own tooltip.
    if (event->type() == QEvent::ToolTip && shownText() != currentText()) {
        QToolTip::showText(static_cast<QHelpEvent *>(event)->globalPos(), currentText(), this);
        return true;
    }
    return QComboBox::event(event);
}
