#include "loader/template.h"

#include <kainjow/mustache.hpp>
#include <regex>

#include "core/error.h"

namespace kdelay {

namespace mstch = kainjow::mustache;

bool is_c_identifier(const std::string& s)
{
    static const std::regex ident("[A-Za-z_][A-Za-z0-9_]*");
    return std::regex_match(s, ident);
}

void TemplateValues::number(const std::string& name, uint64_t value)
{
    scalars_[name] = std::to_string(value);
}

void TemplateValues::identifier(const std::string& name, const std::string& value)
{
    if (!is_c_identifier(value))
        throw Error(Exit::config, "'" + value + "' is not a valid C identifier for " + name);
    scalars_[name] = value;
}

void TemplateValues::section(const std::string& name, bool on) { sections_[name] = on; }

void TemplateValues::partial(const std::string& name, const std::string& text)
{
    // The tag's own line ends with a newline: the text's last one would
    // double it.
    partials_[name] = !text.empty() && text.back() == '\n' ? text.substr(0, text.size() - 1) : text;
}

std::string render_template(const std::string& template_name, const std::string& text,
                            const TemplateValues& values)
{
    // Mustache renders a missing name as nothing; here that is a bug, so
    // every tag is checked first, in the template and in its partials.
    // One name, one kind: mustache keeps only the last value set for a name,
    // so a partial named like a section would silently turn the section on.
    for (const auto& [name, on] : values.sections_)
        if (values.partials_.count(name) || values.scalars_.count(name))
            throw Error(Exit::software, template_name + ": '" + name + "' is both a section and a value");
    for (const auto& [name, body] : values.partials_)
        if (values.scalars_.count(name))
            throw Error(Exit::software, template_name + ": '" + name + "' is both a partial and a value");
    static const std::regex tag(R"(\{\{\{?\s*([#^/>&!]?)\s*([^}\s]*)\s*\}?\}\})");
    std::string all = text;
    for (const auto& [name, body] : values.partials_)
        all += body;
    for (std::sregex_iterator it(all.begin(), all.end(), tag), end; it != end; ++it) {
        const std::string kind = (*it)[1];
        const std::string name = (*it)[2];
        bool known = kind == "!" ? true
                   : kind == ">" ? values.partials_.count(name) > 0
                   : (kind == "#" || kind == "^" || kind == "/") ? values.sections_.count(name) > 0
                                                                 : values.scalars_.count(name) > 0;
        if (!known)
            throw Error(Exit::software,
                        template_name + ": no value for placeholder '" + name + "'");
    }

    mstch::data data;
    for (const auto& [name, value] : values.scalars_)
        data.set(name, value);
    for (const auto& [name, on] : values.sections_)
        data.set(name, on ? mstch::data::type::bool_true : mstch::data::type::bool_false);
    for (const auto& [name, body] : values.partials_) {
        const std::string copy = body;
        data.set(name, mstch::partial([copy] { return copy; }));
    }

    mstch::mustache tmpl(text);
    tmpl.set_custom_escape([](const std::string& s) { return s; });  // C, not HTML
    if (!tmpl.is_valid())
        throw Error(Exit::software, template_name + ": " + tmpl.error_message());
    std::string out = tmpl.render(data);
    if (!tmpl.is_valid())
        throw Error(Exit::software, template_name + ": " + tmpl.error_message());
    return out;
}

}  // namespace kdelay
