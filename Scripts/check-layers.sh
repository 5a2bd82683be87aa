#!/usr/bin/env bash
# The core's layers call downward only (DESIGN.md, "Layers and data flow"):
#
#   4 forwarding  closures, forwarders
#   3 tables      registry, handlers, read sections' users, the emission, hooks, queues
#   2 calls       values' conversions, signatures, struct layouts, stubs, invocations
#   1 base        values and errors, read sections and deferred freeing
#   0 platform    what is not C11 and POSIX (platform.h): Linux's side or POSIX's
#
# Reads the library's objects with nm: an object that uses a symbol another
# object defines must not sit in a lower layer than it. Every object must be
# placed in a layer here, so a new file is placed when it is added.
#
#   Scripts/check-layers.sh OBJECT_DIR [NM]
set -euo pipefail
objects=${1:?usage: check-layers.sh OBJECT_DIR [NM]}
nm=${2:-nm}

declare -A layer=(
    [platform_linux]=0 [platform_posix]=0
    [types]=1 [reclaim]=1
    [signature]=2 [layout_ids]=2 [libffi_defects]=2 [stubs]=2 [invocation]=2
    [registry]=3 [registration]=3 [removal]=3 [execute]=3 [shapes]=3
    [hooks]=3 [queue]=3 [introspection]=3
    [closure]=4 [forwarder]=4
)
names=([0]=platform [1]=base [2]=calls [3]=tables [4]=forwarding)

declare -A defined_in=()
status=0
for object in "$objects"/*.o; do
    name=$(basename "$object" .o)
    if [[ -z ${layer[$name]:-} ]]; then
        echo "check-layers: $name.o is in no layer; place it in Scripts/check-layers.sh" >&2
        status=1
        continue
    fi
    while read -r symbol; do defined_in[$symbol]=$name; done < <("$nm" --defined-only "$object" | awk '$2 ~ /^[TDBR]$/ {print $3}')
done

for object in "$objects"/*.o; do
    name=$(basename "$object" .o)
    [[ -n ${layer[$name]:-} ]] || continue
    while read -r symbol; do
        owner=${defined_in[$symbol]:-}
        [[ -n $owner ]] || continue
        if ((layer[$owner] > layer[$name])); then
            echo "check-layers: $name.o (${names[${layer[$name]}]}) calls up into $owner.o" \
                 "(${names[${layer[$owner]}]}): $symbol" >&2
            status=1
        fi
    done < <("$nm" --undefined-only "$object" | awk '{print $NF}')
done
if ((status == 0)); then
    echo "check-layers: ${#layer[@]} files in 5 layers, every call downward or within a layer"
fi
exit $status
