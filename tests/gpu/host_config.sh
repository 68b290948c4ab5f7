# Sourced by the GPU scripts: points the host configuration at this
# machine's cuBLAS (the build's host.json names the toolkit directory of the
# machine that built it). Needs $work (a private directory) and $results.
cublas=$(ldconfig -p 2>/dev/null | awk '/libcublas\.so\.13 /{print $NF; exit}')
[[ -n "$cublas" ]] || cublas=$(find / -xdev -name 'libcublas.so.13' 2>/dev/null | head -1)
if [[ -n "$cublas" ]]; then
  cublas_dir=$(dirname "$(readlink -f "$cublas")")
  echo "{\"library_directories\": [\"$cublas_dir\"]}" >"$work/host.json"
  export ALGENTA_HOST_CONFIG="$work/host.json"
  echo "cuBLAS found in $cublas_dir (host configuration $work/host.json)" >"$results/host_config.log"
fi
