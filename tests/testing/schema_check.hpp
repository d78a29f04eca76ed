#pragma once
// JSON Schema (draft 7) validation in C++, for the fuzz harness (fuzz/), which asserts that every output of
// a run that succeeds validates against its schema, thousands of times a second, where starting python per
// document is too slow. Covers the keywords schemas/ uses: type, properties, required,
// additionalProperties, propertyNames, items, minItems, maxItems, enum, const, minimum, maximum,
// exclusiveMinimum, exclusiveMaximum, minLength, pattern, oneOf, anyOf, allOf, $ref (local and across
// files by $id). An unknown keyword is an error in the schema, so nothing is silently not checked. The
// tests hold it to python3-jsonschema's verdict (tests/test_robustness.cpp).
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace rpl::test {

class SchemaSet {
 public:
  // Loads every *.schema.json of `dir`.
  explicit SchemaSet(const std::string& dir);
  // "" when `doc` is valid against schemas/<name>.schema.json, else the first problem with its JSON path.
  // Not thread-safe: compiled patterns and resolved $refs are cached on first use.
  std::string validate(const std::string& name, const nlohmann::json& doc) const;

  SchemaSet(SchemaSet&&) noexcept;
  ~SchemaSet();

  struct Cache;  // compiled patterns and resolved $refs (schema_check.cpp)

 private:
  std::unique_ptr<Cache> cache_;
  nlohmann::json by_id_;  // $id -> schema
  nlohmann::json by_name_;  // name -> $id
};

}  // namespace rpl::test
