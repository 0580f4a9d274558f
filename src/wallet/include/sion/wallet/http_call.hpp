#pragma once
// The transport the wallet's clients speak through: one HTTP request, one
// reply. The wallet owns this interface and stays below the HTTP layer; the
// node's client (or a test's fake node) is bound to it by whoever builds a
// NodeApi.

#include <functional>
#include <string>
#include <string_view>

#include "sion/base/result.hpp"

namespace sion::wallet {

struct HttpReply {
  unsigned status = 0;       // 200, 202, 404, ...
  std::string content_type;  // as sent, e.g. "application/json"
  std::string body;
};

// Sends `method` `path` (the path with its query, e.g.
// "/v1/log/consistency?from=3&to=9") with `body` of `content_type` (both
// empty for a GET). An error is a transport failure (io_error: the node could
// not be reached, the connection broke, a timeout); any reply the node sent,
// of whatever status, is a HttpReply.
using HttpCall = std::function<base::Result<HttpReply>(std::string_view method, std::string_view path,
                                                       std::string_view body, std::string_view content_type)>;

}  // namespace sion::wallet
