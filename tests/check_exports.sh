#!/usr/bin/env bash
# Fails unless the shared object's dynamic symbol table defines exactly one
# symbol, algenta_plugin_entry.
set -euo pipefail
lib="$1"
defined=$(nm -D --defined-only "$lib" | awk '{print $NF}' | sort)
echo "defined dynamic symbols of $(basename "$lib"):"
echo "$defined"
if [[ "$defined" != "algenta_plugin_entry" ]]; then
  echo "FAIL: expected exactly one exported symbol (algenta_plugin_entry)" >&2
  exit 1
fi
