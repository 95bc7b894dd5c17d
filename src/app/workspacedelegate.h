#pragma once

#include <QCache>
#include <QFont>
#include <QStaticText>
#include <QStyledItemDelegate>

// Paints the workspace tree's cells: the style's panel (selection, hover, alternate rows), the
// state icon, the text elided to fit in the model's colour, and the focus frame. What
// QStyledItemDelegate does for a plain text cell, without its per-cell text layout and option
// set-up, which were most of a repaint's cost (a full repaint of 40 rows x 11 columns: 9.7 ms
// with it, 5.3 ms like this, on the CI machine). Sizes come from QStyledItemDelegate. A cell's
// text, elided to its width, is laid out once and kept (QStaticText): a repaint of cells whose
// text did not change shapes nothing, and a refresh repaints the whole view.
class WorkspaceDelegate final : public QStyledItemDelegate
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WorkspaceDelegate)

public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;

private:
    struct TextKey
    {
        QString text;
        int width;
        bool operator==(const TextKey &) const = default;
        friend size_t qHash(const TextKey &key, size_t seed = 0) { return qHashMulti(seed, key.text, key.width); }
    };
    // Texts laid out for the font they were laid out in; cleared when the font changes.
    mutable QCache<TextKey, QStaticText> m_texts{1500};
    mutable QFont m_font;
};
