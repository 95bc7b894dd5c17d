#include "workspacedelegate.h"

#include <QApplication>
#include <QIcon>
#include <QPainter>

void WorkspaceDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    const QWidget *widget = option.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();

    // The panel: selection, hover and alternate-row backgrounds as the style draws them.
    QStyleOptionViewItem panel = option;
    panel.index = index;
    style->drawPrimitive(QStyle::PE_PanelItemViewItem, &panel, painter, widget);

    const int margin = style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, widget) + 1;
    QRect rect = option.rect.adjusted(margin, 0, -margin, 0);
    const bool selected = option.state & QStyle::State_Selected;
    const QPalette::ColorGroup group = !(option.state & QStyle::State_Enabled) ? QPalette::Disabled
        : (option.state & QStyle::State_Active)                                ? QPalette::Normal
                                                                               : QPalette::Inactive;
    if (const QVariant decoration = index.data(Qt::DecorationRole); decoration.isValid()) {
        const QSize size = option.decorationSize;
        const QRect iconRect(rect.left(), rect.top() + (rect.height() - size.height()) / 2, size.width(),
                             size.height());
        if (selected) {
            // A state dot on the selection's colour (a blue Paused on a blue highlight) would
            // vanish: a halo of the selected text's colour keeps it apart, in light and dark.
            painter->save();
            painter->setRenderHint(QPainter::Antialiasing);
            painter->setPen(Qt::NoPen);
            painter->setBrush(option.palette.color(group, QPalette::HighlightedText));
            const qreal halo = size.width() * 13.0 / 16.0; // the dot is 10 of 16
            painter->drawEllipse(QRectF(iconRect).center(), halo / 2, halo / 2);
            painter->restore();
        }
        decoration.value<QIcon>().paint(painter, iconRect);
        rect.setLeft(iconRect.right() + 1 + margin);
    }

    QColor colour = option.palette.color(group, selected ? QPalette::HighlightedText : QPalette::Text);
    if (!selected) {
        if (const QVariant foreground = index.data(Qt::ForegroundRole); foreground.canConvert<QColor>())
            colour = foreground.value<QColor>();
    }
    const QString text = index.data(Qt::DisplayRole).toString();
    if (!text.isEmpty() && rect.width() > 0) {
        if (option.font != m_font) {
            m_texts.clear();
            m_font = option.font;
        }
        TextKey key{text, rect.width()};
        QStaticText *laidOut = m_texts.object(key);
        if (!laidOut) {
            laidOut = new QStaticText(option.fontMetrics.elidedText(text, Qt::ElideRight, rect.width()));
            laidOut->setTextFormat(Qt::PlainText);
            laidOut->prepare(QTransform(), option.font);
            m_texts.insert(std::move(key), laidOut);
        }
        painter->save();
        painter->setPen(colour);
        painter->setFont(option.font);
        const QSizeF size = laidOut->size();
        painter->drawStaticText(QPointF(rect.left(), rect.top() + (rect.height() - size.height()) / 2), *laidOut);
        painter->restore();
    }

    // The keyboard's place, for those who do not use a mouse.
    if (option.state & QStyle::State_HasFocus) {
        QStyleOptionFocusRect focus;
        focus.QStyleOption::operator=(option);
        focus.rect = option.rect;
        focus.state |= QStyle::State_KeyboardFocusChange;
        focus.backgroundColor = option.palette.color(group, selected ? QPalette::Highlight : QPalette::Window);
        style->drawPrimitive(QStyle::PE_FrameFocusRect, &focus, painter, widget);
    }
}
