#include "validation.h"

#include <QJsonArray>
#include <QRegularExpression>
#include <QSet>

#include <cmath>

using namespace Qt::StringLiterals;

namespace PaddockFake::Kube {

namespace {

const QString Dns1123LabelFormat = u"[a-z0-9]([-a-z0-9]*[a-z0-9])?"_s;
const QString Dns1123SubdomainFormat = Dns1123LabelFormat + u"(\\." + Dns1123LabelFormat + u")*";
const QString QualifiedNameFormat = u"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"_s;
const QString LabelValueFormat = u"(" + QualifiedNameFormat + u")?";

bool fullMatch(const QString &pattern, const QString &value)
{
    static QHash<QString, QRegularExpression> cache;
    auto it = cache.find(pattern);
    if (it == cache.end())
        it = cache.insert(pattern, QRegularExpression(QRegularExpression::anchoredPattern(pattern)));
    return it->match(value).hasMatch();
}

// apimachinery's RegexError: the message, examples, and the pattern.
QString regexError(const QString &message, const QString &format, const QStringList &examples)
{
    QString out = message + u" (e.g. "_s;
    for (qsizetype i = 0; i < examples.size(); ++i) {
        if (i > 0)
            out += u" or "_s;
        out += u"'"_s + examples.at(i) + u"', "_s;
    }
    return out + u"regex used for validation is '"_s + format + u"')"_s;
}

QString maxLenError(int length)
{
    return u"must be no more than %1 characters"_s.arg(length);
}

// Go's %q for the strings these messages quote.
QString quoted(const QString &value)
{
    QString out = u"\""_s;
    for (const QChar c : value) {
        if (c == u'"' || c == u'\\')
            out += u'\\';
        out += c;
    }
    return out + u"\""_s;
}

QString jsonTypeName(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::String:
        return u"string"_s;
    case QJsonValue::Double:
        return u"number"_s;
    case QJsonValue::Bool:
        return u"bool"_s;
    case QJsonValue::Array:
        return u"array"_s;
    default:
        return u"object"_s;
    }
}

QString shortName(const QString &schemaName)
{
    return schemaName.section(u'.', -1);
}

} // namespace

QStringList dns1123LabelErrors(const QString &value)
{
    QStringList errors;
    if (value.size() > 63)
        errors.append(maxLenError(63));
    if (!fullMatch(Dns1123LabelFormat, value)) {
        errors.append(regexError(u"a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
                                 "'-', and must start and end with an alphanumeric character"_s,
                                 Dns1123LabelFormat, {u"my-name"_s, u"123-abc"_s}));
    }
    return errors;
}

QStringList dns1123SubdomainErrors(const QString &value)
{
    QStringList errors;
    if (value.size() > 253)
        errors.append(maxLenError(253));
    if (!fullMatch(Dns1123SubdomainFormat, value)) {
        errors.append(regexError(u"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
                                 "'-' or '.', and must start and end with an alphanumeric character"_s,
                                 Dns1123SubdomainFormat, {u"example.com"_s}));
    }
    return errors;
}

QStringList qualifiedNameErrors(const QString &value)
{
    const QString message =
        u"must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"_s;
    const QStringList examples{u"MyName"_s, u"my.name"_s, u"123-abc"_s};
    QStringList errors;
    const QStringList parts = value.split(u'/');
    QString name = value;
    if (parts.size() == 2) {
        const QString prefix = parts.at(0);
        name = parts.at(1);
        if (prefix.isEmpty()) {
            errors.append(u"prefix part must be non-empty"_s);
        } else {
            for (const QString &error : dns1123SubdomainErrors(prefix))
                errors.append(u"prefix part "_s + error);
        }
    } else if (parts.size() > 2) {
        return {u"a qualified name "_s + regexError(message, QualifiedNameFormat, examples)
                + u" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"_s};
    }
    if (name.isEmpty())
        errors.append(u"name part must be non-empty"_s);
    else if (name.size() > 63)
        errors.append(u"name part "_s + maxLenError(63));
    if (!fullMatch(QualifiedNameFormat, name))
        errors.append(u"name part "_s + regexError(message, QualifiedNameFormat, examples));
    return errors;
}

QStringList labelValueErrors(const QString &value)
{
    QStringList errors;
    if (value.size() > 63)
        errors.append(maxLenError(63));
    if (!fullMatch(LabelValueFormat, value)) {
        errors.append(regexError(u"a valid label must be an empty string or consist of alphanumeric characters, '-', "
                                 "'_' or '.', and must start and end with an alphanumeric character"_s,
                                 LabelValueFormat, {u"MyValue"_s, u"my_value"_s, u"12345"_s}));
    }
    return errors;
}

