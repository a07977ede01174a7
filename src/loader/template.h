// Renders mustache templates strictly (the record mode's per-probe eBPF
// functions, generated from the probe set): a placeholder with no value is
// an error, and only checked values can enter generated source.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace kdelay {

// True for a C identifier: [A-Za-z_][A-Za-z0-9_]*.
bool is_c_identifier(const std::string& s);

class TemplateValues {
public:
    void number(const std::string& name, uint64_t value);
    // Throws Error(Exit::config) unless value is a C identifier.
    void identifier(const std::string& name, const std::string& value);
    // A {{#name}}...{{/name}} section, rendered when on is true.
    void section(const std::string& name, bool on);
    // Trusted text compiled into kdelay (an embedded header), for {{> name}}.
    void partial(const std::string& name, const std::string& text);

private:
    friend std::string render_template(const std::string&, const std::string&,
                                       const TemplateValues&);
    std::map<std::string, std::string> scalars_;
    std::map<std::string, bool> sections_;
    std::map<std::string, std::string> partials_;
};

// Renders the template text named template_name. Throws
// Error(Exit::software) for a placeholder without a value or a syntax error.
std::string render_template(const std::string& template_name, const std::string& text,
                            const TemplateValues& values);

}  // namespace kdelay
