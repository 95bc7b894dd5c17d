#pragma once

#include <QFrame>
#include <QString>

// One line of text that can be long (a status, a message, a path). It shows what fits, cut with
// an ellipsis, and its minimum size is a few characters whatever the text, so no text can widen
// its window; its size hint is the whole text, so a layout with room shows it whole. The whole
// text is also its tooltip, its accessible name and its accessible description. Plain text only:
// line breaks show as spaces.
class ElidedLabel final : public QFrame
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ElidedLabel)
    Q_PROPERTY(QString text READ text WRITE setText NOTIFY textChanged)
    Q_PROPERTY(Qt::TextElideMode elideMode READ elideMode WRITE setElideMode)
    Q_PROPERTY(Qt::Alignment alignment READ alignment WRITE setAlignment)

public:
    explicit ElidedLabel(QWidget *parent = nullptr);
    explicit ElidedLabel(const QString &text, QWidget *parent = nullptr);
    ~ElidedLabel() override;

    const QString &text() const { return m_text; }
    // Where a text too long is cut: Qt::ElideRight (the default), ElideLeft, ElideMiddle, or
    // ElideNone (clipped at the edge).
    Qt::TextElideMode elideMode() const { return m_elideMode; }
    void setElideMode(Qt::TextElideMode mode);
    // Qt::AlignLeft | Qt::AlignVCenter by default.
    Qt::Alignment alignment() const { return m_alignment; }
    void setAlignment(Qt::Alignment alignment);

    // The text as it shows at the current width, and whether it had to be cut.
    QString shownText() const;
    bool isElided() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

public Q_SLOTS:
    // Also sets the tooltip and the accessible description to `text` (set them after this to
    // say something else).
    void setText(const QString &text);
    void clear() { setText(QString()); }

Q_SIGNALS:
    void textChanged(const QString &text);

protected:
    void paintEvent(QPaintEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    QString oneLine() const;

    QString m_text;
    Qt::TextElideMode m_elideMode = Qt::ElideRight;
    Qt::Alignment m_alignment = Qt::AlignLeft | Qt::AlignVCenter;
};