QString invalidValue(const QString &value, const QString &detail)
{
    return u"Invalid value: "_s + quoted(value) + (detail.isEmpty() ? QString() : u": "_s + detail);
}

QString requiredValue(const QString &detail)
{
    return detail.isEmpty() ? u"Required value"_s : u"Required value: "_s + detail;
}

QString unsupportedValue(const QString &value, const QStringList &supported)
{
    QStringList quotedValues;
    for (const QString &s : supported)
        quotedValues.append(quoted(s));
    return u"Unsupported value: "_s + quoted(value) + u": supported values: "_s + quotedValues.join(u", "_s);
}

QString notFoundValue(const QString &value)
{
    return u"Not found: "_s + quoted(value);
}

QString duplicateValue(const QString &value)
{
    return u"Duplicate value: "_s + quoted(value);
}

StatusCause invalidCause(const QString &field, const QString &value, const QString &detail)
{
    return {u"FieldValueInvalid"_s, invalidValue(value, detail), field};
}

StatusCause requiredCause(const QString &field, const QString &detail)
{
    return {u"FieldValueRequired"_s, requiredValue(detail), field};
}

QList<StatusCause> validateMetadata(const QJsonObject &metadata, QStringList (*nameErrors)(const QString &))
{
    QList<StatusCause> causes;
    const QString name = metadata.value(u"name"_s).toString();
    const QString generateName = metadata.value(u"generateName"_s).toString();
    if (name.isEmpty() && generateName.isEmpty()) {
        causes.append(requiredCause(u"metadata.name"_s, u"name or generateName is required"_s));
    } else if (!name.isEmpty()) {
        for (const QString &error : nameErrors(name))
            causes.append(invalidCause(u"metadata.name"_s, name, error));
    }
    const QJsonObject labels = metadata.value(u"labels"_s).toObject();
    for (auto it = labels.begin(); it != labels.end(); ++it) {
        for (const QString &error : qualifiedNameErrors(it.key()))
            causes.append(invalidCause(u"metadata.labels"_s, it.key(), error));
        const QStringList valueErrors = labelValueErrors(it.value().toString());
        if (!valueErrors.isEmpty())
            causes.append(invalidCause(u"metadata.labels"_s, it.value().toString(), valueErrors.join(u';')));
    }
    const QJsonObject annotations = metadata.value(u"annotations"_s).toObject();
    qint64 total = 0;
    for (auto it = annotations.begin(); it != annotations.end(); ++it) {
        for (const QString &error : qualifiedNameErrors(it.key().toLower()))
            causes.append(invalidCause(u"metadata.annotations"_s, it.key(), error));
        total += it.key().toUtf8().size() + it.value().toString().toUtf8().size();
    }
    if (total > 256 * 1024)
        causes.append(
            {u"FieldValueTooLong"_s, u"Too long: must have at most 262144 bytes"_s, u"metadata.annotations"_s});
    return causes;
}

