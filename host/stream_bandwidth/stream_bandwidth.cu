// algenta-stream-bandwidth: the device's plain read bandwidth, the yardstick
// `algenta-host bench` holds decode against. A separate executable, the only
// CUDA code under host/ (algenta-host itself never links CUDA): bench runs
// it as a child process and reads its last line.
//
//   algenta-stream-bandwidth [--device N] [--bytes N] [--runs R]
//
// Reads a buffer of --bytes (default 4 GiB, far beyond any cache) R times
// (default 20) after two untimed warm-up reads, each read one kernel timed
// with CUDA events. The kernel is a plain streaming read: 16-byte vector
// loads in a grid-stride loop, summed per thread and per block into an array
// the host sums afterwards, so no load can be optimised away. Prints
//   {"gbytes_per_s": X, "bytes": N, "runs": R, "median_gbytes_per_s": M,
//    "device": "NAME"}
// where X is bytes / the fastest run (as STREAM reports) and 1 GB = 1e9
// bytes. Exit 1 with a message on stderr for any CUDA error or bad flag.
#include <cuda_runtime.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr int kThreads = 256;
constexpr int kUnroll = 4;

#define CUDA_CHECK(call)                                                               \
  do {                                                                                 \
    const cudaError_t status_ = (call);                                                \
    if (status_ != cudaSuccess) {                                                      \
      std::fprintf(stderr, "algenta-stream-bandwidth: %s failed: %s\n", #call,         \
                   cudaGetErrorString(status_));                                       \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

__global__ void read_stream(const uint4* __restrict__ data, std::uint64_t count,
                            unsigned long long* __restrict__ block_sums) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned long long sum = 0;
  for (; i + (kUnroll - 1) * stride < count; i += kUnroll * stride) {
    uint4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = data[i + u * stride];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) sum += 0ull + v[u].x + v[u].y + v[u].z + v[u].w;
  }
  for (; i < count; i += stride) {
    const uint4 v = data[i];
    sum += 0ull + v.x + v.y + v.z + v.w;
  }
  __shared__ unsigned long long partial[kThreads];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) block_sums[blockIdx.x] = partial[0];
}

bool parse_count(const char* text, bool allow_zero, std::uint64_t& out) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || text[0] == '-') return false;
  if (value == 0 && !allow_zero) return false;
  out = value;
  return true;
}

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "algenta-stream-bandwidth: %s\n"
               "usage: algenta-stream-bandwidth [--device N] [--bytes N] [--runs R]\n",
               why);
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t device = 0;
  std::uint64_t bytes = std::uint64_t{4} << 30;
  std::uint64_t runs = 20;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) usage((flag + " needs a value").c_str());
    const char* value = argv[++i];
    std::uint64_t parsed = 0;
    if (!parse_count(value, flag == "--device", parsed)) {
      usage((flag + " " + value + ": expected a whole number" +
             (flag == "--device" ? "" : " of at least 1")).c_str());
    }
    if (flag == "--device") {
      device = parsed;
    } else if (flag == "--bytes") {
      bytes = parsed;
    } else if (flag == "--runs") {
      runs = parsed;
    } else {
      usage(("unknown flag " + flag).c_str());
    }
  }
  if (bytes % sizeof(uint4) != 0) usage("--bytes must be a multiple of 16");

  CUDA_CHECK(cudaSetDevice(static_cast<int>(device)));
  cudaDeviceProp properties{};
  CUDA_CHECK(cudaGetDeviceProperties(&properties, static_cast<int>(device)));
  int blocks_per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, read_stream, kThreads, 0));
  const int blocks = properties.multiProcessorCount * std::max(blocks_per_sm, 1);

  void* buffer = nullptr;
  unsigned long long* block_sums = nullptr;
  CUDA_CHECK(cudaMalloc(&buffer, bytes));
  CUDA_CHECK(cudaMalloc(&block_sums, sizeof(unsigned long long) * blocks));
  CUDA_CHECK(cudaMemset(buffer, 0x5a, bytes));
  const std::uint64_t count = bytes / sizeof(uint4);

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  for (int warm = 0; warm < 2; ++warm) {
    read_stream<<<blocks, kThreads>>>(static_cast<const uint4*>(buffer), count, block_sums);
  }
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());

  std::vector<double> seconds;
  for (std::uint64_t run = 0; run < runs; ++run) {
    CUDA_CHECK(cudaEventRecord(start));
    read_stream<<<blocks, kThreads>>>(static_cast<const uint4*>(buffer), count, block_sums);
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    CUDA_CHECK(cudaGetLastError());
    float milliseconds = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&milliseconds, start, stop));
    seconds.push_back(milliseconds * 1e-3);
  }

  // The sum proves the reads happened (every byte is 0x5a).
  std::vector<unsigned long long> sums(blocks);
  CUDA_CHECK(cudaMemcpy(sums.data(), block_sums, sizeof(unsigned long long) * blocks,
                        cudaMemcpyDeviceToHost));
  unsigned long long total = 0;
  for (const unsigned long long s : sums) total += s;
  const unsigned long long expected = (bytes / 4) * 0x5a5a5a5aull;
  if (total != expected) {
    std::fprintf(stderr, "algenta-stream-bandwidth: the read sum is %llu, expected %llu\n", total,
                 expected);
    return 1;
  }
  CUDA_CHECK(cudaFree(buffer));
  CUDA_CHECK(cudaFree(block_sums));

  std::sort(seconds.begin(), seconds.end());
  const double best = seconds.front();
  const double median = seconds.size() % 2 == 1
                            ? seconds[seconds.size() / 2]
                            : (seconds[seconds.size() / 2 - 1] + seconds[seconds.size() / 2]) / 2;
  std::string name = properties.name;
  for (char& c : name) {
    if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  std::printf(
      "{\"gbytes_per_s\": %.3f, \"bytes\": %llu, \"runs\": %llu, \"median_gbytes_per_s\": %.3f, "
      "\"device\": \"%s\"}\n",
      static_cast<double>(bytes) / best / 1e9, static_cast<unsigned long long>(bytes),
      static_cast<unsigned long long>(runs), static_cast<double>(bytes) / median / 1e9,
      name.c_str());
  return 0;
}
