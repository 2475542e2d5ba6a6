#!/bin/sh
# Usage: check_product_objects.sh ISA OBJECT [ISA OBJECT ...]
# Each product object (layer/product_kernel.cpp, compiled once per instruction set) may define
# shared inline code and template instances only inside its own renamed Eigen namespace
# (Eigen_<isa>) or its own tp::products::<isa>: a weak symbol anywhere else could be merged by the
# linker with another object's copy, and code built for a wider instruction set would then run on
# a CPU without it. Lists every such symbol and fails if there is one.
status=0
while [ "$#" -ge 2 ]; do
    isa=$1
    object=$2
    shift 2
    leaks=$(nm -C "$object" | awk '$(NF-1) ~ /^[WVu]$/' | grep -v -e "Eigen_${isa}::" \
        -e "tp::products::${isa}::" -e "DW.ref.__gxx_personality_v0")
    if [ -n "$leaks" ]; then
        echo "$object ($isa) defines shared code outside its own namespaces:"
        echo "$leaks"
        status=1
    else
        echo "$object ($isa): every shared symbol is its own"
    fi
done
exit $status
