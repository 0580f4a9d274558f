#include "sion/http/reply.hpp"

namespace sion::http {

Reply& Reply::operator=(Reply&& other) noexcept {
  if (this != &other) {
    drop();
    target_ = std::move(other.target_);
  }
  return *this;
}

Reply::~Reply() { drop(); }

void Reply::operator()(Response response) {
  if (auto target = std::move(target_)) target->deliver(std::move(response), false);
}

void Reply::drop() noexcept {
  if (auto target = std::move(target_)) {
    try {
      target->deliver(json_error(500, "internal", "the handler finished without answering"), true);
    } catch (...) {
      // Out of memory while building the answer: the connection is closed by the server's stop.
    }
  }
}

}  // namespace sion::http