QList<StatusCause> validatePodSpec(const QJsonObject &spec)
{
    QList<StatusCause> causes;
    QSet<QString> volumes;
    const QJsonArray volumeList = spec.value(u"volumes"_s).toArray();
    for (qsizetype i = 0; i < volumeList.size(); ++i) {
        const QString field = u"spec.volumes[%1].name"_s.arg(i);
        const QString name = volumeList.at(i).toObject().value(u"name"_s).toString();
        if (name.isEmpty()) {
            causes.append(requiredCause(field));
            continue;
        }
        for (const QString &error : dns1123LabelErrors(name))
            causes.append(invalidCause(field, name, error));
        if (volumes.contains(name))
            causes.append({u"FieldValueDuplicate"_s, duplicateValue(name), field});
        volumes.insert(name);
    }
    const QJsonArray containers = spec.value(u"containers"_s).toArray();
    if (containers.isEmpty())
        causes.append(requiredCause(u"spec.containers"_s));
    QSet<QString> names;
    for (qsizetype i = 0; i < containers.size(); ++i) {
        const QJsonObject container = containers.at(i).toObject();
        const QString base = u"spec.containers[%1]"_s.arg(i);
        const QString name = container.value(u"name"_s).toString();
        if (name.isEmpty()) {
            causes.append(requiredCause(base + u".name"_s));
        } else {
            for (const QString &error : dns1123LabelErrors(name))
                causes.append(invalidCause(base + u".name"_s, name, error));
            if (names.contains(name))
                causes.append({u"FieldValueDuplicate"_s, duplicateValue(name), base + u".name"_s});
            names.insert(name);
        }
        if (container.value(u"image"_s).toString().trimmed().isEmpty())
            causes.append(requiredCause(base + u".image"_s));
        const QString pullPolicy = container.value(u"imagePullPolicy"_s).toString();
        const QStringList policies{u"Always"_s, u"IfNotPresent"_s, u"Never"_s};
        if (!pullPolicy.isEmpty() && !policies.contains(pullPolicy))
            causes.append(
                {u"FieldValueNotSupported"_s, unsupportedValue(pullPolicy, policies), base + u".imagePullPolicy"_s});
        const QJsonArray mounts = container.value(u"volumeMounts"_s).toArray();
        for (qsizetype j = 0; j < mounts.size(); ++j) {
            const QJsonObject mount = mounts.at(j).toObject();
            const QString mountBase = base + u".volumeMounts[%1]"_s.arg(j);
            const QString volume = mount.value(u"name"_s).toString();
            if (volume.isEmpty())
                causes.append(requiredCause(mountBase + u".name"_s));
            else if (!volumes.contains(volume))
                causes.append({u"FieldValueNotFound"_s, notFoundValue(volume), mountBase + u".name"_s});
            if (mount.value(u"mountPath"_s).toString().isEmpty())
                causes.append(requiredCause(mountBase + u".mountPath"_s));
        }
    }
    const QString restartPolicy = spec.value(u"restartPolicy"_s).toString();
    const QStringList restartPolicies{u"Always"_s, u"OnFailure"_s, u"Never"_s};
    if (!restartPolicy.isEmpty() && !restartPolicies.contains(restartPolicy))
        causes.append(
            {u"FieldValueNotSupported"_s, unsupportedValue(restartPolicy, restartPolicies), u"spec.restartPolicy"_s});
    const QJsonValue grace = spec.value(u"terminationGracePeriodSeconds"_s);
    if (grace.isDouble() && grace.toDouble() < 0)
        causes.append(invalidCause(u"spec.terminationGracePeriodSeconds"_s, QString::number(grace.toInteger()),
                                   u"must be greater than or equal to 0"_s));
    return causes;
}

QList<StatusCause> validatePvcSpec(const QJsonObject &spec)
{
    QList<StatusCause> causes;
    const QJsonArray modes = spec.value(u"accessModes"_s).toArray();
    const QStringList supported{u"ReadOnlyMany"_s, u"ReadWriteMany"_s, u"ReadWriteOnce"_s, u"ReadWriteOncePod"_s};
    if (modes.isEmpty())
        causes.append(requiredCause(u"spec.accessModes"_s, u"at least 1 access mode is required"_s));
    for (const QJsonValue &mode : modes) {
        if (!supported.contains(mode.toString()))
            causes.append(
                {u"FieldValueNotSupported"_s, unsupportedValue(mode.toString(), supported), u"spec.accessModes"_s});
    }
    const QJsonValue storage =
        spec.value(u"resources"_s).toObject().value(u"requests"_s).toObject().value(u"storage"_s);
    if (storage.isUndefined() || storage.isNull()) {
        causes.append(requiredCause(u"spec.resources[storage]"_s));
    } else {
        const std::optional<double> bytes =
            storage.isDouble() ? std::optional<double>(storage.toDouble()) : parseQuantity(storage.toString());
        if (bytes && *bytes <= 0)
            causes.append(invalidCause(u"spec.resources[storage]"_s, storage.toVariant().toString(),
                                       u"must be greater than zero"_s));
    }
    return causes;
}

std::optional<double> parseQuantity(const QString &text)
{
    static const QRegularExpression pattern{QString(QuantityPattern)};
    const QRegularExpressionMatch match = pattern.match(text);
    if (!match.hasMatch())
        return std::nullopt;
    bool ok = false;
    const double number = match.captured(1).toDouble(&ok);
    if (!ok)
        return std::nullopt;
    const QString suffix = match.captured(2);
    static const QHash<QString, double> factors{{QString(), 1},
                                                {u"n"_s, 1e-9},
                                                {u"u"_s, 1e-6},
                                                {u"m"_s, 1e-3},
                                                {u"k"_s, 1e3},
                                                {u"M"_s, 1e6},
                                                {u"G"_s, 1e9},
                                                {u"T"_s, 1e12},
                                                {u"P"_s, 1e15},
                                                {u"E"_s, 1e18},
                                                {u"Ki"_s, 1024.0},
                                                {u"Mi"_s, 1048576.0},
                                                {u"Gi"_s, 1073741824.0},
                                                {u"Ti"_s, 1099511627776.0},
                                                {u"Pi"_s, 1125899906842624.0},
                                                {u"Ei"_s, 1152921504606846976.0}};
    const auto factor = factors.constFind(suffix);
    if (factor != factors.constEnd())
        return number * *factor;
    if (suffix.startsWith(u'e') || suffix.startsWith(u'E')) {
        const int exponent = suffix.mid(1).toInt(&ok);
        if (ok)
            return number * std::pow(10.0, exponent);
    }
    return std::nullopt;
}

