#include "testing/schema_check.hpp"

#include <re2/re2.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

namespace rpl::test {

using nlohmann::json;

struct SchemaSet::Cache {
  struct Ref {
    const json* schema;
    std::string file;  // the $id the target belongs to
  };
  std::map<std::string, std::unique_ptr<RE2>> regexes;
  std::map<std::string, Ref> refs;  // "base target" -> resolved schema
};

namespace {

bool has_type(const json& v, const std::string& t) {
  if (t == "null") return v.is_null();
  if (t == "boolean") return v.is_boolean();
  if (t == "object") return v.is_object();
  if (t == "array") return v.is_array();
  if (t == "string") return v.is_string();
  if (t == "number") return v.is_number();
  if (t == "integer")
    return v.is_number_integer() || (v.is_number_float() && std::isfinite(v.get<double>()) &&
                                     std::floor(v.get<double>()) == v.get<double>());
  throw std::runtime_error("schema: unknown type " + t);
}

enum class Keyword { Ignored, Properties, Ref, Type, Enum, Const, Required, Items, MinItems, MaxItems, MinLength,
                     Minimum, Maximum, ExclusiveMinimum, ExclusiveMaximum, Pattern, PropertyNames, OneOf, AnyOf,
                     AllOf };

// One hash lookup per keyword instead of a chain of string comparisons (the checker runs on every output
// of every fuzz input).
Keyword keyword_of(const std::string& key) {
  static const std::unordered_map<std::string_view, Keyword> kKeywords = {
      {"description", Keyword::Ignored}, {"title", Keyword::Ignored}, {"$schema", Keyword::Ignored},
      {"$id", Keyword::Ignored}, {"definitions", Keyword::Ignored}, {"$comment", Keyword::Ignored},
      {"default", Keyword::Ignored}, {"examples", Keyword::Ignored}, {"properties", Keyword::Properties},
      {"additionalProperties", Keyword::Properties}, {"$ref", Keyword::Ref}, {"type", Keyword::Type},
      {"enum", Keyword::Enum}, {"const", Keyword::Const}, {"required", Keyword::Required},
      {"items", Keyword::Items}, {"minItems", Keyword::MinItems}, {"maxItems", Keyword::MaxItems},
      {"minLength", Keyword::MinLength}, {"minimum", Keyword::Minimum}, {"maximum", Keyword::Maximum},
      {"exclusiveMinimum", Keyword::ExclusiveMinimum}, {"exclusiveMaximum", Keyword::ExclusiveMaximum},
      {"pattern", Keyword::Pattern}, {"propertyNames", Keyword::PropertyNames}, {"oneOf", Keyword::OneOf},
      {"anyOf", Keyword::AnyOf}, {"allOf", Keyword::AllOf}};
  auto found = kKeywords.find(key);
  if (found == kKeywords.end()) throw std::runtime_error("schema keyword not supported by the C++ checker: " + key);
  return found->second;
}

// Where a value sits in the document, as a chain of frames on the stack: the "$/a/0/b" text is built only
// for the one path an error message needs (building it for every value was most of the checker's time).
struct Path {
  const Path* parent = nullptr;
  std::string_view key;  // a property name, unless is_index
  std::size_t index = 0;
  bool is_index = false;
  const char* suffix = "";
  std::string str() const {
    if (!parent) return "$";
    return parent->str() + "/" + (is_index ? std::to_string(index) : std::string(key)) + suffix;
  }
};

class Checker {
 public:
  Checker(const json& by_id, SchemaSet::Cache& cache) : by_id_(by_id), cache_(cache) {}

  // `base`: the $id of the schema file `s` belongs to.
  std::string check(const json& s, const std::string& base, const json& v, const Path& at) const {
    if (s.is_boolean()) return s.get<bool>() ? "" : at.str() + ": no value allowed here";
    for (const auto& [key, arg] : s.items()) {
      const Keyword k = keyword_of(key);
      if (k == Keyword::Ignored || k == Keyword::Properties) continue;
      std::string e = keyword(k, key, arg, base, v, at);
      if (!e.empty()) return e;
    }
    if (!v.is_object()) return "";
    const auto props = s.find("properties");
    const auto additional = s.find("additionalProperties");
    if (props == s.end() && additional == s.end()) return "";
    for (const auto& [name, value] : v.items()) {
      const Path here{&at, name};
      if (props != s.end()) {
        const auto schema = props->find(name);
        if (schema != props->end()) {
          std::string e = check(*schema, base, value, here);
          if (!e.empty()) return e;
          continue;
        }
      }
      if (additional != s.end()) {
        std::string e = check(*additional, base, value, here);
        if (!e.empty()) return e.find("no value allowed") != std::string::npos ? at.str() + ": unexpected property " + name : e;
      }
    }
    return "";
  }

