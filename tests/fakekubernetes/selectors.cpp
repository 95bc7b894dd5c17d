#include "selectors.h"

#include "validation.h"

using namespace Qt::StringLiterals;

namespace PaddockFake::Kube {

namespace {

// The label selector lexer's tokens (apimachinery pkg/labels/selector.go).
struct Token
{
    enum Type { End, Identifier, Not, NotEquals, DoubleEquals, Equals, In, NotIn, Open, Close, Comma, Greater, Less };
    Type type = End;
    QString text;
};

class Lexer
{
public:
    explicit Lexer(const QString &text)
        : m_text(text)
    {
    }

    Token next()
    {
        while (m_pos < m_text.size() && m_text.at(m_pos).isSpace())
            ++m_pos;
        if (m_pos >= m_text.size())
            return {Token::End, {}};
        const QChar c = m_text.at(m_pos);
        const auto two = [&](QChar second) { return m_pos + 1 < m_text.size() && m_text.at(m_pos + 1) == second; };
        if (c == u'!' && two(u'=')) {
            m_pos += 2;
            return {Token::NotEquals, u"!="_s};
        }
        if (c == u'=' && two(u'=')) {
            m_pos += 2;
            return {Token::DoubleEquals, u"=="_s};
        }
        switch (c.unicode()) {
        case '!':
            ++m_pos;
            return {Token::Not, u"!"_s};
        case '=':
            ++m_pos;
            return {Token::Equals, u"="_s};
        case '(':
            ++m_pos;
            return {Token::Open, u"("_s};
        case ')':
            ++m_pos;
            return {Token::Close, u")"_s};
        case ',':
            ++m_pos;
            return {Token::Comma, u","_s};
        case '>':
            ++m_pos;
            return {Token::Greater, u">"_s};
        case '<':
            ++m_pos;
            return {Token::Less, u"<"_s};
        default:
            break;
        }
        const qsizetype start = m_pos;
        while (m_pos < m_text.size()) {
            const QChar d = m_text.at(m_pos);
            if (d.isSpace() || QStringView(u"!=(),><").contains(d))
                break;
            ++m_pos;
        }
        const QString word = m_text.mid(start, m_pos - start);
        if (word == u"in"_s)
            return {Token::In, word};
        if (word == u"notin"_s)
            return {Token::NotIn, word};
        return {Token::Identifier, word};
    }

private:
    QString m_text;
    qsizetype m_pos = 0;
};

class Parser
{
public:
    explicit Parser(const QString &text)
    {
        Lexer lexer(text);
        for (;;) {
            Token token = lexer.next();
            const bool end = token.type == Token::End;
            m_tokens.append(std::move(token));
            if (end)
                break;
        }
    }