bool SchemaIndex::load(const QJsonObject &document)
{
    const QJsonObject schemas = document.value(u"components"_s).toObject().value(u"schemas"_s).toObject();
    for (auto it = schemas.begin(); it != schemas.end(); ++it)
        m_schemas.insert(it.key(), it.value().toObject());
    return !m_schemas.isEmpty();
}

QJsonObject SchemaIndex::resolve(const QJsonObject &schema, QString *name) const
{
    QJsonObject current = schema;
    for (int depth = 0; depth < 16; ++depth) {
        QString ref = current.value(u"$ref"_s).toString();
        const QJsonArray allOf = current.value(u"allOf"_s).toArray();
        if (ref.isEmpty() && allOf.size() == 1)
            ref = allOf.at(0).toObject().value(u"$ref"_s).toString();
        if (ref.isEmpty())
            break;
        const QString key = ref.section(u'/', -1);
        if (name)
            *name = key;
        current = m_schemas.value(key);
    }
    return current;
}

SchemaIndex::Result SchemaIndex::prune(QJsonObject &object, const QString &name) const
{
    Result result;
    QJsonValue value = object;
    walk(value, m_schemas.value(name), name, QString(), result);
    object = value.toObject();
    return result;
}

void SchemaIndex::walk(QJsonValue &value, const QJsonObject &rawSchema, const QString &typeName, const QString &path,
                       Result &result) const
{
    if (value.isNull() || value.isUndefined())
        return; // Go's decoder leaves the zero value
    QString name = typeName;
    const QJsonObject schema = resolve(rawSchema, &name);
    const auto mistyped = [&](const QString &goType) {
        if (result.typeError.isEmpty()) {
            result.typeError = u"json: cannot unmarshal %1 into Go struct field %2.%3 of type %4"_s.arg(
                jsonTypeName(value), shortName(typeName), path, goType);
        }
    };
    const QJsonArray oneOf = schema.value(u"oneOf"_s).toArray();
    if (!oneOf.isEmpty()) {
        bool fits = false;
        for (const QJsonValue &option : oneOf) {
            const QString type = option.toObject().value(u"type"_s).toString();
            fits = fits || (type == u"string"_s && value.isString())
                || ((type == u"number"_s || type == u"integer"_s) && value.isDouble());
        }
        if (!fits)
            mistyped(shortName(name));
        return;
    }
    const QString type = schema.value(u"type"_s).toString();
    if (type == u"string"_s) {
        if (!value.isString())
            mistyped(u"string"_s);
    } else if (type == u"integer"_s) {
        if (!value.isDouble() || std::floor(value.toDouble()) != value.toDouble())
            mistyped(schema.value(u"format"_s).toString() == u"int32"_s ? u"int32"_s : u"int64"_s);
    } else if (type == u"number"_s) {
        if (!value.isDouble())
            mistyped(u"float64"_s);
    } else if (type == u"boolean"_s) {
        if (!value.isBool())
            mistyped(u"bool"_s);
    } else if (type == u"array"_s) {
        if (!value.isArray()) {
            mistyped(u"[]"_s + shortName(name));
            return;
        }
        QJsonArray array = value.toArray();
        const QJsonObject items = schema.value(u"items"_s).toObject();
        for (qsizetype i = 0; i < array.size(); ++i) {
            QJsonValue item = array.at(i);
            walk(item, items, name, path + u"[%1]"_s.arg(i), result);
            array[i] = item;
        }
        value = array;
    } else if (type == u"object"_s || schema.contains(u"properties"_s)) {
        if (!value.isObject()) {
            mistyped(shortName(name));
            return;
        }
        QJsonObject object = value.toObject();
        const QJsonObject properties = schema.value(u"properties"_s).toObject();
        const QJsonValue additional = schema.value(u"additionalProperties"_s);
        if (properties.isEmpty() && !additional.isObject())
            return; // free-form (FieldsV1, RawExtension)
        const QStringList keys = object.keys();
        for (const QString &key : keys) {
            const QString childPath = path.isEmpty() ? key : path + u'.' + key;
            QJsonValue child = object.value(key);
            if (properties.contains(key)) {
                walk(child, properties.value(key).toObject(), name, childPath, result);
            } else if (additional.isObject()) {
                walk(child, additional.toObject(), name, childPath, result);
            } else {
                result.unknownFields.append(childPath);
                object.remove(key);
                continue;
            }
            object.insert(key, child);
        }
        value = object;
    }
}

} // namespace PaddockFake::Kube
