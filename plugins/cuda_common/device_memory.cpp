#include "device_memory.hpp"

#include <cstdio>

#include "plugin_support/plugin_error.hpp"

namespace algenta::cuda {

void check_cuda(cudaError_t status, const std::string& what) {
  if (status == cudaSuccess) return;
  const AlgentaStatusCode code =
      status == cudaErrorMemoryAllocation ? ALGENTA_STATUS_OUT_OF_MEMORY : ALGENTA_STATUS_DEVICE;
  throw plugin::StatusError{code, what + ": " + cudaGetErrorName(status) + " (" +
                                      cudaGetErrorString(status) + ")"};
}

DeviceMemoryInfo device_memory_info() {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  check_cuda(cudaMemGetInfo(&free_bytes, &total_bytes), "reading the device's free memory");
  return {free_bytes, total_bytes};
}

std::string byte_text(std::uint64_t bytes) {
  char text[64];
  std::snprintf(text, sizeof(text), "%llu bytes (%.2f MiB)", static_cast<unsigned long long>(bytes),
                static_cast<double>(bytes) / (1024.0 * 1024.0));
  return text;
}

DeviceArena::~DeviceArena() {
  if (base_ != nullptr) cudaFree(base_);
}

std::size_t DeviceArena::plan(std::size_t bytes) {
  const std::size_t offset = (size_ + kAlignment - 1) / kAlignment * kAlignment;
  size_ = offset + bytes;
  return offset;
}

void DeviceArena::allocate(const std::string& what) {
  if (size_ == 0) return;
  const cudaError_t status = cudaMalloc(&base_, size_);
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // clear the sticky-free error so the context stays usable
    throw plugin::StatusError{ALGENTA_STATUS_OUT_OF_MEMORY,
                              what + " needs " + byte_text(size_) + " of device memory; " +
                                  byte_text(device_memory_info().free_bytes) + " are free"};
  }
  check_cuda(status, "allocating " + what);
}

}  // namespace algenta::cuda
