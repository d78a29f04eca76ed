#!/usr/bin/python3
"""Validates a JSON document against one of the schemas in schemas/ (cross-file $refs resolved by $id).

Usage: validate_json.py SCHEMA_DIR SCHEMA_NAME DOCUMENT
Exit 0 when valid; 1 with the first errors on stderr when not. Uses Debian's python3-jsonschema.
"""
import json
import pathlib
import sys

import jsonschema


def main() -> int:
    schema_dir, name, document = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    store = {}
    for path in schema_dir.glob("*.schema.json"):
        schema = json.loads(path.read_text())
        store[schema["$id"]] = schema
    schema = json.loads((schema_dir / f"{name}.schema.json").read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    resolver = jsonschema.RefResolver.from_schema(schema, store=store)
    validator = jsonschema.Draft7Validator(schema, resolver=resolver)
    with open(document) as f:
        instance = json.load(f)
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.path))
    for error in errors[:10]:
        location = "/".join(str(p) for p in error.path)
        print(f"{document}: {location}: {error.message[:300]}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