    const Token &peek() const { return m_tokens.at(std::min(m_pos, m_tokens.size() - 1)); }
    Token take()
    {
        const Token token = peek();
        if (m_pos < m_tokens.size() - 1)
            ++m_pos;
        return token;
    }

private:
    QList<Token> m_tokens;
    qsizetype m_pos = 0;
};

bool checkKey(const QString &key, QString *error)
{
    const QStringList errors = qualifiedNameErrors(key);
    if (!errors.isEmpty()) {
        *error = u"unable to parse requirement: key: Invalid value: \"%1\": %2"_s.arg(key, errors.join(u"; "_s));
        return false;
    }
    return true;
}

bool checkValue(const QString &value, QString *error)
{
    const QStringList errors = labelValueErrors(value);
    if (!errors.isEmpty()) {
        *error =
            u"unable to parse requirement: values[0]: Invalid value: \"%1\": %2"_s.arg(value, errors.join(u"; "_s));
        return false;
    }
    return true;
}

} // namespace

std::optional<LabelSelector> LabelSelector::parse(const QString &text, QString *error)
{
    LabelSelector selector;
    if (text.trimmed().isEmpty())
        return selector;
    Parser parser(text);
    for (;;) {
        LabelRequirement requirement;
        Token token = parser.take();
        if (token.type == Token::Not) {
            const Token key = parser.take();
            if (key.type != Token::Identifier) {
                *error = u"unable to parse requirement: found '%1', expected: identifier"_s.arg(key.text);
                return std::nullopt;
            }
            if (!checkKey(key.text, error))
                return std::nullopt;
            requirement.key = key.text;
            requirement.op = LabelRequirement::Op::DoesNotExist;
        } else if (token.type == Token::Identifier) {
            requirement.key = token.text;
            if (!checkKey(token.text, error))
                return std::nullopt;
            const Token::Type next = parser.peek().type;
            if (next == Token::End || next == Token::Comma) {
                requirement.op = LabelRequirement::Op::Exists;
            } else {
                const Token op = parser.take();
                switch (op.type) {
                case Token::Equals:
                case Token::DoubleEquals:
                case Token::NotEquals: {
                    requirement.op =
                        op.type == Token::NotEquals ? LabelRequirement::Op::NotEquals : LabelRequirement::Op::Equals;
                    QString value;
                    if (parser.peek().type == Token::Identifier)
                        value = parser.take().text;
                    else if (parser.peek().type != Token::End && parser.peek().type != Token::Comma) {
                        *error =
                            u"unable to parse requirement: found '%1', expected: identifier"_s.arg(parser.peek().text);
                        return std::nullopt;
                    }
                    if (!checkValue(value, error))
                        return std::nullopt;
                    requirement.values = {value};
                    break;
                }
                case Token::In:
                case Token::NotIn: {
                    requirement.op = op.type == Token::In ? LabelRequirement::Op::In : LabelRequirement::Op::NotIn;
                    if (parser.take().type != Token::Open) {
                        *error = u"unable to parse requirement: found '%1', expected: '('"_s.arg(parser.peek().text);
                        return std::nullopt;
                    }
                    for (;;) {
                        const Token value = parser.take();
                        if (value.type == Token::Close && requirement.values.isEmpty())
                            break;
                        if (value.type == Token::Identifier) {
                            if (!checkValue(value.text, error))
                                return std::nullopt;
                            requirement.values.append(value.text);
                        } else if (value.type == Token::Comma || value.type == Token::Close) {
                            requirement.values.append(QString()); // an empty value: `in (a,)`
                            if (value.type == Token::Close)
                                break;
                            continue;
                        } else {
                            *error = u"unable to parse requirement: found '%1', expected: ',', ')' or identifier"_s.arg(
                                value.text);
                            return std::nullopt;
                        }
                        const Token separator = parser.take();
                        if (separator.type == Token::Close)
                            break;
                        if (separator.type != Token::Comma) {
                            *error =
                                u"unable to parse requirement: found '%1', expected: ',' or ')'"_s.arg(separator.text);
                            return std::nullopt;
                        }
                    }
                    if (requirement.values.isEmpty()) {
                        *error = u"unable to parse requirement: values: Invalid value: \"\": for 'in', 'notin' "
                                 "operators, values set can't be empty"_s;
                        return std::nullopt;
                    }
                    break;
                }
                case Token::Greater:
                case Token::Less: {
                    requirement.op =
                        op.type == Token::Greater ? LabelRequirement::Op::GreaterThan : LabelRequirement::Op::LessThan;
                    const Token value = parser.take();
                    bool ok = false;
                    value.text.toLongLong(&ok);
                    if (value.type != Token::Identifier || !ok) {
                        *error = u"unable to parse requirement: values[0]: Invalid value: \"%1\": for 'Gt', 'Lt' "
                                 "operators, the value must be an integer"_s.arg(value.text);
                        return std::nullopt;
                    }
                    requirement.values = {value.text};
                    break;
                }
                default:
                    *error = u"unable to parse requirement: found '%1', expected: in, notin, =, ==, !=, gt, lt"_s.arg(
                        op.text);
                    return std::nullopt;
                }
            }
        } else {
            *error = u"unable to parse requirement: found '%1', expected: !, identifier, or 'end of string'"_s.arg(
                token.text);
            return std::nullopt;
        }
        selector.m_requirements.append(requirement);
        const Token after = parser.take();
        if (after.type == Token::End)
            break;
        if (after.type != Token::Comma) {
            *error = u"found '%1', expected: ',' or 'end of string'"_s.arg(after.text);
            return std::nullopt;
        }
    }
    return selector;
}

bool LabelSelector::matches(const QJsonObject &labels) const
{
    for (const LabelRequirement &requirement : m_requirements) {
        const auto it = labels.constFind(requirement.key);
        const bool has = it != labels.constEnd();
        const QString value = has ? it.value().toString() : QString();
        switch (requirement.op) {
        case LabelRequirement::Op::Equals:
            if (!has || value != requirement.values.value(0))
                return false;
            break;
        case LabelRequirement::Op::NotEquals:
            if (has && value == requirement.values.value(0))
                return false;
            break;
        case LabelRequirement::Op::In:
            if (!has || !requirement.values.contains(value))
                return false;
            break;
        case LabelRequirement::Op::NotIn:
            if (has && requirement.values.contains(value))
                return false;
            break;
        case LabelRequirement::Op::Exists:
            if (!has)
                return false;
            break;
        case LabelRequirement::Op::DoesNotExist:
            if (has)
                return false;
            break;
        case LabelRequirement::Op::GreaterThan:
        case LabelRequirement::Op::LessThan: {
            bool ok = false;
            const qint64 number = value.toLongLong(&ok);
            if (!has || !ok)
                return false;
            const qint64 bound = requirement.values.value(0).toLongLong();
            if (requirement.op == LabelRequirement::Op::GreaterThan ? number <= bound : number >= bound)
                return false;
            break;
        }
        }
    }
    return true;
}

QList<QPair<QString, QString>> LabelSelector::equalities() const
{
    QList<QPair<QString, QString>> out;
    for (const LabelRequirement &requirement : m_requirements) {
        if (requirement.op == LabelRequirement::Op::Equals)
            out.append({requirement.key, requirement.values.value(0)});
    }
    return out;
}

std::optional<FieldSelector> FieldSelector::parse(const QString &text, const QStringList &supported, QString *error)
{
    FieldSelector selector;
    if (text.trimmed().isEmpty())
        return selector;
    // Terms are split at unescaped commas; `\,`, `\=`, `\!` and `\\` are escapes.
    QStringList terms;
    QString current;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (c == u'\\' && i + 1 < text.size()) {
            current += c;
            current += text.at(++i);
        } else if (c == u',') {
            terms.append(current);
            current.clear();
        } else {
            current += c;
        }
    }
    terms.append(current);
    const auto unescape = [](const QString &value) {
        QString out;
        for (qsizetype i = 0; i < value.size(); ++i) {
            if (value.at(i) == u'\\' && i + 1 < value.size())
                ++i;
            out += value.at(i);
        }
        return out;
    };
    for (const QString &term : terms) {
        Term parsed;
        qsizetype at = -1;
        qsizetype length = 0;
        for (qsizetype i = 0; i < term.size(); ++i) {
            if (term.at(i) == u'\\') {
                ++i;
                continue;
            }
            if (term.mid(i, 2) == u"!="_s) {
                at = i, length = 2, parsed.equals = false;
                break;
            }
            if (term.mid(i, 2) == u"=="_s) {
                at = i, length = 2;
                break;
            }
            if (term.at(i) == u'=') {
                at = i, length = 1;
                break;
            }
        }
        if (at < 0) {
            *error = u"invalid selector: '%1'; can't understand '%2'"_s.arg(text, term);
            return std::nullopt;
        }
        parsed.field = term.left(at).trimmed();
        parsed.value = unescape(term.mid(at + length));
        if (!supported.contains(parsed.field)) {
            *error = u"field label not supported: "_s + parsed.field;
            return std::nullopt;
        }
        selector.m_terms.append(parsed);
    }
    return selector;
}

bool FieldSelector::matches(const std::function<QString(const QString &)> &valueOf) const
{
    for (const Term &term : m_terms) {
        if ((valueOf(term.field) == term.value) != term.equals)
            return false;
    }
    return true;
}

} // namespace PaddockFake::Kube
