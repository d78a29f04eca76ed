#include "testing/schema_check.hpp"

#include <re2/re2.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>

namespace rpl::test {

namespace {

using nlohmann::json;

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

const std::set<std::string> kIgnored = {"description", "title", "$schema", "$id", "definitions", "$comment",
                                        "default", "examples"};

class Checker {
 public:
  explicit Checker(const json& by_id) : by_id_(by_id) {}

  // `base`: the $id of the schema file `s` belongs to.
  std::string check(const json& s, const std::string& base, const json& v, const std::string& at) const {
    if (s.is_boolean()) return s.get<bool>() ? "" : at + ": no value allowed here";
    for (const auto& [key, arg] : s.items()) {
      if (kIgnored.count(key) || key == "properties" || key == "additionalProperties") continue;
      std::string e = keyword(key, arg, s, base, v, at);
      if (!e.empty()) return e;
    }
    if (v.is_object() && (s.contains("properties") || s.contains("additionalProperties"))) {
      const json props = s.value("properties", json::object());
      for (const auto& [name, value] : v.items()) {
        if (props.contains(name)) {
          std::string e = check(props[name], base, value, at + "/" + name);
          if (!e.empty()) return e;
        } else if (s.contains("additionalProperties")) {
          std::string e = check(s["additionalProperties"], base, value, at + "/" + name);
          if (!e.empty()) return e.find("no value allowed") != std::string::npos ? at + ": unexpected property " + name : e;
        }
      }
    }
    return "";
  }

 private:
  std::string keyword(const std::string& key, const json& arg, const json& s, const std::string& base, const json& v,
                      const std::string& at) const {
    (void)s;
    if (key == "$ref") return ref(arg.get<std::string>(), base, v, at);
    if (key == "type") {
      if (arg.is_string()) return has_type(v, arg) ? "" : at + ": not of type " + arg.get<std::string>();
      for (const auto& t : arg)
        if (has_type(v, t)) return "";
      return at + ": not of type " + arg.dump();
    }
    if (key == "enum") {
      for (const auto& option : arg)
        if (equal(option, v)) return "";
      return at + ": " + v.dump().substr(0, 80) + " is not one of " + arg.dump();
    }
    if (key == "const") return equal(arg, v) ? "" : at + ": is not " + arg.dump();
    if (key == "required") {
      if (!v.is_object()) return "";
      for (const auto& name : arg)
        if (!v.contains(name.get<std::string>())) return at + ": required property " + name.get<std::string>() + " missing";
      return "";
    }
    if (key == "items") {
      if (!v.is_array()) return "";
      for (std::size_t i = 0; i < v.size(); ++i) {
        std::string e = check(arg, base, v[i], at + "/" + std::to_string(i));
        if (!e.empty()) return e;
      }
      return "";
    }
    if (key == "minItems") return v.is_array() && v.size() < arg.get<std::size_t>() ? at + ": too few items" : "";
    if (key == "maxItems") return v.is_array() && v.size() > arg.get<std::size_t>() ? at + ": too many items" : "";
    if (key == "minLength")
      return v.is_string() && v.get<std::string>().size() < arg.get<std::size_t>() ? at + ": too short" : "";
    if (key == "minimum") return v.is_number() && !(v.get<double>() >= arg.get<double>()) ? at + ": below minimum" : "";
    if (key == "maximum") return v.is_number() && !(v.get<double>() <= arg.get<double>()) ? at + ": above maximum" : "";
    if (key == "exclusiveMinimum")
      return v.is_number() && !(v.get<double>() > arg.get<double>()) ? at + ": not above exclusiveMinimum" : "";
    if (key == "exclusiveMaximum")
      return v.is_number() && !(v.get<double>() < arg.get<double>()) ? at + ": not below exclusiveMaximum" : "";
    if (key == "pattern") {
      if (!v.is_string()) return "";
      return RE2::PartialMatch(v.get<std::string>(), RE2(arg.get<std::string>())) ? ""
                                                                                : at + ": does not match " + arg.dump();
    }
    if (key == "propertyNames") {
      if (!v.is_object()) return "";
      for (const auto& [name, value] : v.items()) {
        (void)value;
        std::string e = check(arg, base, json(name), at + "/" + name + " (name)");
        if (!e.empty()) return e;
      }
      return "";
    }
    if (key == "oneOf" || key == "anyOf") {
      int matches = 0;
      std::string first;
      for (const auto& option : arg) {
        std::string e = check(option, base, v, at);
        if (e.empty()) ++matches;
        else if (first.empty()) first = e;
      }
      if (matches == 0) return at + ": matches none of " + key + " (" + first + ")";
      if (key == "oneOf" && matches > 1) return at + ": matches more than one of oneOf";
      return "";
    }
    if (key == "allOf") {
      for (const auto& option : arg) {
        std::string e = check(option, base, v, at);
        if (!e.empty()) return e;
      }
      return "";
    }
    throw std::runtime_error("schema keyword not supported by the C++ checker: " + key);
  }

  static bool equal(const json& a, const json& b) {
    if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
    return a == b;
  }

  std::string ref(const std::string& target, const std::string& base, const json& v, const std::string& at) const {
    auto hash = target.find('#');
    std::string file = hash == 0 ? base : target.substr(0, hash);
    std::string pointer = hash == std::string::npos ? "" : target.substr(hash + 1);
    if (!by_id_.contains(file)) throw std::runtime_error("schema: unknown $ref " + target);
    const json& schema = by_id_[file];
    const json& sub = pointer.empty() ? schema : schema.at(json::json_pointer(pointer));
    return check(sub, file, v, at);
  }

  const json& by_id_;
};

}  // namespace

SchemaSet::SchemaSet(const std::string& dir) {
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
  std::string id = by_name_[name];
  return Checker(by_id_).check(by_id_[id], id, doc, "$");
}

}  // namespace rpl::test
