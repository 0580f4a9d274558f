// libFuzzer target: bytes as a client sends them, through parse_request()
// (the same Beast parser settings the server uses) and the router's path
// splitting. A request parses, or is refused with a reason; a parsed one has
// a method, a target starting with '/', and a path that is its prefix. Built
// with SION_FUZZ_CORPUS_TOOL, the same file writes the seed corpus.

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "sion/http/parse.hpp"
#include "sion/http/router.hpp"

#ifdef SION_FUZZ_CORPUS_TOOL
int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::filesystem::path folder(argv[1]);
  std::filesystem::create_directories(folder);
  const char* seeds[] = {
      "GET /v1/pulses/7/shares/1/2?proof=true HTTP/1.1\r\nHost: x\r\n\r\n",
      "POST /v1/tx HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{\"a\":1}",
      "POST /v1/tx HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
      "GET /v1/events HTTP/1.1\r\nAccept: text/event-stream\r\nLast-Event-ID: 41\r\n\r\n",
      "GET /a%2Fb?x=%41+b&y HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
  };
  int written = 0;
  for (const char* seed : seeds) {
    std::ofstream out(folder / ("request-" + std::to_string(written++)), std::ios::binary);
    out << seed;
  }
  return 0;
}
#else
namespace {

sion::http::ServerOptions options() {
  sion::http::ServerOptions small;
  small.max_header_bytes = 4096;
  small.max_body_bytes = 4096;
  return small;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const sion::http::ServerOptions limits = options();
  auto request = sion::http::parse_request(sion::base::ByteView(data, size), limits);
  if (!request) {
    if (request.error().reason.empty()) std::abort();
    return 0;
  }
  if (request->method.empty() || request->target.empty() || request->target.front() != '/') std::abort();
  if (request->target.compare(0, request->path.size(), request->path) != 0) std::abort();
  if (request->body.size() > limits.max_body_bytes) std::abort();
  auto segments = sion::http::split_path(request->path);
  if (!segments && segments.error().reason.empty()) std::abort();
  return 0;
}
#endif