 private:
  std::string keyword(Keyword k, const std::string& key, const json& arg, const std::string& base, const json& v,
                      const Path& at) const {
    if (k == Keyword::Ref) return ref(arg.get_ref<const std::string&>(), base, v, at);
    if (k == Keyword::Type) {
      if (arg.is_string()) return has_type(v, arg.get_ref<const std::string&>()) ? "" : at.str() + ": not of type " + arg.get<std::string>();
      for (const auto& t : arg)
        if (has_type(v, t.get_ref<const std::string&>())) return "";
      return at.str() + ": not of type " + arg.dump();
    }
    if (k == Keyword::Enum) {
      for (const auto& option : arg)
        if (equal(option, v)) return "";
      return at.str() + ": " + v.dump().substr(0, 80) + " is not one of " + arg.dump();
    }
    if (k == Keyword::Const) return equal(arg, v) ? "" : at.str() + ": is not " + arg.dump();
    if (k == Keyword::Required) {
      if (!v.is_object()) return "";
      for (const auto& name : arg)
        if (!v.contains(name.get_ref<const std::string&>()))
          return at.str() + ": required property " + name.get<std::string>() + " missing";
      return "";
    }
    if (k == Keyword::Items) {
      if (!v.is_array()) return "";
      for (std::size_t i = 0; i < v.size(); ++i) {
        std::string e = check(arg, base, v[i], Path{&at, {}, i, true});
        if (!e.empty()) return e;
      }
      return "";
    }
    if (k == Keyword::MinItems) return v.is_array() && v.size() < arg.get<std::size_t>() ? at.str() + ": too few items" : "";
    if (k == Keyword::MaxItems) return v.is_array() && v.size() > arg.get<std::size_t>() ? at.str() + ": too many items" : "";
    if (k == Keyword::MinLength)
      return v.is_string() && v.get_ref<const std::string&>().size() < arg.get<std::size_t>() ? at.str() + ": too short" : "";
    if (k == Keyword::Minimum) return v.is_number() && !(v.get<double>() >= arg.get<double>()) ? at.str() + ": below minimum" : "";
    if (k == Keyword::Maximum) return v.is_number() && !(v.get<double>() <= arg.get<double>()) ? at.str() + ": above maximum" : "";
    if (k == Keyword::ExclusiveMinimum)
      return v.is_number() && !(v.get<double>() > arg.get<double>()) ? at.str() + ": not above exclusiveMinimum" : "";
    if (k == Keyword::ExclusiveMaximum)
      return v.is_number() && !(v.get<double>() < arg.get<double>()) ? at.str() + ": not below exclusiveMaximum" : "";
    if (k == Keyword::Pattern) {
      if (!v.is_string()) return "";
      return RE2::PartialMatch(v.get_ref<const std::string&>(), regex(arg.get_ref<const std::string&>()))
                 ? ""
                 : at.str() + ": does not match " + arg.dump();
    }
    if (k == Keyword::PropertyNames) {
      if (!v.is_object()) return "";
      for (const auto& [name, value] : v.items()) {
        (void)value;
        std::string e = check(arg, base, json(name), Path{&at, name, 0, false, " (name)"});
        if (!e.empty()) return e;
      }
      return "";
    }
    if (k == Keyword::OneOf || k == Keyword::AnyOf) {
      int matches = 0;
      std::string first;
      for (const auto& option : arg) {
        std::string e = check(option, base, v, at);
        if (e.empty()) ++matches;
        else if (first.empty()) first = e;
        if (k == Keyword::AnyOf && matches > 0) return "";
      }
      if (matches == 0) return at.str() + ": matches none of " + key + " (" + first + ")";
      if (k == Keyword::OneOf && matches > 1) return at.str() + ": matches more than one of oneOf";
      return "";
    }
    if (k == Keyword::AllOf) {
      for (const auto& option : arg) {
        std::string e = check(option, base, v, at);
        if (!e.empty()) return e;
      }
      return "";
    }
    throw std::logic_error("schema keyword without a rule: " + key);
  }

  static bool equal(const json& a, const json& b) {
    if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
    return a == b;
  }

  // Compiled once per pattern for the life of the SchemaSet.
  const RE2& regex(const std::string& pattern) const {
    auto& slot = cache_.regexes[pattern];
    if (!slot) slot = std::make_unique<RE2>(pattern);
    return *slot;
  }

  std::string ref(const std::string& target, const std::string& base, const json& v, const Path& at) const {
    const std::string key = base + " " + target;
    auto found = cache_.refs.find(key);
    if (found == cache_.refs.end()) {
      auto hash = target.find('#');
      std::string file = hash == 0 ? base : target.substr(0, hash);
      std::string pointer = hash == std::string::npos ? "" : target.substr(hash + 1);
      if (!by_id_.contains(file)) throw std::runtime_error("schema: unknown $ref " + target);
      const json& schema = by_id_.at(file);
      const json& sub = pointer.empty() ? schema : schema.at(json::json_pointer(pointer));
      found = cache_.refs.emplace(key, SchemaSet::Cache::Ref{&sub, file}).first;
    }
    return check(*found->second.schema, found->second.file, v, at);
  }

  const json& by_id_;
  SchemaSet::Cache& cache_;
};

}  // namespace

SchemaSet::SchemaSet(SchemaSet&&) noexcept = default;
SchemaSet::~SchemaSet() = default;

SchemaSet::SchemaSet(const std::string& dir) : cache_(std::make_unique<Cache>()) {
  by_id_ = json::object();
  by_name_ = json::object();
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    const std::string suffix = ".schema.json";
    if (name.size() <= suffix.size() || name.substr(name.size() - suffix.size()) != suffix) continue;
    std::ifstream in(entry.path());
    json schema = json::parse(in);
    std::string id = schema.at("$id");
    by_name_[name.substr(0, name.size() - suffix.size())] = id;
    by_id_[id] = std::move(schema);
  }
}

std::string SchemaSet::validate(const std::string& name, const nlohmann::json& doc) const {
  if (!by_name_.contains(name)) throw std::runtime_error("no schema named " + name);
  const std::string& id = by_name_.at(name).get_ref<const std::string&>();
  return Checker(by_id_, *cache_).check(by_id_.at(id), id, doc, Path{});
}

}  // namespace rpl::test
