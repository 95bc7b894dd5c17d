#pragma once

#include <QComboBox>

// The window's profile switcher. It is as wide as its longest profile name, up to a cap
// (MaxCharacters average characters), and no narrower whatever else shares the header (a
// profile's problem, a docked inspector): its minimum size is that width. A name longer than the
// cap is cut in the middle (the start and the end of a name tell profiles apart), and the whole
// name is the tooltip. Its popup is as wide as its longest entry, whatever the box's width.
class ProfileSwitcher final : public QComboBox
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ProfileSwitcher)

public:
    static constexpr int MaxCharacters = 32;

    explicit ProfileSwitcher(QWidget *parent = nullptr);
    ~ProfileSwitcher() override;

    // The current entry's text as the box shows it (elided when it is too long).
    QString shownText() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    void showPopup() override;

protected:
    void paintEvent(QPaintEvent *event) override;
    bool event(QEvent *event) override;

private:
    // The width of the longest entry's text (and its icon), or of all of it under the cap.
    int contentsWidth(bool capped) const;
    QRect textRect() const;
};
